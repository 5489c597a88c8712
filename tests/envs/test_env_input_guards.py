"""Bad input to the Gymnasium faces and to an agent's env turn is refused at once in one line:
a vector env too large for memory (before anything is allocated), a non-finite reward scale,
a callable opponent of the wrong signature (at construction, not at its first turn), an action
mask of the wrong length or dtype."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import pokerzoo.envs.registration  # noqa: F401  (registers the Gymnasium ids)
from pokerzoo.agents.cfr import CFRPlus
from pokerzoo.envs import make, vector
from pokerzoo.errors import ConfigError
from pokerzoo.games.registry import load_game

GYM_ID = "pokerzoo/LeducHoldem-v0"


def test_a_huge_vector_env_is_refused_before_anything_is_built(monkeypatch) -> None:
    built: list[int] = []
    monkeypatch.setattr(vector, "StateArrays", lambda game, n: built.append(n))
    with pytest.raises(ConfigError) as info:
        gymnasium.make_vec(GYM_ID, num_envs=10**8, backend="state")
    message = str(info.value)
    assert message.startswith("num_envs=100,000,000 hands of leduc_holdem would need about ")
    assert "GiB, more than the 8 GiB a vector env may hold; use at most " in message
    assert built == []  # no backend, so no array of 10**8 rows, was ever made


def test_the_largest_vector_env_that_fits_is_accepted_by_the_estimate() -> None:
    game = load_game("leduc_holdem")
    fits = vector.MAX_VECTOR_ENV_BYTES // vector.vector_bytes(game, 1)
    vector.check_vector_size(game, fits)  # no error
    with pytest.raises(ConfigError, match=f"use at most {fits:,}"):
        vector.check_vector_size(game, fits + 1)


@pytest.mark.parametrize("scale", [float("nan"), float("inf"), -float("inf"), "big", True])
def test_a_non_finite_reward_scale_is_refused(scale) -> None:
    with pytest.raises(ConfigError, match="reward_scale must be a finite number, got "):
        gymnasium.make_vec(GYM_ID, num_envs=2, reward_scale=scale)


def test_a_finite_reward_scale_still_scales() -> None:
    env = gymnasium.make_vec(GYM_ID, num_envs=2, reward_scale=0.5)
    assert env.unwrapped.reward_scale == 0.5


@pytest.mark.parametrize("build", [
    lambda opponent: gymnasium.make(GYM_ID, opponent=opponent),
    lambda opponent: gymnasium.make_vec(GYM_ID, num_envs=2, opponent=opponent),
])
def test_a_one_argument_callable_opponent_is_refused_at_construction(build) -> None:
    def fold_always(observation):
        return 0

    with pytest.raises(ConfigError) as info:
        build(fold_always)
    message = str(info.value)
    assert "the opponent" in message and "fold_always(observation)" in message
    assert "a callable opponent takes two arguments, (observation, info)" in message


def test_a_two_argument_callable_opponent_is_accepted() -> None:
    env = gymnasium.make(GYM_ID, opponent=lambda obs, info, *rest: 0 if False else
                         int(np.flatnonzero(obs["action_mask"])[0]))
    env.reset(seed=0)


@pytest.fixture(scope="module")
def solver() -> CFRPlus:
    agent = CFRPlus(load_game("leduc_holdem"))
    agent.iterate(2)
    return agent


@pytest.mark.parametrize(("mask", "fragment"), [
    (np.ones(2, np.int8), "action_mask of shape (2,); the game has 3 actions"),
    (np.ones((3, 1), np.int8), "action_mask of shape (3, 1)"),
    (np.array(["1", "1", "1"]), "action_mask of dtype <U1"),
    (np.array([1, 2, 1]), "action_mask with values other than 0 and 1"),
    (np.array([1.0, np.nan, 1.0]), "action_mask with values other than 0 and 1"),
])
def test_act_probabilities_refuses_a_bad_mask(solver, mask, fragment) -> None:
    env = make("leduc_holdem_v0")
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    with pytest.raises(ConfigError) as raised:
        solver.act_probabilities({**obs, "action_mask": mask}, info)
    assert fragment in str(raised.value)
    assert np.isclose(solver.act_probabilities(obs, info).sum(), 1.0)  # a good mask still works
