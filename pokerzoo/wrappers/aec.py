"""Small AEC wrappers: flat observations, rewards in big blinds, a turn-based parallel view.

Each wrapper reads and writes only the wrapped env's public AEC API.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import BaseWrapper
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from pokerzoo.envs.spaces import flat_space
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game


class FlattenObservation(BaseWrapper):
    """Observations become one float32 vector: the tensor followed by the action mask.

    For learners that take a single array; the mask stays readable as the vector's tail (and
    in ``infos[agent]["legal_actions"]`` for the acting agent).
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        agent = env.possible_agents[0]
        inner = env.observation_space(agent)
        self.mask_size = inner["action_mask"].shape[0]
        self._space = flat_space(inner["observation"], inner["action_mask"])

    def observation_space(self, agent: str) -> spaces.Box:
        return self._space

    def observe(self, agent: str) -> np.ndarray:
        obs = self.env.observe(agent)
        return np.concatenate([obs["observation"], obs["action_mask"].astype(np.float32)])


def big_blind_of(env: AECEnv) -> float:
    """The chip unit of the env's game (``Game.chip_unit``: its big blind, or its ante for
    games without blinds).

    Raises:
        ConfigError: if the env has no pokerzoo game to read it from.
    """
    game = getattr(env.unwrapped, "game", None)
    if not isinstance(game, Game):
        raise ConfigError(
            f"{type(env.unwrapped).__name__} has no pokerzoo game to read the big blind from; "
            "pass big_blind= explicitly"
        )
    return game.chip_unit


class BigBlindRewards(BaseWrapper):
    """Rewards (``rewards``, ``last()``) divided by the big blind (see ``big_blind_of``).

    Args:
        env: the AEC env.
        big_blind: the unit; ``None`` reads it from the env's game.
    """

    def __init__(self, env: AECEnv, big_blind: float | None = None) -> None:
        super().__init__(env)
        self.big_blind = float(big_blind) if big_blind is not None else big_blind_of(env)
        if not (np.isfinite(self.big_blind) and self.big_blind > 0):
            raise ConfigError(f"big_blind must be a positive finite number, got {big_blind!r}")

    @property
    def rewards(self) -> dict[str, float]:
        return {a: r / self.big_blind for a, r in self.env.rewards.items()}

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        # Read by AECEnv.last() and by tools that mirror it.
        return {a: r / self.big_blind for a, r in self.env._cumulative_rewards.items()}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.last(observe)
        return obs, reward / self.big_blind, terminated, truncated, info


def parallel_view(env: AECEnv) -> ParallelEnv:
    """A turn-based parallel env: every live agent submits an action each step and only the
    acting agent's counts (the others' masks are all zero); ``infos[agent]["active_agent"]``
    names who acts next. Well defined for any turn-based AEC env, hence for every poker env.
    """
    return turn_based_aec_to_parallel(env)


class FixedShapeInfos(BaseWrapper):
    """Infos with the same keys and shapes on every step, for libraries that stack infos into
    arrays (Tianshou's replay buffers): ``info_state`` becomes ``str(key)`` and
    ``legal_actions`` an int8 mask over all actions (all zero when the agent is not to act),
    ``illegal_action`` is always present. Other keys pass through unchanged.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._num_actions = env.action_space(env.possible_agents[0]).n

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        return {agent: self._fixed(info) for agent, info in self.env.infos.items()}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.last(observe)
        return obs, reward, terminated, truncated, self._fixed(info)

    def _fixed(self, info: dict[str, Any]) -> dict[str, Any]:
        out = dict(info)
        out["info_state"] = str(info.get("info_state", ""))
        mask = np.zeros(self._num_actions, dtype=np.int8)
        mask[list(info.get("legal_actions", ()))] = 1
        out["legal_actions"] = mask
        out["illegal_action"] = bool(info.get("illegal_action", False))
        return out
