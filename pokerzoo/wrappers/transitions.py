"""``TransitionRecorder``: per-agent transitions out of an AEC turn order, for self-play learners.

In an AEC game an agent's next observation is the one it gets at its *next turn*, not after
its own step, and rewards reach it while others act. The recorder pairs these up:

* when agent ``i`` acts with observation ``o`` and mask ``m`` and plays ``a``, a transition is
  opened;
* it is closed at ``i``'s next turn with ``next_obs``/``next_mask`` of that turn and
  ``done=False``, or when ``i`` is terminated or truncated, with ``i``'s final observation,
  an all-zero ``next_mask`` and ``done=True`` (``truncated`` says which end it was);
* ``reward`` is everything ``i`` received from ``a`` until the transition closed (the env's
  ``rewards`` summed over the steps in between, the illegal-action penalty included).

Agents that never act in a hand produce no transition. Transitions of a hand that is abandoned
by ``reset`` before it ends are dropped. Only the public AEC API of the wrapped env is used.

>>> from pokerzoo.envs import kuhn_poker_v0
>>> env = TransitionRecorder(kuhn_poker_v0.env())
>>> env.reset(seed=0)
>>> for agent in env.agent_iter():
...     obs, reward, terminated, truncated, info = env.last()
...     env.step(None if terminated or truncated else 0)  # everybody passes
>>> [(t.agent, t.action, t.done) for t in env.drain()]
[('player_0', 0, True), ('player_1', 0, True)]
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper


@dataclass(frozen=True, slots=True)
class Transition:
    """One agent's ``(obs, mask, action, reward, next_obs, next_mask, done)``."""

    agent: str
    """The agent that acted."""
    obs: np.ndarray
    """Its observation when it acted (``observation["observation"]`` for dict observations)."""
    mask: np.ndarray | None
    """Its legal-action mask then (``None`` if the env has no ``action_mask``)."""
    action: int
    """The action it played."""
    reward: float
    """Reward it received from then until ``next_obs``."""
    next_obs: np.ndarray
    """Its observation at its next turn, or its final observation if ``done``."""
    next_mask: np.ndarray | None
    """Its mask at its next turn; all zero if ``done``."""
    done: bool
    """The agent's episode ended (terminated or truncated) after this action."""
    truncated: bool = False
    """The end was a truncation (bootstrapping learners should still bootstrap)."""
    info_state: Hashable | None = None
    """``info["info_state"]`` when it acted, if the env provides it (tabular learners)."""


@dataclass
class _Open:
    obs: np.ndarray
    mask: np.ndarray | None
    action: int
    info_state: Hashable | None
    reward: float = 0.0


class TransitionRecorder(BaseWrapper):
    """An AEC wrapper that records every agent's transitions while the env is played normally.

    Args:
        env: any AEC env (observations either arrays or ``{"observation", "action_mask"}``).
        on_transition: called with each ``Transition`` as soon as it closes.
        keep: also append transitions to ``self.transitions`` (read them with ``drain()``).
    """

    def __init__(
        self,
        env: AECEnv,
        on_transition: Callable[[Transition], Any] | None = None,
        keep: bool = True,
    ) -> None:
        super().__init__(env)
        self.on_transition = on_transition
        self.keep = keep
        self.transitions: list[Transition] = []
        self._open: dict[str, _Open] = {}

    def drain(self) -> list[Transition]:
        """Return the recorded transitions and forget them."""
        out, self.transitions = self.transitions, []
        return out

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._open.clear()
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        env = self.env
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(action)
            return
        obs, mask = _split(env.observe(agent))
        info_state = env.infos[agent].get("info_state")
        previous = self._open.pop(agent, None)
        if previous is not None:
            self._emit(agent, previous, obs, mask, done=False, truncated=False)
        env.step(action)  # may raise (raw envs): then nothing about this action is recorded
        self._open[agent] = _Open(obs, mask, int(action), info_state)
        rewards = env.rewards
        for ag, pending in self._open.items():
            pending.reward += float(rewards.get(ag, 0.0))
        for ag in list(self._open):
            terminated = env.terminations.get(ag, False)
            truncated = env.truncations.get(ag, False)
            if terminated or truncated:
                final, final_mask = _split(env.observe(ag))
                zero = None if final_mask is None else np.zeros_like(final_mask)
                self._emit(ag, self._open.pop(ag), final, zero, True, bool(truncated))

    def _emit(
        self,
        agent: str,
        pending: _Open,
        next_obs: np.ndarray,
        next_mask: np.ndarray | None,
        done: bool,
        truncated: bool,
    ) -> None:
        t = Transition(
            agent,
            pending.obs,
            pending.mask,
            pending.action,
            pending.reward,
            next_obs,
            next_mask,
            done,
            truncated,
            pending.info_state,
        )
        if self.keep:
            self.transitions.append(t)
        if self.on_transition is not None:
            self.on_transition(t)


def _split(observation: Any) -> tuple[np.ndarray, np.ndarray | None]:
    # Copies: the caller may keep transitions long after the env reused its arrays.
    if isinstance(observation, dict) and "observation" in observation:
        mask = observation.get("action_mask")
        return np.array(observation["observation"]), None if mask is None else np.array(mask)
    return np.array(observation), None
