"""One NFSP player's learning core: Q-network (best response), average-policy network, buffers.

Everything here works on batches of transitions (numpy arrays), so it is unit-tested on
synthetic data and driven by ``nfsp.NFSP`` from the batched env. The update rules ([P], [HS]:
the papers cited in ``nfsp_config``):

* Q-learning ([HS] Alg. 1, [P] Eq. 9): ``y = r + gamma * (1 - done) * max_a' Q_target(s', a')``
  over the legal actions of ``s'``; loss ``w * (y - Q(s, a))^2`` with ``w`` the importance
  weights of prioritized replay (all ones for uniform replay).
* NFSP-PER ([P] Eq. 5-6): the RL buffer samples proportionally to ``(|delta| + eps)^alpha``
  and the new TD errors become the sampled transitions' priorities.
* NFSP-PLT ([P] Eq. 7-8): the sampled batch gets ``LT = clip(mean p * N_LTmax, N_LTmin,
  N_LTmax)`` gradient steps instead of one.
* Average policy: cross-entropy ``-log Pi(s, a)`` ([P] Eq. 10) on the reservoir of
  best-response actions, with the softmax restricted to legal actions.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F

from pokerzoo.agents.nfsp.config import NFSPConfig
from pokerzoo.checkpoint import checked_weights
from pokerzoo.components.learning_times import learning_times
from pokerzoo.components.networks import masked_argmax, masked_log_softmax, masked_max, mlp
from pokerzoo.components.prioritized import PrioritizedReplayBuffer
from pokerzoo.components.replay import ReplayBuffer, ReservoirBuffer, transition_fields


class RLUpdate(NamedTuple):
    """What one ``rl_update`` did."""

    td_errors: np.ndarray
    """|TD error| per sample, measured before the last gradient step (the new priorities)."""
    indices: np.ndarray | None
    """The sampled slots of a prioritized buffer (``None`` for uniform replay)."""
    learning_times: int
    """Gradient steps taken on the batch."""


class ActingNetworks:
    """How a seat acts: its Q-network ``q`` and average-policy network ``avg`` on batches."""

    q: torch.nn.Module
    avg: torch.nn.Module

    @torch.inference_mode()
    def q_values(self, obs: np.ndarray) -> np.ndarray:
        """Q-values ``[n, num_actions]`` of a batch of observations."""
        return self.q(torch.as_tensor(obs)).numpy()

    def average_probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The average policy's probabilities over legal actions, ``[n, num_actions]``."""
        return policy_probs(self.avg, obs, mask)


