"""Hold'em subgame solving: PioSOLVER's "3betpotFAST" flop spot and smaller spots, one run.

Writes ``--out`` (default ``bench/results/subgame.md``): the flop spot's root equity, EVs and
OOP's bet frequency, the time (solve only, exploitability checks excluded, and wall clock with
them; also the CPU seconds of all threads, the honest measure on a shared machine) and the peak
memory to 0.5 / 0.3 / 0.1% of the pot, beside postflop-solver's, PioSOLVER's, GTO+'s and
TexasSolver's published times; then the same
ranges and sizes as a turn spot and a river spot solved to 0.1%, and, with ``--openspiel``
(default, when ``bench/subgame_openspiel.py`` exists), its river section: OpenSpiel's
``universal_poker`` beside ours. The flop solve stops at 0.1% or after ``--flop-seconds``
(what it reached is reported as such). ``--threads N`` sweeps the subtrees below the first
chance cards on N threads; ``--storage compressed`` keeps 16-bit regrets and sums;
``--no-isomorphism`` deals every card as its own subtree; ``--no-small`` skips the turn and
river spots.

    python bench/bench_subgame.py [--flop-seconds 900] [--threads 2] [--storage f32]
        [--out FILE] [--no-openspiel] [--no-small]

**Beside postflop-solver in one run** (``--postflop-solver DIR``): builds postflop-solver
(b-inary's Rust solver, AGPL-3.0; used as a library by our own driver
``bench/postflop_solver/main.rs``, never copied into this repository) from a local checkout
``DIR`` and runs it and pokerzoo, each as a child process, on the flop spot above, on 1 and 2
threads (``--side-threads``), with postflop-solver's ``solve()`` cadence: the exploitability
before the first iteration and after every 10th, up to 0.5 / 0.3 / 0.1% of the pot
(``--side-targets``; the last one stops the solve). Each row: iterations, solve seconds
(checks excluded) and CPU seconds to each target, wall seconds with the checks, tree build
seconds, peak resident memory (the child's ``ru_maxrss``) and the whole command's seconds
(start to exit, pokerzoo's imports and a warm numba cache included); the section is put at
the top of ``--out`` below its title, the file's other sections kept as history.

Getting and building the checkout: ``git clone https://github.com/b-inary/postflop-solver DIR``
(any copy of its source will do). The harness writes a Cargo workspace into ``--cargo-dir``
(default ``DIR/target/pokerzoo-bench``, inside the checkout's own ignored build folder): a
manifest for the library over ``DIR/src`` (its ``rayon`` feature only, dependencies
``once_cell``, ``regex``, ``rayon`` at any 1.x, so the bincode/zstd file I/O is left out) and
one for the driver, then runs ``cargo build --release`` there with its output shown. Cargo
fetches the crates from crates.io; offline, install Debian's ``librust-once-cell-dev
librust-regex-dev librust-rayon-dev`` and pass ``--cargo-registry /usr/share/cargo/registry``
(their directory registry; the build then runs ``--offline``). Lints are capped at warnings
(newer compilers deny some patterns of that source).

    python bench/bench_subgame.py --postflop-solver DIR [--cargo-registry REGISTRY]
        [--side-threads 1 2] [--side-targets 0.5 0.3 0.1] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import code_version, library_versions, table  # noqa: E402
from pokerzoo.atomic import write_atomically  # noqa: E402
from pokerzoo.public.engine.solver import PublicSolver  # noqa: E402
from pokerzoo.public.spots.holdem_spot import (  # noqa: E402
    HoldemSpot,
    SpotSolution,
    build_spot_tree,
    solve_spot,
    spot_equity,
)

SPOT = ROOT / "configs" / "spots" / "pio_3betpotfast.toml"
TARGETS = (0.5, 0.3, 0.1)
ANCHOR = {"equity_oop": 0.55347, "ev_oop": 105.11, "ev_ip": 74.89, "bet_oop": 0.552}


def peak_rss_gb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def rss_gb() -> float:
    """Resident memory of this process now (GiB; 0 where /proc is missing)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return 0.0


