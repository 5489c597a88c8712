"""What each game declares it is (``GameType``), and the lazy game table behind ``load_game``."""

from __future__ import annotations

import dataclasses

import pytest

from pokerzoo import entry_points, load_game
from pokerzoo.envs import VectorPokerEnv
from pokerzoo.errors import ConfigError
from pokerzoo.games import registry
from pokerzoo.games.base import GameType
from pokerzoo.games.kuhn import KuhnPoker
from pokerzoo.games.registry import (
    GamePluginWarning,
    game_class,
    game_entry_point,
    register_game,
    registered_games,
)

BUILT_IN = ["kuhn_poker", "leduc_holdem", "limit_holdem", "no_limit_holdem",
            "unknown_kuhn_poker", "unknown_leduc_holdem"]


def test_the_built_in_games_declare_what_they_are() -> None:
    kinds = {name: game_class(name).game_type for name in BUILT_IN}
    assert {n: (k.min_players, k.max_players) for n, k in kinds.items()} == {
        "kuhn_poker": (2, 10), "leduc_holdem": (2, 10), "limit_holdem": (2, 6),
        "no_limit_holdem": (2, 6), "unknown_kuhn_poker": (2, 10), "unknown_leduc_holdem": (2, 10),
    }
    assert {n for n, k in kinds.items() if k.lbr} == {"limit_holdem", "no_limit_holdem"}
    assert {n for n, k in kinds.items() if k.hole_card_charts} == {"limit_holdem",
                                                                   "no_limit_holdem"}
    assert kinds["limit_holdem"].phh_variant == "FT"
    assert kinds["no_limit_holdem"].phh_variant == "NT"
    assert {n for n, k in kinds.items() if k.phh_variant} == {"limit_holdem", "no_limit_holdem"}
    assert {n for n, k in kinds.items() if k.hidden_model} == {"unknown_kuhn_poker",
                                                               "unknown_leduc_holdem"}
    assert all(k.chance == "explicit" and k.utility == "zero_sum" for k in kinds.values())
    assert all(not k.agent_view and k.env_version == 0 for k in kinds.values())
    assert {n for n, k in kinds.items() if not k.single_agent_env} == {
        "unknown_kuhn_poker", "unknown_leduc_holdem"
    }


def test_an_agent_view_declares_itself() -> None:
    game = load_game("unknown_kuhn_poker", seed=0)
    assert game.game_type.is_environment and not game.game_type.agent_view
    for view in (game.agent_view(), game.interaction_view()):
        assert view.game_type.hidden_model and view.game_type.agent_view
        assert not view.game_type.is_environment
    assert game.is_zero_sum and load_game("kuhn_poker").is_zero_sum


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_holdem", "limit_holdem",
                                  "no_limit_holdem"])
def test_the_declared_array_backend_is_what_the_vector_env_plays(name: str) -> None:
    game = load_game(name)
    backend = game.game_type.array_backend
    assert backend is not None
    venv = VectorPokerEnv(game, num_envs=2, seed=0)
    assert venv.backend == "arrays"
    assert type(venv._b) is entry_points.load(backend)


def test_a_subclass_gets_no_array_backend_unless_it_declares_one() -> None:
    class Inherits(KuhnPoker):
        """May change chance or payoffs: the batched Kuhn rules would be wrong for it."""

    class Declares(KuhnPoker):
        game_type = KuhnPoker.game_type

    assert Inherits.game_type.array_backend is None
    assert Inherits.game_type.max_players == 10  # the rest is inherited
    assert Declares.game_type.array_backend == KuhnPoker.game_type.array_backend
    assert VectorPokerEnv(Inherits(), num_envs=2).backend == "state"


