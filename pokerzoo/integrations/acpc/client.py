"""An ACPC client: any pokerzoo policy playing on an ACPC dealer (``project_acpc_server`` or
pokerzoo's own, ``pokerzoo.integrations.acpc.dealer``).

It connects, sends ``VERSION:2.0.0``, and for every ``MATCHSTATE`` line replays the hand in
pokerzoo's game (``matchstate.replay``: the hidden hole cards are stand-ins, so the policy sees
only what its position sees) and, on its turn, answers with the action its policy draws, until
the dealer closes the connection.

Action translation: a dealer that is not pokerzoo's may raise to any size; an opponent's
``r<N>`` off pokerzoo's menu is replayed as the legal raise whose total is nearest to ``N``
(the smaller of two equally near; an all-in as all-in, any other raise as a raise that is not
all-in where one is legal), and the policy answers in that translated hand. The real hand is
followed beside it in the dealer's chips (``betting.AcpcHand``): it says whose turn it is,
and our raises are sent at the real size of the same bet, ``x`` times the pot after calling
in the translated hand being ``x`` times the real one (within the real smallest and largest
raise), all-in being all-in. Where the translated hand cannot follow the real one (its round
ended first), the client checks or calls and counts it (``ClientResult.fallbacks``).

``log`` keeps what the client saw: per hand, the last ``MATCHSTATE`` line and, after a
``:``, the chips our position won in the real hand, which the dealer's log
(``STATE:<hand>:...:<payoffs>:<names>``) must agree with hand by hand.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from pokerzoo.atomic import check_target, write_atomically
from pokerzoo.errors import ConfigError, PlayerError
from pokerzoo.evaluation.head_to_head import sample_action
from pokerzoo.games.base import Game
from pokerzoo.games.holdem.state import CALL, FOLD, HoldemState
from pokerzoo.integrations.acpc.betting import AcpcHand, Rules, chips_text, rules_of
from pokerzoo.integrations.acpc.connection import VERSION, Closed, LineSocket
from pokerzoo.integrations.acpc.matchstate import (
    MatchState,
    holdem_game,
    parse_matchstate,
    raise_total,
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
    fallbacks: int = 0
    """Our turns where the translated hand could not follow the real one: checked or
    called."""
    chips: float = 0.0
    """What our positions won over the hands, in the dealer's chips."""


def client_summary(seen: ClientResult) -> str:
    """One line of what a client saw of its match."""
    return (f"{seen.hands} hands, {seen.actions} actions, {chips_text(seen.chips)} chips won, "
            f"{seen.translated} opponent raises translated, {seen.fallbacks} fallbacks")


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


def real_hand(rules: Rules, message: MatchState) -> tuple[AcpcHand, list[bool]]:
    """The hand of ``message`` (in ACPC position order) played under ``rules``, and for each
    token whether it put its player all-in.

    Raises:
        ConfigError: a token the dealer could not have sent, or one after the hand ended
            or in the wrong round.
    """
    hand = AcpcHand(rules)
    all_ins: list[bool] = []
    for r, tokens in enumerate(message.betting):
        for token in tokens:
            if hand.finished or hand.round != r:
                raise ConfigError(f"{token!r} in round {r} does not follow the rules of the "
                                  "game (that round is over)")
            player = hand.current_player()
            hand.apply(token)
            all_ins.append(token.startswith("r") and hand.all_in(player))
    return hand, all_ins


def real_token(hand: AcpcHand, state: HoldemState, action: int) -> str:
    """The ACPC token of pokerzoo's ``action`` at the translated ``state``, for the real
    ``hand``: a raise of the same size relative to the pot (all-in: all-in), within the
    real bounds; a fold with nothing to call and a raise where none is allowed are sent as
    ``c``."""
    if action == FOLD:
        return "f" if hand.to_call() > 0 else "c"
    if action == CALL:
        return "c"
    allowed = hand.raise_range()
    if allowed is None:
        return "c"
    if hand.rules.limit:
        return "r"
    low, high = allowed
    if action == state.game.all_in_action:
        return f"r{high}"
    contributions = [int(c) for c in state.public_state()["contributions"]]
    mine = contributions[state.current_player()]
    bet = max(contributions)
    after_call = sum(contributions) + bet - mine
    x = (raise_total(state, action) - bet) / after_call
    p = hand.current_player()
    real_bet = hand.max_spent
    real_after_call = sum(hand.spent) + real_bet - hand.spent[p]
    return f"r{min(max(round(real_bet + x * real_after_call), low), high)}"