def solve_timed(spot: HoldemSpot, seconds: float, check_every: int,
                threads: int = 1, storage: str = "f32",
                stop_at: float = min(TARGETS), restart_limit: int = 0,
                every_iteration_from: int | None = None) -> dict[str, Any]:
    """Build and solve ``spot`` to ``stop_at`` % of the pot (default 0.1) or ``seconds`` of
    solving, checking every ``check_every`` iterations (every iteration from
    ``every_iteration_from`` on, to see where a target is crossed); the times each target was first
    reached (solve time without the checks, wall time with them, and the CPU seconds of the
    solve summed over threads)."""
    rss_before = rss_gb()
    start = time.perf_counter()
    tree = build_spot_tree(spot)
    build_s = time.perf_counter() - start
    solver = PublicSolver(tree, threads=threads, storage=storage, restart_limit=restart_limit)
    solve_s = cpu_s = 0.0
    wall0 = time.perf_counter()
    reached: dict[float, tuple[int, float, float, float]] = {}
    history = []
    pct = float("inf")
    while solve_s < seconds:
        t, c = time.perf_counter(), time.process_time()
        fine = every_iteration_from is not None and solver.iterations >= every_iteration_from
        solver.iterate(1 if fine else check_every)
        solve_s += time.perf_counter() - t
        cpu_s += time.process_time() - c
        pct = solver.exploitability_pct()
        history.append((solver.iterations, solve_s, pct))
        print(f"  {spot.board}: {solver.iterations} it, {solve_s:.1f} s ({cpu_s:.1f} cpu s), "
              f"{pct:.4f}% pot", flush=True)
        for target in TARGETS:
            if pct <= target and target not in reached:
                reached[target] = (solver.iterations, solve_s, time.perf_counter() - wall0,
                                   cpu_s)
        if pct <= stop_at:
            break
    solution = SpotSolution(spot, tree, solver, solver.iterations, solve_s, pct, history)
    ev = solution.root_ev()
    freqs = solution.action_frequencies(0)
    bet = sum(f for a, f in freqs.items() if a != "check")
    return {
        "spot": spot, "tree": tree.summary(), "threads": threads, "build_s": build_s,
        "reached": reached, "storage": storage, "rss_before_gb": rss_before,
        "pct": pct, "iterations": solver.iterations, "solve_s": solve_s, "cpu_s": cpu_s,
        "equity": spot_equity(tree)[1], "ev": ev, "bet_oop": bet, "freqs": freqs,
        "memory_estimate_gb": solver.memory_bytes / 2**30, "peak_rss_gb": peak_rss_gb(),
        "check_every": check_every, "every_iteration_from": every_iteration_from,
        "history": history,
    }


def rows_for(result: dict[str, Any]) -> list[list[object]]:
    rows: list[list[object]] = []
    for target in TARGETS:
        if target in result["reached"]:
            it, solve_s, wall_s, cpu_s = result["reached"][target]
            rows.append([f"{target}%", it, f"{solve_s:.1f}", f"{wall_s:.1f}", f"{cpu_s:.1f}"])
        else:
            rows.append([f"{target}%", "not reached", "-", "-", "-"])
    return rows


def describe(name: str, result: dict[str, Any]) -> list[str]:
    spot = result["spot"]
    eq, ev = result["equity"], result["ev"]
    tree = result["tree"]
    lines = [
        f"### {name}: {spot.board}, pot {spot.starting_pot}, stack {spot.effective_stack}",
        "",
        f"Tree: {tree['nodes']:,} nodes ({tree['decision']:,} decisions, {tree['chance']:,} "
        f"chance, {tree['fold'] + tree['showdown']:,} terminals), hands OOP {tree['hands_0']} / "
        f"IP {tree['hands_1']}, {tree['storage']:,} storage entries; exploitability checked "
        f"every {result['check_every']} iterations"
        + (f" (every iteration from {result['every_iteration_from']})"
           if result["every_iteration_from"] is not None else "")
        + "; built in "
        f"{result['build_s']:.1f} s. Solver memory {result['memory_estimate_gb']:.3f} GiB "
        f"({result['memory_estimate_gb'] * 2**30 / 1e9:.3f} GB, {result['storage']}: the "
        "tree's arrays and terminal tables as built, regrets and sums, the solver's per-node "
        "arrays, every thread's sweep buffers and a threaded pass's values per subtree); peak "
        "resident memory of the run so far "
        f"{result['peak_rss_gb']:.2f} GiB ({result['peak_rss_gb'] * 2**30 / 1e9:.2f} GB; the "
        f"process held {result['rss_before_gb']:.2f} GiB before building this spot).",
        "",
        table(["target (% pot)", "iterations", f"solve s ({result['threads']} thread(s))",
               "wall s (with checks)", "solve cpu s (all threads)"],
              rows_for(result)),
        "",
        f"After {result['iterations']} iterations ({result['solve_s']:.1f} s of solving, "
        f"{result['solve_s'] / max(result['iterations'], 1):.2f} s and "
        f"{result['cpu_s'] / max(result['iterations'], 1):.2f} cpu s per iteration): "
        f"exploitability {result['pct']:.4f}% of the pot; root equity OOP "
        f"{100 * eq[0]:.3f}% / IP {100 * eq[1]:.3f}%; EV OOP {ev[0]:.2f} / IP {ev[1]:.2f}; "
        "OOP at the root: " + ", ".join(f"{a} {100 * f:.1f}%" for a, f in result["freqs"].items())
        + ".",
        "",
    ]
    return lines


