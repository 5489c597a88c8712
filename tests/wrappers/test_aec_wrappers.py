"""Flatten, big-blind rewards, fixed-shape infos and the turn-based parallel view."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test

from pokerzoo.envs import make
from pokerzoo.wrappers import (
    BigBlindRewards,
    FixedShapeInfos,
    FlattenObservation,
    big_blind_of,
    parallel_view,
)

pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:.*maximum observation space value is infinity"),
]


def test_flatten_observation() -> None:
    env = FlattenObservation(make("leduc_holdem_v0"))
    api_test(env, num_cycles=100)
    env.reset(seed=0)
    inner = env.unwrapped.observe("player_0")
    flat = env.observe("player_0")
    assert flat.dtype == np.float32 and env.observation_space("player_0").contains(flat)
    np.testing.assert_array_equal(flat[:-3], inner["observation"])
    np.testing.assert_array_equal(flat[-3:], inner["action_mask"])


def test_big_blind_rewards_on_holdem() -> None:
    env = BigBlindRewards(make("no_limit_holdem_v0"))
    assert env.big_blind == 100.0
    api_test(env, num_cycles=50)
    env.reset(seed=0)
    env.step(0)  # the small blind folds: -50 chips is -0.5 big blinds
    assert env.rewards["player_0"] == -0.5 and env.rewards["player_1"] == 0.5
    assert env.last()[1] == -0.5


def test_big_blind_unit_of_games_without_blinds() -> None:
    assert big_blind_of(make("leduc_holdem_v0", ante=2)) == 2.0
    assert big_blind_of(make("kuhn_poker_v0")) == 1.0
    with pytest.raises(ValueError, match="positive"):
        BigBlindRewards(make("kuhn_poker_v0"), big_blind=0)


def test_fixed_shape_infos() -> None:
    env = FixedShapeInfos(make("leduc_holdem_v0"))
    env.reset(seed=0)
    shapes = set()
    for _agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        shapes.add((tuple(sorted(info)), info["legal_actions"].shape))
        np.testing.assert_array_equal(info["legal_actions"], obs["action_mask"])
        assert isinstance(info["info_state"], str)
        env.step(None if terminated else int(np.flatnonzero(obs["action_mask"])[-1]))
    assert len(shapes) == 1


@pytest.mark.parametrize("name", ["kuhn_poker_v0", "leduc_holdem_v0"])
def test_parallel_view(name: str) -> None:
    parallel_api_test(parallel_view(make(name)), num_cycles=100)
    env = parallel_view(make(name))
    observations, infos = env.reset(seed=1)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        actions = {}
        for agent in env.agents:
            mask = observations[agent]["action_mask"]
            actions[agent] = int(np.flatnonzero(mask)[0]) if mask.any() else 0
        assert sum(observations[a]["action_mask"].any() for a in env.agents) <= 1
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
        if all(terminations.values()):
            break
    assert sum(totals.values()) == pytest.approx(0.0)
