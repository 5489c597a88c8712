"""NFSP's rollout workers: self-play on more processes, learning in one.

With ``NFSP(..., workers=N)`` each of N workers owns a ``VectorPokerEnv`` of ``num_envs``
hands and a ``SelfPlay`` recorder whose seats act with copies of the learner's networks. A
round: every worker gets the latest weights and the exploration rate, plays
``rollout_steps`` steps, and returns the seats' transitions and best-response decisions; the
learner stores them worker by worker (by index, never by arrival) and runs the updates they
owe. While the learner learns from one round the workers already play the next with the
weights from before it (one round of lag, as in Ape-X/IMPALA-style actors), so rollouts and
learning overlap. With a fixed N, rounds, weights and updates are the same on every run:
learning is reproducible for a fixed worker count, and statistically equivalent across
counts (each worker is one more batch of hands played with the same policies).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from pokerzoo.agents.nfsp.config import NFSPConfig
from pokerzoo.agents.nfsp.learner import ActingNetworks, PlayerLearner
from pokerzoo.agents.nfsp.selfplay import SelfPlay, _concat
from pokerzoo.components.networks import mlp, torch_threads
from pokerzoo.envs.vector import VectorPokerEnv
from pokerzoo.games.base import Game

Weights = list[tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]]
"""Each seat's (Q-network, average-policy network) parameters."""


class _ActingSeat(ActingNetworks):
    """What ``SelfPlay`` asks of a seat, in a worker: act with copies of the learner's networks
    and collect what it would store (the learner stores it when the round comes back)."""

    def __init__(self, obs_size: int, num_actions: int, config: NFSPConfig) -> None:
        self.obs_size, self.num_actions = obs_size, num_actions
        # Initial values are overwritten by the first round's weights.
        self.q = mlp(obs_size, config.hidden_sizes, num_actions, torch.Generator())
        self.avg = mlp(obs_size, config.hidden_sizes, num_actions, torch.Generator())
        self.transitions: list[dict[str, np.ndarray]] = []
        self.best_responses: list[dict[str, np.ndarray]] = []

    def store_transitions(self, batch: Mapping[str, np.ndarray]) -> None:
        self.transitions.append(dict(batch))

    def store_best_response(self, obs: np.ndarray, mask: np.ndarray, action: np.ndarray) -> None:
        if len(action):
            self.best_responses.append({"obs": obs, "mask": mask, "action": action})

    def learn(self) -> None:
        """Learning happens in the learner."""

    def drain(self) -> tuple[dict[str, np.ndarray] | None, dict[str, np.ndarray] | None]:
        out = _joined(self.transitions), _joined(self.best_responses)
        self.transitions, self.best_responses = [], []
        return out


class RolloutWorker:
    """One rollout worker (built in its own process by a Ray pool, or here in-process).

    Args:
        game: the game (the learner's view of it).
        config: the agent's config (``num_envs`` hands, network shapes, eta, reward scale).
        seed: this worker's seed (deals and the mixed-strategy draws).
    """

    def __init__(self, game: Game, config: NFSPConfig, seed: int) -> None:
        obs_size = int(np.prod(game.information_state_shape))
        self.seats = [_ActingSeat(obs_size, game.num_distinct_actions, config)
                      for _ in range(game.num_players)]
        self.rng = np.random.default_rng(seed)
        self.env = VectorPokerEnv(game, config.num_envs)
        scale = config.reward_scale if config.reward_scale is not None else 1.0 / game.chip_unit
        self.selfplay = SelfPlay(self.env, self.seats, config.eta,  # type: ignore[arg-type]
                                 self.rng, scale)
        self.selfplay.restart(int(self.rng.integers(2**31)))

    def run(self, weights: Weights, steps: int, epsilon: float) -> dict[str, Any]:
        """Play ``steps`` steps of every hand with ``weights``; returns ``episodes`` (hands
        finished) and per seat its ``transitions`` and ``best_responses`` (or ``None``)."""
        for seat, (q, avg) in zip(self.seats, weights):
            seat.q.load_state_dict(q)
            seat.avg.load_state_dict(avg)
        with torch_threads(1):
            episodes = sum(self.selfplay.step(epsilon) for _ in range(steps))
        drained = [seat.drain() for seat in self.seats]
        return {
            "episodes": episodes,
            "transitions": [t for t, _ in drained],
            "best_responses": [b for _, b in drained],
        }

    def state_dict(self) -> dict[str, Any]:
        """The hands in flight and the generator (the networks come with every round)."""
        return {
            "rng": copy.deepcopy(self.rng.bit_generator.state),
            "env": self.env.state_dict(),
            "selfplay": self.selfplay.state_dict(),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.rng.bit_generator.state = copy.deepcopy(dict(state["rng"]))
        self.env.load_state_dict(state["env"])
        self.selfplay.load_state_dict(state["selfplay"])


def make_worker(game: Game, config: NFSPConfig, seed: int, index: int) -> RolloutWorker:
    """Worker ``index`` of an agent seeded ``seed`` (its own stream of the agent's seed)."""
    stream = np.random.SeedSequence(seed, spawn_key=(1, index))
    return RolloutWorker(game, config, int(stream.generate_state(1)[0]))


def learner_weights(learners: Sequence[PlayerLearner]) -> Weights:
    """Copies of each seat's networks, as the workers load them."""
    return [
        ({k: v.detach().clone() for k, v in learner.q.state_dict().items()},
         {k: v.detach().clone() for k, v in learner.avg.state_dict().items()})
        for learner in learners
    ]


def ingest(learners: Sequence[PlayerLearner], batches: Sequence[Mapping[str, Any]]) -> int:
    """Store a round's batches in worker order (each seat: its best-response decisions, then
    its transitions, then the updates they owe, as one in-process step does); returns the
    hands the round finished."""
    episodes = 0
    for batch in batches:
        episodes += int(batch["episodes"])
        for learner, transitions, best in zip(
            learners, batch["transitions"], batch["best_responses"]
        ):
            if best is not None:
                learner.store_best_response(best["obs"], best["mask"], best["action"])
            if transitions is not None:
                learner.store_transitions(transitions)
            learner.learn()
    return episodes


def _joined(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray] | None:
    return _concat(parts) if parts else None
