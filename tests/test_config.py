"""``pokerzoo.config``: one helper from mappings to frozen dataclasses, and the nested
``NFSPConfig`` built on it."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from pokerzoo.agents.nfsp.config import (
    PRESETS,
    DQNConfig,
    NFSPConfig,
    PrioritizedReplayConfig,
    ReplayConfig,
)
from pokerzoo.components.uct_config import UCTConfig
from pokerzoo.config import check, from_mapping, with_overrides
from pokerzoo.errors import ConfigError


@dataclasses.dataclass(frozen=True)
class Inner:
    size: int = 4
    rate: float = 0.5
    mode: str = "a"

    def __post_init__(self) -> None:
        check(self.rate > 0, "rate", "> 0", self.rate)


@dataclasses.dataclass(frozen=True)
class Outer:
    inner: Inner = dataclasses.field(default_factory=Inner)
    sizes: tuple[int, ...] = (1,)
    pair: tuple[int, int] | None = None
    flag: bool = False
    scale: float | None = None


def test_nested_mapping_builds_nested_dataclasses():
    cfg = from_mapping(Outer, {"inner": {"size": 7}, "sizes": [2, 3], "pair": [1, 2]})
    assert cfg == Outer(Inner(size=7), (2, 3), (1, 2))


def test_numpy_scalars_are_the_python_types_they_stand_for():
    cfg = from_mapping(Outer, {"inner": {"size": np.int64(3), "rate": np.float32(0.25)},
                               "sizes": np.array([4, 5]), "flag": np.bool_(True)})
    assert cfg.inner.size == 3 and type(cfg.inner.size) is int
    assert type(cfg.inner.rate) is float and cfg.sizes == (4, 5) and cfg.flag is True
    assert type(from_mapping(Outer, {"scale": 2}).scale) is float  # ints are numbers


@pytest.mark.parametrize(("values", "message"), [
    ({"inner": {"size": True}}, "inner.size must be an integer, got True"),
    ({"inner": {"size": np.bool_(True)}}, "inner.size must be an integer"),
    ({"inner": {"size": 2.0}}, "inner.size must be an integer, got 2.0"),
    ({"inner": {"rate": "fast"}}, "inner.rate must be a number"),
    ({"inner": {"rate": False}}, "inner.rate must be a number"),
    ({"flag": 1}, "flag must be true or false"),
    ({"sizes": 3}, "sizes must be a list"),
    ({"pair": [1, 2, 3]}, "pair must be"),
    ({"inner": {"mode": 3}}, "inner.mode must be a string"),
    ({"inner": 5}, "inner must be a mapping of Inner fields, got 5"),
])
def test_wrong_types_are_refused_naming_the_field(values, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        from_mapping(Outer, values)


def test_unknown_names_list_the_valid_ones_with_a_did_you_mean():
    expected = r"unknown parameter 'sizse' for Outer \(did you mean 'sizes'\?\)"
    with pytest.raises(ConfigError, match=expected) as err:
        from_mapping(Outer, {"sizse": [1]})
    assert "valid parameters are ['inner', 'sizes', 'pair', 'flag', 'scale']" in str(err.value)
    with pytest.raises(ConfigError, match=r"'rte' for Inner in inner \(did you mean 'rate'\?\)"):
        from_mapping(Outer, {"inner": {"rte": 1.0}})


def test_range_errors_name_the_field_where_it_sits_or_as_typed():
    with pytest.raises(ConfigError, match=r"^inner\.rate must be > 0, got 0\.0$"):
        from_mapping(Outer, {"inner": {"rate": 0}})
    with pytest.raises(ConfigError, match=r"^learning_rate must be > 0, got -1\.0$"):
        from_mapping(Outer, {"inner": {"rate": -1}}, names={("inner", "rate"): "learning_rate"})
    with pytest.raises(ConfigError, match=r"^rate must be > 0, got 0$"):
        Inner(rate=0)


# NFSPConfig -----------------------------------------------------------------------------------


def test_per_eps_zero_is_refused_naming_per_eps():
    with pytest.raises(ConfigError, match=r"^per_eps must be > 0, got 0\.0$"):
        NFSPConfig.from_params(**PRESETS["nfsp-per"], per_eps=0)
    with pytest.raises(ConfigError, match=r"^prioritized\.eps must be > 0"):
        NFSPConfig.from_params(**{"replay": "prioritized", "prioritized.eps": 0.0})
    with pytest.raises(ConfigError, match=r"^eps must be > 0"):
        PrioritizedReplayConfig(eps=0.0)


def test_make_agent_takes_flat_and_dotted_names():
    from pokerzoo import load_game
    from pokerzoo.agents.registry import make_agent

    kuhn = load_game("kuhn_poker")
    agent = make_agent("nfsp-per", kuhn, num_envs=4, per_eps=1e-3, batch_size=np.int64(8))
    assert agent.config.prioritized.eps == 1e-3 and agent.config.replay.batch_size == 8
    agent = make_agent("nfsp-plt", kuhn, **{"num_envs": 4, "prioritized.alpha": 0.7})
    assert agent.config.prioritized == PrioritizedReplayConfig(alpha=0.7, learning_times=(1, 4))
    with pytest.raises(ConfigError, match="per_eps"):
        make_agent("nfsp-per", kuhn, per_eps=0)


def test_nfsp_unknown_name_gives_did_you_mean():
    with pytest.raises(ConfigError, match=r"'per_epss' for NFSP \(did you mean 'per_eps'\?\)"):
        NFSPConfig.from_params(replay="prioritized", per_epss=0.1)
    with pytest.raises(ConfigError, match=r"did you mean 'eps'"):
        NFSPConfig.from_params(**{"replay": "prioritized", "prioritized.epss": 0.1})


def test_nfsp_types_numpy_ints_accepted_bools_refused():
    assert NFSPConfig.from_params(num_envs=np.int64(3)).num_envs == 3
    with pytest.raises(ConfigError, match="^num_envs must be an integer, got True$"):
        NFSPConfig.from_params(num_envs=True)
    with pytest.raises(ConfigError, match="^batch_size must be an integer"):
        NFSPConfig.from_params(batch_size=False)


def test_parameters_of_unused_parts_are_refused():
    with pytest.raises(ConfigError, match="per_alpha is a parameter of prioritized replay"):
        NFSPConfig.from_params(per_alpha=0.5)
    with pytest.raises(ConfigError, match="uct_simulations is a parameter of best_response='uct'"):
        NFSPConfig.from_params(uct_simulations=100)


def test_uct_confidence_is_validated_by_uct_config_only():
    with pytest.raises(ConfigError, match=r"^uct_confidence must be in \(0, 1\), got 1\.0$"):
        NFSPConfig.from_params(best_response="uct", uct_confidence=1.0)
    # UCTConfig's range, not a second, different one: 0.3 is a valid confidence there.
    cfg = NFSPConfig.from_params(best_response="uct", uct_confidence=0.3)
    assert cfg.best_response == UCTConfig(confidence=0.3)
    with pytest.raises(ConfigError, match="^confidence must be in"):
        UCTConfig(confidence=0.0)


@pytest.mark.parametrize("config", [
    NFSPConfig(),
    NFSPConfig.from_params(**PRESETS["nfsp-plt"], optimizer="adam", hidden_sizes=[32, 16]),
    NFSPConfig(prioritized=PrioritizedReplayConfig(learning_times=(2, 3)),
               best_response=UCTConfig(max_simulations=50, threshold=None),
               replay=ReplayConfig(batch_size=64), max_grad_norm=1.0),
    NFSPConfig(best_response=DQNConfig(epsilon_start=0.2)),
])
def test_nested_round_trip(config):
    assert from_mapping(NFSPConfig, dataclasses.asdict(config)) == config
    # Through JSON too (tuples come back as lists).
    assert from_mapping(NFSPConfig, json.loads(json.dumps(dataclasses.asdict(config)))) == config


def test_presets_and_mode_switches():
    assert NFSPConfig.from_params(**PRESETS["nfsp"]).prioritized is None
    assert NFSPConfig.from_params(**PRESETS["nfsp-per"]).prioritized == PrioritizedReplayConfig()
    plt = NFSPConfig.from_params(**PRESETS["nfsp-plt"])
    assert plt.prioritized.learning_times == (1, 4)
    assert plt.with_params(replay="uniform").prioritized is None
    uct = plt.with_params(best_response="uct", uct_simulations=100, uct_threshold=80)
    assert uct.best_response == UCTConfig(max_simulations=100, threshold=80)
    assert uct.with_params(best_response="dqn").best_response == DQNConfig()


def test_with_overrides_checks_overrides_and_the_config_it_is_given() -> None:
    base = Outer(sizes=(1, 2))
    assert with_overrides(Outer, base, {}) is base
    assert with_overrides(Outer, None, {}) == Outer()
    assert with_overrides(Outer, base, {"sizes": [3]}) == Outer(sizes=(3,))
    assert with_overrides(Outer, {"sizes": [3]}, {}) == Outer(sizes=(3,))
    with pytest.raises(ConfigError, match=r"unknown parameter 'sizse' for the agent \(did you"):
        with_overrides(Outer, base, {"sizse": (1,)}, what="the agent")
    with pytest.raises(ConfigError, match="config must be a Outer"):
        with_overrides(Outer, Inner(), {})