def verdict(flop: dict[str, Any]) -> list[str]:
    """How the flop run compares with the anchors and the targets."""
    eq, ev = flop["equity"], flop["ev"]
    lines = ["Against the anchors and the targets:", ""]
    matched = (abs(eq[0] - ANCHOR["equity_oop"]) <= 1e-5 and abs(ev[0] - ANCHOR["ev_oop"]) <= 0.2
               and abs(ev[1] - ANCHOR["ev_ip"]) <= 0.2)
    lines.append(
        f"- Values: root equity {100 * eq[0]:.4f}%, EV {ev[0]:.2f} / {ev[1]:.2f}, OOP bets "
        f"{100 * flop['bet_oop']:.1f}% at {flop['pct']:.3f}% pot: "
        + ("within the anchors' tolerances." if matched else "outside the anchors' tolerances.")
    )
    if 0.5 in flop["reached"]:
        t05 = flop["reached"][0.5][1]
        lines.append(
            f"- Speed: {t05:.0f} s to 0.5% on {flop['threads']} thread(s) of "
            f"{os.cpu_count()} cores (wall clock; {flop['reached'][0.5][3]:.0f} cpu s), "
            f"against the target of 60 s on 2 cores ("
            + ("met" if t05 <= 60 else f"missed, {t05 / 60:.2g}x") + "); postflop-solver's "
            f"20.0 s on 6 threads is 120 thread-seconds, so we are about "
            f"{t05 * flop['threads'] / 120:.1f}x its time per core by the wall clock and "
            f"{flop['reached'][0.5][3] / 120:.1f}x by the cpu seconds (the measure to read on a "
            "shared machine)."
        )
    else:
        lines.append("- Speed: 0.5% was not reached in the time given (target 60 s on 2 cores).")
    solver_gb = flop["memory_estimate_gb"] * 2**30 / 1e9
    rss_gb = flop["peak_rss_gb"] * 2**30 / 1e9
    base_gb = flop["rss_before_gb"] * 2**30 / 1e9
    lines.append(
        f"- Memory: the solver holds {solver_gb:.3f} GB ({flop['storage']}; tree, terminal "
        "tables, storage and buffers) against the target of 1.3 GB in f32 ("
        + ("met" if solver_gb <= 1.3 else "missed") + f"); the process peaked at {rss_gb:.3f} "
        f"GB resident, {base_gb:.3f} GB of it held before the spot was built (Python, numpy, "
        "numba)" + (f"; this run's storage: {flop['storage']}" if flop["storage"] != "f32"
                    else "") + "; postflop-solver's anchors: 1.27 GB f32, 0.68 GB 16-bit."
    )
    lines.append("")
    return lines


