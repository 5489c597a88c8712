"""ACPC game definitions (``GAMEDEF ... END GAMEDEF``) of pokerzoo's hold'em games.

The text is the one the ACPC dealer (``project_acpc_server``) and OpenSpiel's
``universal_poker`` read: ``limit`` or ``nolimit``, then ``key = values`` lines. pokerzoo's seat
``i`` is ACPC position ``i``: seat 0 posts the small blind (``blind = 50 100``); heads-up it acts
first before the flop and last after it (``firstPlayer = 1 2 2 2``, 1-based as in ACPC).

Mapping of the parameters:

* ``maxRaises``: pokerzoo's ``raise_cap`` counts the bets plus raises of a round, the big blind
  being the first pre-flop bet; ACPC counts raises, so ``maxRaises = cap-1 cap cap cap``.
* ``raiseSize`` (limit): the big blind on the first two rounds, twice it on the last two.
* ``stack``: every seat's starting stack. A limit gamedef without ``stack`` (the ACPC dealer's
  default: no stack) gets stacks deep enough that no limit hand can reach them.
* no-limit pokerzoo plays a menu of pot fractions (``bet_fractions``) plus all-in, which ACPC
  cannot express: ``gamedef_of`` writes them on a comment line, ``# pokerzoo bet_fractions =
  0.5 1``, that ACPC readers skip, and ``game_of_gamedef`` reads them back (default: pokerzoo's).

The ACPC competition's own heads-up gamedefs put the big blind first ("reverse blinds":
``blind = 100 50``, ``firstPlayer = 2 1 1 1``): ``game_of_gamedef`` reads them as the same
pokerzoo game with the two positions swapped, and ``seats_of_gamedef`` says which pokerzoo
seat each ACPC position is (``(1, 0)`` there, else ``(0, 1, ...)``), which the client needs to
read its messages.

Antes have no ACPC counterpart, and games other than 52-card hold'em (4 rounds, 2 hole cards,
``numBoardCards = 0 3 1 1``) are refused.

>>> from pokerzoo.games import load_game
>>> game = load_game("limit_holdem")
>>> print(gamedef_of(game))
GAMEDEF
limit
numPlayers = 2
numRounds = 4
stack = 10000 10000
blind = 50 100
raiseSize = 100 100 200 200
firstPlayer = 1 2 2 2
maxRaises = 3 4 4 4
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
>>> game_of_gamedef(gamedef_of(game)) == game
True
"""

from __future__ import annotations

from typing import Any

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.games.holdem.game import HoldemGame, LimitHoldem, NoLimitHoldem

FRACTIONS_KEY = "# pokerzoo bet_fractions ="
"""The comment line that carries a no-limit game's pot fractions."""

_HOLDEM_SHAPE = {"numRounds": [4], "numSuits": [4], "numRanks": [13], "numHoleCards": [2],
                 "numBoardCards": [0, 3, 1, 1]}
"""What every gamedef of pokerzoo's hold'em has: the 52-card deck and its four rounds."""

_KEYS = {key.lower(): key for key in (
    "numPlayers", "numRounds", "stack", "blind", "raiseSize", "firstPlayer", "maxRaises",
    "numSuits", "numRanks", "numHoleCards", "numBoardCards")}
"""The ACPC keys, by their lower-case spelling (ACPC reads them case-insensitively)."""

_MAX_TEXT = 1 << 16
"""Longest gamedef read (a real one is a few hundred characters)."""


def _line(key: str, values: list[int]) -> str:
    return f"{key} = {' '.join(str(v) for v in values)}"


def _first_players(game: HoldemGame) -> list[int]:
    return [game.preflop_first + 1] + [game.postflop_first + 1] * 3


def _max_raises(game: HoldemGame) -> list[int]:
    cap = game.raise_cap
    return [cap - 1, cap, cap, cap]


def gamedef_of(game: Game) -> str:
    """The ACPC gamedef of a pokerzoo ``limit_holdem`` or ``no_limit_holdem`` (2-6 players).

    Raises:
        ConfigError: for another game, or a hold'em game with antes (ACPC has none).
    """
    if not isinstance(game, HoldemGame):
        raise ConfigError(f"ACPC gamedefs are written for limit_holdem and no_limit_holdem, "
                          f"not {getattr(game, 'name', game)!r}")
    cfg = game.config
    if cfg.ante:
        raise ConfigError(f"{game!r} has antes, which an ACPC gamedef cannot hold; use ante=0")
    n = cfg.num_players
    lines = ["GAMEDEF", "limit" if game.is_limit else "nolimit"]
    if not game.is_limit:
        lines.append(f"{FRACTIONS_KEY} {' '.join(f'{f:g}' for f in game.bet_fractions)}")
    lines += [
        _line("numPlayers", [n]),
        _line("numRounds", [4]),
        _line("stack", list(game.starting_stacks)),
        _line("blind", [cfg.small_blind, cfg.big_blind] + [0] * (n - 2)),
    ]
    if game.is_limit:
        bb = cfg.big_blind
        lines.append(_line("raiseSize", [bb, bb, 2 * bb, 2 * bb]))
    lines.append(_line("firstPlayer", _first_players(game)))
    if game.is_limit:
        lines.append(_line("maxRaises", _max_raises(game)))
    lines += [_line(key, _HOLDEM_SHAPE[key]) for key in
              ("numSuits", "numRanks", "numHoleCards", "numBoardCards")]
    lines.append("END GAMEDEF")
    return "\n".join(lines)


