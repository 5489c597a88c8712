"""Playing an agent through an AEC env, shared by the resolver tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def play_seat_through_env(
    env: Any, agent: Any, hands: int, rng: np.random.Generator,
    opponent: Callable[[np.ndarray, np.random.Generator, dict[str, Any]], int],
) -> None:
    """Play ``hands`` hands of the AEC ``env``: ``agent`` in seat ``hand % 2`` (asserting each
    of its actions is legal), ``opponent(legal_action_ids, rng, info)`` in the other."""
    for hand in range(hands):
        env.reset(seed=hand)
        me = f"player_{hand % 2}"
        for name in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                action = None
            elif name == me:
                action = agent.act(obs, info, rng)
                assert obs["action_mask"][action] == 1
            else:
                action = opponent(np.flatnonzero(obs["action_mask"]), rng, info)
            env.step(action)
