"""The plain-text hand log (its format: ``pokerzoo.evaluation.hand_history``): one finished hand
as a block of lines, and the reader, which checks every hand by replaying it.

``read_text_log`` refuses, in one line naming the file and the line: bytes that are not UTF-8
text, a line that is not ``key: value``, a missing or repeated field, payoffs that do not sum to
zero in a zero-sum game, and a hand whose history does not replay to what its block says (an
illegal or unfinished history, other cards, actions or payoffs). Each hand is replayed in the
game its ``game:`` line names, rebuilt from that line (a registered game with literal
parameters, read as data: no code runs), or in the game passed as ``game=`` where the line
cannot rebuild it: an unknown-environment game's hidden model is not in the log.
"""

from __future__ import annotations

import ast
import math
import os
import stat
from dataclasses import dataclass, fields
from pathlib import Path

from pokerzoo.errors import ConfigError, PokerzooError
from pokerzoo.games.base import Game, State
from pokerzoo.games.registry import load_game

TEXT_HEADER = "# pokerzoo hand log, format 1 (see pokerzoo.evaluation.hand_history)"
_MAX_GAME_LINE = 10_000  # characters: a game's repr is a few hundred


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


def logged_hand(number: int, state: State, names: list[str]) -> LoggedHand:
    """What the log keeps of the finished hand ``state`` with players ``names``."""
    game = state.game
    history = state.history()
    replay = game.new_initial_state()
    rounds: list[list[tuple[int, str]]] = [[]]
    for a in history:
        if replay.is_chance_node():
            # A deal after some betting starts the next round (a flop of three deals, one).
            if rounds[-1]:
                rounds.append([])
        else:
            rounds[-1].append((replay.current_player(), replay.action_to_string(a)))
        replay.apply_action(a)
    while rounds and not rounds[-1]:
        rounds.pop()
    return LoggedHand(
        number=number,
        game=repr(game),
        names=list(names),
        private_cards=[[game.card_to_string(c) for c in cards] for cards in state.private_cards()],
        board=[game.card_to_string(c) for c in state.public_state()["public_cards"]],
        rounds=rounds,
        payoffs=[float(x) for x in state.returns()],
        history=history,
    )


def text_block(hand: LoggedHand) -> str:
    """``hand`` as the log's block of lines.

    Raises:
        ConfigError: for an action name the block cannot hold (a comma or a line break).
    """
    for _, name in (d for r in hand.rounds for d in r):
        if "," in name or len(name.splitlines()) != 1 or name != name.strip():
            raise ConfigError(f"{hand.game}'s action name {name!r} cannot go in a text log "
                              "(names must be one line without commas or outer spaces)")
    lines = [f"hand: {hand.number}", f"game: {hand.game}"]
    lines += [f"seat {s}: {name} [{' '.join(cards)}]"
              for s, (name, cards) in enumerate(zip(hand.names, hand.private_cards))]
    lines.append(f"board: [{' '.join(hand.board)}]")
    lines += [f"round {r + 1}: {', '.join(f'{seat} {name}' for seat, name in actions)}"
              for r, actions in enumerate(hand.rounds)]
    lines.append("payoffs: " + " ".join(f"{x:+}" for x in hand.payoffs))
    lines.append("history: " + " ".join(str(a) for a in hand.history))
    return "\n".join(lines)


