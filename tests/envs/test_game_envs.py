"""Every registered game has an env row derived from what it declares (``game_env_spec``);
pokerzoo's own rows are exactly that derivation, with their own env modules."""

from __future__ import annotations

import pytest

from pokerzoo.envs import game_env, registry
from pokerzoo.envs.poker_env import PokerEnv
from pokerzoo.envs.registry import ENVS, GAME_ENV_MODULE, camel_name, game_env_spec
from pokerzoo.envs.unknown_env import UnknownPokerEnv
from pokerzoo.games import registry as games
from pokerzoo.games.base import GameType
from pokerzoo.games.kuhn import KuhnPoker


@pytest.mark.parametrize("name", games.registered_games())
def test_every_registered_game_has_its_derived_row(name: str) -> None:
    cls = games.game_class(name)
    spec = game_env_spec(cls)
    assert ENVS[spec.name] == spec
    assert spec.name == f"{name}_v{cls.game_type.env_version}"
    assert spec.aec_id == f"pokerzoo/{name}-v{cls.game_type.env_version}"
    # pokerzoo's own games keep their env modules (their doc pages), and no bound keywords.
    assert spec.module == f"pokerzoo.envs.{spec.name}" and spec.kwargs == ()


def test_the_derived_names_are_the_released_ones() -> None:
    assert camel_name("no_limit_holdem") == "NoLimitHoldem"
    assert {game_env_spec(games.game_class(n)).gym_id for n in games.registered_games()} == {
        "pokerzoo/KuhnPoker-v0", "pokerzoo/LeducHoldem-v0", "pokerzoo/LimitHoldem-v0",
        "pokerzoo/NoLimitHoldem-v0", None,
    }


def test_a_game_without_an_env_module_gets_the_generic_one() -> None:
    class Renamed(KuhnPoker):
        name = "renamed_kuhn"
        game_type = GameType(min_players=2, max_players=10, env_version=3,
                             single_agent_env=False)

    spec = game_env_spec(Renamed)
    assert (spec.name, spec.module, spec.aec_id, spec.gym_id, spec.kwargs) == (
        "renamed_kuhn_v3", GAME_ENV_MODULE, "pokerzoo/renamed_kuhn-v3", None,
        (("game", "renamed_kuhn"),),
    )


def test_the_generic_env_builds_each_kind_of_game() -> None:
    env = game_env.env(game="kuhn_poker", num_players=3)
    assert type(env) is PokerEnv and env.game.num_players == 3
    raw = game_env.raw_env(game="unknown_kuhn_poker", seed=2)
    assert isinstance(raw, UnknownPokerEnv) and raw.illegal_action == "raise"


def test_a_game_whose_ids_are_taken_gets_no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "ENVS", dict(ENVS))

    class Clash(KuhnPoker):
        name = "classic_leduc_holdem"
        game_type = GameType(env_version=4)

    with pytest.warns(games.GamePluginWarning, match="gets no env: its env .classic_leduc_"):
        registry._add_game(Clash)
    assert registry.ENVS["classic_leduc_holdem_v4"].game == "leduc_holdem"
