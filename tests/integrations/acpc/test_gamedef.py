"""ACPC gamedefs: written, read back, loaded by OpenSpiel, and refused with one line."""

from __future__ import annotations

from typing import Any

import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.games import load_game
from pokerzoo.integrations.acpc.gamedef import (
    game_of_gamedef,
    gamedef_of,
    openspiel_game,
    seats_of_gamedef,
)

# The heads-up gamedefs of the ACPC competition: big blind at position 0 ("reverse blinds").
ACPC_LIMIT = """GAMEDEF
limit
numPlayers = 2
numRounds = 4
blind = 10 5
raiseSize = 10 10 20 20
firstPlayer = 2 1 1 1
maxRaises = 3 4 4 4
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""
ACPC_NOLIMIT = """GAMEDEF
nolimit
numPlayers = 2
numRounds = 4
stack = 20000 19000
blind = 100 50
firstPlayer = 2 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""

GAMES: list[tuple[str, dict[str, Any]]] = [
    ("limit_holdem", {}),
    ("no_limit_holdem", {}),
    ("limit_holdem", {"raise_cap": 3, "small_blind": 5, "big_blind": 10}),
    ("no_limit_holdem", {"stacks": 5000, "bet_fractions": (0.33, 0.75, 2.0)}),
    ("no_limit_holdem", {"num_players": 3, "stacks": (500, 600, 700)}),
    ("limit_holdem", {"num_players": 4}),
    ("no_limit_holdem", {"num_players": 6}),
]


@pytest.mark.parametrize("name, params", GAMES)
def test_round_trip(name: str, params: dict) -> None:
    game: Any = load_game(name, **params)
    assert game_of_gamedef(gamedef_of(game)) == game


@pytest.mark.parametrize("name, params", [g for g in GAMES if g[1].get("num_players", 2) <= 4])
def test_openspiel_reads_our_gamedef(name: str, params: dict) -> None:
    """OpenSpiel's universal_poker (2.0.2) reads the text and sees the same game; it reads at
    most 4 stack sizes, so 5 and 6 players are not checked here."""
    pytest.importorskip("pyspiel")
    game: Any = load_game(name, **params)
    spiel = openspiel_game(game)
    parameters = spiel.get_parameters()  # type: ignore[attr-defined]
    n = game.num_players
    assert parameters["numPlayers"] == n
    assert parameters["betting"] == ("limit" if game.is_limit else "nolimit")
    assert parameters["stack"] == " ".join(map(str, game.starting_stacks))
    cfg = game.config
    assert parameters["blind"] == " ".join(map(str, [cfg.small_blind, cfg.big_blind]
                                                + [0] * (n - 2)))
    first = "1 2 2 2" if n == 2 else "3 1 1 1"
    assert parameters["firstPlayer"] == first
    assert spiel.num_players() == n  # type: ignore[attr-defined]


def test_acpc_gamedef_without_stack_or_fractions() -> None:
    # ACPC's limit file in pokerzoo's seat order: no stack line, no pokerzoo comment.
    text = ACPC_LIMIT.replace("blind = 10 5", "blind = 5 10").replace(
        "firstPlayer = 2 1 1 1", "firstPlayer = 1 2 2 2")
    game = game_of_gamedef(text)
    assert game == load_game("limit_holdem", small_blind=5, big_blind=10)
    nolimit = gamedef_of(load_game("no_limit_holdem")).replace(
        "# pokerzoo bet_fractions = 0.5 1\n", "")
    assert game_of_gamedef(nolimit) == load_game("no_limit_holdem")
    one: Any = game_of_gamedef(nolimit, bet_fractions=(1.0,))
    assert one.bet_fractions == (1.0,)


def _edited(old: str, new: str, name: str = "limit_holdem") -> str:
    text = gamedef_of(load_game(name))
    assert old in text
    return text.replace(old, new)


@pytest.mark.parametrize("text, wanted", [
    ("", "starts with a line 'GAMEDEF'"),
    (_edited("END GAMEDEF", ""), "ends with a line 'END GAMEDEF'"),
    (_edited("limit\n", ""), "a line 'limit' or 'nolimit'"),
    (_edited("numRanks = 13", "numRanks = 6"), "line 11: numRanks = 6 is not supported"),
    (_edited("numRounds = 4", "numRounds = 2"), "line 4: numRounds = 2 is not supported"),
    (_edited("numSuits = 4", "numSuits = four"), "line 10: numSuits needs non-negative"),
    (_edited("numSuits = 4", "colour = 4"), "line 10: 'colour = 4' is not 'limit'"),
    (_edited("blind = 50 100", "blind = 50 0"), "line 6: blind must be 'SMALL BIG'"),
    (_edited("blind = 50 100", "blind = 100 50"),  # reverse blinds with our order of play
     "line 8: firstPlayer = 1 2 2 2 is not supported; pokerzoo plays firstPlayer = 2 1 1 1"),
    (_edited("firstPlayer = 1 2 2 2", "firstPlayer = 2 1 1 1"),
     "line 8: firstPlayer = 2 1 1 1 is not supported"),
    (_edited("maxRaises = 3 4 4 4", "maxRaises = 4 4 4 4"), "line 9: maxRaises must be"),
    (_edited("raiseSize = 100 100 200 200", "raiseSize = 100 100 100 100"),
     "line 7: raiseSize = 100 100 100 100 is not supported"),
    (_edited("numPlayers = 2", "numPlayers = 7"), "line 3: numPlayers must be one number"),
    (_edited("stack = 10000 10000", "stack = 100 100"), "must exceed ante + big_blind"),
    (_edited("numRanks = 13", "numRanks = 13\nnumRanks = 13"), "numRanks given twice"),
    (_edited("stack = 10000 10000\n", "", "no_limit_holdem"), "needs a stack line"),
    (_edited("= 0.5 1", "= half", "no_limit_holdem"), "line 3: # pokerzoo bet_fractions"),
])
def test_bad_gamedefs_are_one_line(text: str, wanted: str) -> None:
    with pytest.raises(ConfigError) as caught:
        game_of_gamedef(text)
    assert wanted in str(caught.value) and "\n" not in str(caught.value)


def test_games_acpc_cannot_hold() -> None:
    with pytest.raises(ConfigError, match="has antes"):
        gamedef_of(load_game("no_limit_holdem", ante=10))
    with pytest.raises(ConfigError, match="not 'leduc_holdem'"):
        gamedef_of(load_game("leduc_holdem"))


def test_reverse_blinds_are_our_game_with_positions_swapped() -> None:
    assert game_of_gamedef(ACPC_LIMIT) == load_game("limit_holdem", small_blind=5,
                                                     big_blind=10)
    assert seats_of_gamedef(ACPC_LIMIT) == (1, 0)
    # Position 0's stack is the big blind's: pokerzoo's seat 1.
    assert game_of_gamedef(ACPC_NOLIMIT) == load_game("no_limit_holdem", stacks=(19000, 20000))
    assert seats_of_gamedef(ACPC_NOLIMIT) == (1, 0)
    assert seats_of_gamedef(gamedef_of(load_game("no_limit_holdem", num_players=3))) \
        == (0, 1, 2)
