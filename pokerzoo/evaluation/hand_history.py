"""Hand histories: keep the hands that matches, tournaments and play sessions deal.

``HandRecorder(game, path)`` collects finished hands (``record(state, names)``) and writes them
all when it is closed (``close()``, or the end of a ``with`` block, even one left by an error
once a hand was recorded), atomically: a finished file appears at ``path`` or nothing does.
Only a new path or a regular file is written: a symbolic link, folder, named pipe or device
at ``path`` is refused when the recorder is made, and never replaced.
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
  ``pokerkit`` package. PokerKit refuses a rare legal hand of ours, one where short all-ins
  add up to a full raise and a player who acted before them raises (the TDA rule we follow
  reopens the betting there; PokerKit's does not): ``record`` raises ``PokerkitMismatch``
  naming the hand, or, with ``skip_unwritable=True`` (what ``evaluate.py`` and ``play.py``
  pass), leaves the hand out and counts it in ``summary()``.
* any other suffix (``.txt``, ``.log``, ...): the plain-text hand log below, for any game
  (Kuhn, Leduc, their unknown-environment versions, and hold'em too); ``read_text_log`` reads
  it back and checks each hand by replaying it (``pokerzoo.evaluation.text_log``).

Player names are one line of printable text (no control or line-separator characters), so
that both formats read back.

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
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from types import TracebackType
from typing import Any

from pokerzoo.atomic import check_target, write_atomically
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.text_log import (
    TEXT_HEADER,
    LoggedHand,
    logged_hand,
    read_text_log,
    text_block,
)
from pokerzoo.games.base import Game, State

PHH_SUFFIXES = (".phh", ".phhs")
"""File suffixes written in the PHH format (hold'em only); any other suffix is a text log."""
_WHAT = "hand history"

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
            plain-text log. Its folder must exist; the path must be new or a regular file
            (which is replaced): a symbolic link, folder, named pipe or device is refused.
        skip_unwritable: keep playing past a hand the format cannot hold (a PHH hand PokerKit
            refuses to replay, see ``pokerkit_bridge.REOPENING_RULE``) instead of raising:
            the hand is left out (its number too) and counted in ``skipped``, and
            ``summary()`` says so. The scripts pass ``True``, so a rare hand does not end a
            long evaluation.

    Raises:
        ConfigError: for a PHH path with a game that is not hold'em (or a limit game with more
            bets per street than PHH's fixed-limit hold'em allows), a folder that does not
            exist, or a path that is not new or a regular file.
    """

    def __init__(
        self, game: Game | None, path: str | os.PathLike[str], *, skip_unwritable: bool = False
    ) -> None:
        # Refused now, before any hand is played: a path that is not new or a regular file.
        check_target(path, _WHAT)
        self.path = Path(path)
        self.format = "phh" if self.path.suffix.lower() in PHH_SUFFIXES else "text"
        if game is not None and not isinstance(game, Game):
            raise ConfigError(f"game must be a pokerzoo Game or None, got {game!r}")
        if not isinstance(skip_unwritable, bool):
            raise ConfigError(f"skip_unwritable must be True or False, got {skip_unwritable!r}")
        self.game = game
        self.skip_unwritable = skip_unwritable
        self.skipped: list[str] = []
        """Why each hand left out was left out (``skip_unwritable``), in order."""
        self._entries: list[Any] = []  # PokerKit HandHistory objects or text blocks
        self._played = 0  # hands given to record, the skipped ones included: their numbers
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

    def summary(self) -> str:
        """One line for the user: the hands written, and those left out and why."""
        line = f"{_hands(self.num_hands)} written to {self.path}"
        if self.skipped:
            line += (f"; {_hands(len(self.skipped))} left out that {self.format.upper()} cannot "
                     f"hold (the first: {self.skipped[0]})")
        return line

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
            ConfigError: for an unfinished hand, names that do not fit the seats (or hold
                control or line-separator characters), a hand the text log cannot hold, a
                second hand for a ``.phh`` file (use ``.phhs``), or a recorder already closed.
            PokerkitMismatch: (a ``PokerzooError``) for a hold'em hand PokerKit refuses to
                replay, so PHH cannot hold it, naming the hand and the action; with
                ``skip_unwritable`` the hand is left out instead.
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
            if not isinstance(names, Sequence) or isinstance(names, str) or len(names) != n:
                raise ConfigError(f"names must be a sequence of {n} names (one per seat), "
                                  f"got {names!r}")
            seat_names = [_checked_name(name) for name in names]
        self._check_game(state.game)
        number = self._played + 1
        if self.format == "phh":
            if self.path.suffix.lower() == ".phh" and self._entries:
                raise ConfigError(
                    f"{self.path.name}: a .phh file holds one hand; record many hands to a "
                    f".phhs file ({self.path.with_suffix('.phhs').name})"
                )
            from pokerzoo.games.holdem.pokerkit_bridge import PokerkitMismatch

            try:
                entry = self._phh(state, seat_names, number)
            except PokerkitMismatch as exc:
                self._played += 1
                reason = f"hand {number}: {exc}"
                if not self.skip_unwritable:
                    raise PokerkitMismatch(f"{self.path.name}: cannot write {reason}") from None
                self.skipped.append(reason)
                return
        else:
            entry = text_block(logged_hand(number, state, seat_names))
        self._played += 1
        self._entries.append(entry)

    def _phh(self, state: State, names: list[str], number: int) -> Any:
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
            hand=number,
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
        """Write every hand recorded to ``path`` (``pokerzoo.atomic.write_atomically``: a
        temporary file in the same folder, flushed, then renamed; a path that has become a
        link, folder, pipe or device meanwhile is refused) and stop recording; closing again
        does nothing. Returns the path."""
        if self._closed:
            return self.path
        self._closed = True
        return write_atomically(self.path, self.contents(), what=_WHAT)

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


def _hands(n: int) -> str:
    return f"{n} hand" if n == 1 else f"{n} hands"


_UNWRITABLE = ("Cc", "Zl", "Zp", "Cs")  # control, line and paragraph separators, surrogates


def _checked_name(name: object) -> str:
    """``name`` as a player name both formats read back: one non-blank line with no control,
    line-separator or surrogate characters (``str.splitlines`` splits at some control
    characters and at U+2028/U+2029; TOML, which PHH is, refuses control characters)."""
    text = str(name)
    if not text.strip() or any(unicodedata.category(c) in _UNWRITABLE for c in text):
        raise ConfigError(
            f"a player name must be one non-blank line of printable text (no control or "
            f"line-separator characters), got {text!r}"
        )
    return text


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