def read_text_log(path: str | os.PathLike[str], game: Game | None = None) -> list[LoggedHand]:
    """The hands of a plain-text hand log written by ``HandRecorder``, each checked by replaying
    it (see the module doc).

    Args:
        path: the log.
        game: the game every hand was played in (each hand's ``game:`` line must name it);
            default: each hand's game rebuilt from its ``game:`` line.

    Raises:
        ConfigError: naming the line, for a file that is not such a log or a hand that does
            not replay as written.
    """
    if not isinstance(path, str | os.PathLike):
        raise ConfigError(f"the hand log path must be a file path, got {path!r}")
    if game is not None and not isinstance(game, Game):
        raise ConfigError(f"game must be a pokerzoo Game or None, got {game!r}")
    source = str(path)
    text = _read_text(Path(path), source)
    games: dict[str, Game] = {} if game is None else {repr(game): game}
    hands: list[LoggedHand] = []
    block: list[tuple[int, str]] = []
    for lineno, raw in enumerate(text.splitlines() + [""], start=1):
        line = raw.rstrip()
        if line.startswith("#"):
            continue
        if line:
            block.append((lineno, line))
        elif block:
            where = f"{source}, hand starting at line {block[0][0]}"
            hand = _parse_block(block, source)
            if hand.game not in games:
                if game is not None:
                    raise ConfigError(f"{where}: played in {hand.game}, not in the game given "
                                      f"({game!r})")
                games[hand.game] = _rebuild_game(hand.game, where)
            _check_replay(hand, games[hand.game], where)
            hands.append(hand)
            block = []
    return hands


def _read_text(path: Path, source: str) -> str:
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            # A FIFO would block the read forever, a device could be endless.
            raise ConfigError(f"cannot read the hand log {source!r}: it is not a regular file")
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the hand log {source!r}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{source} is not a pokerzoo hand log: not UTF-8 text (byte "
            f"0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def _rebuild_game(line: str, where: str) -> Game:
    """The game ``repr(game) == line`` names, read as data (``ast.literal_eval``)."""
    shape = f"{where}: the game line {line[:80]!r} is not name(parameter=value, ...)"
    if len(line) > _MAX_GAME_LINE:
        raise ConfigError(shape)
    try:
        node: ast.expr | None = ast.parse(line, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        node = None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args
            and all(k.arg is not None for k in node.keywords)):
        raise ConfigError(shape)
    try:
        params = {str(k.arg): ast.literal_eval(k.value) for k in node.keywords}
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise ConfigError(f"{where}: the game line's parameters are not literals") from None
    name = node.func.id
    try:
        game = load_game(name, **params)
    except PokerzooError as exc:
        raise ConfigError(f"{where}: cannot rebuild its game {line!r} to replay the hand "
                          f"({exc}); pass the game: read_text_log(path, game=...)") from None
    if repr(game) != line:
        raise ConfigError(f"{where}: its game {line!r} rebuilds as {game!r}; pass the game it "
                          "was played in: read_text_log(path, game=...)")
    return game


def _check_replay(hand: LoggedHand, game: Game, where: str) -> None:
    """Refuse ``hand`` unless its history replays in ``game`` to exactly its block."""
    n = game.num_players
    if len(hand.payoffs) != n or len(hand.names) != n:
        raise ConfigError(f"{where}: {len(hand.names)} seats for {game.name}'s {n} players")
    if not all(math.isfinite(x) for x in hand.payoffs):
        raise ConfigError(f"{where}: payoffs {hand.payoffs} are not all finite numbers")
    if game.game_type.utility == "zero_sum":
        total = math.fsum(hand.payoffs)
        if not abs(total) <= 1e-9 * max(1.0, *(abs(x) for x in hand.payoffs)):
            raise ConfigError(f"{where}: payoffs {hand.payoffs} sum to {total:g}; "
                              f"{game.name} is zero-sum")
    state = game.new_initial_state()
    for k, a in enumerate(hand.history):
        if state.is_terminal():
            raise ConfigError(f"{where}: the history goes on after the hand ended "
                              f"(action {k + 1} of {len(hand.history)})")
        try:
            state.apply_action(a)
        except PokerzooError as exc:
            raise ConfigError(f"{where}: the history does not replay: {exc}") from None
    if not state.is_terminal():
        raise ConfigError(f"{where}: the history ends before the hand is over")
    expected = logged_hand(hand.number, state, hand.names)
    for f in fields(LoggedHand):
        ours, theirs = getattr(hand, f.name), getattr(expected, f.name)
        if ours != theirs:
            raise ConfigError(f"{where}: its {f.name.replace('_', ' ')} {ours} are not what "
                              f"its history gives: {theirs}")


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
