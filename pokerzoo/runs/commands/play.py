"""Play poker in the terminal against a trained agent, a policy file or a built-in opponent.

You take one seat (it rotates every hand); the opponent plays every other seat. At your turn,
type an action's name (case-insensitive; a unique prefix such as "c" or "r" is enough), its
number, "help", or "quit". The score is kept in chips and bb/100 with a 95% confidence
interval; end of input (Ctrl-D) or Ctrl-C also ends the session with the final score.

Examples:
    python play.py runs/cfr+_kuhn_poker
    python play.py runs/cfr+_leduc_holdem --hands 10 --seed 3
    python play.py --policy policy.npz
    python play.py --opponent always-call --game no_limit_holdem --game-param num_players=3
    python play.py runs/cfr+_kuhn_poker --hand-history hands.txt
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pokerzoo.evaluation import opponent_names
from pokerzoo.runs.cli import add_debug_flag, count_arg, parse_assignments
from pokerzoo.runs.play import PlaySession, load_opponent


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter,
                                allow_abbrev=False)
    p.add_argument("run", nargs="?", help="run folder written by train.py")
    p.add_argument("--policy", metavar="FILE.npz", help="a TabularPolicy file to play against")
    p.add_argument("--opponent", metavar="NAME",
                   help=f"a built-in opponent: {', '.join(opponent_names())}")
    p.add_argument("--game", help="game (default: the run's or policy's game; leduc_holdem "
                                  "for a built-in opponent)")
    p.add_argument("--game-param", action="append", metavar="KEY=VALUE", help="game parameter")
    p.add_argument("--hands", type=count_arg("--hands", 1),
                   help="hands to play (default: until quit or end of input)")
    p.add_argument("--seed", type=count_arg("--seed", 0), default=0,
                   help="seed of the deals and the opponent")
    p.add_argument("--hand-history", metavar="PATH",
                   help="keep the hands: .phhs for hold'em (PHH, via PokerKit), any other "
                        "suffix (e.g. .txt) for the plain-text hand log of any game")
    add_debug_flag(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    game, opponent = load_opponent(
        run=args.run,
        policy=args.policy,
        opponent=args.opponent,
        game=args.game,
        game_params=parse_assignments(args.game_param, "--game-param"),
    )
    if args.hand_history is None:
        PlaySession(game, opponent, sys.stdin, sys.stdout, seed=args.seed, hands=args.hands).run()
        return 0
    from pokerzoo.evaluation import HandRecorder

    # The recorder writes its file when the block ends, also after Ctrl-C or end of input.
    with HandRecorder(game, args.hand_history, skip_unwritable=True) as recorder:
        PlaySession(game, opponent, sys.stdin, sys.stdout, seed=args.seed, hands=args.hands,
                    recorder=recorder).run()
    print(recorder.summary())
    return 0
