"""The batched env's array backend writes exactly the game's information-state tensors, so a
tabular opponent (looked up by tensor) plays it: on Leduc a float32 contribution scale once
put 3/13 one float32 step off and the lookup failed at the first 3-chip contribution."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import pokerzoo
from pokerzoo.agents.registry import make_agent


@pytest.mark.parametrize("seat", [0, 1])
def test_a_tabular_opponent_plays_the_leduc_vector_env(seat: int) -> None:
    agent = make_agent("cfr+", pokerzoo.load_game("leduc_holdem"))
    agent.iterate(10)
    env = gymnasium.make_vec("pokerzoo/LeducHoldem-v0", num_envs=64, opponent=agent, seat=seat)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(40):
        masks = env.unwrapped.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        _, _, terminated, truncated, _ = env.step(actions)
        finished += int(np.sum(terminated | truncated))
    assert finished > 64
