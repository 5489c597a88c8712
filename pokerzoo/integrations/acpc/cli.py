"""The command line of the ACPC dealer and client (``python -m pokerzoo.integrations.acpc``;
``python -m pokerzoo.runs.acpc`` is the same with run folders as players)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pokerzoo.errors import ConfigError, PokerzooError
from pokerzoo.evaluation.opponents import make_opponent, opponent_names
from pokerzoo.games import load_game
from pokerzoo.games.base import Game
from pokerzoo.integrations.acpc.client import client_summary, play_on_dealer
from pokerzoo.integrations.acpc.dealer import Dealer
from pokerzoo.integrations.acpc.gamedef import game_of_gamedef, gamedef_of, seats_of_gamedef

PlayerLoader = Callable[[str, Game], Any]
"""Makes a player from a name that is not a built-in opponent (a run folder, ...)."""


def read_game(text: str, flag: str = "--game") -> tuple[Game, tuple[int, ...] | None]:
    """The game of a game name (``limit_holdem``, ``no_limit_holdem``) or a gamedef file, and
    the pokerzoo seat of each ACPC position (``None``: position ``i`` is seat ``i``)."""
    path = Path(text)
    if path.is_file():
        if path.stat().st_size > 1 << 16:
            raise ConfigError(f"{text}: too large for a gamedef")
        gamedef = path.read_text(encoding="utf-8", errors="replace")
        return game_of_gamedef(gamedef), seats_of_gamedef(gamedef)
    if text not in ("limit_holdem", "no_limit_holdem"):
        raise ConfigError(f"{flag} must be limit_holdem, no_limit_holdem or a gamedef file, "
                          f"got {text!r}")
    return load_game(text), None


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="acpc", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    dealer = sub.add_parser("dealer", help="run a match between ACPC clients")
    dealer.add_argument("--game", default="limit_holdem")
    dealer.add_argument("--hands", type=int, default=1000, help="deals (duplicate: x players)")
    dealer.add_argument("--seed", type=int, default=0)
    dealer.add_argument("--port", type=int, nargs="+", default=None,
                        help="one port per player (0: any free port)")
    dealer.add_argument("--names", nargs="+", default=None)
    dealer.add_argument("--log", default=None, help="pokerzoo hand log (.txt/.log)")
    dealer.add_argument("--acpc-log", default=None)
    dealer.add_argument("--timeout", type=float, default=10.0, help="seconds per action")
    dealer.add_argument("--no-duplicate", action="store_true")
    dealer.add_argument("--print-gamedef", action="store_true",
                        help="print the game's ACPC gamedef and exit")
    client = sub.add_parser("client", help="play a pokerzoo player on an ACPC dealer")
    client.add_argument("--game", default="limit_holdem")
    client.add_argument("--host", default="127.0.0.1")
    client.add_argument("--port", type=int, required=True)
    client.add_argument("--opponent", default="random",
                        help=f"{'|'.join(opponent_names())} (or a run folder via pokerzoo.runs)")
    client.add_argument("--seed", type=int, default=None)
    client.add_argument("--log", default=None,
                        help="the client's log: per hand the last MATCHSTATE and our chips")
    p.add_argument("--debug", action="store_true")
    return p


def main(argv: Sequence[str] | None = None, load_player: PlayerLoader | None = None) -> int:
    """Run the command; errors that describe bad input are one line and exit code 2."""
    args = parser().parse_args(argv)
    try:
        game, seats = read_game(args.game)
        if args.command == "dealer":
            if seats is not None and list(seats) != sorted(seats):
                raise ConfigError("pokerzoo's dealer seats the small blind at position 0; this "
                                  "gamedef puts the big blind there (reverse blinds): give "
                                  "the dealer --game limit_holdem or no_limit_holdem or a "
                                  "gamedef it wrote (--print-gamedef)")
            if args.print_gamedef:
                print(gamedef_of(game))
                return 0
            dealer = Dealer(game, args.hands, seed=args.seed, ports=args.port, names=args.names,
                            log=args.log, acpc_log=args.acpc_log, timeout=args.timeout,
                            duplicate=not args.no_duplicate, progress=True)
            print(" ".join(map(str, dealer.ports)), flush=True)  # as the ACPC dealer does
            result = dealer.run()
            print(result.match.summary())
            print(f"{result.fixed_actions} invalid actions fixed")
        else:
            if args.opponent in opponent_names():
                player: Any = make_opponent(args.opponent, game)
            elif load_player is not None:
                player = load_player(args.opponent, game)
            else:
                raise ConfigError(f"--opponent must be one of {opponent_names()} here (run "
                                  "folders: python -m pokerzoo.runs.acpc)")
            seen = play_on_dealer(game, player, args.port, host=args.host, seed=args.seed,
                                  seats=seats, log=args.log)
            print(client_summary(seen))
    except PokerzooError as exc:
        if args.debug:
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
