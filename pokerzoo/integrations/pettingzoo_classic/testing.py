"""Step-by-step comparison of two AEC envs that should play alike: a compatible env against
PettingZoo's, on the same seeds and actions (used by pokerzoo's tests; handy for checking any
drop-in).

>>> from pokerzoo.integrations.pettingzoo_classic import leduc_holdem_v4
>>> a, b = leduc_holdem_v4.env(), leduc_holdem_v4.env()
>>> rewards = replay(a, b, seed=3, rng=np.random.default_rng(0), hands=2)
>>> len(rewards), sorted(rewards[0]) == a.possible_agents
(2, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pettingzoo import AECEnv


def differences(theirs: AECEnv, ours: AECEnv) -> list[str]:
    """What differs between the two envs now: ``"agents"``, ``"agent_selection"``,
    ``"rewards"``, ``"terminations"``, ``"infos"``, ``"observation"``, ``"action_mask"`` (in
    that order; empty when they agree). Observations must also agree in dtype."""
    found = [
        name
        for name in ("agents", "agent_selection", "rewards", "_cumulative_rewards",
                     "terminations", "truncations", "infos")
        if getattr(ours, name) != getattr(theirs, name)
    ]  # fmt: skip
    if "agents" in found:
        return found
    for key in ("observation", "action_mask"):
        for agent in theirs.agents:
            want, got = theirs.observe(agent)[key], ours.observe(agent)[key]
            if got.dtype != want.dtype or not np.array_equal(got, want):
                found.append(key)
                break
    return found


def assert_same_view(theirs: AECEnv, ours: AECEnv) -> None:
    """Fail naming what differs (agents, turn, rewards, terminations, observations, masks)."""
    found = differences(theirs, ours)
    assert not found, f"the envs differ in {found}"


def replay(
    theirs: AECEnv,
    ours: AECEnv,
    seed: int | None,
    rng: np.random.Generator,
    hands: int = 1,
    check: Callable[[AECEnv, AECEnv], None] | None = None,
) -> list[dict[str, Any]]:
    """Play ``hands`` hands from ``reset(seed)`` (later hands unseeded) in both envs with the
    same random legal actions, asserting they agree at every step and after each hand (and
    calling ``check(theirs, ours)`` after the reset and each step of a running hand); the
    rewards each hand ended with."""
    ends = []
    for hand in range(hands):
        reset_seed = seed if hand == 0 else None
        theirs.reset(seed=reset_seed)
        ours.reset(seed=reset_seed)
        ended = False
        while theirs.agents:
            if check is not None:
                check(theirs, ours)
            assert_same_view(theirs, ours)
            obs, reward, terminated, truncated, info = theirs.last()
            assert ours.last()[1:] == (reward, terminated, truncated, info)
            if terminated or truncated:
                action = None
                if not ended:
                    ends.append(dict(theirs.rewards))
                    ended = True
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            theirs.step(action)
            ours.step(action)
        assert_same_view(theirs, ours)
    return ends
