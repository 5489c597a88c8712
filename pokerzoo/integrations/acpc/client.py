"""An ACPC client: any pokerzoo policy playing on an ACPC dealer (``project_acpc_server`` or
pokerzoo's own, ``pokerzoo.integrations.acpc.dealer``).

It connects, sends ``VERSION:2.0.0``, and for every ``MATCHSTATE`` line replays the hand in
pokerzoo's game (``matchstate.replay``: the hidden hole cards are stand-ins, so the policy sees
only what its position sees) and, on its turn, answers with the action its policy draws, until
the dealer closes the connection.

Action translation: a dealer that is not pokerzoo's may raise to any size; an opponent's
``r<N>`` off pokerzoo's menu is replayed as the legal raise whose total is nearest to ``N``
(the smaller of two equally near), and the policy answers in that translated hand. Its own
raises are sized in the translated hand too; a dealer that finds one invalid there (below
the real minimum raise) changes it to a valid one, as the ACPC dealer does.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from pokerzoo.errors import ConfigError, PlayerError
from pokerzoo.evaluation.head_to_head import sample_action
from pokerzoo.games.base import Game
from pokerzoo.integrations.acpc.connection import VERSION, Closed, LineSocket
from pokerzoo.integrations.acpc.matchstate import (
    MatchState,
    action_token,
    holdem_game,
    parse_matchstate,
    replay,
)
from pokerzoo.policy import as_state_policy


@dataclass(frozen=True)
class ClientResult:
    """What a client saw of a match."""

    hands: int
    """Hands that reached their end."""
    actions: int
    """Actions the client sent."""
    translated: int
    """Opponent raises off pokerzoo's menu, translated to the nearest size."""


def in_seat_order(message: MatchState, seats: Sequence[int]) -> MatchState:
    """``message`` with ACPC position ``p`` renamed pokerzoo seat ``seats[p]`` (the receiver's
    position and the hole-card groups; the betting and the board name no one).

    >>> from pokerzoo.games import load_game
    >>> game = load_game("limit_holdem")
    >>> str(in_seat_order(parse_matchstate("MATCHSTATE:0:3:r:AhKh|", game), (1, 0)))
    'MATCHSTATE:1:3:r:|AhKh'
    """
    holes: list[tuple[int, ...]] = [()] * len(seats)
    for position, seat in enumerate(seats):
        holes[seat] = message.hole_cards[position]
    return replace(message, position=seats[message.position], hole_cards=tuple(holes))


def _check_seats(seats: Sequence[int] | None, n: int) -> tuple[int, ...]:
    if seats is None:
        return tuple(range(n))
    if sorted(seats) != list(range(n)):
        raise ConfigError(f"seats must name each of the {n} pokerzoo seats once, one per ACPC "
                          f"position, got {seats!r}")
    return tuple(seats)


def play_on_dealer(
    game: Game,
    policy: object,
    port: int,
    *,
    host: str = "127.0.0.1",
    seed: int | None = None,
    connect_timeout: float = 30.0,
    timeout: float | None = None,
    seats: Sequence[int] | None = None,
) -> ClientResult:
    """Play ``policy`` (a state policy, an agent or a callable, see ``as_state_policy``) on
    the ACPC dealer at ``host:port`` until the dealer closes the connection.

    Args:
        game: the dealer's game (``game_of_gamedef`` reads a gamedef).
        policy: what answers on our turn; actions are drawn with a generator seeded ``seed``.
        timeout: seconds to wait for the dealer's next line (``None``: for ever).
        seats: the pokerzoo seat of each ACPC position (``gamedef.seats_of_gamedef``;
            default: position ``i`` is seat ``i``, as on pokerzoo's dealer).

    Raises:
        PlayerError: the dealer could not be reached, or sent a line that is not a
            MATCHSTATE of ``game`` (one line naming it).
    """
    holdem = holdem_game(game)
    seat_of = _check_seats(seats, holdem.num_players)
    state_policy = as_state_policy(policy)
    rng = np.random.default_rng(seed)
    try:
        sock = socket.create_connection((host, port), timeout=connect_timeout)
    except OSError as exc:
        raise PlayerError(f"cannot reach the ACPC dealer at {host}:{port}: "
                          f"{exc.strerror or exc}") from None
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    connection = LineSocket(sock)
    hands = actions = translated = 0
    try:
        connection.send_line(VERSION)
        last_hand = -1
        while True:
            try:
                line = connection.read_line(timeout)
            except Closed:
                break  # the match is over
            try:
                message = in_seat_order(parse_matchstate(line, holdem), seat_of)
                replayed = replay(holdem, message)
            except ConfigError as exc:
                raise PlayerError(f"the dealer at {host}:{port} sent {line[:80]!r}: "
                                  f"{exc}") from None
            state = replayed.state
            if state.is_terminal():
                if message.hand != last_hand:
                    hands += 1
                    translated += len(replayed.notes)
                    last_hand = message.hand
                continue
            if state.current_player() != message.position:
                continue
            action = sample_action(state_policy.action_probabilities(state), rng)
            connection.send_line(f"{line}:{action_token(state, action)}")
            actions += 1
    finally:
        connection.close()
    return ClientResult(hands, actions, translated)
