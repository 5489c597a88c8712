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

On an ACPC dealer (docs/acpc.md), the run's agent (or the policy file, or the built-in
opponent) plays instead of you, as an ACPC client of the dealer at HOST:PORT; --acpc-game
names the dealer's gamedef file (its game and seat order; default: the agent's game, a
built-in opponent's limit_holdem unless --game says otherwise, in pokerzoo's seat order, as
pokerzoo's dealer plays it). A bad address or a dealer that cannot be reached is one line:
    python play.py runs/my_limit_run --acpc 127.0.0.1:41237
    python play.py --opponent random --acpc 127.0.0.1:18791 \
        --acpc-game holdem.nolimit.2p.reverse_blinds.game --acpc-log client.log
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pokerzoo.errors import ConfigError
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
    p.add_argument("--acpc", metavar="HOST:PORT",
                   help="play the agent as an ACPC client on the dealer at HOST:PORT")
    p.add_argument("--acpc-game", metavar="GAMEDEF",
                   help="with --acpc: the dealer's gamedef file (game and seat order)")
    p.add_argument("--acpc-log", metavar="PATH",
                   help="with --acpc: the client's log (per hand the last MATCHSTATE and "
                        "the chips won)")
    add_debug_flag(p)
    return p


def play_acpc(args: argparse.Namespace) -> int:
    """``--acpc``: the agent plays on an ACPC dealer until the dealer ends the match."""
    from pokerzoo.runs.acpc import play_agent_on_dealer

    if args.hands is not None or args.hand_history is not None:
        raise ConfigError("with --acpc the dealer decides the hands and keeps the log: drop "
                          "--hands/--hand-history (--acpc-log keeps the client's)")
    print(play_agent_on_dealer(
        args.acpc, run=args.run, policy=args.policy, opponent=args.opponent, game=args.game,
        game_params=parse_assignments(args.game_param, "--game-param"),
        gamedef=args.acpc_game, seed=args.seed, log=args.acpc_log))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.acpc is not None:
        return play_acpc(args)
    if args.acpc_game is not None or args.acpc_log is not None:
        raise ConfigError("--acpc-game and --acpc-log go with --acpc HOST:PORT")
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
