"""Names without a version resolve to the latest version, in pokerzoo, PettingZoo and
Gymnasium; unknown names fail listing the available ones."""

from __future__ import annotations

import warnings

import gymnasium
import pettingzoo
import pytest

import pokerzoo
from pokerzoo.envs import registry
from pokerzoo.envs.registration import register_all
from pokerzoo.errors import ConfigError

register_all()


def test_make_resolves_the_latest_version() -> None:
    env = pokerzoo.make("leduc_holdem")
    assert env.metadata["name"] == pokerzoo.make("leduc_holdem_v0").metadata["name"]
    assert registry.env_spec("kuhn_poker") is registry.ENVS["kuhn_poker_v0"]
    assert registry.latest_versions()["classic_leduc_holdem"] == "classic_leduc_holdem_v4"
    assert len(pokerzoo.make("kuhn_poker", raw=True, num_players=3).possible_agents) == 3


def test_the_highest_version_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    base = registry.ENVS["kuhn_poker_v0"]
    table = dict(registry.ENVS)
    for version in (2, 10):
        name = f"kuhn_poker_v{version}"
        table[name] = registry.EnvSpec(name, base.module, base.game)
    monkeypatch.setattr(registry, "ENVS", table)
    assert registry.env_spec("kuhn_poker").name == "kuhn_poker_v10"  # 10 > 2 numerically


def test_unknown_names_list_the_available_ones() -> None:
    with pytest.raises(ConfigError, match=r"did you mean 'leduc_holdem_v0'\?.*'kuhn_poker_v0'"
                                          r".*without _vN, \[.*'kuhn_poker', 'leduc_holdem'"):
        pokerzoo.make("leduc_holdm")
    with pytest.raises(ConfigError, match="unknown env"):
        pokerzoo.make("leduc_holdem_v9")
    with pytest.raises(ConfigError, match="unknown env"):
        pokerzoo.make(["leduc_holdem"])  # type: ignore[arg-type]


def test_pettingzoo_and_gymnasium_resolve_unversioned_ids() -> None:
    env = pettingzoo.make("aec", "pokerzoo/leduc_holdem")
    assert env.unwrapped.game.name == "leduc_holdem"
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".*Using the latest versioned environment")
        single = gymnasium.make("pokerzoo/LeducHoldem")
        envs = gymnasium.make_vec("pokerzoo/KuhnPoker", num_envs=3)
    assert single.spec is not None and single.spec.id == "pokerzoo/LeducHoldem-v0"
    assert envs.num_envs == 3 and envs.single_action_space.n == 2
