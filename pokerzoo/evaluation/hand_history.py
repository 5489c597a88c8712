"""Hand histories: keep the hands that matches, tournaments and play sessions deal.

``HandRecorder(game, path)`` collects finished hands (``record(state, names)``) and writes them
all when it is closed (``close()``, or the end of a ``with`` block, even one left by an error
once a hand was recorded), atomically: a finished file appears at ``path`` or nothing does.
The file's suffix chooses the format:

* ``.phhs`` (many hands) or ``.phh`` (one hand): the Poker Hand History format
  (https://phh.readthedocs.io), written by PokerKit, for hold'em (``limit_holdem``: PHH
  variant ``FT``; ``no_limit_holdem``: ``NT``). PokerKit reads the file back
  (``pokerkit.HandHistory.load_all`` for ``.phhs``, ``HandHistory.load`` for ``.phh``),
  replays each hand (iterating a ``HandHistory`` yields its states; the last one's
  ``payoffs`` are the chips won) and converts it to other formats with its own tools, e.g.
  ``HandHistory.to_acpc_protocol(position)`` for the ACPC protocol. Every hand is replayed in
  PokerKit as it is recorded and must pay what it paid here. Each hand also names its players
  (``players``, in PokerKit's order: heads-up the big blind first), our seat of each
  (``seats``, from 1), its number (``hand``), the ``finishing_stacks`` and, as the
  user-defined field ``_pokerzoo_game``, the pokerzoo game it was played in. Needs the
  ``pokerkit`` package.
* any other suffix (``.txt``, ``.log``, ...): the plain-text hand log below, for any game
  (Kuhn, Leduc, their unknown-environment versions, and hold'em too); ``read_text_log`` reads
  it back.

The plain-text hand log
-----------------------

A header line, then one block per hand, blocks separated by a blank line::

    hand: <number, from 1>
    game: <the game, as repr(game)>
    seat <i>: <name> [<private cards, space separated>]      (one line per seat)
    board: [<public cards, space separated>]
    round <r>: <seat> <action>, <seat> <action>, ...        (one line per betting round)
    payoffs: <chips won by seat 0> <by seat 1> ...
    history: <every action id, chance outcomes included, in order>

Cards and actions are written by the game's own names (``card_to_string``,
``action_to_string``); a payoff is a signed float that reads back exactly; ``history`` replays
the hand (``state.apply_action`` for each id from ``game.new_initial_state()``). Lines starting
with ``#`` are comments.

>>> import tempfile, pathlib
>>> import numpy as np
>>> from pokerzoo.games import load_game
>>> game = load_game("kuhn_poker")
>>> path = pathlib.Path(tempfile.mkdtemp()) / "kuhn.txt"
>>> with HandRecorder(game, path) as recorder:
...     state = game.new_initial_state()
...     for action in [2, 0, 1, 1]:  # K to alice, J to bob; alice bets, bob calls
...         state.apply_action(action)
...     recorder.record(state, ["alice", "bob"])
>>> print(path.read_text(), end="")
# pokerzoo hand log, format 1 (see pokerzoo.evaluation.hand_history)
<BLANKLINE>
hand: 1
game: kuhn_poker(num_players=2)
seat 0: alice [K]
seat 1: bob [J]
board: []
round 1: 0 bet, 1 bet
payoffs: +2.0 -2.0
history: 2 0 1 1
>>> [(h.names, h.payoffs) for h in read_text_log(path)]
[(['alice', 'bob'], [2.0, -2.0])]
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game, State

PHH_SUFFIXES = (".phh", ".phhs")
"""File suffixes written in the PHH format (hold'em only); any other suffix is a text log."""
TEXT_HEADER = "# pokerzoo hand log, format 1 (see pokerzoo.evaluation.hand_history)"

__all__ = [
    "HandRecorder",
    "LoggedHand",
    "active_recorder",
    "read_text_log",
    "record_pairings",
    "recording",
]


class HandRecorder:
    """Collects finished hands and writes them to ``path`` when closed (see the module doc).

    Args:
        game: the game the hands are played in, checked against the format now; ``None``
            checks each hand's own game when it is recorded. Hands of other games may be
            recorded too (each hand names its game), within the format's reach.
        path: the file to write; ``.phhs``/``.phh`` for PHH (hold'em), any other suffix for the
            plain-text log. Its folder must exist.

    Raises:
        ConfigError: for a PHH path with a game that is not hold'em (or a limit game with more
            bets per street than PHH's fixed-limit hold'em allows), or a folder that does not
            exist.
    """

    def __init__(self, game: Game | None, path: str | os.PathLike[str]) -> None:
        if not isinstance(path, str | os.PathLike):
            raise ConfigError(f"path must be a file path, got {path!r}")
        self.path = Path(path)
        if not self.path.name or self.path.is_dir():
            raise ConfigError(f"{str(path)!r} is a folder; a hand history needs a file name")
        if not self.path.parent.is_dir():
            raise ConfigError(
                f"cannot write hand histories to {str(path)!r}: the folder "
                f"{str(self.path.parent)!r} does not exist"
            )
        self.format = "phh" if self.path.suffix.lower() in PHH_SUFFIXES else "text"
        if game is not None and not isinstance(game, Game):
            raise ConfigError(f"game must be a pokerzoo Game or None, got {game!r}")
        self.game = game
        self._entries: list[Any] = []  # PokerKit HandHistory objects or text blocks
        self._pokerkit_games: dict[Game, Any] = {}
        self._closed = False
        if game is not None:
            self._check_game(game)

    @property
    def num_hands(self) -> int:
        """Hands recorded so far."""
        return len(self._entries)

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_game(self, game: Game) -> None:
        if self.format != "phh":
            return
        if game.game_type.phh_variant is None:
            raise ConfigError(
                f"{self.path.name}: the PHH format ({'/'.join(PHH_SUFFIXES)}) holds hold'em "
                f"hands, not {game.name}; write {game.name} hands to a plain-text log "
                f"(e.g. {self.path.with_suffix('.txt').name})"
            )
        if game not in self._pokerkit_games:
            from pokerzoo.games.holdem.pokerkit_bridge import pokerkit_game

            self._pokerkit_games[game] = pokerkit_game(game)  # type: ignore[arg-type]

    def record(self, state: State, names: Sequence[str] | None = None) -> None:
        """Keep the finished hand ``state``; ``names[s]`` is the player in seat ``s``
        (default ``"seat s"``). The hand is read now, so ``state`` may change afterwards.

        Raises:
            ConfigError: for an unfinished hand, names that do not fit the seats, a hand the
                format cannot hold, a second hand for a ``.phh`` file (use ``.phhs``), or a
                recorder already closed.
        """
        if self._closed:
            raise ConfigError(f"the hand recorder of {str(self.path)!r} is closed")
        if not isinstance(state, State):
            raise ConfigError(f"record needs a pokerzoo State, got {state!r}")
        if not state.is_terminal():
            raise ConfigError(
                f"record needs a finished hand; {state.game.name} at history {state.history()} "
                "is not over"
            )
        n = state.game.num_players
        if names is None:
            seat_names = [f"seat {s}" for s in range(n)]
        else:
            if isinstance(names, str | bytes) or len(names) != n:
                raise ConfigError(f"names must be a sequence of {n} names (one per seat), "
                                  f"got {names!r}")
            seat_names = [str(name) for name in names]
            for name in seat_names:
                if not name.strip() or "\n" in name or "\r" in name:
                    raise ConfigError(f"a player name must be one non-blank line, got {name!r}")
        self._check_game(state.game)
        if self.format == "phh":
            if self.path.suffix.lower() == ".phh" and self._entries:
                raise ConfigError(
                    f"{self.path.name}: a .phh file holds one hand; record many hands to a "
                    f".phhs file ({self.path.with_suffix('.phhs').name})"
                )
            self._entries.append(self._phh(state, seat_names))
        else:
            self._entries.append(_text_block(self.num_hands + 1, state, seat_names))

    def _phh(self, state: State, names: list[str]) -> Any:
        from pokerkit import HandHistory

        from pokerzoo.games.holdem.pokerkit_bridge import (
            PokerkitMismatch,
            payoffs_in_our_order,
            pokerkit_game_state,
            pokerkit_index,
            replay_into,
        )

        game: Any = state.game
        pk_game = self._pokerkit_games[game]
        pk = pokerkit_game_state(pk_game, game)
        history = state.history()
        replay_into(pk, game, history, check=False)
        ours = [int(r) for r in state.returns()]
        if pk.status or payoffs_in_our_order(game, pk) != ours:
            raise PokerkitMismatch(
                f"{game!r}: PokerKit pays {payoffs_in_our_order(game, pk)} for the hand "
                f"{history}, which pays {ours} here"
            )
        n = game.num_players
        order = [pokerkit_index(game, i) for i in range(n)]  # our seat of PokerKit player i
        return HandHistory.from_game_state(
            pk_game,
            pk,
            players=[names[s] for s in order],
            seats=[s + 1 for s in order],
            hand=self.num_hands + 1,
            finishing_stacks=[game.starting_stacks[s] + ours[s] for s in order],
            _pokerzoo_game=repr(game),
        )

    def contents(self) -> str:
        """The file's text as ``close()`` would write it now."""
        if self.format == "phh":
            from pokerkit import HandHistory

            if self.path.suffix.lower() == ".phh":
                return self._entries[0].dumps() + "\n" if self._entries else ""
            text = HandHistory.dumps_all(self._entries)
            return text + "\n" if text else ""
        return "\n\n".join([TEXT_HEADER, *self._entries]) + "\n"

    def close(self) -> Path:
        """Write every hand recorded to ``path`` (atomically: a temporary file in the same
        folder, then renamed) and stop recording; closing again does nothing. Returns the
        path."""
        if self._closed:
            return self.path
        self._closed = True
        text = self.contents()
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, self.path)
        finally:
            if tmp.exists():
                tmp.unlink()
        return self.path

    def __enter__(self) -> HandRecorder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # Hands played before an error (or Ctrl-C) are kept: they are what the user saw. An
        # error before any hand leaves no file (nothing was played).
        if exc is not None and not self._entries:
            self._closed = True
            return
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"HandRecorder({str(self.path)!r}, {self.format}, {self.num_hands} hands, {state})"


