"""What fixed, hand-written policies win against Random on our no-limit hold'em: the scale
against which the NFSP-PLT paper's no-limit numbers (34.06 / 34.04 bb/h heads-up, Tables 3-4;
58.38-85.44 bb/h on 3- and 6-player, Table 5; Li et al., "NFSP-PLT: Solving Games with a
Weighted NFSP-PER-Based Method", Electronics 12(11):2396, 2023, doi 10.3390/electronics12112396)
and ours are read.

Two policies, each in one seat with uniform Random in the others, on duplicate deals with the
seats rotated (``evaluation.matches.versus_random``, the protocol of ``nfsp_multiplayer.py``):

* ``calling station``: check or call at every decision;
* ``shove strong``: all-in with a pair of eights or better, or two cards of jack or better with
  an ace or king (AK, AQ, AJ, KQ, KJ), at every decision; otherwise check when free, else fold.

Both are a few lines and far from a best response to Random, so what they win is a floor on
what a good agent should win there. Exact: numpy and the game engine only, so a rerun prints the
same digits.

    python bench/nfsp_reference_vs_random.py --hands 20000 \\
        --out bench/results/nfsp/reference_vs_random.md
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import code_version, library_versions, machine_line

from pokerzoo import load_game
from pokerzoo.atomic import write_atomically
from pokerzoo.evaluation.matches import versus_random
from pokerzoo.policy import CallablePolicy

FOLD, CHECK_CALL = 0, 1
"""Action ids of ``no_limit_holdem`` (then the bet sizes, all-in last)."""


def calling_station(state: Any) -> Mapping[int, float]:
    """Check or call whenever it can."""
    legal = state.legal_actions()
    return {CHECK_CALL if CHECK_CALL in legal else legal[0]: 1.0}


def is_strong(cards: list[int]) -> bool:
    """88+ or two of AK, AQ, AJ, KQ, KJ (a card is ``4 * rank + suit``, ranks 2..A as 0..12)."""
    high, low = sorted((c // 4 for c in cards), reverse=True)
    return (high == low and high >= 6) or (high >= 11 and low >= 9)


def shove_strong(state: Any) -> Mapping[int, float]:
    """All-in with a strong hand; otherwise check when free, else fold."""
    legal = state.legal_actions()
    if is_strong(state.private_cards()[state.current_player()]):
        return {legal[-1]: 1.0}
    return {CHECK_CALL if state.amount_to_call() == 0 and CHECK_CALL in legal else legal[0]: 1.0}


POLICIES = {"calling station": calling_station, "shove strong": shove_strong}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 6])
    parser.add_argument("--hands", type=int, default=20_000, help="hands per match")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--out", type=Path, default=Path("bench/results/nfsp/reference_vs_random.md")
    )
    args = parser.parse_args(argv)
    command = "python bench/nfsp_reference_vs_random.py " + shlex.join(
        sys.argv[1:] if argv is None else argv
    )
    if args.hands < 1 or any(not 2 <= n <= 6 for n in args.players):
        parser.error("--hands must be at least 1 and --players each from 2 to 6")
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    jobs = [(n, name) for n in args.players for name in POLICIES]
    for players, name in tqdm(jobs, desc="matches", unit="match"):
        game = load_game("no_limit_holdem", num_players=players)
        result = versus_random(game, CallablePolicy(POLICIES[name]), args.hands, seed=args.seed)
        rows.append(
            {
                "players": players,
                "policy": name,
                "hands": int(result["hands"]),
                "bb_per_hand": result["bb_per_100"] / 100.0,
                "ci_bb": result["ci95"] / 100.0,
            }
        )
    record = {
        "command": command,
        "game": "no_limit_holdem (num_players as given, other parameters default: blinds "
        "50/100, stacks of 100 big blinds)",
        "rows": rows,
        "code_version": code_version(Path(__file__).resolve().parent),
        "libraries": library_versions(),
        "machine": machine_line(),
        "wall_seconds": time.perf_counter() - start,
    }
    lines = [
        "# Fixed policies against Random on no-limit hold'em",
        "",
        f"Command: `{command}`",
        "",
        f"Code {record['code_version']}; {record['libraries']}; {record['machine']}. Exact.",
        "",
        "bb/h = big blinds per hand of the policy in one seat, uniform Random in the others, "
        "duplicate deals with the seats rotated; 95% half-width over deals.",
        "",
        "| players | policy | hands | bb/h vs Random |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {r['players']} | {r['policy']} | {r['hands']:,} | {r['bb_per_hand']:+.2f} ± "
        f"{r['ci_bb']:.2f} |"
        for r in rows
    ]
    lines += ["", f"{record['wall_seconds']:.0f} s wall."]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(args.out.with_suffix(".json"), json.dumps(record, indent=1), what="record")
    write_atomically(args.out, "\n".join(lines) + "\n", what="table")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
