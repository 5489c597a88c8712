#!/usr/bin/env python
"""Evaluate saved runs: exact exploitability, pairings between runs, curves.

Examples:
    python evaluate.py runs/cfr_leduc
    python evaluate.py runs/cfr_leduc runs/cfr+_leduc --plot curves.png
    python evaluate.py runs/cfr_leduc --json
    python evaluate.py runs/cfr runs/bufp-ef --total-exploitability --forced 0:call
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from pokerzoo.errors import ConfigError
from pokerzoo.training.cli import add_debug_flag, run_cli
from pokerzoo.training.reports import (
    SavedRun,
    exact_scores,
    pairing_matrix,
    parse_forced,
    plot_curves,
    total_scores,
    tree_for,
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("runs", nargs="+", help="run folders written by train.py")
    p.add_argument("--plot", metavar="PNG", help="draw the exploitability curves to this PNG")
    p.add_argument("--json", action="store_true", help="print machine-readable results")
    p.add_argument("--hands", type=int, default=20_000, help="hands per match (big games)")
    p.add_argument("--seed", type=int, default=0, help="seed for matches")
    p.add_argument("--total-exploitability", action="store_true",
                   help="also the gain of best responses at every information set (mbb/hand)")
    p.add_argument("--beliefs", choices=("bayes", "uniform"), default="bayes",
                   help="beliefs at unreached information sets for --total-exploitability")
    p.add_argument("--forced", metavar="PLAYER:ACTION",
                   help="payoff table with PLAYER forced to ACTION at its first decision, "
                        "e.g. 0:call (the BUFP paper's Table 2)")
    add_debug_flag(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    runs = [SavedRun.open(folder) for folder in args.runs]
    results: dict[str, dict] = {}
    forced_table = ""
    tabular = {r.label: r.tabular_policy() for r in runs}
    if all(p is not None for p in tabular.values()):
        tree = tree_for(runs)
        for run in runs:
            results[run.label] = {"agent": run.config.get("agent"), "game": repr(run.game),
                                  **exact_scores(tree, tabular[run.label])}
            if args.total_exploitability:
                results[run.label].update(total_scores(tree, tabular[run.label], args.beliefs))
        if len(runs) > 1 and tree.num_players == 2:
            matrix = pairing_matrix(tree, list(tabular.values()))
            for i, run in enumerate(runs):
                results[run.label]["vs"] = {
                    other.label: float(matrix[i, j]) for j, other in enumerate(runs)
                }
        if args.forced:
            from pokerzoo.evaluation.perfect import forced_deviation_values

            table = forced_deviation_values(
                tree, tabular, parse_forced(tree, args.forced), tree.game.chip_unit
            )
            forced_table = table.format(0, f"First seat's payoff, {args.forced} forced, mbb/hand")
            for i, label in enumerate(table.names):
                results[label]["forced_first_seat_mbb"] = {
                    other: float(table.matrix(0)[i, j]) for j, other in enumerate(table.names)
                }
    else:
        if args.total_exploitability or args.forced:
            raise ConfigError("--total-exploitability and --forced need tabular policies")
        from pokerzoo.training.matches_report import match_results

        results.update(match_results(runs, args.hands, args.seed))
    if args.plot:
        results_path = plot_curves(runs, args.plot)
        if not args.json:
            print(f"curves written to {results_path}")
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for label, r in results.items():
        print(f"{label}: {r['agent']} on {r['game']}")
        if "exploitability" in r:
            print(f"  exploitability {r['exploitability']:.6g} chips/game "
                  f"= {r['exploitability_mbb_per_game']:.4g} mbb/g (NashConv {r['nash_conv']:.6g})")
        if "bb_per_100" in r:
            print(f"  vs random {r['bb_per_100']:.2f} +- {r['ci95']:.2f} bb/100 "
                  f"over {r['hands']} hands")
        if "total_exploitability_mbb" in r:
            per = ", ".join(f"{v:.3f}" for v in r["total_exploitability_per_player_mbb"])
            print(f"  total exploitability {r['total_exploitability_mbb']:.3f} mbb/hand "
                  f"(per player {per}; mean per infoset "
                  f"{r['total_exploitability_mean_per_infoset_mbb']:.5f})")
        for other, value in r.get("vs", {}).items():
            if other != label:
                print(f"  vs {other}: {value:+.5f} chips/game")
    if args.forced:
        print(forced_table)
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main, None))