# ---------------------------------------------------------------------------------------------
# Recording every match played in a block
# ---------------------------------------------------------------------------------------------

_ACTIVE: ContextVar[HandRecorder | None] = ContextVar("pokerzoo_hand_recorder", default=None)


@contextmanager
def recording(recorder: HandRecorder) -> Iterator[HandRecorder]:
    """Within the block, matches (``head_to_head`` and everything built on it) record their
    hands to ``recorder`` unless given a recorder of their own, so a script records every
    match it plays without passing the recorder through each layer."""
    if not isinstance(recorder, HandRecorder):
        raise ConfigError(f"recording needs a HandRecorder, got {recorder!r}")
    token = _ACTIVE.set(recorder)
    try:
        yield recorder
    finally:
        _ACTIVE.reset(token)


def active_recorder() -> HandRecorder | None:
    """The recorder of the innermost ``recording`` block, if any."""
    return _ACTIVE.get()


def record_pairings(
    game: Game,
    policies: Mapping[str, object],
    hands: int,
    recorder: HandRecorder,
    *,
    seed: int = 0,
) -> None:
    """Play and record about ``hands`` hands (duplicate deals, seats rotated) of every table of
    the named ``policies`` on ``game``: every pairing in a two-player game, every group of
    ``num_players`` in a bigger one (the policies repeated round the table when there are
    fewer). For hand logs of games whose evaluations deal no hands (exact tournaments)."""
    from pokerzoo.evaluation.arguments import count_arg
    from pokerzoo.evaluation.head_to_head import head_to_head

    hands = count_arg(hands, "hands")
    if not isinstance(policies, Mapping) or not policies:
        raise ConfigError(f"policies must be a non-empty mapping of names to policies, "
                          f"got {policies!r}")
    n = game.num_players
    names = list(policies)
    if len(names) >= n:
        tables = [list(t) for t in itertools.combinations(names, n)]
    else:
        tables = [[names[s % len(names)] for s in range(n)]]
    deals = max(1, hands // n)
    for k, table in enumerate(tables):
        seat_names = [name if table.count(name) == 1 else f"{name} ({s + 1})"
                      for s, name in enumerate(table)]
        head_to_head(game, [policies[name] for name in table], deals, seed=seed + k,
                     recorder=recorder, names=seat_names)


# ---------------------------------------------------------------------------------------------
# The plain-text hand log
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoggedHand:
    """One hand of a plain-text hand log, as ``read_text_log`` returns it."""

    number: int
    game: str
    """The game, as ``repr(game)``."""
    names: list[str]
    private_cards: list[list[str]]
    """Each seat's private cards, by name."""
    board: list[str]
    rounds: list[list[tuple[int, str]]]
    """Per betting round, ``(seat, action name)`` in order."""
    payoffs: list[float]
    history: list[int]
    """Every action id, chance outcomes included: replays the hand."""


def _text_block(number: int, state: State, names: list[str]) -> str:
    game = state.game
    history = state.history()
    replay = game.new_initial_state()
    rounds: list[list[str]] = [[]]
    for a in history:
        if replay.is_chance_node():
            # A deal after some betting starts the next round (a flop of three deals, one).
            if rounds[-1]:
                rounds.append([])
        else:
            name = replay.action_to_string(a)
            if "," in name or "\n" in name:
                raise ConfigError(f"{game.name}'s action name {name!r} cannot go in a text log "
                                  "(names must not hold commas or line breaks)")
            rounds[-1].append(f"{replay.current_player()} {name}")
        replay.apply_action(a)
    while rounds and not rounds[-1]:
        rounds.pop()
    cards = state.private_cards()
    board = state.public_state()["public_cards"]
    lines = [f"hand: {number}", f"game: {game!r}"]
    lines += [
        f"seat {s}: {name} [{' '.join(game.card_to_string(c) for c in cards[s])}]"
        for s, name in enumerate(names)
    ]
    lines.append(f"board: [{' '.join(game.card_to_string(c) for c in board)}]")
    lines += [f"round {r + 1}: {', '.join(actions)}" for r, actions in enumerate(rounds)]
    lines.append("payoffs: " + " ".join(f"{float(x):+}" for x in state.returns()))
    lines.append("history: " + " ".join(str(a) for a in history))
    return "\n".join(lines)


def _cards_field(text: str, where: str) -> list[str]:
    if not (text.startswith("[") and text.endswith("]")):
        raise ConfigError(f"{where}: expected cards in brackets like [K] or [As Kd], got {text!r}")
    return text[1:-1].split()


def _parse_block(lines: list[tuple[int, str]], source: str) -> LoggedHand:
    fields: dict[str, str] = {}
    seats: list[tuple[str, list[str]]] = []
    rounds: list[list[tuple[int, str]]] = []
    for lineno, line in lines:
        where = f"{source}, line {lineno}"
        key, sep, value = line.partition(": ")
        if not sep:
            key, sep, value = line.partition(":")
        if not sep:
            raise ConfigError(f"{where}: expected 'key: value', got {line!r}")
        if key.startswith("seat "):
            if key != f"seat {len(seats)}":
                raise ConfigError(f"{where}: expected seat {len(seats)}, got {key!r}")
            name, bracket, cards = value.rpartition(" [")
            if not bracket:
                raise ConfigError(f"{where}: expected 'seat i: name [cards]', got {line!r}")
            seats.append((name, _cards_field("[" + cards, where)))
        elif key.startswith("round "):
            if key != f"round {len(rounds) + 1}":
                raise ConfigError(f"{where}: expected round {len(rounds) + 1}, got {key!r}")
            actions = []
            for item in value.split(", ") if value else []:
                seat, space, name = item.partition(" ")
                if not (space and seat.isdigit() and name):
                    raise ConfigError(f"{where}: expected '<seat> <action>', got {item!r}")
                actions.append((int(seat), name))
            rounds.append(actions)
        elif key in ("hand", "game", "board", "payoffs", "history") and key not in fields:
            fields[key] = value
        else:
            raise ConfigError(f"{where}: unexpected or repeated field {key!r}")
    where = f"{source}, hand starting at line {lines[0][0]}"
    missing = [k for k in ("hand", "game", "board", "payoffs", "history") if k not in fields]
    if missing or not seats:
        raise ConfigError(f"{where}: missing {missing or ['seat lines']}")
    try:
        number = int(fields["hand"])
        payoffs = [float(x) for x in fields["payoffs"].split()]
        history = [int(x) for x in fields["history"].split()]
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if len(payoffs) != len(seats):
        raise ConfigError(f"{where}: {len(payoffs)} payoffs for {len(seats)} seats")
    return LoggedHand(
        number=number,
        game=fields["game"],
        names=[name for name, _ in seats],
        private_cards=[cards for _, cards in seats],
        board=_cards_field(fields["board"], where),
        rounds=rounds,
        payoffs=payoffs,
        history=history,
    )


def read_text_log(path: str | os.PathLike[str]) -> list[LoggedHand]:
    """The hands of a plain-text hand log written by ``HandRecorder``.

    Raises:
        ConfigError: naming the line, for a file that is not such a log.
    """
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the hand log {source!r}: {exc}") from None
    hands: list[LoggedHand] = []
    block: list[tuple[int, str]] = []
    for lineno, raw in enumerate(text.splitlines() + [""], start=1):
        line = raw.rstrip()
        if line.startswith("#"):
            continue
        if line:
            block.append((lineno, line))
        elif block:
            hands.append(_parse_block(block, source))
            block = []
    return hands
