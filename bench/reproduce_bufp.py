"""Reproduce the BUFP paper's 5-Leduc experiment (Ju, Fang, Luo 2024, Sec. 5.2, Tables 1-2).

Trains CFR, BUFP(EF) and BUFP(X) on 5-Leduc (Leduc hold'em with five ranks) for 100,000
iterations each, then prints each policy's exploitability and total exploitability, the
initial-node payoff table (paper's Table 1) and the table with player 1 forced to Call at its
first decision (Table 2), next to the paper's numbers. Money is in milli-chips per hand for
the antes games (the ante is one chip) and milli-big-blinds for the blinds games (the paper's
"mb/h": RLCard's payoffs are in big blinds).

Our 5-Leduc (``--variant 5leduc``, the default) is OpenSpiel's Leduc rules with five ranks
(antes of 1, player 1 opens unopposed, so "Call" at its first decision is a check). The paper ran
RLCard's Leduc, which posts blinds (small 1, big 2, the small blind acting first, payoffs in big
blinds): there, Call at the first decision completes the small blind. ``--variant 5leduc_rlcard``
plays those rules (see ``pokerzoo.games.leduc``) and reports money in milli-big-blinds per hand,
the paper's unit; ``--forced raise`` forces the other first action for comparison.

    python bench/reproduce_bufp.py                      # the full run (several minutes)
    python bench/reproduce_bufp.py --iterations 2000    # a quick look
    python bench/reproduce_bufp.py --variant 5leduc_rlcard   # the paper's rules

``--cfr sampled`` puts a sampled CFR stopped at the paper's 5.15 mb/h in CFR's place
(``bufp_sampled.py``: external-sampling MCCFR, and RLCard's chance-sampling CFR on its
observation-keyed information sets), one resumable results file per seed, BUFP(EF)/BUFP(X)
loaded from the full run's ``--out`` folder:

    python bench/reproduce_bufp.py --variant 5leduc_rlcard --out bench/results/bufp/policies
    python bench/reproduce_bufp.py --variant 5leduc_rlcard --cfr sampled --seeds 5
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bufp_sampled import METHODS, recoveries, report, run_seed

from pokerzoo import load_game
from pokerzoo.agents.cfr.full_width import CFR
from pokerzoo.agents.fictitious import FP_PRESETS, FictitiousPlaySolver
from pokerzoo.atomic import write_atomically
from pokerzoo.evaluation import exploitability, nash_conv
from pokerzoo.evaluation.perfect import (
    force_first_action,
    forced_deviation_values,
    total_exploitability,
)
from pokerzoo.games.leduc import CALL, LEDUC_VARIANTS, RAISE
from pokerzoo.tree import TabularPolicy, build

PAPER_EXPLOITABILITY = {"CFR": 5.15, "BUFP(EF)": 5.33, "BUFP(X)": 3.16}
PAPER_TABLE1 = np.array([[19.21, 20.17, 17.93], [18.34, 19.02, 17.71], [20.38, 20.68, 19.10]])
PAPER_TABLE2 = np.array([[-33.86, -44.54, -22.02], [-5.15, -20.03, 4.49], [-4.89, -22.37, 3.94]])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=100_000)
    parser.add_argument("--log-every", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=None, help="folder to save the policies")
    parser.add_argument("--load", type=Path, default=None,
                        help="folder of policies saved by --out: skip training")
    parser.add_argument("--forced", choices=["call", "raise"], default="call",
                        help="the action player 1 is forced to at its first decision")
    parser.add_argument("--variant", choices=sorted(LEDUC_VARIANTS), default="5leduc",
                        help="the Leduc variant (5leduc_rlcard: the paper's RLCard rules)")
    parser.add_argument("--cfr", choices=["full", "sampled"], default="full",
                        help="sampled: a sampled CFR stopped at --target in CFR's place")
    parser.add_argument("--seeds", type=int, default=5, help="--cfr sampled: seeds per method")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--target", type=float, default=PAPER_EXPLOITABILITY["CFR"],
                        help="mb/h at which a sampled CFR stops (the paper's CFR: 5.15)")
    parser.add_argument("--check-every", type=int, default=None,
                        help="iterations between exploitability checks (default per method)")
    parser.add_argument("--cap", type=int, default=None, help="iteration cap per seed")
    parser.add_argument("--policies", type=Path, default=Path("bench/results/bufp/policies"),
                        help="--cfr sampled: the full run's --out folder (BUFP policies)")
    parser.add_argument("--results", type=Path, default=Path("bench/results/bufp/sampled"))
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    if args.cfr == "sampled":
        sampled(args)
        return

    game = load_game("leduc_holdem", **LEDUC_VARIANTS[args.variant])
    # RLCard reports payoffs in big blinds; the antes games count antes (one chip).
    blinds = game.config.blinds
    big_blind = game.chip_unit
    scale = 1000.0 / big_blind
    unit = "milli-big-blinds per hand" if blinds else "milli-chips per hand"
    tree = build(game)
    print(f"{args.variant}: {tree.summary()}; money in {unit}", flush=True)
    solvers = {
        "CFR": CFR(game, tree=tree),
        "BUFP(EF)": FictitiousPlaySolver(game, FP_PRESETS["bufp-ef"], tree=tree),
        "BUFP(X)": FictitiousPlaySolver(game, FP_PRESETS["bufp-x"], tree=tree),
    }
    policies = {}
    for name, solver in solvers.items():
        path = _policy_file(args.variant, name)
        if args.load is not None:
            policies[name] = TabularPolicy.load(args.load / path)
            continue
        start = time.perf_counter()
        while solver.iteration < args.iterations:
            solver.iterate(min(args.log_every, args.iterations - solver.iteration))
            policy = solver.average_policy()
            print(
                f"{name:<9} it {solver.iteration:>7}  {time.perf_counter() - start:7.1f}s  "
                f"exploitability {scale * exploitability(tree, policy):8.3f} mb/h  "
                f"total {scale * total_exploitability(tree, policy).total:10.1f} mb/h",
                flush=True,
            )
        policies[name] = solver.average_policy()
        if args.out is not None:
            policies[name].save(args.out / path)

    iterations = "loaded" if args.load is not None else args.iterations
    print(f"\nAfter {iterations} iterations (mb/h = {unit}; "
          "exploitability = NashConv/2, OpenSpiel's convention):")
    print(f"{'':<10}{'expl.':>10}{'NashConv':>10}{'paper':>8}{'total expl.':>14}"
          f"{'total P1':>11}{'total P2':>11}{'mean/infoset':>14}")
    for name, policy in policies.items():
        tot = total_exploitability(tree, policy)
        print(
            f"{name:<10}{scale * exploitability(tree, policy):>10.3f}"
            f"{scale * nash_conv(tree, policy):>10.3f}{PAPER_EXPLOITABILITY[name]:>8.2f}"
            f"{scale * tot.total:>14.1f}{scale * tot.per_player[0]:>11.1f}"
            f"{scale * tot.per_player[1]:>11.1f}{scale * tot.mean_per_infoset:>14.3f}"
        )

    table1 = forced_deviation_values(tree, policies, big_blind=big_blind)
    forced = force_first_action(tree, CALL if args.forced == "call" else RAISE, player=0)
    table2 = forced_deviation_values(tree, policies, forced, big_blind=big_blind)
    for title, table, paper in [
        ("Table 1: P1's winnings at the initial node (mb/h)", table1, PAPER_TABLE1),
        (f"Table 2: P1's winnings when forced to {args.forced} at its first decision (mb/h)",
         table2,
         PAPER_TABLE2),
    ]:
        print("\n" + table.format(0, title + " -- ours"))
        paper_title = title.split(":")[0] + " -- paper (RLCard 5-Leduc with blinds; Table 2: "
        print(_paper_table(list(policies), paper, paper_title + "forced Call)"))

    # The paper's headline: how much of the drop from Table 1 to Table 2 each policy recovers.
    drop_p1 = table1.matrix(0).mean(axis=1) - table2.matrix(0).mean(axis=1)
    rise_p2 = table1.matrix(0).mean(axis=0) - table2.matrix(0).mean(axis=0)
    print("\nP1 average drop when forced (smaller is better):",
          {n: round(float(v), 2) for n, v in zip(policies, drop_p1)})
    print("P2 average gain when P1 is forced (larger is better):",
          {n: round(float(v), 2) for n, v in zip(policies, rise_p2)})
    cfr, ef = 0, 1
    if min(abs(drop_p1[cfr]), abs(rise_p2[cfr])) < 5.0:
        print("The forced action moves CFR's payoffs by under 5 mb/h here, so the paper's "
              "percentages (paper: 52.87%, 44.20%, 48.53%) are not meaningful in this game.")
        return
    recovered = (drop_p1[cfr] - drop_p1[ef]) / drop_p1[cfr]
    secured = (rise_p2[ef] - rise_p2[cfr]) / rise_p2[cfr]
    print(f"BUFP(EF) vs CFR: recovers {100 * recovered:.2f}% more as P1, secures "
          f"{100 * secured:.2f}% more as P2, mean {50 * (recovered + secured):.2f}% "
          "(paper: 52.87%, 44.20%, 48.53%)")


def _policy_file(variant: str, name: str) -> str:
    return f"{variant}_{name.lower().replace('(', '_').rstrip(')')}.npz"


def _sampled_job(args: argparse.Namespace, job: tuple[str, int]) -> str:
    game = load_game("leduc_holdem", **LEDUC_VARIANTS[args.variant])
    tree = build(game)
    files = {n: args.policies / _policy_file(args.variant, n) for n in ("BUFP(EF)", "BUFP(X)")}
    fixed = ({n: TabularPolicy.load(f) for n, f in files.items()}
             if all(f.exists() for f in files.values()) else None)
    run_seed(job[0], job[1], tree, fixed, game.chip_unit, args.target, args.results,
             args.check_every, args.cap)
    return f"{job[0]} seed {job[1]}"


def sampled(args: argparse.Namespace) -> None:
    """``--cfr sampled``: every (method, seed) without a results file, then the report."""
    game = load_game("leduc_holdem", **LEDUC_VARIANTS[args.variant])
    tree = build(game)
    names = ("CFR", "BUFP(EF)", "BUFP(X)")
    files = {n: args.policies / _policy_file(args.variant, n) for n in names}
    jobs = [(m, s) for m in args.methods.split(",") for s in range(args.seeds)
            if not (args.results / f"{m}_seed{s}.json").exists()]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for done in pool.map(_sampled_job, [args] * len(jobs), jobs):
            print(done, flush=True)
    missing = [str(f) for f in files.values() if not f.exists()]
    if missing:  # the sampled CFRs are trained and saved; the tables wait for the policies
        raise SystemExit(f"missing {missing}: run the full run with --variant "
                         f"{args.variant} --out {args.policies}, then this again")
    for job in jobs:  # runs trained before the BUFP policies existed: their tables (no training)
        if not (args.results / f"{job[0]}_seed{job[1]}.json").exists():
            _sampled_job(args, job)
    records = [json.loads((args.results / f"{m}_seed{s}.json").read_text())
               for m in args.methods.split(",") for s in range(args.seeds)]
    full_policies = {n: TabularPolicy.load(f) for n, f in files.items()}
    full = recoveries(tree, full_policies, game.chip_unit)
    full["exploitability_mbh"] = 1000.0 / game.chip_unit * exploitability(
        tree, full_policies["CFR"])
    full["iterations"] = 100_000
    command = (f"python bench/reproduce_bufp.py --variant {args.variant} --cfr sampled "
               f"--seeds {args.seeds}")
    if args.target != PAPER_EXPLOITABILITY["CFR"]:
        command += f" --target {args.target:g}"
    if args.results != Path("bench/results/bufp/sampled"):
        command += f" --results {args.results}"
    text = report(records, full, command)
    # bench/results/bufp/sampled -> bench/results/bufp/sampled.md
    write_atomically(args.results.parent / f"{args.results.name}.md", text, what="BUFP report")
    print(text)


def _paper_table(names: list[str], m: np.ndarray, title: str) -> str:
    width = 12
    lines = [title, " " * width + "".join(f"{n + ' P2':>{width}}" for n in names)
             + f"{'P1 avg':>{width}}"]
    for i, name in enumerate(names):
        lines.append(f"{name + ' P1':<{width}}" + "".join(f"{v:>{width}.2f}" for v in m[i])
                     + f"{m[i].mean():>{width}.2f}")
    lines.append(f"{'P2 avg':<{width}}" + "".join(f"{v:>{width}.2f}" for v in m.mean(axis=0)))
    return "\n".join(lines)


if __name__ == "__main__":
    main()
