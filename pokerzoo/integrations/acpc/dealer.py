"""A dealer that runs a pokerzoo hold'em match between ACPC clients over TCP.

As the ACPC dealer does, it listens on one port per player (``0``: a free port the system
picks), on 127.0.0.1 only, waits for each player's ``VERSION:2.0.0`` and then deals hands:
at every decision and at the end of a hand each player gets the ``MATCHSTATE`` of its
position, and the player to act answers with that line, ``:`` and its action.

Deals are those of ``pokerzoo.evaluation.head_to_head`` with the same ``seed``: deal ``d``
draws its cards from the same stream (``deal_rng``), and with ``duplicate`` it is played
once per rotation of the players (player ``i`` at seat ``(i + r) % n`` in rotation ``r``), so a
match of deterministic clients here and the in-process match of the same policies are the
same hands, to the chip. Hands are numbered from 0 in the order played.

pokerzoo's no-limit game raises only the sizes of its menu (``bet_fractions`` and all-in); a
client's invalid action is changed to a valid one, as the ACPC dealer does: a fold with
nothing to call is a check, a raise where none is allowed a call, and an ``r<N>`` off the menu
the legal raise nearest to ``N`` (``matchstate.action_of_token``). Each change is counted
(``DealerResult.fixed_actions``) and written to the ACPC log as a ``#`` comment.

A client that closes its connection, sends text that is not a reply to the message it was
sent, or does not answer within ``timeout`` seconds ends the match with one ``PlayerError``
line naming it; the hands finished before are kept. Logs, both written atomically as the
match goes (at most every ``flush_seconds``, and at the end or at an error), so a match that
is killed leaves the hands written by then:

* ``log``: pokerzoo's hand log (``pokerzoo.evaluation.hand_history``; a ``.txt`` or ``.log``
  path writes the plain-text log, whose ``history:`` line replays each hand);
* ``acpc_log``: the ACPC dealer's lines, ``STATE:<hand>:<betting>:<cards>:<payoffs>:<names>``
  per hand (positions' payoffs and names ``|``-separated) and ``SCORE:<totals>:<names>`` at the
  end (each player's chips over the match).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pokerzoo.atomic import check_target, write_atomically
from pokerzoo.errors import ConfigError, PlayerError
from pokerzoo.evaluation.arguments import count_arg, seed_arg
from pokerzoo.evaluation.hand_history import HandRecorder
from pokerzoo.evaluation.head_to_head import (
    DealResults,
    MatchResult,
    deal_rng,
    match_entropy,
    match_result,
    sample_action,
)
from pokerzoo.games.base import Game
from pokerzoo.games.holdem.state import HoldemState
from pokerzoo.integrations.acpc.connection import LineSocket, Stalled
from pokerzoo.integrations.acpc.matchstate import (
    action_of_token,
    encode,
    holdem_game,
    match_state,
    parse_reply,
)

HOST = "127.0.0.1"
"""The only address the dealer listens on."""


@dataclass(frozen=True)
class DealerResult:
    """What a finished match came to."""

    match: MatchResult
    """Each player's chips per hand with 95% intervals (players in port order)."""
    seat_payoffs: np.ndarray
    """Each hand's payoffs by seat, in the order played."""
    fixed_actions: int
    """Client actions changed to valid ones (see the module doc)."""


def _check_names(names: Sequence[str] | None, n: int) -> list[str]:
    if names is None:
        return [f"player{i}" for i in range(n)]
    if isinstance(names, str) or len(names) != n:
        raise ConfigError(f"names must be {n} names, one per player, got {names!r}")
    for name in names:
        if not isinstance(name, str) or not name or any(ch in name for ch in ":|\r\n"):
            raise ConfigError(f"a player's name is non-empty text without ':', '|' or line "
                              f"ends (the ACPC log separates fields with them), got {name!r}")
    return list(names)


def default_acpc_log(log: str | os.PathLike[str]) -> Path:
    """Where the ACPC log of hand log ``log`` goes by default: ``NAME.acpc.log`` beside it."""
    path = Path(log)
    return path.with_name(f"{path.stem}.acpc.log")


