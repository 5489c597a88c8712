"""``python -m pokerzoo.runs.acpc dealer|client ...``: the ACPC command line
(``pokerzoo.integrations.acpc.cli``) where a client's ``--opponent`` may also be a run folder;
``play_agent_on_dealer``: what ``play.py --acpc HOST:PORT`` plays."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pokerzoo.errors import ConfigError
from pokerzoo.games import load_game
from pokerzoo.games.base import Game
from pokerzoo.integrations.acpc.cli import main as acpc_main
from pokerzoo.integrations.acpc.cli import read_game
from pokerzoo.integrations.acpc.client import client_summary, play_on_dealer
from pokerzoo.runs.load import load_agent


def run_player(path: str, game: Game) -> Any:
    """The agent of the run folder (or checkpoint) ``path``, refused unless it plays ``game``."""
    try:
        agent = load_agent(path)
    except FileNotFoundError as exc:
        raise ConfigError(f"--opponent {path!r}: {exc}") from None
    build = agent.build or {}
    if build.get("game") is not None:
        trained = load_game(build["game"], **(build.get("game_params") or {}))
        if trained != game:
            raise ConfigError(f"--opponent {path!r} plays {trained!r}, not the dealer's "
                              f"{game!r}")
    return agent


def acpc_address(text: str) -> tuple[str, int]:
    """The host and port of ``HOST:PORT``; ``ConfigError`` in one line otherwise.

    >>> acpc_address("127.0.0.1:18791")
    ('127.0.0.1', 18791)
    """
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdecimal() or not 0 < int(port) < 65536:
        raise ConfigError(f"--acpc must be HOST:PORT with a port in 1..65535, got {text!r}")
    return host.strip("[]"), int(port)


def play_agent_on_dealer(
    address: str,
    *,
    run: str | Path | None = None,
    policy: str | Path | None = None,
    opponent: str | None = None,
    game: str | None = None,
    game_params: Mapping[str, Any] | None = None,
    gamedef: str | None = None,
    seed: int | None = None,
    log: str | Path | None = None,
) -> str:
    """Play a run's agent, a policy file or a built-in opponent (``runs.play.load_opponent``)
    as an ACPC client of the dealer at ``address`` (``HOST:PORT``) until the dealer ends the
    match; one line of what it saw.

    ``gamedef`` is the dealer's gamedef file (its game, which the player must play, and its
    seat order; a built-in opponent plays its game); without it the player's own game in
    pokerzoo's seat order (a built-in opponent: ``game``, default ``limit_holdem``).

    Raises:
        ConfigError: a bad address, a player of another game than the dealer's.
        PlayerError: the dealer cannot be reached or sent what is not a MATCHSTATE.
    """
    from pokerzoo.runs.play import built_in_opponent, load_opponent

    host, port = acpc_address(address)
    seats = None
    if gamedef is not None and opponent is not None and run is None and policy is None \
            and game is None and not game_params:
        chosen, seats = read_game(gamedef, "--acpc-game")
        player = built_in_opponent(opponent, chosen)
    else:
        if opponent is not None and game is None and gamedef is None:
            game = "limit_holdem"  # a built-in opponent's game on pokerzoo's dealer
        chosen, player = load_opponent(run=run, policy=policy, opponent=opponent, game=game,
                                       game_params=game_params)
        if gamedef is not None:
            dealer_game, seats = read_game(gamedef, "--acpc-game")
            if chosen != dealer_game:
                raise ConfigError(f"{player.label} plays {chosen!r}, not the dealer's "
                                  f"{dealer_game!r} ({gamedef})")
    answering = getattr(player, "agent", None) or getattr(player, "policy", None)
    seen = play_on_dealer(chosen, answering, port, host=host, seed=seed, seats=seats, log=log)
    return f"{player.label} on the ACPC dealer at {host}:{port}: {client_summary(seen)}"


def main(argv: Sequence[str] | None = None) -> int:
    return acpc_main(argv, load_player=run_player)


if __name__ == "__main__":
    sys.exit(main())
