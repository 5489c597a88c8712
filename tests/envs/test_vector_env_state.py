"""``VectorPokerEnv.state_dict``: a copy of the hands in flight from which another env plays
on exactly as the original does (array and ``State`` backends)."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.envs.vector import VectorPokerEnv


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    weights = mask.astype(np.float64) * rng.random(mask.shape)
    return weights.argmax(axis=1)


@pytest.mark.parametrize(("game", "backend"), [
    ("kuhn_poker", "arrays"), ("leduc_holdem", "arrays"), ("leduc_holdem", "state"),
    ("kuhn_poker", "state"),
])
def test_a_restored_env_plays_on_exactly(game, backend):
    env = VectorPokerEnv(game, num_envs=6, seed=3, backend=backend)
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(7):
        obs, mask, *_ = env.step(_random_actions(mask, rng))
    state = env.state_dict()
    twin = VectorPokerEnv(game, num_envs=6, seed=99, backend=backend)
    twin.load_state_dict(state)
    for _ in range(25):  # long enough for many hands to end and be re-dealt from the RNG
        actions = _random_actions(mask, rng)
        a, b = env.step(actions), twin.step(actions)
        for x, y in zip(a[:5], b[:5]):
            np.testing.assert_array_equal(x, y)
        mask = a.mask


def test_state_is_a_copy_and_taking_it_changes_nothing():
    env = VectorPokerEnv("leduc_holdem", num_envs=4, seed=1)
    _, mask, _ = env.reset()
    state = env.state_dict()
    before = {k: v.copy() for k, v in state["hands"].items()}
    again = env.state_dict()
    env.step(_random_actions(mask, np.random.default_rng(0)))
    for k, v in before.items():
        np.testing.assert_array_equal(state["hands"][k], v)
        np.testing.assert_array_equal(again["hands"][k], v)


def test_a_state_of_another_env_is_refused():
    env = VectorPokerEnv("kuhn_poker", num_envs=4, seed=1)
    env.reset()
    with pytest.raises(ValueError, match="num_envs"):
        VectorPokerEnv("kuhn_poker", num_envs=5).load_state_dict(env.state_dict())