class Dealer:
    """A match between ACPC clients, one listening socket per player.

    Args:
        game: ``limit_holdem`` or ``no_limit_holdem`` (2-6 players).
        num_deals: deals to play (each ``num_players`` hands with ``duplicate``).
        seed: the match's seed, as ``head_to_head``'s.
        ports: one port per player, ``0`` for any free port (default: all ``0``).
        names: the players' names in the logs (default ``player0``, ``player1``, ...).
        log: pokerzoo's hand log (``.txt``/``.log``: plain text; ``.phhs``: PHH).
        acpc_log: the ACPC log (default: ``default_acpc_log(log)`` when ``log`` is given).
        duplicate: play each deal once per rotation of the players (else rotate per deal).
        timeout: seconds a client has for each action (and for its version line).
        connect_timeout: seconds to wait for every client to connect.
        flush_seconds: least time between two writes of the logs during the match.
        progress: show a progress bar of the hands on stderr.

    Raises:
        ConfigError: for bad arguments, or a port that cannot be listened on.
    """

    def __init__(
        self,
        game: Game,
        num_deals: int,
        *,
        seed: int | None = None,
        ports: Sequence[int] | None = None,
        names: Sequence[str] | None = None,
        log: str | os.PathLike[str] | None = None,
        acpc_log: str | os.PathLike[str] | None = None,
        duplicate: bool = True,
        timeout: float = 10.0,
        connect_timeout: float = 60.0,
        flush_seconds: float = 1.0,
        progress: bool = False,
    ) -> None:
        self.game = holdem_game(game)
        n = self.game.num_players
        self.num_deals = count_arg(num_deals, "num_deals")
        self.entropy = match_entropy(seed_arg(seed), None)
        self.names = _check_names(names, n)
        self.duplicate = bool(duplicate)
        for what, value in (("timeout", timeout), ("connect_timeout", connect_timeout)):
            if not isinstance(value, int | float) or not 0 < value <= 86400:
                raise ConfigError(f"{what} must be seconds in (0, 86400], got {value!r}")
        if not isinstance(flush_seconds, int | float) or flush_seconds < 0:
            raise ConfigError(f"flush_seconds must be >= 0, got {flush_seconds!r}")
        self.timeout, self.connect_timeout = float(timeout), float(connect_timeout)
        self.flush_seconds = float(flush_seconds)
        self.progress = progress
        ports = [0] * n if ports is None else list(ports)
        if len(ports) != n or any(not isinstance(p, int) or not 0 <= p < 65536 for p in ports):
            raise ConfigError(f"ports must be {n} port numbers in 0..65535 (0: any free port), "
                              f"got {ports!r}")
        self.recorder = None if log is None else HandRecorder(self.game, log)
        if acpc_log is None and log is not None:
            acpc_log = default_acpc_log(log)
        self.acpc_log = None if acpc_log is None else Path(acpc_log)
        if self.acpc_log is not None:
            check_target(self.acpc_log, "ACPC log")
        self._acpc_lines: list[str] = []
        self._listeners: list[socket.socket] = []
        try:
            for port in ports:
                listener = socket.create_server((HOST, port))
                self._listeners.append(listener)
        except OSError as exc:
            self.close()
            raise ConfigError(f"cannot listen on {HOST} port {port}: {exc.strerror}") from None
        self.ports = [listener.getsockname()[1] for listener in self._listeners]
        """The port each player connects to (the system's choice where ``0`` was given)."""
        self._clients: list[LineSocket] = []
        self._last_flush = 0.0
        self.hands_played = 0
        self.fixed_actions = 0

    # ------------------------------------------------------------------ the match

    def _who(self, player: int) -> str:
        return f"{self.names[player]} (player {player}, port {self.ports[player]})"

    def _fail(self, player: int, hand: int | None, error: Exception) -> PlayerError:
        self.flush()
        where = "" if hand is None else f" in hand {hand}"
        kept = f"; the hands finished before ({self.hands_played}) are in the logs"
        if self.recorder is None and self.acpc_log is None:
            kept = f"; hands finished before: {self.hands_played}"
        return PlayerError(f"{self._who(player)}{where}: {error}{kept}")

    def _connect(self) -> None:
        deadline = time.monotonic() + self.connect_timeout
        for player, listener in enumerate(self._listeners):
            listener.settimeout(max(deadline - time.monotonic(), 0.001))
            try:
                sock, _ = listener.accept()
            except TimeoutError:
                raise self._fail(player, None, Stalled(
                    f"did not connect within {self.connect_timeout:g} s")) from None
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            client = LineSocket(sock)
            self._clients.append(client)
            try:
                version = client.read_line(self.timeout)
            except PlayerError as exc:
                raise self._fail(player, None, exc) from None
            major = version.removeprefix("VERSION:").split(".")[0]
            if not version.startswith("VERSION:") or major != "2":
                raise self._fail(player, None, PlayerError(
                    f"sent {version[:40]!r} instead of its protocol version, VERSION:2.0.0"))

    def _send_states(self, state: HoldemState, seat_player: list[int], hand: int) -> list[str]:
        messages = [encode(state, seat, hand) for seat in range(len(seat_player))]
        for seat, message in enumerate(messages):
            try:
                self._clients[seat_player[seat]].send_line(message)
            except PlayerError as exc:
                raise self._fail(seat_player[seat], hand, exc) from None
        return messages

    def play_hand(self, hand: int, seat_player: list[int],
                  chance_rng: np.random.Generator) -> HoldemState:
        """Play hand number ``hand``, seat ``s`` by player ``seat_player[s]``, cards drawn from
        ``chance_rng`` as ``head_to_head.play_hand`` draws them."""
        state = self.game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_action(dict(state.chance_outcomes()), chance_rng))
                continue
            messages = self._send_states(state, seat_player, hand)
            seat = state.current_player()
            player = seat_player[seat]
            try:
                reply = self._clients[player].read_line(self.timeout)
                token = parse_reply(reply, messages[seat])
                translation = action_of_token(state, token)
            except (PlayerError, ConfigError) as exc:
                raise self._fail(player, hand, exc) from None
            if translation.note:
                self.fixed_actions += 1
                self._acpc_lines.append(f"# hand {hand}: {self._who(player)} sent "
                                        f"{translation.note}")
            state.apply_action(translation.action)
        self._send_states(state, seat_player, hand)
        return state

    def _log_hand(self, state: HoldemState, hand: int, seat_player: list[int]) -> None:
        seat_names = [self.names[p] for p in seat_player]
        if self.recorder is not None:
            self.recorder.record(state, seat_names)
        shown = str(match_state(state, None, hand)).split(":", 3)[3]  # betting:cards
        payoffs = "|".join(str(int(r)) for r in state.returns())
        self._acpc_lines.append(f"STATE:{hand}:{shown}:{payoffs}:{'|'.join(seat_names)}")

    def flush(self) -> None:
        """Write both logs now (atomically), with every hand finished so far."""
        if self.recorder is not None and not self.recorder.closed:
            write_atomically(self.recorder.path, self.recorder.contents(), what="hand history")
        if self.acpc_log is not None:
            write_atomically(self.acpc_log, "".join(line + "\n" for line in self._acpc_lines),
                             what="ACPC log")
        self._last_flush = time.monotonic()

    def run(self) -> DealerResult:
        """Accept the players, play the match, close the connections and write the logs.

        Raises:
            PlayerError: a client that did not connect, closed its connection, sent text
                that is not a reply or stalled: one line naming it and the hand; the hands
                finished before are in the logs.
        """
        from tqdm.auto import tqdm

        n = self.game.num_players
        rotations = n if self.duplicate else 1
        per_deal = np.zeros((self.num_deals, n))
        seat_payoffs: list[list[float]] = []
        bar = tqdm(total=self.num_deals * rotations, unit="hand", disable=not self.progress,
                   desc="ACPC match")
        try:
            self._connect()
            for d in range(self.num_deals):
                rng = deal_rng(self.entropy, d)
                deal_seed = int(rng.integers(2**63))
                for r in (range(n) if self.duplicate else [d % n]):
                    seat_player = [(s - r) % n for s in range(n)]  # player i at seat i + r
                    hand = self.hands_played
                    state = self.play_hand(hand, seat_player, np.random.default_rng(deal_seed))
                    payoff = state.returns()
                    seat_payoffs.append(payoff)
                    for i in range(n):
                        per_deal[d, i] += payoff[(i + r) % n] / rotations
                    self._log_hand(state, hand, seat_player)
                    self.hands_played += 1
                    bar.update()
                    if time.monotonic() - self._last_flush >= self.flush_seconds:
                        self.flush()
            # Each player's chips over the match: its seat's payoff in every hand.
            totals = per_deal.sum(axis=0) * rotations
            self._acpc_lines.append(
                f"SCORE:{'|'.join(str(int(t)) for t in totals)}:{'|'.join(self.names)}")
            self.flush()
        finally:
            bar.close()
            self.close()
            if self.recorder is not None and self.recorder.num_hands:
                self.recorder.close()
        parts = [DealResults(0, self.num_deals, per_deal,
                             np.asarray(seat_payoffs, dtype=np.float64))]
        return DealerResult(match_result(self.game, parts), parts[0].seat_payoffs,
                            self.fixed_actions)

    def close(self) -> None:
        """Close every connection and listening socket (the clients see the end)."""
        for client in self._clients:
            client.close()
        for listener in self._listeners:
            listener.close()
        self._clients, self._listeners = [], []
