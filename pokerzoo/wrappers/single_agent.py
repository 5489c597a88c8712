"""``SingleAgentEnv``: a Gymnasium env where one learner plays a seat against fixed opponents.

Registered with Gymnasium as ``pokerzoo/KuhnPoker-v0``, ``pokerzoo/LeducHoldem-v0``,
``pokerzoo/LimitHoldem-v0`` and ``pokerzoo/NoLimitHoldem-v0``:

>>> import gymnasium
>>> import pokerzoo  # registers the ids
>>> env = gymnasium.make("pokerzoo/LeducHoldem-v0", opponent="random", seat=0)
>>> obs, info = env.reset(seed=0)
>>> obs.shape, env.unwrapped.action_masks().tolist()
((60,), [False, True, True])
"""

from __future__ import annotations

from typing import Any, Literal

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from pokerzoo.envs.gym_vector import finite_reward_scale
from pokerzoo.envs.spaces import flat_space
from pokerzoo.errors import ConfigError, EnvStateError
from pokerzoo.wrappers.opponents import as_opponent

ObsType = Literal["box", "dict", "flat"]
MAX_REDEALS = 10_000


class SingleAgentEnv(gymnasium.Env):
    """One seat of a pokerzoo AEC env as a Gymnasium env; the other seats play ``opponent``.

    An episode is one hand. Hands that end before the learner's first turn (possible with three
    or more players) are re-dealt silently. Illegal learner actions end the hand with the AEC
    env's ``illegal_reward`` (the env is built in penalize mode), so learners without masks
    (and the Gymnasium/SB3 checkers) can act freely; ``action_masks()`` serves MaskablePPO.

    Args:
        env: a named env (``"leduc_holdem_v0"``) or an AEC env instance (then ``env_kwargs``
            must be empty and ``render_mode`` is the instance's).
        opponent: one opponent for every other seat, or a list with one per other seat in seat
            order (see ``pokerzoo.wrappers.opponents.as_opponent`` for what is accepted).
        seat: the learner's seat, or ``"random"`` for a new seat every hand.
        obs_type: ``"box"`` (the tensor; masks via ``action_masks()`` and
            ``info["action_mask"]``), ``"dict"`` (``{"observation", "action_mask"}``) or
            ``"flat"`` (tensor and mask concatenated into one float32 vector).
        reward_scale: multiplies every reward (e.g. ``1 / big_blind``).
        render_mode: ``"human"``, ``"ansi"`` or ``"rgb_array"`` (the text table drawn as an
            image, so ``make_vec_env``'s default request works).
        **env_kwargs: game parameters and env options for a named env.
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        env: str | AECEnv = "leduc_holdem_v0",
        opponent: Any = "random",
        seat: int | Literal["random"] = 0,
        obs_type: ObsType = "box",
        reward_scale: float = 1.0,
        render_mode: str | None = None,
        **env_kwargs: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        if isinstance(env, str):
            from pokerzoo.envs.registry import make

            aec_mode = "ansi" if render_mode == "rgb_array" else render_mode
            env = make(env, render_mode=aec_mode, **env_kwargs)
        elif env_kwargs:
            raise TypeError(f"env_kwargs {sorted(env_kwargs)} need a named env, not an instance")
        self.aec = env
        self.agents = list(env.possible_agents)
        n = len(self.agents)
        if seat != "random" and (not isinstance(seat, int | np.integer) or not 0 <= seat < n):
            raise ConfigError(f"seat must be 0..{n - 1} or 'random', got {seat!r}")
        self.seat = seat
        if obs_type not in ("box", "dict", "flat"):
            raise ConfigError(f"obs_type must be 'box', 'dict' or 'flat', got {obs_type!r}")
        self.obs_type = obs_type
        self.reward_scale = finite_reward_scale(reward_scale)
        specs = list(opponent) if isinstance(opponent, list | tuple) else [opponent] * (n - 1)
        if len(specs) != n - 1:
            raise ConfigError(f"need one opponent per other seat ({n - 1}), got {len(specs)}")
        for spec in specs:  # refused now (an unknown kind, a callable of the wrong signature)
            as_opponent(spec, env, lambda: self.np_random)
        self._specs = specs
        self._opponents: dict[str, Any] = {}
        inner = env.observation_space(self.agents[0])
        self.action_space = env.action_space(self.agents[0])
        tensor, mask = inner["observation"], inner["action_mask"]
        if obs_type == "box":
            self.observation_space = tensor
        elif obs_type == "dict":
            self.observation_space = inner
        else:
            self.observation_space = flat_space(tensor, mask)
        self._learner = self.agents[0]
        self._mask = np.zeros(mask.shape[0], dtype=np.int8)
        self._over = True
        self.redeals = 0
        """Hands re-dealt because they ended before the learner acted."""

    # Gymnasium API -----------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        aec_seed = None if seed is None else int(self.np_random.integers(2**31))
        for _ in range(MAX_REDEALS):
            self.aec.reset(seed=aec_seed, options=options)
            aec_seed, options = None, None
            seat = self.seat
            if seat == "random":
                seat = int(self.np_random.integers(len(self.agents)))
            self._learner = self.agents[seat]
            self._bind_opponents()
            reward, over = self._play_opponents()
            if not over:
                self._over = False
                return self._observe(), self._info()
            self.redeals += 1
        raise RuntimeError(f"{MAX_REDEALS} hands in a row ended before the learner could act")

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        aec = self.aec
        if self._over:
            raise EnvStateError("the hand is over (or not dealt yet): call reset()")
        aec.step(action)
        reward = float(aec.rewards.get(self._learner, 0.0))
        more, over = self._play_opponents()
        self._over = over
        obs = self._observe()
        info = self._info()
        return obs, (reward + more) * self.reward_scale, over, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (sb3-contrib's MaskablePPO calls this)."""
        return self._mask.astype(bool)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "rgb_array":
            from pokerzoo.envs.rendering import text_to_rgb

            return text_to_rgb(self.aec.render())
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # Internals ---------------------------------------------------------------------------------

    def _bind_opponents(self) -> None:
        others = [a for a in self.agents if a != self._learner]
        self._opponents = {
            agent: as_opponent(spec, self.aec, lambda: self.np_random)
            for agent, spec in zip(others, self._specs)
        }

    def _play_opponents(self) -> tuple[float, bool]:
        """Let the opponents act until the learner's turn or the end of the hand."""
        aec, learner = self.aec, self._learner
        reward = 0.0
        while True:
            agent = aec.agent_selection
            if aec.terminations[agent] or aec.truncations[agent]:
                return reward, True
            if agent == learner:
                return reward, False
            action = self._opponents[agent](aec.observe(agent), aec.infos[agent])
            aec.step(action)
            reward += float(aec.rewards.get(learner, 0.0))

    def _observe(self) -> Any:
        obs = self.aec.observe(self._learner)
        self._mask = obs["action_mask"]
        if self.obs_type == "box":
            return obs["observation"]
        if self.obs_type == "dict":
            return obs
        return np.concatenate([obs["observation"], obs["action_mask"].astype(np.float32)])

    def _info(self) -> dict[str, Any]:
        info = dict(self.aec.infos.get(self._learner, {}))
        info["seat"] = self.agents.index(self._learner)
        info["action_mask"] = self._mask.copy()
        return info


def make_single_agent_env(**kwargs: Any) -> SingleAgentEnv:
    """Gymnasium entry point (``gymnasium.make`` passes the registered ``env`` name)."""
    return SingleAgentEnv(**kwargs)
