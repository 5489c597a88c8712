"""Speed and quality of every tabular solver on Leduc, with OpenSpiel's counterparts measured in
the same run.

For each registered solver (CFR family, MCCFR, fictitious play): iterations per second
(single thread, compile time excluded) and exploitability after 1,000 and 10,000 iterations.
OpenSpiel's solvers are timed for a few seconds each (its Python ones are slow); their speed is
extrapolated from the iterations they ran, and their exploitability is given after those
iterations, in the "OpenSpiel" rows' own column. Exploitability is OpenSpiel's convention
(NashConv / 2), in chips.

    python bench/bench_solvers.py                    # Leduc, everything (a few minutes)
    python bench/bench_solvers.py --no-openspiel --game kuhn_poker
"""

from __future__ import annotations

import argparse
import os
import time

from pokerzoo import load_game
from pokerzoo.agents.registry import make_agent
from pokerzoo.evaluation import exploitability

SOLVERS = ["cfr", "cfr+", "lcfr", "dcfr", "xfp", "gxfp", "bufp-x", "bufp-ef", "mccfr-os",
           "mccfr-es"]
FULL_WIDTH_TARGET, OS_TARGET, ES_TARGET = 3_000, 200_000, 30_000


def bench_ours(game_name: str, checkpoints: list[int]) -> list[tuple]:
    game = load_game(game_name)
    rows = []
    for name in SOLVERS:
        make_agent(name, game, seed=0).iterate(2)  # compile (numba caches to disk too)
        solver = make_agent(name, game, seed=0)
        elapsed = 0.0
        values = []
        for n in checkpoints:
            start = time.perf_counter()
            solver.iterate(n - solver.iteration)
            elapsed += time.perf_counter() - start
            values.append(exploitability(solver.tree, solver.average_policy()))
        speed = checkpoints[-1] / elapsed
        target = OS_TARGET if name == "mccfr-os" else ES_TARGET if name == "mccfr-es" else (
            FULL_WIDTH_TARGET)
        rows.append((name, speed, target, values))
        print(f"  {name:<9} {speed:>12,.0f} it/s", flush=True)
    return rows


def bench_openspiel(game_name: str, seconds: float) -> list[tuple]:
    """(name, iterations run, it/s, exploitability after them) for OpenSpiel's solvers."""
    import pyspiel
    from open_spiel.python.algorithms import (
        discounted_cfr,
        external_sampling_mccfr,
        fictitious_play,
        outcome_sampling_mccfr,
    )
    from open_spiel.python.algorithms import exploitability as os_expl

    game = pyspiel.load_game({"leduc_holdem": "leduc_poker"}.get(game_name, game_name))
    candidates = [
        ("cfr (pyspiel C++)", pyspiel.CFRSolver, "evaluate_and_update_policy"),
        ("cfr+ (pyspiel C++)", pyspiel.CFRPlusSolver, "evaluate_and_update_policy"),
        ("lcfr (Python)", discounted_cfr.LCFRSolver, "evaluate_and_update_policy"),
        ("dcfr (Python)", discounted_cfr.DCFRSolver, "evaluate_and_update_policy"),
        ("xfp (Python)", fictitious_play.XFPSolver, "iteration"),
        ("mccfr-os (Python)", outcome_sampling_mccfr.OutcomeSamplingSolver, "iteration"),
        ("mccfr-es (Python)", external_sampling_mccfr.ExternalSamplingSolver, "iteration"),
    ]
    rows = []
    for name, cls, verb in candidates:
        solver = cls(game)
        step = getattr(solver, verb)
        start = time.perf_counter()
        n = 0
        while time.perf_counter() - start < seconds:
            step()
            n += 1
        speed = n / (time.perf_counter() - start)
        policy = solver.average_policy()
        value = (pyspiel.exploitability(game, policy) if "C++" in name
                 else os_expl.exploitability(game, policy))
        rows.append((name, n, speed, value))
        print(f"  {name:<20} {speed:>10,.1f} it/s ({n} iterations)", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="leduc_holdem")
    parser.add_argument("--iterations", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--openspiel-seconds", type=float, default=5.0)
    parser.add_argument("--no-openspiel", action="store_true")
    args = parser.parse_args()

    print(f"{args.game}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    ours = bench_ours(args.game, sorted(args.iterations))
    theirs = [] if args.no_openspiel else bench_openspiel(args.game, args.openspiel_seconds)

    cols = "".join(f"{f'expl. @{n:,}':>16}" for n in sorted(args.iterations))
    print(f"\n| {'solver':<20} | {'it/s':>12} | {'target':>9} |{cols} |")
    for name, speed, target, values in ours:
        ok = "ok" if speed >= target else "MISSED"
        cells = "".join(f"{v:>16.6f}" for v in values)
        print(f"| {name:<20} | {speed:>12,.0f} | {target:>6,} {ok:>2} |{cells} |")
    if theirs:
        print(f"\nOpenSpiel, timed for {args.openspiel_seconds:.0f} s each (speed extrapolated "
              "from the iterations run; exploitability after those iterations only):")
        header = ("solver", "it/s", "iterations run", "exploitability")
        print("| {:<20} | {:>10} | {:>14} | {:>14} |".format(*header))
        for name, n, speed, value in theirs:
            print(f"| {name:<20} | {speed:>10,.1f} | {n:>14,} | {value:>14.6f} |")


if __name__ == "__main__":
    main()