class PlayerLearner(ActingNetworks):
    """The networks, optimisers, buffers and counters of one seat.

    Args:
        obs_size: length of the observation (information-state tensor).
        num_actions: size of the action space.
        config: the agent's ``NFSPConfig``.
        seed: seeds the network initialisation and the buffers' sampling.
    """

    def __init__(self, obs_size: int, num_actions: int, config: NFSPConfig, seed: int) -> None:
        self.config = config
        self.obs_size = obs_size
        self.num_actions = num_actions
        gen = torch.Generator().manual_seed(seed)
        self.q = mlp(obs_size, config.hidden_sizes, num_actions, gen)
        self.q_target = copy.deepcopy(self.q).requires_grad_(False)
        self.avg = mlp(obs_size, config.hidden_sizes, num_actions, gen)
        self.q_opt = _optimizer(config.optimizer, self.q, config.rl_learning_rate)
        self.avg_opt = _optimizer(config.optimizer, self.avg, config.sl_learning_rate)
        seeds = np.random.SeedSequence(seed).spawn(2)
        rl_fields = transition_fields(obs_size, num_actions)
        per, replay = config.prioritized, config.replay
        if per is not None:
            self.rl_buffer: Any = PrioritizedReplayBuffer(
                replay.rl_buffer_size, rl_fields, alpha=per.alpha, beta0=per.beta0,
                beta_steps=per.beta_updates, eps=per.eps, seed=seeds[0],
            )
        else:
            self.rl_buffer = ReplayBuffer(replay.rl_buffer_size, rl_fields, seed=seeds[0])
        sl_fields = {k: rl_fields[k] for k in ("obs", "mask", "action")}
        self.sl_buffer = ReservoirBuffer(replay.sl_buffer_size, sl_fields, seed=seeds[1])
        self.rl_updates = 0
        self.sl_updates = 0
        self.gradient_steps = 0
        self.pending = 0
        self.last_learning_times = 0
        self.rl_loss = float("nan")
        self.sl_loss = float("nan")

    # Storing -------------------------------------------------------------------------------------

    def store_transitions(self, batch: Mapping[str, np.ndarray]) -> None:
        """Add RL transitions (obs, mask, action, reward, next_obs, next_mask, done)."""
        n = len(batch["action"])
        if n:
            self.rl_buffer.add(batch)
            self.pending += n

    def store_best_response(self, obs: np.ndarray, mask: np.ndarray, action: np.ndarray) -> None:
        """Add best-response decisions to the SL reservoir."""
        if len(action):
            self.sl_buffer.add({"obs": obs, "mask": mask, "action": action})

    # Learning ----------------------------------------------------------------------------------

    def learn(self) -> None:
        """Run the updates owed: one step of each network per ``learn_every`` transitions.

        As in [HS] both networks update on the same clock (the player's own transitions);
        a network waits until its buffer holds ``min_buffer_size`` samples.
        """
        cfg = self.config.replay
        ready = max(cfg.min_buffer_size, cfg.batch_size)
        while self.pending >= cfg.learn_every:
            self.pending -= cfg.learn_every
            if len(self.rl_buffer) >= ready:
                self.rl_update()
            if len(self.sl_buffer) >= ready:
                self.sl_update()

    def rl_update(self) -> RLUpdate:
        """One sampled batch of Q-learning: ``LT`` gradient steps (1 unless NFSP-PLT)."""
        cfg, per = self.config, self.config.prioritized
        batch_size = cfg.replay.batch_size
        if per is not None:
            batch, indices, weights, priorities = self.rl_buffer.sample(batch_size)
            w = torch.as_tensor(weights, dtype=torch.float32)
        else:
            batch = self.rl_buffer.sample(batch_size)
            indices = priorities = None
            w = None
        steps = 1
        if per is not None and per.learning_times is not None:
            # Normalise by the whole buffer's max (or total) priority: Eq. (8) as documented
            # in ``components.learning_times``.
            buf = self.rl_buffer
            steps = learning_times(priorities, *per.learning_times,
                                   normalisation=per.lt_normalisation,
                                   max_priority=buf.max_priority,
                                   total_priority=buf.total_priority)
        t = _to_tensors(batch)
        target = self._td_target(t)
        for _ in range(steps):
            td = self.q_step(t, target, w)
        if indices is not None:
            self.rl_buffer.update_priorities(indices, td)
        self.last_learning_times = steps
        self.rl_updates += 1
        if self.rl_updates % cfg.target_update_every == 0:
            self.q_target.load_state_dict(self.q.state_dict())
        return RLUpdate(td, indices, steps)

    @torch.no_grad()
    def _td_target(self, t: Mapping[str, torch.Tensor]) -> torch.Tensor:
        next_best = masked_max(self.q_target(t["next_obs"]), t["next_mask"])
        return t["reward"] + self.config.gamma * (1.0 - t["done"]) * next_best

    def q_step(
        self,
        t: Mapping[str, torch.Tensor],
        target: torch.Tensor,
        weights: torch.Tensor | None = None,
    ) -> np.ndarray:
        """One SGD step on the (importance-weighted) TD loss; returns |TD errors| before it."""
        q_sa = self.q(t["obs"]).gather(1, t["action"].unsqueeze(1)).squeeze(1)
        if self.config.loss == "huber":
            per_sample = F.smooth_l1_loss(q_sa, target, reduction="none")
        else:
            per_sample = (q_sa - target) ** 2
        loss = (per_sample * weights).mean() if weights is not None else per_sample.mean()
        self.q_opt.zero_grad(set_to_none=True)
        loss.backward()
        if self.config.max_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(self.q.parameters(), self.config.max_grad_norm)
        self.q_opt.step()
        self.gradient_steps += 1
        self.rl_loss = float(loss.detach())
        return (target - q_sa.detach()).abs().numpy()

    def sl_update(self) -> float:
        """One SGD step of cross-entropy on a reservoir batch of best-response actions."""
        t = _to_tensors(self.sl_buffer.sample(self.config.replay.batch_size))
        log_probs = masked_log_softmax(self.avg(t["obs"]), t["mask"])
        loss = -log_probs.gather(1, t["action"].unsqueeze(1)).mean()
        self.avg_opt.zero_grad(set_to_none=True)
        loss.backward()
        if self.config.max_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(self.avg.parameters(), self.config.max_grad_norm)
        self.avg_opt.step()
        self.sl_updates += 1
        self.sl_loss = float(loss.detach())
        return self.sl_loss

    # Checkpoints -------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Networks, optimisers, buffers (with their RNGs) and counters, all copies (the live
        tensors keep changing in place as learning goes on)."""
        return {
            "q": _cloned(self.q.state_dict()),
            "q_target": _cloned(self.q_target.state_dict()),
            "avg": _cloned(self.avg.state_dict()),
            "q_opt": copy.deepcopy(self.q_opt.state_dict()),
            "avg_opt": copy.deepcopy(self.avg_opt.state_dict()),
            "rl_buffer": self.rl_buffer.state_dict(),
            "sl_buffer": self.sl_buffer.state_dict(),
            "counters": {k: getattr(self, k) for k in _COUNTERS},
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` returned (networks refused unless finite)."""
        check_learner_weights(state)
        self.q.load_state_dict(state["q"])
        self.q_target.load_state_dict(state["q_target"])
        self.avg.load_state_dict(state["avg"])
        self.q_opt.load_state_dict(state["q_opt"])
        self.avg_opt.load_state_dict(state["avg_opt"])
        self.rl_buffer.load_state_dict(state["rl_buffer"])
        self.sl_buffer.load_state_dict(state["sl_buffer"])
        for key in _COUNTERS:
            setattr(self, key, type(getattr(self, key))(state["counters"][key]))


