"""NFSP, NFSP-PER and NFSP-PLT on any PettingZoo AEC env, through the AEC learner adapter.

``AECNFSP(env_fn, ...)`` is ``NFSP`` with ``pokerzoo.wrappers.aec_learner.AECLearnerEnv`` in
place of our batched env: the seats, buffers, learning and checkpoints are NFSP's own. Seats
are the env's ``possible_agents`` in order. The best response is the DQN, or adaptive UCT
(``best_response="uct"``) where the env can be copied (checked once here): the search draws
determinisations by reseeded replay of the hand (``aec_learner_state.replay_sampler``), never
from the env's hidden state.

What differs from ``NFSP`` on a pokerzoo game: there is no compiled tree (``average_policy()``
is the network policy; score it on a tree of your own by mapping states to the env's
observations), rewards are the env's (``reward_scale`` defaults to 1), one rollout worker.
Resuming replays the hands in flight (``AECLearnerEnv.load_state_dict``).

>>> from pettingzoo.classic import tictactoe_v3
>>> agent = AECNFSP(tictactoe_v3.env, seed=0, num_envs=8)
>>> agent.iterate(20)
>>> agent.env.episodes >= 20
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import numpy as np

from pokerzoo.agents.aec_seat import AECSeatMixin
from pokerzoo.agents.nfsp.agent import NFSP, NetworkPolicy
from pokerzoo.agents.nfsp.config import PRESETS, NFSPConfig
from pokerzoo.agents.nfsp.uct_best_response import UCTBestResponse
from pokerzoo.entry_points import unknown_name
from pokerzoo.envs.spaces import checked_action_mask
from pokerzoo.errors import ConfigError
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.wrappers.aec_learner import AECLearnerEnv, AECSpec, check_copyable
from pokerzoo.wrappers.aec_learner_state import replay_sampler


class AECGame:
    """What NFSP reads from a game, for a foreign AEC env (sizes, seats, a name for checkpoints)."""

    chip_unit = 1.0

    def __init__(self, spec: AECSpec) -> None:
        self.spec = spec
        self.name = f"aec:{spec.name}"
        self.num_players = spec.num_players
        self.information_state_shape = (spec.observation_size,)
        self.num_distinct_actions = spec.num_actions

    def params(self) -> dict[str, Any]:
        return {"agents": list(self.spec.agents),
                "observation_shape": list(self.spec.observation_shape),
                "num_actions": self.spec.num_actions}

    def __repr__(self) -> str:
        return f"AECGame({self.spec.name!r}, agents={list(self.spec.agents)})"


class AECNFSP(AECSeatMixin, NFSP):
    """NFSP on a PettingZoo AEC env (see the module).

    Args:
        env: a factory ``() -> AECEnv`` or an env instance (copied for ``num_envs > 1``).
        config, seed, name, overrides: as ``NFSP``.

    Raises:
        ConfigError: the env breaks a requirement (``AECLearnerEnv``), or UCT on an env that
            cannot be copied.
    """

    def __init__(
        self,
        env: Any,
        config: NFSPConfig | None = None,
        seed: int = 0,
        *,
        name: str | None = None,
        **overrides: Any,
    ) -> None:
        base = config if config is not None else NFSPConfig()
        config = base.with_params(**overrides) if overrides else base
        self.adapter = AECLearnerEnv(env, config.num_envs)
        if config.best_response_kind == "uct":
            check_copyable(self.adapter.envs[0])
        # NFSP reads only sizes, seats, chip_unit, name and params() from its game.
        super().__init__(AECGame(self.adapter.spec), config, seed,  # type: ignore[arg-type]
                         name=name)

    def _make_env(self, backend: Literal["auto", "state"]) -> AECLearnerEnv:
        return self.adapter

    def _make_uct(self) -> AECUCTBestResponse:
        return AECUCTBestResponse(self)

    @property
    def tree(self) -> GameTree:
        raise ConfigError("a foreign AEC env has no compiled tree: score policy() on a tree "
                          "of your own game (map its states to the env's observations)")

    def average_policy(self) -> NetworkPolicy:
        """The average policy as a state policy (there is no tree to tabulate it on)."""
        return self.policy()

    def act_probabilities(
        self, observation: Any, info: Mapping[str, Any] | None = None
    ) -> np.ndarray:
        """The average policy at an env turn; the seat is ``info["agent"]`` (the agent's name),
        ``info["player"]`` (its index in ``possible_agents``) or the attached env's
        ``agent_selection`` (``attach(env)``, for a plain ``env.last()`` loop)."""
        spec = self.adapter.spec
        raw = (info or {}).get("action_mask") if spec.mask_in_info else (
            observation.get("action_mask") if isinstance(observation, Mapping) else None)
        checked_action_mask(raw, spec.num_actions, type(self).__name__)  # before any cast
        obs, mask = self.adapter.split(observation, info or {})
        return self.average_probs(self.seat(info), obs, mask)[0].astype(np.float64)

    def seat(self, info: Mapping[str, Any] | None) -> int:
        """The seat named by ``info`` or the attached env (see ``act_probabilities``)."""
        return self._seat_of_turn(info)

    def _seat_agents(self) -> tuple[str, ...]:
        return tuple(self.adapter.spec.agents)


class AECUCTBestResponse(UCTBestResponse):
    """Adaptive UCT from the adapter's hands: determinisations by reseeded replay."""

    def __init__(self, agent: AECNFSP) -> None:
        super().__init__(agent)
        self.adapter = agent.adapter
        self.scratch = self.adapter.factory()

    def __call__(
        self, player: int, rows: np.ndarray, obs: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        actions = np.empty(len(rows), dtype=np.int64)
        for k, row in enumerate(rows):
            _, hand = self.adapter.hand(int(row))
            key = (np.asarray(obs[k], dtype=np.float32).tobytes()
                   + np.asarray(mask[k], dtype=np.int8).tobytes())
            sampler = replay_sampler(self.scratch, self.adapter.spec, hand, player, key)
            result = self.searchers[player].search(sampler=sampler)
            actions[k] = result.action
            self.searches += 1
            self.simulations += result.simulations
            self.stopped_early += int(result.stopped_early)
        return actions


def make_aec_preset(preset: str, env: Any, seed: int = 0, **params: Any) -> AECNFSP:
    """The registry's NFSP ``preset`` (``nfsp``, ``nfsp-per``, ``nfsp-plt``) on an AEC env."""
    if preset not in PRESETS:
        raise unknown_name("NFSP preset", preset, PRESETS)
    config = NFSPConfig.from_params(**PRESETS[preset]).with_params(**params)
    return AECNFSP(env, config, seed=seed, name=preset)