def _write_log(path: os.PathLike[str] | str, lines: list[str]) -> None:
    write_atomically(path, "".join(line + "\n" for line in lines), what="ACPC client log")


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
    log: str | os.PathLike[str] | None = None,
) -> ClientResult:
    """Play ``policy`` (a state policy, an agent or a callable, see ``as_state_policy``) on
    the ACPC dealer at ``host:port`` until the dealer closes the connection.

    Args:
        game: the dealer's game (``game_of_gamedef`` reads a gamedef).
        policy: what answers on our turn; actions are drawn with a generator seeded ``seed``.
        timeout: seconds to wait for the dealer's next line (``None``: for ever).
        seats: the pokerzoo seat of each ACPC position (``gamedef.seats_of_gamedef``;
            default: position ``i`` is seat ``i``, as on pokerzoo's dealer).
        log: the client's log (see the module doc), written at the end, also after an error.

    Raises:
        PlayerError: the dealer could not be reached, or sent a line that is not a
            MATCHSTATE of ``game`` (one line naming it).
    """
    holdem = holdem_game(game)
    seat_of = _check_seats(seats, holdem.num_players)
    rules = rules_of(holdem, seat_of)
    state_policy = as_state_policy(policy)
    rng = np.random.default_rng(seed)
    if log is not None:
        check_target(log, "ACPC client log")
    if not isinstance(port, int) or not 0 < port < 65536:
        raise ConfigError(f"the dealer's port must be a number in 1..65535, got {port!r}")
    try:
        sock = socket.create_connection((host, port), timeout=connect_timeout)
    except OSError as exc:
        raise PlayerError(f"cannot reach the ACPC dealer at {host}:{port}: "
                          f"{exc.strerror or exc}") from None
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    connection = LineSocket(sock)
    hands = actions = translated = fallbacks = 0
    chips = 0.0
    lines = [f"# pokerzoo ACPC client: {holdem!r}, seats {seat_of}; per hand the last "
             "MATCHSTATE and ':' our chips"]
    try:
        connection.send_line(VERSION)
        last_hand = -1
        while True:
            try:
                line = connection.read_line(timeout)
            except Closed:
                break  # the match is over
            try:
                acpc = parse_matchstate(line, holdem)
                hand, all_ins = real_hand(rules, acpc)
                message = in_seat_order(acpc, seat_of)
                if hand.finished:
                    if acpc.hand != last_hand:
                        won = hand.payoffs(acpc.hole_cards, [c for b in acpc.board for c in b])
                        value = won[acpc.position]
                        hands += 1
                        chips += value
                        last_hand = acpc.hand
                        lines.append(f"{line}:{chips_text(value)}")
                        try:
                            translated += len(replay(holdem, message, all_ins).notes)
                        except ConfigError:
                            pass  # counted as a fallback where it mattered
                    continue
            except ConfigError as exc:
                raise PlayerError(f"the dealer at {host}:{port} sent {line[:80]!r}: "
                                  f"{exc}") from None
            if hand.current_player() != acpc.position:
                continue
            try:
                state = replay(holdem, message, all_ins).state
                followed = (not state.is_chance_node() and not state.is_terminal()
                            and state.current_player() == message.position)
            except ConfigError:
                followed = False
            if followed:
                action = sample_action(state_policy.action_probabilities(state), rng)
                token = real_token(hand, state, action)
            else:
                fallbacks += 1
                token = "c"
            connection.send_line(f"{line}:{token}")
            actions += 1
    finally:
        connection.close()
        if log is not None:
            _write_log(log, lines)
    return ClientResult(hands, actions, translated, fallbacks, chips)