def check_learner_weights(state: Mapping[str, Any]) -> None:
    """Refuse a saved learner whose networks hold anything but finite float tensors.

    Raises:
        CheckpointError: naming the network and the tensor.
    """
    for key in ("q", "q_target", "avg"):
        checked_weights(state[key], f"learner.{key}")


_COUNTERS = ("rl_updates", "sl_updates", "gradient_steps", "pending", "last_learning_times",
             "rl_loss", "sl_loss")


def _cloned(tensors: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in tensors.items()}


def _optimizer(name: str, net: torch.nn.Module, lr: float) -> torch.optim.Optimizer:
    if name == "adam":
        # The fused kernel saves a good part of the per-step overhead of tiny networks.
        return torch.optim.Adam(net.parameters(), lr=lr, fused=True)
    return torch.optim.SGD(net.parameters(), lr=lr)


@torch.inference_mode()
def policy_probs(net: torch.nn.Module, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A policy network's probabilities over the legal actions of a batch, ``[n, actions]``."""
    m = torch.as_tensor(mask)
    return torch.exp(masked_log_softmax(net(torch.as_tensor(obs)), m)).mul_(m > 0).numpy()


def greedy_actions(q_values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Argmax of Q over legal actions, per row."""
    return masked_argmax(torch.as_tensor(q_values), torch.as_tensor(mask)).numpy()


def _to_tensors(batch: Mapping[str, np.ndarray]) -> dict[str, torch.Tensor]:
    out = {k: torch.as_tensor(np.asarray(v)) for k, v in batch.items()}
    for key in ("reward", "done"):
        if key in out:
            out[key] = out[key].float()
    if "action" in out:
        out["action"] = out["action"].long()
    return out