def _ints(key: str, text: str, number: int) -> list[int]:
    try:
        values = [int(v) for v in text.split()]
    except ValueError:
        values = []
    if not values or any(v < 0 for v in values):
        raise ConfigError(f"gamedef line {number}: {key} needs non-negative integers, "
                          f"got {text.strip()!r}")
    return values


def _read(text: str) -> tuple[str, dict[str, tuple[int, list[int]]], tuple[float, ...] | None]:
    """The betting type, each key's (line number, values) and the pokerzoo fractions line."""
    if not isinstance(text, str):
        raise ConfigError(f"a gamedef is text, got {type(text).__name__}")
    if len(text) > _MAX_TEXT:
        raise ConfigError(f"a gamedef of {len(text)} characters is too long (at most {_MAX_TEXT})")
    rows = [(i + 1, raw.strip()) for i, raw in enumerate(text.splitlines())]
    rows = [(i, line) for i, line in rows if line]
    if not rows or rows[0][1].upper() != "GAMEDEF":
        raise ConfigError("a gamedef starts with a line 'GAMEDEF'")
    if rows[-1][1].upper() != "END GAMEDEF":
        raise ConfigError("a gamedef ends with a line 'END GAMEDEF'")
    betting = ""
    values: dict[str, tuple[int, list[int]]] = {}
    fractions: tuple[float, ...] | None = None
    for number, line in rows[1:-1]:
        if line.startswith(FRACTIONS_KEY):
            try:
                fractions = tuple(float(v) for v in line[len(FRACTIONS_KEY):].split())
            except ValueError:
                fractions = ()
            if not fractions:
                raise ConfigError(f"gamedef line {number}: {FRACTIONS_KEY} needs pot fractions, "
                                  f"got {line!r}")
            continue
        if line.startswith("#"):
            continue
        if line.lower() in ("limit", "nolimit"):
            if betting:
                raise ConfigError(f"gamedef line {number}: a second betting type {line!r}")
            betting = line.lower()
            continue
        key, sep, rest = line.partition("=")
        canonical = _KEYS.get(key.strip().lower())
        if not sep or canonical is None:
            raise ConfigError(
                f"gamedef line {number}: {line!r} is not 'limit', 'nolimit' or 'KEY = VALUES' "
                f"with a KEY of {sorted(_KEYS.values())}")
        if canonical in values:
            raise ConfigError(f"gamedef line {number}: {canonical} given twice")
        values[canonical] = (number, _ints(canonical, rest, number))
    if not betting:
        raise ConfigError("a gamedef names its betting: a line 'limit' or 'nolimit'")
    return betting, values, fractions


def _reversed_blinds(values: dict[str, tuple[int, list[int]]]) -> bool:
    """Whether a heads-up gamedef puts the big blind at position 0 (ACPC's own files)."""
    blinds = values.get("blind", (0, []))[1]
    players = values.get("numPlayers", (0, []))[1]
    return players == [2] and len(blinds) == 2 and blinds[0] > blinds[1]


def _in_seat_order(values: dict[str, tuple[int, list[int]]],
                   reverse: bool) -> dict[str, tuple[int, list[int]]]:
    """The per-position values of a gamedef in pokerzoo's seat order (heads-up reverse blinds:
    the two positions swapped; ``firstPlayer`` names positions, so it is renamed too)."""
    if not reverse:
        return values
    swapped = dict(values)
    for key in ("blind", "stack"):
        if key in values:
            number, got = values[key]
            swapped[key] = (number, got[::-1])
    if "firstPlayer" in values:
        number, got = values["firstPlayer"]
        swapped["firstPlayer"] = (number, [3 - p if p in (1, 2) else p for p in got])
    return swapped


def seats_of_gamedef(text: str) -> tuple[int, ...]:
    """The pokerzoo seat of each ACPC position of the gamedef ``text``.

    >>> reverse = "GAMEDEF\\nlimit\\nnumPlayers = 2\\nblind = 10 5\\nEND GAMEDEF"
    >>> seats_of_gamedef(reverse), seats_of_gamedef(reverse.replace("10 5", "5 10"))
    ((1, 0), (0, 1))
    """
    _, values, _ = _read(text)
    players = values.get("numPlayers", (0, [2]))[1]
    n = players[0] if len(players) == 1 and 2 <= players[0] <= 6 else 2
    return (1, 0) if _reversed_blinds(values) else tuple(range(n))