def openspiel_lines(enabled: bool) -> list[str]:
    """The OpenSpiel river section of ``bench/subgame_openspiel.py`` (when it exists and
    ``enabled``), else one line saying why it is absent."""
    if not enabled:
        return ["## OpenSpiel's universal_poker beside ours", "",
                "Not run in this run (--no-openspiel).", ""]
    try:
        from bench.subgame_openspiel import openspiel_river_section
    except ImportError as error:
        return ["## OpenSpiel's universal_poker beside ours", "",
                f"Not run: bench/subgame_openspiel.py could not be imported ({error}).", ""]
    return [*openspiel_river_section(), ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postflop-solver", metavar="DIR", default=None,
                        help="run pokerzoo beside postflop-solver built from this checkout "
                             "(see the module docstring) instead of the usual run")
    parser.add_argument("--cargo-dir", default=None,
                        help="where the Cargo workspace is written and built (default: "
                             "DIR/target/pokerzoo-bench)")
    parser.add_argument("--cargo-registry", default=None, metavar="REGISTRY",
                        help="a directory registry of the crates (e.g. Debian's), built "
                             "--offline")
    parser.add_argument("--side-threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--side-targets", type=float, nargs="+", default=list(TARGETS),
                        help="%% of the pot; the last one stops each solve")
    parser.add_argument("--side-max-iterations", type=int, default=1000)
    parser.add_argument("--pokerzoo-row", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--flop-seconds", type=float, default=900.0)
    parser.add_argument("--small-seconds", type=float, default=300.0)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "subgame.md"))
    parser.add_argument("--threads", type=int, default=1,
                        help="solver threads (subtrees below the first chance cards)")
    parser.add_argument("--storage", choices=("f32", "compressed"), default="f32",
                        help="regrets and strategy sums in float32 or 16-bit codes")
    parser.add_argument("--every-iteration-from", type=int, default=None, metavar="N",
                        help="flop: check after every iteration from iteration N on")
    parser.add_argument("--restart-limit", type=int, default=0,
                        help="the average restarts at the powers of 4 up to this iteration "
                             "only (0: at all of them, postflop-solver's schedule)")
    parser.add_argument("--no-isomorphism", action="store_true",
                        help="deal every card as its own subtree (no suit isomorphism)")
    parser.add_argument("--no-small", action="store_true",
                        help="skip the turn and river spots")
    parser.add_argument("--openspiel", action=argparse.BooleanOptionalAction, default=True,
                        help="add bench/subgame_openspiel.py's river section")
    parser.add_argument("--stop-at", type=float, default=min(TARGETS),
                        help="stop the flop solve at this exploitability (%% of the pot)")
    parser.add_argument("--check-every", type=int, default=10,
                        help="iterations between exploitability checks (flop)")
    args = parser.parse_args()
    if args.pokerzoo_row:
        pokerzoo_row(args.threads, args.side_targets, args.check_every,
                     args.side_max_iterations)
        return
    if args.postflop_solver is not None:
        side_by_side(args)
        return
    print("compiling the kernels on a small spot (cached on disk after the first run)",
          flush=True)
    t = time.perf_counter()
    # A small flop spot, on the run's threads: it compiles the threaded sweep of the subtrees
    # below the chance nodes and the batched river pass too (left to the first timed
    # iteration, each cost 12-25 s of it).
    solve_spot(HoldemSpot("QsJh2h", 100, 150, "AA,KK", "QQ,JJ", flop_sizes=("50%", "a"),
                          turn_sizes="a", river_sizes="a"),
               max_iterations=2, storage=args.storage, threads=args.threads)
    compile_s = time.perf_counter() - t
    base = HoldemSpot.from_toml(SPOT)
    fields = {**base.to_dict(), "suit_isomorphism": not args.no_isomorphism}
    base = HoldemSpot(**fields)
    small: list[str] = []
    if not args.no_small:
        for name, board in (("River", "QsJh2h8c3d"), ("Turn", "QsJh2h8c")):
            result = solve_timed(HoldemSpot(**{**fields, "board": board}), args.small_seconds,
                                 10, args.threads, args.storage,
                                 restart_limit=args.restart_limit)
            small = [*describe(name, result), *small]
    flop = solve_timed(base, args.flop_seconds, args.check_every, args.threads, args.storage,
                       args.stop_at, args.restart_limit, args.every_iteration_from)
    head, tail = report(args, compile_s, flop, small)
    write(args.out, head + tail)
    print(f"wrote {args.out}", flush=True)
    if args.openspiel:
        write(args.out, head + openspiel_lines(True) + tail)
        print(f"wrote {args.out} with the OpenSpiel section", flush=True)


def write(path: str, lines: list[str]) -> None:
    write_atomically(Path(path), "\n".join(lines).encode())


