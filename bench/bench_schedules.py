"""The CFR variants of the schedule side by side, on both engines.

Writes ``--out`` (default ``bench/results/schedules.md``):

* **public engine**: iterations (and solve seconds) to 0.5% and 0.1% of the pot on the turn
  spot (PioSOLVER's 3betpotFAST ranges and sizes, configs/spots/pio_3betpotfast.toml, on the
  turn QsJh2h8c, as ``bench/bench_subgame.py``'s turn spot), exploitability checked every
  ``--check-every`` iterations, for ``--public-algorithms`` (default dcfr, postflop, pcfr+);
* **tree engine**: exploitability on Leduc after each of ``--tree-checkpoints`` iterations
  for cfr, cfr+, linear (the ``lcfr`` agent), dcfr and pcfr+.

``--no-public`` runs the tree engine only.

    python bench/bench_schedules.py [--threads 2] [--check-every 1] [--no-public]
        [--public-algorithms dcfr,postflop,pcfr+] [--tree-checkpoints 10,100,1000]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_subgame import SPOT, cpu_name  # noqa: E402
from bench.common import table  # noqa: E402
from pokerzoo import __version__, schedule  # noqa: E402
from pokerzoo.agents.cfr.full_width import CFRSolver  # noqa: E402
from pokerzoo.agents.registry import make_agent  # noqa: E402
from pokerzoo.atomic import write_atomically  # noqa: E402
from pokerzoo.evaluation import exploitability  # noqa: E402
from pokerzoo.games import load_game  # noqa: E402
from pokerzoo.public.engine.solver import PublicSolver  # noqa: E402
from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree  # noqa: E402

TURN = "QsJh2h8c"
TARGETS = (0.5, 0.1)
TREE_AGENTS = {"cfr": "cfr", "cfr+": "cfr+", "linear": "lcfr", "dcfr": "dcfr",
               "pcfr+": "pcfr+"}
"""Schedule name -> the tree engine's registry agent running it."""


def code_version() -> str:
    """The checkout's commit (``+ changes`` when the work tree differs from it)."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return f"pokerzoo {__version__} (no git checkout)"
    return f"pokerzoo {__version__} at {commit}{' + changes' if dirty.strip() else ''}"


def turn_solver(algorithm: str, threads: int) -> PublicSolver:
    spot = HoldemSpot(**{**HoldemSpot.from_toml(SPOT).to_dict(), "board": TURN})
    return PublicSolver(build_spot_tree(spot), algorithm=algorithm, threads=threads)


def warm_up(threads: int) -> float:
    """Seconds to compile the kernels (or load them from numba's cache), before any timing:
    one iteration and one check on the turn spot (every algorithm runs the same kernels)."""
    start = time.perf_counter()
    solver = turn_solver("dcfr", threads)
    solver.iterate(1)
    solver.exploitability_pct()
    return time.perf_counter() - start


def solve_turn(algorithm: str, threads: int, check_every: int,
               max_iterations: int) -> dict[str, Any]:
    """Iterations and solve seconds (checks excluded) to each target on the turn spot."""
    solver = turn_solver(algorithm, threads)
    reached: dict[float, tuple[int, float]] = {}
    solve_s = 0.0
    pct = float("inf")
    while solver.iterations < max_iterations and len(reached) < len(TARGETS):
        start = time.perf_counter()
        solver.iterate(min(check_every, max_iterations - solver.iterations))
        solve_s += time.perf_counter() - start
        pct = solver.exploitability_pct()
        for target in TARGETS:
            if pct <= target and target not in reached:
                reached[target] = (solver.iterations, solve_s)
    print(f"  turn, {algorithm}: {solver.iterations} it, {pct:.4f}% pot, {solve_s:.1f} s",
          flush=True)
    return {"reached": reached, "iterations": solver.iterations, "pct": pct}


def tree_runs(checkpoints: list[int]) -> dict[str, list[float]]:
    """Leduc exploitability of each tree variant's average strategy at ``checkpoints``."""
    game = load_game("leduc_holdem")
    out = {}
    for name, agent_name in TREE_AGENTS.items():
        agent = make_agent(agent_name, game)
        assert isinstance(agent, CFRSolver)
        row = []
        for n in checkpoints:
            agent.iterate(n - agent.iteration)
            row.append(exploitability(agent.tree, agent.average_policy()))
        out[name] = row
        print(f"  leduc, {name}: " + ", ".join(f"{x:.3g}" for x in row), flush=True)
    return out


def report(args: argparse.Namespace, public: dict[str, dict[str, Any]] | None,
           tree: dict[str, list[float]], checkpoints: list[int]) -> list[str]:
    lines = [
        "# CFR variants side by side (bench/bench_schedules.py)",
        "",
        f"Code: {code_version()}. Libraries: Python {platform.python_version()}, numpy "
        f"{np.__version__}, numba {numba.__version__}. Machine: {cpu_name()}, "
        f"{os.cpu_count()} cores (possibly shared with other jobs during this run).",
        "",
        "## Public engine: the turn spot",
        "",
    ]
    if public is None:
        lines += ["Not run (`--no-public`).", ""]
    else:
        lines += [
            f"3betpotFAST's ranges and sizes on the turn {TURN} (pot 180, stack 910), "
            f"{args.threads} thread(s), exploitability checked every {args.check_every} "
            f"iteration(s), at most {args.max_iterations} iterations; seconds are solving "
            f"only (checks excluded), after {args.compile_s:.1f} s compiling the kernels or "
            "loading them from numba's cache.",
            "",
            table(["algorithm", *(f"iterations to {t}% pot" for t in TARGETS),
                   *(f"solve s to {t}%" for t in TARGETS)],
                  [[name,
                    *(str(r["reached"][t][0]) if t in r["reached"] else
                      f"> {r['iterations']}" for t in TARGETS),
                    *(f"{r['reached'][t][1]:.1f}" if t in r["reached"] else "-"
                      for t in TARGETS)]
                   for name, r in public.items()]),
            "",
        ]
    lines += [
        "## Tree engine: Leduc",
        "",
        "Exploitability (chips, (BR_0 + BR_1) / 2) of the average strategy after each "
        "iteration count; alternating updates, uniform start.",
        "",
        table(["algorithm", *(f"{n} it" for n in checkpoints)],
              [[name, *(f"{x:.3g}" for x in row)] for name, row in tree.items()]),
        "",
    ]
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--check-every", type=int, default=1)
    parser.add_argument("--max-iterations", type=int, default=2000)
    parser.add_argument("--public-algorithms", default="dcfr,postflop,pcfr+")
    parser.add_argument("--no-public", action="store_true", help="run the tree engine only")
    parser.add_argument("--tree-checkpoints", default="10,100,1000")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "schedules.md"))
    args = parser.parse_args(argv)
    checkpoints = sorted({int(n) for n in args.tree_checkpoints.split(",")})
    algorithms = [a for a in args.public_algorithms.split(",") if a]
    public = None
    if not args.no_public:
        for name in algorithms:
            if name not in schedule.ALGORITHMS:
                parser.error(f"unknown public algorithm {name!r}; known: "
                             f"{', '.join(schedule.ALGORITHMS)}")
        args.compile_s = warm_up(args.threads)
        public = {name: solve_turn(name, args.threads, args.check_every, args.max_iterations)
                  for name in algorithms}
    tree = tree_runs(checkpoints)
    out = Path(args.out)
    write_atomically(out, "\n".join(report(args, public, tree, checkpoints)).encode())
    print(f"wrote {out}", flush=True)


if __name__ == "__main__":
    main()
