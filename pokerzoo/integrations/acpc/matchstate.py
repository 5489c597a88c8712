"""ACPC ``MATCHSTATE`` messages for pokerzoo hold'em states, and the clients' replies.

A message is ``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` (protocol version 2.0.0):

* ``position``: the seat of the player it is sent to (pokerzoo's seat; ``gamedef`` maps them);
* ``hand``: the hand's number, from 0;
* ``betting``: the actions so far, ``f`` fold, ``c`` check or call, ``r`` a raise (limit) or
  ``r<N>`` (no-limit: a raise *to* ``N`` chips, the player's whole commitment to the pot over the
  hand, blinds included), rounds separated by ``/``; after an all-in the skipped rounds still get
  their ``/`` (``r10000c///``);
* ``cards``: each position's hole cards, ``|`` between positions, shown for the receiver and, at
  a showdown, for every player still in; then ``/`` and the board cards of each round reached
  (``Ah2c|/Kd7s3h/9c``).

A client answers on its turn with the message it was sent, ``:`` and an action
(``MATCHSTATE:0:7:cr300:Ah2c|:c``). ``parse_matchstate`` and ``parse_reply`` are strict: text of
another shape raises a one-line ``ConfigError`` naming what is wrong.

>>> from pokerzoo.games import load_game
>>> game = load_game("no_limit_holdem")
>>> state = game.new_initial_state()
>>> for action in [51, 47, 0, 5, 2, 1]:  # As Ks, 2c 3d; a half-pot raise, a call
...     state.apply_action(action)
>>> for card in [12, 20, 30]:
...     state.apply_action(card)
>>> encode(state, 1, 4)
'MATCHSTATE:1:4:r200c/:|2c3d/5c7c9h'
>>> message = parse_matchstate('MATCHSTATE:1:4:r200c/:|2c3d/5c7c9h', game)
>>> replay(game, message).actions
[2, 1]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.games.holdem.cards import CARD_STRINGS, string_to_card
from pokerzoo.games.holdem.game import HoldemGame
from pokerzoo.games.holdem.state import CALL, FOLD, HoldemState

PREFIX = "MATCHSTATE"
BOARD_SIZES = (0, 3, 1, 1)
"""Board cards dealt at the start of each round."""
MAX_MESSAGE = 4096
"""Longest message read (a hold'em hand needs a few hundred characters)."""

_TOKEN = re.compile(r"[fc]|r\d*")
_CARD_PAIR = re.compile(r"(?:[2-9TJQKA][cdhs])*")


@dataclass(frozen=True)
class MatchState:
    """A parsed ``MATCHSTATE`` message."""

    position: int
    hand: int
    betting: tuple[tuple[str, ...], ...]
    """Each round's action tokens (``"f"``, ``"c"``, ``"r"`` or ``"r<N>"``), one tuple per
    round reached."""
    hole_cards: tuple[tuple[int, ...], ...]
    """Each position's hole cards, ``()`` where hidden."""
    board: tuple[tuple[int, ...], ...]
    """The board cards of rounds 1 to the round reached (flop, turn, river)."""

    def betting_text(self) -> str:
        return "/".join("".join(tokens) for tokens in self.betting)

    def __str__(self) -> str:
        holes = "|".join("".join(CARD_STRINGS[c] for c in h) for h in self.hole_cards)
        boards = "".join("/" + "".join(CARD_STRINGS[c] for c in b) for b in self.board)
        return f"{PREFIX}:{self.position}:{self.hand}:{self.betting_text()}:{holes}{boards}"


def holdem_game(game: Game) -> HoldemGame:
    """``game`` if it is hold'em (limit or no-limit), else a ``ConfigError``."""
    if not isinstance(game, HoldemGame):
        raise ConfigError(f"the ACPC protocol is spoken here for limit_holdem and "
                          f"no_limit_holdem, not {getattr(game, 'name', game)!r}")
    return game


def _spent(state: HoldemState, seat: int) -> int:
    """Chips ``seat`` has put in the pot over the hand (ACPC's ``spent``)."""
    return int(state.public_state()["contributions"][seat])


def raise_total(state: HoldemState, action: int) -> int:
    """The ACPC size of the raise ``action`` of the player to act: their commitment to the pot
    over the hand once it is made (``r<N>``'s ``N``)."""
    seat = state.current_player()
    public = state.public_state()
    return int(public["contributions"][seat] - public["round_bets"][seat]
               + state.raise_to_amount(action))


def action_token(state: HoldemState, action: int) -> str:
    """The ACPC token of a legal betting ``action`` at ``state``: ``f``, ``c``, ``r`` or
    ``r<N>``."""
    if action == FOLD:
        return "f"
    if action == CALL:
        return "c"
    return "r" if state.game.is_limit else f"r{raise_total(state, action)}"


@dataclass(frozen=True)
class Translation:
    """A pokerzoo action for an ACPC token; ``note`` says how it was changed, if it was."""

    action: int
    note: str | None = None


def action_of_token(state: HoldemState, token: str, all_in: bool | None = None) -> Translation:
    """The legal pokerzoo action closest to the ACPC ``token`` at ``state``.

    The ACPC dealer turns an invalid action into a valid one; so does this, saying so in
    ``note``: a fold when checking is free is a check, a raise where none is allowed a call,
    and a no-limit ``r<N>`` off pokerzoo's menu the legal raise whose total is nearest to
    ``N`` (the smaller of two equally near; all-in is on the menu).

    ``all_in`` says whether the raise put its player all-in on the dealer that sent it (a
    dealer with other stacks than pokerzoo's game, ``betting.AcpcHand``): an all-in is then
    played as pokerzoo's all-in and any other raise as the nearest raise that is not all-in
    (all-in only where no other is legal), so the translated hand ends its rounds where the
    real one does. ``None``: by size alone.
    """
    legal = state.legal_actions()
    if token == "f":
        return Translation(FOLD) if FOLD in legal else Translation(CALL, "f with nothing to "
                                                                   "call played as c")
    if token == "c":
        return Translation(CALL)
    raises = [a for a in legal if a not in (FOLD, CALL)]
    if not raises:
        return Translation(CALL, f"{token} where no raise is allowed played as c")
    if state.game.is_limit:
        return Translation(raises[0])
    if token == "r":
        raise ConfigError("a no-limit raise needs its size: r<N>, N the chips the raiser has "
                          "in the pot once it is made")
    wanted = int(token[1:])
    totals = [(raise_total(state, a), a) for a in raises]
    if all_in is not None and not state.game.is_limit:
        shove = state.game.all_in_action
        if all_in and shove in raises:
            return _translated(token, wanted, totals, raise_total(state, shove), shove)
        others = [(t, a) for t, a in totals if a != shove]
        if not all_in and others:
            best_total, best = min(others, key=lambda ta: (abs(ta[0] - wanted), ta[0]))
            return _translated(token, wanted, totals, best_total, best)
    best_total, best = min(totals, key=lambda ta: (abs(ta[0] - wanted), ta[0]))
    return _translated(token, wanted, totals, best_total, best)


def _translated(token: str, wanted: int, totals: list[tuple[int, int]], total: int,
                action: int) -> Translation:
    if total == wanted:
        return Translation(action)
    return Translation(action, f"{token} is off pokerzoo's menu "
                               f"{[t for t, _ in totals]}: played as r{total}")


def betting_and_boards(state: HoldemState) -> tuple[list[list[str]], list[list[int]]]:
    """Each round's ACPC tokens and each round's board cards, by replaying ``state``'s
    history."""
    replayed = state.game.new_initial_state()
    betting: list[list[str]] = [[]]
    boards: list[list[int]] = []
    for action in state.history():
        if replayed.is_chance_node():
            replayed.apply_action(action)
            board = replayed.public_state()["public_cards"]
            if len(board) == sum(BOARD_SIZES[: len(boards) + 2]):  # a round's cards are out
                boards.append(board[len(board) - BOARD_SIZES[len(boards) + 1]:])
                betting.append([])
            continue
        betting[-1].append(action_token(replayed, action))
        replayed.apply_action(action)
    return betting, boards


def encode(state: HoldemState, position: int, hand: int) -> str:
    """The ``MATCHSTATE`` message of ``state`` for ``position`` in hand ``hand``.

    ``state`` is at a decision or at the end of the hand (messages are sent there); the
    receiver's hole cards are shown, and at a showdown those of every player still in.
    """
    return str(match_state(state, position, hand))


def match_state(state: HoldemState, position: int | None, hand: int) -> MatchState:
    """The ``MatchState`` of ``state`` seen by ``position`` (``None``: every hole card shown,
    as in the dealer's log)."""
    holdem_game(state.game)
    if state.is_chance_node():
        raise ConfigError("a MATCHSTATE is sent at a decision or at the end of a hand, not at "
                          "a chance node")
    betting, boards = betting_and_boards(state)
    folded = state.public_state()["folded"]
    showdown = state.is_terminal() and folded.count(False) > 1
    holes = tuple(
        tuple(cards) if position is None or seat == position or (showdown and not folded[seat])
        else ()
        for seat, cards in enumerate(state.private_cards()))
    return MatchState(
        position=-1 if position is None else position, hand=hand,
        betting=tuple(tuple(tokens) for tokens in betting), hole_cards=holes,
        board=tuple(tuple(b) for b in boards))


def _cards(text: str, count: int | None, what: str) -> tuple[int, ...]:
    if not _CARD_PAIR.fullmatch(text) or (count is not None and len(text) != 2 * count):
        size = "" if count is None else f"{count} "
        raise ConfigError(f"{what} {text!r} is not {size}cards such as 'Ah2c'")
    return tuple(string_to_card(text[i:i + 2]) for i in range(0, len(text), 2))


def parse_matchstate(text: str, game: Game) -> MatchState:
    """Parse a ``MATCHSTATE`` message of ``game`` (the line, without its line end).

    Raises:
        ConfigError: naming what is wrong: the prefix, a field, a token, a card, a card seen
            twice, a board that does not fit the rounds of the betting.
    """
    n = holdem_game(game).num_players
    if not isinstance(text, str):
        raise ConfigError(f"a MATCHSTATE is text, got {type(text).__name__}")
    if len(text) > MAX_MESSAGE:
        raise ConfigError(f"a MATCHSTATE of {len(text)} characters is too long")
    fields = text.split(":")
    if fields[0] != PREFIX or len(fields) != 5:
        raise ConfigError(f"expected MATCHSTATE:<position>:<hand>:<betting>:<cards>, got "
                          f"{text[:80]!r}")
    _, position_text, hand_text, betting_text, cards_text = fields
    if not position_text.isdecimal() or not 0 <= int(position_text) < n:
        raise ConfigError(f"MATCHSTATE position {position_text!r} is not a seat 0..{n - 1}")
    if not hand_text.isdecimal():
        raise ConfigError(f"MATCHSTATE hand number {hand_text!r} is not a number")
    rounds = betting_text.split("/")
    if len(rounds) > len(BOARD_SIZES):
        raise ConfigError(f"MATCHSTATE betting {betting_text!r} has more than "
                          f"{len(BOARD_SIZES)} rounds")
    betting = []
    for tokens_text in rounds:
        tokens = _TOKEN.findall(tokens_text)
        if "".join(tokens) != tokens_text:
            raise ConfigError(f"MATCHSTATE betting {betting_text!r}: {tokens_text!r} is not a "
                              "sequence of f, c, r and r<N>")
        betting.append(tuple(tokens))
    parts = cards_text.split("/")
    holes_text = parts[0].split("|")
    if len(holes_text) != n:
        raise ConfigError(f"MATCHSTATE cards {cards_text!r} need {n} hole-card groups "
                          "separated by '|'")
    holes = tuple(_cards(h, 2, "hole cards") if h else () for h in holes_text)
    if len(parts) != len(rounds):
        raise ConfigError(f"MATCHSTATE cards {cards_text!r} show {len(parts) - 1} boards for "
                          f"{len(rounds) - 1} finished rounds of betting {betting_text!r}")
    board = tuple(_cards(b, BOARD_SIZES[r + 1], f"round {r + 1} board")
                  for r, b in enumerate(parts[1:]))
    seen = [c for h in holes for c in h] + [c for b in board for c in b]
    if len(set(seen)) != len(seen):
        raise ConfigError(f"MATCHSTATE cards {cards_text!r} show a card twice")
    position = int(position_text)
    if not holes[position]:
        raise ConfigError(f"MATCHSTATE cards {cards_text!r} do not show the receiver's "
                          f"(position {position}) hole cards")
    return MatchState(position, int(hand_text), tuple(betting), holes, board)


def parse_reply(text: str, sent: str) -> str:
    """The action token of a client's reply to the message ``sent``.

    Raises:
        ConfigError: when the reply is not ``sent``, ``:`` and one of ``f``, ``c``, ``r``,
            ``r<N>``.
    """
    if not isinstance(text, str) or len(text) > MAX_MESSAGE:
        raise ConfigError("a reply is one line of text")
    if not text.startswith(sent + ":"):
        raise ConfigError(f"reply {text[:80]!r} does not repeat the state it answers "
                          f"({sent[:80]!r}) before ':<action>'")
    token = text[len(sent) + 1:]
    if not re.fullmatch(r"[fc]|r\d*", token) or len(token) > 16:
        raise ConfigError(f"reply action {token[:20]!r} is not f, c, r or r<N>")
    return token


@dataclass(frozen=True)
class Replay:
    """A ``MatchState`` replayed in pokerzoo's game."""

    state: HoldemState
    """The pokerzoo state; hidden hole cards are stand-ins (the lowest cards the message does
    not show), so only the receiver's information is real."""
    actions: list[int]
    """The pokerzoo betting actions of the betting string, in order."""
    notes: list[str]
    """How each token off pokerzoo's menu was translated (empty when none was)."""


def replay(game: Game, message: MatchState,
           all_ins: Sequence[bool] | None = None) -> Replay:
    """Replay ``message`` in ``game``: deal its cards (stand-ins where hidden) and translate
    its tokens (``action_of_token``; ``all_ins``: for each token of the betting, in order,
    whether it put its player all-in on the dealer that sent it).

    Raises:
        ConfigError: when the betting does not fit the game: an action after the hand ended or
            before a round's cards, a round that ends without its ``/`` or a ``/`` before a
            round ended.
    """
    holdem = holdem_game(game)
    shown = {c for h in message.hole_cards for c in h} | {c for b in message.board for c in b}
    stand_ins = iter(c for c in range(52) if c not in shown)
    state = holdem.new_initial_state()
    for cards in message.hole_cards:
        for card in cards or (next(stand_ins), next(stand_ins)):
            state.apply_action(card)
    actions: list[int] = []
    notes: list[str] = []
    text = message.betting_text()
    flags = iter(all_ins) if all_ins is not None else None
    for r, tokens in enumerate(message.betting):
        if r > 0:
            if not state.is_chance_node():
                raise ConfigError(f"MATCHSTATE betting {text!r}: a '/' before round {r} ended")
            for card in message.board[r - 1]:
                state.apply_action(card)
        for token in tokens:
            if state.is_chance_node() or state.is_terminal():
                raise ConfigError(f"MATCHSTATE betting {text!r}: {token!r} after round {r} "
                                  "ended")
            flag = None if flags is None else next(flags, None)
            translation = action_of_token(state, token, flag)
            if translation.note:
                notes.append(translation.note)
            actions.append(translation.action)
            state.apply_action(translation.action)
    if state.is_chance_node():
        raise ConfigError(f"MATCHSTATE betting {text!r}: the round is over but no '/' and "
                          "cards follow")
    return Replay(state, actions, notes)
