"""Hold'em subgame solving: PioSOLVER's "3betpotFAST" flop spot and smaller spots, one run.

Writes ``bench/results/subgame.md``: the flop spot's root equity, EVs and OOP's bet frequency,
the time (solve only, exploitability checks excluded, and wall clock with them) and the peak
memory to 0.5 / 0.3 / 0.1% of the pot, beside the anchors of ../shared/ANCHORS.md; then the same
ranges and sizes as a turn spot and a river spot solved to 0.1%. The flop solve stops at 0.1%
or after ``--flop-seconds`` (what it reached is reported as such). ``--threads N`` sweeps the
subtrees below the first chance cards on N threads; ``--no-isomorphism`` deals every card as
its own subtree.

    python bench/bench_subgame.py [--flop-seconds 900] [--threads 2] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import table  # noqa: E402
from pokerzoo.public.holdem_spot import (  # noqa: E402
    HoldemSpot,
    SpotSolution,
    build_spot_tree,
    solve_spot,
    spot_equity,
)
from pokerzoo.public.solver import PublicSolver  # noqa: E402

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


def solve_timed(spot: HoldemSpot, seconds: float, check_every: int,
                threads: int = 1) -> dict[str, Any]:
    """Build and solve ``spot`` to 0.1% or ``seconds`` of solving; the times each target
    was first reached (solve time without the checks, and wall time with them)."""
    start = time.perf_counter()
    tree = build_spot_tree(spot)
    build_s = time.perf_counter() - start
    solver = PublicSolver(tree, threads=threads)
    solve_s = 0.0
    wall0 = time.perf_counter()
    reached: dict[float, tuple[int, float, float]] = {}
    history = []
    pct = float("inf")
    while solve_s < seconds:
        t = time.perf_counter()
        solver.iterate(check_every)
        solve_s += time.perf_counter() - t
        pct = solver.exploitability_pct()
        history.append((solver.iterations, solve_s, pct))
        print(f"  {spot.board}: {solver.iterations} it, {solve_s:.1f} s, {pct:.4f}% pot",
              flush=True)
        for target in TARGETS:
            if pct <= target and target not in reached:
                reached[target] = (solver.iterations, solve_s, time.perf_counter() - wall0)
        if pct <= min(TARGETS):
            break
    solution = SpotSolution(spot, tree, solver, solver.iterations, solve_s, pct, history)
    ev = solution.root_ev()
    freqs = solution.action_frequencies(0)
    bet = sum(f for a, f in freqs.items() if a != "check")
    return {
        "spot": spot, "tree": tree.summary(), "threads": threads, "build_s": build_s,
        "reached": reached,
        "pct": pct, "iterations": solver.iterations, "solve_s": solve_s,
        "equity": spot_equity(tree)[1], "ev": ev, "bet_oop": bet, "freqs": freqs,
        "memory_estimate_gb": solver.memory_bytes / 2**30, "peak_rss_gb": peak_rss_gb(),
        "history": history,
    }


def rows_for(result: dict[str, Any]) -> list[list[object]]:
    rows: list[list[object]] = []
    for target in TARGETS:
        if target in result["reached"]:
            it, solve_s, wall_s = result["reached"][target]
            rows.append([f"{target}%", it, f"{solve_s:.1f}", f"{wall_s:.1f}"])
        else:
            rows.append([f"{target}%", "not reached", "-", "-"])
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
        f"IP {tree['hands_1']}, {tree['storage']:,} storage entries; built in "
        f"{result['build_s']:.1f} s. Solver memory estimate {result['memory_estimate_gb']:.2f} "
        f"GiB (f32); peak resident memory of the run so far {result['peak_rss_gb']:.2f} GiB.",
        "",
        table(["target (% pot)", "iterations", f"solve s ({result['threads']} thread(s))",
               "wall s (with checks)"],
              rows_for(result)),
        "",
        f"After {result['iterations']} iterations ({result['solve_s']:.1f} s of solving): "
        f"exploitability {result['pct']:.4f}% of the pot; root equity OOP "
        f"{100 * eq[0]:.3f}% / IP {100 * eq[1]:.3f}%; EV OOP {ev[0]:.2f} / IP {ev[1]:.2f}; "
        "OOP at the root: " + ", ".join(f"{a} {100 * f:.1f}%" for a, f in result["freqs"].items())
        + ".",
        "",
    ]
    return lines


def verdict(flop: dict[str, Any]) -> list[str]:
    """How the flop run compares with the anchors and the issue's targets."""
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
            f"- Speed: {t05:.0f} s to 0.5% on {flop['threads']} thread(s) of a shared 2-core "
            f"machine, against the target of 60 s on 2 cores ("
            + ("met" if t05 <= 60 else f"missed, {t05 / 60:.0f}x") + "); postflop-solver's "
            f"20.0 s on 6 threads is 120 thread-seconds, so we are about "
            f"{t05 * flop['threads'] / 120:.1f}x its time per core."
        )
    else:
        lines.append("- Speed: 0.5% was not reached in the time given (target 60 s on 2 cores).")
    lines.append(
        f"- Memory: peak resident {flop['peak_rss_gb']:.2f} GiB (solver estimate "
        f"{flop['memory_estimate_gb']:.2f} GiB f32) against the target of 1.3 GB in f32 "
        "(" + ("met" if flop["peak_rss_gb"] <= 1.3 else "missed") + "; 16-bit storage "
        "halves the regrets and sums but was not timed here)."
    )
    lines.append("")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flop-seconds", type=float, default=900.0)
    parser.add_argument("--small-seconds", type=float, default=300.0)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "subgame.md"))
    parser.add_argument("--threads", type=int, default=1,
                        help="solver threads (subtrees below the first chance cards)")
    parser.add_argument("--no-isomorphism", action="store_true",
                        help="deal every card as its own subtree (no suit isomorphism)")
    args = parser.parse_args()
    print("compiling the kernels on a small spot", flush=True)
    t = time.perf_counter()
    solve_spot(HoldemSpot("QsJh2h8c3d", 100, 150, "AA,KK", "QQ,JJ", river_sizes=("50%", "a")),
               max_iterations=2)
    compile_s = time.perf_counter() - t
    base = HoldemSpot.from_toml(SPOT)
    fields = {**base.to_dict(), "suit_isomorphism": not args.no_isomorphism}
    base = HoldemSpot(**fields)
    river = solve_timed(HoldemSpot(**{**fields, "board": "QsJh2h8c3d"}), args.small_seconds, 10,
                        args.threads)
    turn = solve_timed(HoldemSpot(**{**fields, "board": "QsJh2h8c"}), args.small_seconds, 10,
                       args.threads)
    flop = solve_timed(base, args.flop_seconds, 10, args.threads)

    eq, ev = flop["equity"], flop["ev"]
    out = [
        "# Hold'em subgame solving (bench/bench_subgame.py)",
        "",
        f"Machine: {cpu_name()}, {os.cpu_count()} cores (shared with other jobs during this "
        f"run), Python {platform.python_version()}; {args.threads} solver thread(s); suit "
        f"isomorphism {'off' if args.no_isomorphism else 'on'}. Kernel compilation before "
        f"timing: {compile_s:.1f} s.",
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
        "## The same ranges and sizes from the turn and the river",
        "",
        "Not the benchmark (the pot and ranges are the flop's, not what reaches the turn); a "
        "full solve of a smaller tree with the same kernels.",
        "",
        *describe("Turn", turn),
        *describe("River", river),
        "## What is missing",
        "",
        "- One run measures one thread count and one isomorphism setting (flags "
        "--threads, --no-isomorphism).",
        "- OpenSpiel's universal_poker river comparison: not run. Its subgame mode "
        "(``potSize``, ``boardCards``, ``handReaches``) deals both hands at one chance node of "
        "all 1,624,350 hand pairs, zero-reach pairs included "
        "(``DistributeHandCardsInSubgame``), so even a 20-node river tree is about 30 million "
        "histories per traversal; the river spot is instead checked pair by pair against our "
        "own hold'em ``State`` rules in tests/public/test_holdem_spot.py (1e-6).",
        "- No GPU was lent to this task, so nothing is said about a batched torch sweep.",
        "",
    ]
    Path(args.out).write_text("\n".join(out))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
