"""Self-play over the batched env: pick NFSP actions for many hands, emit per-player transitions.

``SelfPlay`` is a vectorised transition recorder: for every hand of a ``VectorPokerEnv`` and
every seat it remembers the seat's last (observation, mask, action) and the reward collected
since, and turns them into an RL transition when the seat acts again (``done=0``) or the hand
ends (``done=1``, the seat's return). At the start of every hand each seat draws its policy
for the whole hand: the best response with probability eta, else the average policy
([HS] Alg. 1). Best-response decisions also go to the seat's SL reservoir.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from pokerzoo.agents.nfsp.learner import PlayerLearner, greedy_actions
from pokerzoo.errors import CheckpointError, EnvStateError
from pokerzoo.sampling import sample_rows

BestResponseFn = Callable[[int, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""``fn(player, env_rows, obs, mask) -> actions``: an alternative best response (UCT)."""


class SelfPlay:
    """Drives ``env`` with the learners' mixed strategies and feeds them transitions.

    Args:
        env: a ``pokerzoo.envs.VectorPokerEnv`` (finished hands are re-dealt in ``step``).
        learners: one ``PlayerLearner`` per seat.
        eta: anticipatory parameter.
        rng: the agent's generator (policy draws, exploration, sampling).
        reward_scale: multiplies the env's rewards (chips) before they are stored.
    """

    def __init__(
        self,
        env,
        learners: Sequence[PlayerLearner],
        eta: float,
        rng: np.random.Generator,
        reward_scale: float = 1.0,
    ) -> None:
        self.env = env
        self.reward_scale = reward_scale
        self.learners = list(learners)
        self.eta = eta
        self.rng = rng
        self.best_response: BestResponseFn | None = None
        n, p = env.num_envs, len(self.learners)
        obs_size, num_actions = self.learners[0].obs_size, self.learners[0].num_actions
        self.last_obs = np.zeros((n, p, obs_size), dtype=np.float32)
        self.last_mask = np.zeros((n, p, num_actions), dtype=np.int8)
        self.last_action = np.zeros((n, p), dtype=np.int64)
        self.has_last = np.zeros((n, p), dtype=bool)
        self.reward = np.zeros((n, p), dtype=np.float32)
        self.best_mode = np.zeros((n, p), dtype=bool)
        self.current: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._outbox: list[list[dict[str, np.ndarray]]] = [[] for _ in self.learners]

    def restart(self, seed: int) -> None:
        """Deal fresh hands (hands in flight are dropped without transitions)."""
        self.current = self.env.reset(seed=seed)
        self.has_last[:] = False
        self.reward[:] = 0.0
        self.best_mode[:] = self.rng.random(self.best_mode.shape) < self.eta

    def state_dict(self) -> dict[str, np.ndarray]:
        """The hands in flight as this recorder sees them (copies): each seat's pending
        transition, its rewards so far, its policy for the hand, and the current turn."""
        if self.current is None:
            raise EnvStateError("no hands in flight: call restart(seed) first")
        obs, mask, player = self.current
        return {
            **{name: getattr(self, name).copy() for name in _ARRAYS},
            "obs": obs.copy(), "mask": mask.copy(), "player": player.copy(),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore hands in flight from ``state_dict`` (the env must hold the same hands)."""
        for name in _ARRAYS:
            target = getattr(self, name)
            value = np.asarray(state[name])
            if value.shape != target.shape:
                raise CheckpointError(f"self-play {name} has shape {value.shape}, "
                                 f"expected {target.shape}")
            target[...] = value
        self.current = tuple(  # type: ignore[assignment]
            np.array(state[k], dtype=d) for k, d in
            (("obs", np.float32), ("mask", np.int8), ("player", np.int64))
        )
        for outbox in self._outbox:
            outbox.clear()

    def step(self, epsilon: float) -> int:
        """Act in every hand once, store the transitions, return the number of hands finished."""
        if self.current is None:
            raise EnvStateError("call restart(seed) before step()")
        obs, mask, player = self.current
        actions = np.zeros(len(player), dtype=np.int64)
        for p, learner in enumerate(self.learners):
            rows = np.flatnonzero(player == p)
            if len(rows):
                self._emit_continuing(p, rows, obs, mask)
                actions[rows] = self._act(p, learner, rows, obs[rows], mask[rows], epsilon)
                self.last_obs[rows, p] = obs[rows]
                self.last_mask[rows, p] = mask[rows]
                self.last_action[rows, p] = actions[rows]
                self.has_last[rows, p] = True
        result = self.env.step(actions)
        obs, mask, player, done = result.obs, result.mask, result.player, result.done
        self.reward += result.rewards * self.reward_scale
        finished = np.flatnonzero(done)
        if len(finished):
            self._emit_terminal(finished)
        self.current = (obs, mask, player)
        for learner, outbox in zip(self.learners, self._outbox):
            # One add per seat and step: the buffers' per-call cost dominates small adds.
            if outbox:
                learner.store_transitions(_concat(outbox))
                outbox.clear()
            learner.learn()
        return len(finished)

    # Internals -------------------------------------------------------------------------------

    def _act(
        self,
        p: int,
        learner: PlayerLearner,
        rows: np.ndarray,
        obs: np.ndarray,
        mask: np.ndarray,
        epsilon: float,
    ) -> np.ndarray:
        actions = np.empty(len(rows), dtype=np.int64)
        best = self.best_mode[rows, p]
        avg = ~best
        if avg.any():
            actions[avg] = sample_rows(learner.average_probs(obs[avg], mask[avg]), self.rng)
        if best.any():
            b_obs, b_mask = obs[best], mask[best]
            if self.best_response is not None:
                chosen = self.best_response(p, rows[best], b_obs, b_mask)
            else:
                chosen = greedy_actions(learner.q_values(b_obs), b_mask)
                explore = self.rng.random(len(chosen)) < epsilon
                if explore.any():
                    chosen[explore] = sample_rows(b_mask[explore], self.rng)
            actions[best] = chosen
            learner.store_best_response(b_obs, b_mask, chosen)
        return actions

    def _emit(self, p: int, rows: np.ndarray, next_obs: np.ndarray, next_mask: np.ndarray,
              done: float) -> None:
        """Queue player ``p``'s transitions from its last decision in ``rows`` to ``next_*``."""
        self._outbox[p].append({
            "obs": self.last_obs[rows, p],
            "mask": self.last_mask[rows, p],
            "action": self.last_action[rows, p],
            "reward": self.reward[rows, p],
            "next_obs": next_obs,
            "next_mask": next_mask,
            "done": np.full(len(rows), done, dtype=np.float32),
        })

    def _emit_continuing(self, p: int, rows: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
        rows = rows[self.has_last[rows, p]]
        if len(rows):
            self._emit(p, rows, obs[rows], mask[rows], 0.0)
            self.reward[rows, p] = 0.0

    def _emit_terminal(self, finished: np.ndarray) -> None:
        for p in range(len(self.learners)):
            rows = finished[self.has_last[finished, p]]
            if len(rows):
                self._emit(p, rows, np.zeros_like(self.last_obs[rows, p]),
                           np.zeros_like(self.last_mask[rows, p]), 1.0)
        self.has_last[finished] = False
        self.reward[finished] = 0.0
        self.best_mode[finished] = self.rng.random((len(finished), len(self.learners))) < self.eta


_ARRAYS = ("last_obs", "last_mask", "last_action", "has_last", "reward", "best_mode")


def _concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    if len(parts) == 1:
        return parts[0]
    return {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}
