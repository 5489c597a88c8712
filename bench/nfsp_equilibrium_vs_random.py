"""What an equilibrium wins against Random on the NFSP-PLT paper's Leduc (RLCard's rules).

The NFSP-PLT paper (Li et al. 2023, Tables 3-4) ranks agents by their winnings against a uniform
random player. This prints, exactly (expected values on the compiled tree, both seats averaged,
in big blinds per hand), what that metric gives to: a near-equilibrium (CFR+ for
``--iterations``, its NashConv beside it), our fixed Deep CFR and NFSP-UCT opponents
(``bench/results/nfsp/opponents/``), and the best response to Random (the most any policy wins
against it). An equilibrium is not what wins most against Random, so the metric cannot rank
closeness to equilibrium. numpy only: a rerun gives the same digits.

    python bench/nfsp_equilibrium_vs_random.py --out bench/results/nfsp/equilibrium_vs_random.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import code_version, library_versions, machine_line
from nfsp_paper import load_opponents, paper_game

from pokerzoo.agents.cfr.full_width import CFRPlus
from pokerzoo.atomic import write_atomically
from pokerzoo.evaluation import nash_conv
from pokerzoo.evaluation.exact import best_response, expected_values, policy_array
from pokerzoo.tree import GameTree, TabularPolicy, build


def versus_random(tree: GameTree, probs: np.ndarray) -> float:
    """Chips per hand that ``probs`` wins against uniform random, both seats averaged."""
    uniform = policy_array(tree, TabularPolicy.uniform(tree))
    seat0 = (tree.infoset_player == 0)[:, None]
    return float(
        0.5
        * (
            expected_values(tree, np.where(seat0, probs, uniform))[0]
            + expected_values(tree, np.where(seat0, uniform, probs))[1]
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000, help="CFR+ iterations")
    parser.add_argument("--opponents", type=Path, default=Path("bench/results/nfsp/opponents"))
    parser.add_argument("--out", type=Path, default=None, help="a .md file for the table")
    args = parser.parse_args()
    game = paper_game()
    tree = build(game)
    big_blind = float(game.chip_unit)
    solver = CFRPlus(game, tree=tree)
    solver.iterate(args.iterations)
    rows: list[tuple[str, np.ndarray]] = [
        (f"CFR+ {args.iterations:,} iterations", policy_array(tree, solver.average_policy()))
    ]
    for name, policy in load_opponents(args.opponents).items():
        rows.append((f"our {name} opponent", policy_array(tree, policy)))
    uniform = TabularPolicy.uniform(tree)
    best = policy_array(tree, uniform).copy()
    for seat in (0, 1):
        rows_of = tree.infosets_of(seat)
        best[rows_of] = policy_array(tree, best_response(tree, uniform, seat).policy)[rows_of]
    rows.append(("best response to Random", best))
    lines = [
        "# What an equilibrium wins against Random (the NFSP-PLT paper's metric)",
        "",
        "Command: `python bench/nfsp_equilibrium_vs_random.py " + " ".join(sys.argv[1:]) + "`",
        "",
        f"Code {code_version(Path(__file__).resolve().parent)}; {library_versions()}; "
        f"{machine_line()}. Exact (numpy): a rerun gives the same digits.",
        "",
        f"Leduc on RLCard's rules (big blind {big_blind:g} chips); expected winnings against "
        "uniform random, both seats averaged.",
        "",
        "| policy | NashConv (chips) | chips/hand vs Random | bb/h vs Random |",
        "|---|---|---|---|",
    ]
    for name, probs in rows:
        won = versus_random(tree, probs)
        lines.append(
            f"| {name} | {nash_conv(tree, TabularPolicy.from_tree(tree, probs)):.4f} "
            f"| {won:+.4f} | {won / big_blind:+.4f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out is not None:
        write_atomically(args.out, text, what="equilibrium vs Random table")


if __name__ == "__main__":
    main()