def report(args: argparse.Namespace, compile_s: float, flop: dict[str, Any],
           small: list[str]) -> tuple[list[str], list[str]]:
    """The results file's lines: before the OpenSpiel section, and after it."""
    eq, ev = flop["equity"], flop["ev"]
    restarts = (f"up to iteration {args.restart_limit}" if args.restart_limit
                else "at every power of 4")
    head = [
        "# Hold'em subgame solving (bench/bench_subgame.py)",
        "",
        f"Machine: {cpu_name()}, {os.cpu_count()} cores (possibly shared with other jobs "
        f"during this run: compare the cpu seconds), Python {platform.python_version()}; "
        f"{args.threads} solver thread(s); {args.storage} storage; average restarts "
        f"{restarts}; suit isomorphism "
        f"{'off' if args.no_isomorphism else 'on'}. Kernel compilation (or loading it from "
        f"numba's cache) before timing: {compile_s:.1f} s.",
        "",
        "## PioSOLVER's 3betpotFAST (configs/spots/pio_3betpotfast.toml)",
        "",
        table(
            ["quantity", "ours", "anchor (PioSOLVER / postflop-solver, at 0.1% pot)"],
            [["root equity OOP", f"{100 * eq[0]:.4f}%", "55.347% (+-0.001)"],
             ["root equity IP", f"{100 * eq[1]:.4f}%", "44.653%"],
             ["EV OOP", f"{ev[0]:.2f}", "105.11 (+-0.2)"],
             ["EV IP", f"{ev[1]:.2f}", "74.89 (+-0.2)"],
             ["OOP bets at the root", f"{100 * flop['bet_oop']:.1f}%", "55.2%"],
             ["exploitability reached", f"{flop['pct']:.3f}% pot", "0.1%"],
             ["iterations / solve seconds", f"{flop['iterations']} / {flop['solve_s']:.0f}",
              "-"]],
        ),
        "",
        "The root equity does not depend on the strategies (showdown equity over every runout);"
        " the EVs and the bet frequency do, so they match the anchors only once the solve "
        "reaches about 0.1%.",
        "",
        "Anchors, time to 0.5 / 0.3 / 0.1% pot: postflop-solver 20.0 / 24.9 / 44.4 s on 6 "
        "threads of a Ryzen 7 3700X (1.27 GB f32, 0.68 GB 16-bit); PioSOLVER 22.9 / 28.2 / 60.1 "
        "s; GTO+ 22.0 / 31.4 / 67.7 s; TexasSolver 103.5 / 149.0 / 285.9 s (2.84 GB). Target: "
        "<= 60 s to 0.5% on 2 cores, <= 1.3 GB in f32.",
        "",
        *describe("Flop (the benchmark spot)", flop),
        *verdict(flop),
    ]
    if small:
        head += [
            "## The same ranges and sizes from the turn and the river",
            "",
            "Not the benchmark (the pot and ranges are the flop's, not what reaches the turn); "
            "a full solve of a smaller tree with the same kernels.",
            "",
            *small,
        ]
    tail = [
        "## What is missing",
        "",
        "- One run measures one thread count, one storage and one isomorphism setting (flags "
        "--threads, --storage, --no-isomorphism).",
        "- No GPU: this script times the compiled CPU sweep only.",
        "",
    ]
    return head, tail


# ----------------------------------------------------------- beside postflop-solver

DRIVER = ROOT / "bench" / "postflop_solver" / "main.rs"
DRIVER_NAME = "pokerzoo-bench-postflop-solver"


def cargo_workspace(checkout: Path, where: Path, registry: str | None) -> None:
    """Write the Cargo manifests of the driver and of postflop-solver's library (its source
    read from ``checkout``, nothing copied) into ``where``."""
    (where / "lib").mkdir(parents=True, exist_ok=True)
    (where / ".cargo").mkdir(exist_ok=True)
    (where / "Cargo.toml").write_text(f"""[package]
name = "{DRIVER_NAME}"
version = "0.1.0"
edition = "2021"
publish = false

[[bin]]
name = "{DRIVER_NAME}"
path = "{DRIVER}"

[dependencies]
postflop-solver = {{ path = "lib", default-features = false, features = ["rayon"] }}
rayon = "1"

[profile.release]
codegen-units = 1
lto = true
""")
    (where / "lib" / "Cargo.toml").write_text(f"""[package]
name = "postflop-solver"
version = "0.1.0"
edition = "2021"
publish = false

[lib]
path = "{checkout / 'src' / 'lib.rs'}"

[dependencies]
once_cell = "1"
rayon = {{ version = "1", optional = true }}
regex = "1"

[features]
default = ["rayon"]
rayon = ["dep:rayon"]
""")
    config = '[build]\nrustflags = ["--cap-lints", "warn"]\n'
    if registry is not None:
        config += ('\n[source.crates-io]\nreplace-with = "local-registry"\n\n'
                   f'[source.local-registry]\ndirectory = "{Path(registry).resolve()}"\n')
    (where / ".cargo" / "config.toml").write_text(config)