@pytest.mark.parametrize("fields, message", [
    ({"min_players": 0}, "min_players must be an integer >= 1"),
    ({"min_players": 3, "max_players": 2}, "max_players must be an integer >= 3"),
    ({"chance": "sampled"}, "chance must be one of"),
    ({"utility": "cooperative"}, "utility must be one of"),
    ({"agent_view": True}, "set hidden_model"),
    ({"phh_variant": ""}, "phh_variant must be"),
    ({"array_backend": "no_colon"}, "must be 'package.module:attribute'"),
    ({"env_version": -1}, "env_version must be an integer >= 0"),
])
def test_a_bad_declaration_is_refused(fields: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        GameType(**fields)


def test_a_declaration_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        KuhnPoker.game_type.lbr = True  # type: ignore[misc]


# The table -----------------------------------------------------------------------------------


@pytest.fixture
def table(monkeypatch: pytest.MonkeyPatch) -> None:
    """A private copy of the game table (and no listeners: the env table stays as it is)."""
    monkeypatch.setattr(registry, "_ENTRIES", dict(registry._ENTRIES))
    monkeypatch.setattr(registry, "_CLASSES", dict(registry._CLASSES))
    monkeypatch.setattr(registry, "_LISTENERS", [])


def test_the_table_names_classes_by_entry_points() -> None:
    assert registered_games() == BUILT_IN
    assert game_entry_point("leduc_holdem") == "pokerzoo.games.leduc:LeducHoldem"
    assert game_entry_point("no_limit_holdem") == "pokerzoo.games.holdem.game:NoLimitHoldem"
    assert all(entry_points.load(game_entry_point(n)) is game_class(n) for n in BUILT_IN)


@pytest.mark.parametrize("name, message", [
    ("kuhn", "unknown game 'kuhn' \\(did you mean 'kuhn_poker'\\?\\); valid games are"),
    (3, "a game name must be a string, got 3; valid games are"),
])
def test_unknown_names_are_refused_with_the_valid_ones(name: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_game(name)  # type: ignore[arg-type]


def test_an_entry_point_is_imported_only_when_its_game_is_loaded(table: None) -> None:
    registry._add_entry_point("lazy_kuhn", "no_such_module_anywhere:Game")
    assert "lazy_kuhn" in registered_games()  # listed without importing anything
    with pytest.raises(ModuleNotFoundError):
        load_game("lazy_kuhn")
    with pytest.warns(GamePluginWarning, match="'lazy_kuhn' .* could not be loaded"):
        classes = registry.game_classes()
    assert "lazy_kuhn" not in classes and "kuhn_poker" in classes


def test_an_entry_point_must_name_its_game_class(table: None) -> None:
    registry._add_entry_point("not_a_game", "pokerzoo.errors:ConfigError")
    registry._add_entry_point("misnamed", "pokerzoo.games.kuhn:KuhnPoker")
    with pytest.raises(ConfigError, match="is not a Game class"):
        load_game("not_a_game")
    with pytest.raises(ConfigError, match="is named 'kuhn_poker'; an entry point's name"):
        load_game("misnamed")


def test_bad_or_clashing_entry_points_are_left_out_with_a_warning(table: None) -> None:
    with pytest.warns(GamePluginWarning, match="'broken' is left out: entry point"):
        registry._add_entry_point("broken", "no colon here")
    with pytest.warns(GamePluginWarning, match="the name is pokerzoo.games.kuhn:KuhnPoker's"):
        registry._add_entry_point("kuhn_poker", "elsewhere:Kuhn")
    assert "broken" not in registered_games()
    assert game_entry_point("kuhn_poker") == "pokerzoo.games.kuhn:KuhnPoker"


def test_register_game_refuses_a_second_class_of_a_name(table: None) -> None:
    class Again(KuhnPoker):
        pass

    with pytest.raises(ConfigError, match="a game named 'kuhn_poker' is already registered"):
        register_game(Again)
    with pytest.raises(ConfigError, match="register_game takes a Game subclass"):
        register_game(int)  # type: ignore[arg-type]
    assert register_game(KuhnPoker) is KuhnPoker  # registering again is a no-op


def test_games_registered_later_reach_the_listeners(table: None) -> None:
    heard: list[str] = []
    registry.on_register(lambda cls: heard.append(cls.name))

    class Later(KuhnPoker):
        name = "later_kuhn"

    register_game(Later)
    assert heard == ["later_kuhn"]
    assert load_game("later_kuhn").name == "later_kuhn"


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_holdem", "limit_holdem",
                                  "no_limit_holdem"])
def test_the_declared_seats_are_the_ones_the_parameters_allow(name: str) -> None:
    kind = game_class(name).game_type
    deck = {"num_ranks": 6} if name == "leduc_holdem" else {}  # 11 cards for 10 seats
    for seats in (kind.min_players, kind.max_players):
        assert load_game(name, num_players=seats, **deck).num_players == seats
    for seats in (kind.min_players - 1, kind.max_players + 1):
        with pytest.raises(ConfigError, match="num_players"):
            load_game(name, num_players=seats)
