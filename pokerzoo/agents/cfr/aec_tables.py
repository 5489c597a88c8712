"""What the tabular solvers on AEC envs share: tables keyed by information state, the average
strategy as a policy, checkpoints.

A row per ``(seat, observation bytes + mask bytes)``: regrets and the strategy sum, one row of
``num_actions`` each. The observation must be an information state (perfect recall); see
``pokerzoo.wrappers.aec_learner_state``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import numpy as np

from pokerzoo.agents.aec_seat import AECSeatMixin
from pokerzoo.agents.base import Agent, check_state_iteration
from pokerzoo.envs.spaces import checked_action_mask
from pokerzoo.errors import CheckpointError
from pokerzoo.games.base import State
from pokerzoo.wrappers.aec_learner import as_factory, inspect_env


class AECTabularSolver(AECSeatMixin, Agent):
    """Base of ``AECExternalMCCFR`` and ``AECOutcomeMCCFR``: the env, the tables, the rest.

    Args:
        env: a factory ``() -> AECEnv`` or an instance (used as the solver's scratch env).
        seed: seeds the traversals' resets and the sampled actions.
    """

    def __init__(self, env: Any, seed: int = 0) -> None:
        self.env = as_factory(env)()
        self.spec = inspect_env(self.env)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.num_players = self.spec.num_players
        self.num_actions = self.spec.num_actions
        self._tables: dict[tuple[int, bytes], np.ndarray] = {}
        self._iteration = 0

    @property
    def iteration(self) -> int:
        return self._iteration

    @property
    def num_infosets(self) -> int:
        """Information states met so far."""
        return len(self._tables)

    def _table(self, player: int, key: bytes) -> np.ndarray:
        table = self._tables.get((player, key))
        if table is None:
            table = self._tables[(player, key)] = np.zeros((2, self.num_actions))
        return table

    # Policies ----------------------------------------------------------------------------------

    def average_probs(self, player: int, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The average strategy of ``player`` on a batch of observations, ``[n, num_actions]``
        (uniform over the legal actions at information states never met)."""
        obs = np.asarray(obs, dtype=np.float32).reshape(-1, self.spec.observation_size)
        mask = np.asarray(mask, dtype=np.int8).reshape(-1, self.num_actions)
        out = np.zeros(mask.shape)
        for row, (o, m) in enumerate(zip(obs, mask)):
            table = self._tables.get((player, o.tobytes() + m.tobytes()))
            total = table[1] * (m > 0) if table is not None else None
            if total is None or total.sum() <= 0:
                out[row] = m / m.sum()
            else:
                out[row] = total / total.sum()
        return out

    def _seat_agents(self) -> tuple[str, ...]:
        return tuple(self.spec.agents)

    def policy(self) -> AECTablePolicy:
        """The average strategy as a state policy over ``AECState``-like states."""
        return AECTablePolicy(self)

    def act_probabilities(
        self, observation: Any, info: Mapping[str, Any] | None = None
    ) -> np.ndarray:
        """The average strategy at an env turn; the seat is ``info["agent"]``,
        ``info["player"]`` or the attached env's ``agent_selection`` (see ``attach``)."""
        seat = self._seat_of_turn(info)
        info = info or {}
        if self.spec.mask_in_info:
            obs, mask = observation, info["action_mask"]
        else:
            obs, mask = observation["observation"], observation["action_mask"]
        mask = checked_action_mask(mask, self.num_actions, type(self).__name__)
        return self.average_probs(seat, obs, mask.astype(np.int8))[0]

    # Checkpoints -------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Counters, the generator and the tables (keys as hex strings, values one array)."""
        keys = list(self._tables)
        return {
            "env": {"name": self.spec.name, "agents": list(self.spec.agents),
                    "num_actions": self.num_actions},
            "iteration": self._iteration,
            "rng": copy.deepcopy(self.rng.bit_generator.state),
            "players": np.array([p for p, _ in keys], dtype=np.int64),
            "keys": [key.hex() for _, key in keys],
            "tables": (np.stack([self._tables[k] for k in keys]) if keys
                       else np.zeros((0, 2, self.num_actions))),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` returned.

        Raises:
            CheckpointError: a checkpoint of another env.
        """
        iteration = check_state_iteration(state["iteration"])
        mine = {"name": self.spec.name, "agents": list(self.spec.agents),
                "num_actions": self.num_actions}
        theirs = {k: (list(v) if isinstance(v, tuple) else v) for k, v in state["env"].items()}
        if theirs != mine:
            raise CheckpointError(f"checkpoint is for env {theirs}, this solver plays {mine}")
        tables = np.asarray(state["tables"], dtype=np.float64)
        players = np.asarray(state["players"], dtype=np.int64)
        self._tables = {(int(p), bytes.fromhex(k)): tables[i].copy()
                        for i, (p, k) in enumerate(zip(players, state["keys"]))}
        self.rng.bit_generator.state = copy.deepcopy(dict(state["rng"]))
        self._iteration = iteration


class AECTablePolicy:
    """A tabular AEC solver's average strategy as ``action_probabilities(state)``."""

    def __init__(self, solver: AECTabularSolver) -> None:
        self.solver = solver

    def action_probabilities(self, state: State, player: int | None = None) -> dict[int, float]:
        p = state.current_player() if player is None else player
        mask = state.legal_actions_mask()
        row = self.solver.average_probs(p, state.information_state_tensor(p), mask)[0]
        return {int(a): float(row[a]) for a in np.flatnonzero(mask)}


def regret_matching(regrets: np.ndarray, legal: np.ndarray) -> np.ndarray:
    positive = np.maximum(regrets[legal], 0.0)
    total = positive.sum()
    return positive / total if total > 0 else np.full(len(legal), 1.0 / len(legal))