def build_postflop_solver(checkout: Path, where: Path, registry: str | None) -> tuple[Path, float]:
    """``cargo build --release`` of the driver (its output shown); the binary and the
    build's seconds."""
    if not (checkout / "src" / "lib.rs").is_file():
        raise SystemExit(f"--postflop-solver {checkout}: no src/lib.rs there; give a checkout "
                         "of github.com/b-inary/postflop-solver")
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    if not Path(cargo).exists():
        raise SystemExit("cargo not found on PATH nor in ~/.cargo/bin: install Rust (rustup)")
    cargo_workspace(checkout, where, registry)
    command = [cargo, "build", "--release"] + (["--offline"] if registry else [])
    print(f"building postflop-solver: {' '.join(command)} (in {where})", flush=True)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=where, check=False)
    if done.returncode != 0:
        raise SystemExit(f"cargo build failed (exit {done.returncode}); its output is above")
    return where / "target" / "release" / DRIVER_NAME, time.perf_counter() - start


def run_child(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Run ``command``, echoing its output; its ``result`` line's fields, the whole
    command's seconds, its CPU seconds and its peak resident memory (GB)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env=env, cwd=ROOT)
    fields: dict[str, Any] = {}
    assert child.stdout is not None
    for line in child.stdout:
        print("   ", line.rstrip(), flush=True)
        if line.startswith("result "):
            fields = dict(item.split("=", 1) for item in line.split()[1:])
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0 or not fields:
        raise SystemExit(f"{command[0]} failed (exit {child.returncode}); its output is above")
    fields["command_s"] = time.perf_counter() - start
    fields["command_cpu_s"] = usage.ru_utime + usage.ru_stime
    fields["peak_gb"] = usage.ru_maxrss * 1024 / 1e9  # Linux reports KiB
    return fields


def spot_arguments(spot: HoldemSpot, targets: list[float], check_every: int,
                   max_iterations: int) -> list[str]:
    """The driver's ``key=value`` arguments for ``spot`` (a flop spot of sizes as strings)."""
    out = {"board": spot.board, "pot": spot.starting_pot, "stack": spot.effective_stack,
           "oop_range": spot.oop_range, "ip_range": spot.ip_range,
           "targets": ",".join(f"{t:g}" for t in targets), "check_every": check_every,
           "max_iterations": max_iterations}
    for street in ("flop", "turn", "river"):
        pairs = getattr(spot, f"{street}_sizes")
        for p, player in enumerate(("oop", "ip")):
            bets, raises = pairs[p] if isinstance(pairs[p], tuple) else pairs
            out[f"{street}_bets_{player}"], out[f"{street}_raises_{player}"] = bets, raises
    return [f"{k}={v}" for k, v in out.items()]


def pokerzoo_row(threads: int, targets: list[float], check_every: int,
                 max_iterations: int) -> None:
    """The pokerzoo side (a child process): the flop spot solved as the driver solves it,
    printed as the driver's ``result`` line."""
    from pokerzoo.public.engine.tree_builder import first_seen

    spot = HoldemSpot.from_toml(SPOT)
    # numba's start-up in a process (1.5 s on a loaded 2-core machine, paid by whatever
    # compiled function runs first; the sweep would pay it otherwise), timed apart from the
    # build it would land in.
    start = time.perf_counter()
    first_seen(np.zeros(1, dtype=np.int32), 1)
    numba_start_s = time.perf_counter() - start
    start = time.perf_counter()
    tree = build_spot_tree(spot)
    build_s = time.perf_counter() - start
    start = time.perf_counter()
    solver = PublicSolver(tree, threads=threads)
    allocate_s = time.perf_counter() - start
    wall0 = time.perf_counter()
    solve_s = solve_cpu = 0.0
    pct = solver.exploitability_pct()
    reached: dict[float, str] = {}
    while solver.iterations < max_iterations and pct > targets[-1]:
        t, c = time.perf_counter(), time.process_time()
        solver.iterate(min(check_every, max_iterations - solver.iterations))
        solve_s += time.perf_counter() - t
        solve_cpu += time.process_time() - c
        pct = solver.exploitability_pct()
        print(f"check iterations={solver.iterations} solve_s={solve_s:.3f} pct={pct:.5f}",
              flush=True)
        for target in targets:
            if pct <= target and target not in reached:
                reached[target] = (f"{solver.iterations}/{solve_s:.3f}/"
                                   f"{time.perf_counter() - wall0:.3f}/{solve_cpu:.2f}")
    solution = SpotSolution(spot, tree, solver, solver.iterations, solve_s, pct)
    ev = solution.root_ev()
    bet = sum(f for a, f in solution.action_frequencies(0).items() if a != "check")
    fields = {"numba_start_s": f"{numba_start_s:.3f}", "build_s": f"{build_s:.4f}",
              "allocate_s": f"{allocate_s:.4f}",
              "iterations": solver.iterations, "solve_s": f"{solve_s:.3f}",
              "solve_cpu_s": f"{solve_cpu:.2f}", "pct": f"{pct:.5f}",
              "equity_oop": f"{spot_equity(tree)[1][0]:.6f}", "ev_oop": f"{ev[0]:.3f}",
              "ev_ip": f"{ev[1]:.3f}", "bet_oop": f"{bet:.4f}",
              "memory_gb": f"{solver.memory_bytes / 1e9:.4f}", "threads": threads,
              **{f"reached_{t:g}": v for t, v in reached.items()}}
    print("result " + " ".join(f"{k}={v}" for k, v in fields.items()), flush=True)


def side_rows(runs: list[tuple[str, int, dict[str, Any]]],
              targets: list[float]) -> list[list[object]]:
    """One table row per solver and thread count."""
    rows: list[list[object]] = []
    for name, threads, r in runs:
        cells: list[object] = [name, threads]
        for target in targets:
            hit = r.get(f"reached_{target:g}")
            if hit is None:
                cells.append("not reached")
                continue
            it, solve_s, wall_s, cpu_s = hit.split("/")
            cells.append(f"{it} / {float(solve_s):.1f} / {float(cpu_s):.1f} / "
                         f"{float(wall_s):.1f}")
        start = r.get("numba_start_s")
        cells += [f"{float(r['build_s']):.2f}"
                  + (f" (+{float(start):.2f} numba start)" if start is not None else ""),
                  f"{float(r['allocate_s']):.2f}", f"{r['peak_gb']:.2f}",
                  f"{r['command_s']:.1f}", f"{r['command_cpu_s']:.1f}",
                  f"{float(r['pct']):.3f}% at {r['iterations']}",
                  f"{float(r['ev_oop']):.2f} / {float(r['ev_ip']):.2f}",
                  f"{100 * float(r['bet_oop']):.1f}%"]
        rows.append(cells)
    return rows


def side_by_side(args: argparse.Namespace) -> None:
    """Build postflop-solver, run both solvers on every thread count, write the section."""
    checkout = Path(args.postflop_solver).resolve()
    where = Path(args.cargo_dir or checkout / "target" / "pokerzoo-bench").resolve()
    binary, cargo_s = build_postflop_solver(checkout, where, args.cargo_registry)
    spot = HoldemSpot.from_toml(SPOT)
    targets = sorted(args.side_targets, reverse=True)
    load_before = os.getloadavg()

    def pokerzoo(threads: int, iterations: int, env: dict[str, str]) -> dict[str, Any]:
        return run_child(
            [sys.executable, str(Path(__file__).resolve()), "--pokerzoo-row", "--threads",
             str(threads), "--check-every", str(args.check_every), "--side-max-iterations",
             str(iterations), "--side-targets", *map(str, targets)], env)

    runs: list[tuple[str, int, dict[str, Any]]] = []
    first: dict[int, float] = {}
    for threads in args.side_threads:
        env = {**os.environ, "RAYON_NUM_THREADS": str(threads),
               "NUMBA_NUM_THREADS": str(max(threads, 1))}
        # One iteration first, untimed in the table: it fills numba's disk cache where it
        # is cold (its seconds are the first run's), so the rows below are warm.
        print(f"pokerzoo, {threads} thread(s), one iteration (numba's cache)", flush=True)
        first[threads] = pokerzoo(threads, 1, env)["command_s"]
        print(f"postflop-solver, {threads} thread(s)", flush=True)
        runs.append(("postflop-solver", threads, run_child(
            [str(binary), *spot_arguments(spot, targets, args.check_every,
                                          args.side_max_iterations)], env)))
        print(f"pokerzoo, {threads} thread(s)", flush=True)
        runs.append(("pokerzoo", threads, pokerzoo(threads, args.side_max_iterations, env)))
    load_after = os.getloadavg()
    lines = side_section(checkout, where, cargo_s, spot, targets, args, runs,
                         (load_before[0], load_after[0]), first)
    out = Path(args.out)
    old = out.read_text().splitlines() if out.exists() else ["# Hold'em subgame solving"]
    # The new section goes first below the title; everything else stays as history.
    head = 1 if old and old[0].startswith("# ") else 0
    write(str(out), [*old[:head], "", *lines, *old[head:]])
    print(f"wrote {out}", flush=True)


def side_section(checkout: Path, where: Path, cargo_s: float, spot: HoldemSpot,
                 targets: list[float], args: argparse.Namespace,
                 runs: list[tuple[str, int, dict[str, Any]]],
                 load: tuple[float, float], first: dict[int, float]) -> list[str]:
    """The results file's section of a side-by-side run."""
    lock = where / "Cargo.lock"
    crates = []
    if lock.exists():
        text = lock.read_text().split("[[package]]")
        for block in text:
            fields = dict(line.split(" = ", 1) for line in block.strip().splitlines()
                          if " = " in line)
            if fields.get("name", "").strip('"') in ("once_cell", "rayon", "regex"):
                crates.append(f"{fields['name'].strip(chr(34))} {fields['version'].strip(chr(34))}")
    rustc = subprocess.run([str(Path(shutil.which("cargo") or "cargo").parent / "rustc"),
                            "--version"], capture_output=True, text=True, check=False)
    headers = ["solver", "threads", *[f"to {t:g}%: it / solve s / cpu s / wall s" for t in targets],
               "tree build s", "set-up s", "peak GB", "whole command s", "command cpu s",
               "exploitability at the end", "EV OOP / IP", "OOP bets"]
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return [
        f"## postflop-solver beside pokerzoo, one run ({when})",
        "",
        f"`python bench/bench_subgame.py --postflop-solver DIR` on "
        f"{spot.board} (configs/spots/pio_3betpotfast.toml), exploitability checked before the "
        f"first iteration and after every {args.check_every}th as postflop-solver's `solve()` "
        f"does, each solver a child process run one after the other. Machine: {cpu_name()}, "
        f"{os.cpu_count()} cores, load average {load[0]:.1f} before and {load[1]:.1f} after "
        "(a shared machine reads best by the cpu seconds). Versions: pokerzoo "
        f"{code_version(ROOT)}; postflop-solver {code_version(checkout)} built in "
        f"{cargo_s:.0f} s (`cargo build --release`, rayon feature only, "
        f"{', '.join(crates) or 'crate versions unknown'}; {rustc.stdout.strip()}); "
        f"{library_versions()}.",
        "",
        table(headers, side_rows(runs, targets)),
        "",
        "Solve s: the iterations only (checks excluded); cpu s: of those iterations, all "
        "threads; wall s: from before the first check to the check reaching the target, "
        "checks included. Tree build: postflop-solver's `ActionTree::new` and "
        "`PostFlopGame::with_config`; pokerzoo's `build_spot_tree`. Peak GB: the child's "
        "peak resident memory. Whole command: the child process from start to exit (pokerzoo's "
        "imports, numba's cache loads and the final values included). Before each thread "
        "count's rows, a pokerzoo process ran one iteration to fill numba's disk cache: "
        + ", ".join(f"{seconds:.1f} s on {threads} thread(s)" for threads, seconds in
                    first.items())
        + " for that whole command (a cold cache's compile where the cache was empty: run "
        "with `NUMBA_CACHE_DIR` set to an empty folder for a cold first run).",
        "",
    ]


if __name__ == "__main__":
    main()