def game_of_gamedef(text: str, bet_fractions: tuple[float, ...] | None = None) -> Game:
    """The pokerzoo hold'em game of an ACPC gamedef (the reverse of ``gamedef_of``).

    Args:
        text: the gamedef, ``GAMEDEF`` to ``END GAMEDEF``.
        bet_fractions: the no-limit pot fractions (default: the gamedef's
            ``# pokerzoo bet_fractions`` line, else pokerzoo's default).

    Raises:
        ConfigError: naming the line, for malformed text or a game pokerzoo does not play
            (another deck or number of rounds, blinds other than a small and a big blind on
            the first two positions, an order of play or raise sizes of another game).
    """
    betting, as_written, written = _read(text)
    reverse = _reversed_blinds(as_written)
    values = _in_seat_order(as_written, reverse)

    def get(key: str) -> tuple[int, list[int]]:
        if key not in values:
            raise ConfigError(f"the gamedef has no {key} line")
        return values[key]

    def require(key: str, wanted: list[int], why: str) -> None:
        number, got = get(key)
        if got != wanted:
            # Say it in the gamedef's own position order.
            wanted = _in_seat_order({key: (number, wanted)}, reverse)[key][1]
            got = as_written[key][1]
            raise ConfigError(f"gamedef line {number}: {key} = {' '.join(map(str, got))} is not "
                              f"supported; pokerzoo plays {_line(key, wanted)} ({why})")

    n_line, n_values = get("numPlayers")
    n = n_values[0]
    if len(n_values) != 1 or not 2 <= n <= 6:
        raise ConfigError(f"gamedef line {n_line}: numPlayers must be one number, 2 to 6")
    for key, wanted in _HOLDEM_SHAPE.items():
        require(key, wanted, "52-card Texas hold'em")
    b_line, blinds = get("blind")
    if len(blinds) != n or blinds[2:] != [0] * (n - 2) or not 1 <= blinds[0] <= blinds[1]:
        raise ConfigError(
            f"gamedef line {b_line}: blind must be 'SMALL BIG' then 0 for the other {n - 2} "
            f"seats, with 1 <= SMALL <= BIG, got {' '.join(map(str, blinds))}")
    small, big = blinds[0], blinds[1]
    params: dict[str, Any] = {"num_players": n, "small_blind": small, "big_blind": big}
    if "stack" in values:
        s_line, stacks = values["stack"]
        if len(stacks) not in (1, n):
            raise ConfigError(f"gamedef line {s_line}: stack needs 1 or {n} numbers")
        if stacks != [100 * big] * len(stacks):  # pokerzoo's default: 100 big blinds
            params["stacks"] = stacks[0] if len(set(stacks)) == 1 else tuple(stacks)
    elif betting == "nolimit":
        raise ConfigError("a nolimit gamedef needs a stack line")
    cls: type[HoldemGame]
    if betting == "limit":
        cls = LimitHoldem
        require("raiseSize", [big, big, 2 * big, 2 * big], "limit hold'em's small and big bets")
        r_line, raises = get("maxRaises")
        if len(raises) != 4 or raises[1:] != [raises[1]] * 3 or raises[0] != raises[1] - 1:
            raise ConfigError(
                f"gamedef line {r_line}: maxRaises must be 'CAP-1 CAP CAP CAP' (pokerzoo's "
                f"raise_cap counts the big blind as the first pre-flop bet), got "
                f"{' '.join(map(str, raises))}")
        params["raise_cap"] = raises[1]
        if "stack" not in values and 6 * raises[1] * big >= 100 * big:
            # ACPC's limit default is no stack: deeper than any limit hand can go (a hand
            # puts in at most raise_cap bets of 1, 1, 2 and 2 big blinds).
            params["stacks"] = 6 * raises[1] * big + big
    else:
        cls = NoLimitHoldem
        for key in ("raiseSize", "maxRaises"):
            if key in values:
                raise ConfigError(f"gamedef line {values[key][0]}: {key} is for limit games; "
                                  "pokerzoo's no-limit raises any size of its menu")
        fractions = bet_fractions if bet_fractions is not None else written
        if fractions is not None:
            params["bet_fractions"] = tuple(fractions)
    try:
        game = cls(**params)
    except ConfigError as exc:
        raise ConfigError(f"the gamedef does not make a pokerzoo game: {exc}") from None
    require("firstPlayer", _first_players(game),
            "big blind at position 1, small blind at position 2" if reverse
            else "small blind at position 1, big blind at position 2")
    return game


def openspiel_game(game: Game) -> object:
    """OpenSpiel's ``universal_poker`` loaded from ``gamedef_of(game)`` (needs ``pyspiel``)."""
    try:
        import pyspiel
    except ImportError:
        raise ConfigError("OpenSpiel is not installed: pip install open_spiel") from None
    return pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(gamedef_of(game))
