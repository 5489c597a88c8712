"""The adaptive-UCT best response of NFSP-PLT ([P] Sec. 4.4, Algorithm 2).

Instead of acting epsilon-greedily on its Q-network, a seat in best-response mode searches:
``components.uct.AdaptiveUCT`` samples the hidden cards from the seat's information set
(weighted by the opponents' average-policy reach), lets the opponents act by their average
policies (so the search computes a best response to them, which is what NFSP's best response
is), evaluates new information sets with the seat's Q-network (priors: softmax of Q over the
legal actions; value: the largest legal Q) and stops early when one root action is
significantly better than the rest. The chosen actions go to the SL reservoir as usual, and
the Q-network keeps learning from the transitions, which improves the search's evaluations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from pokerzoo.components.uct import AdaptiveUCT, UCTConfig
from pokerzoo.errors import CheckpointError
from pokerzoo.games.base import State

if TYPE_CHECKING:
    from pokerzoo.agents.nfsp.agent import NFSP


class QEvaluator:
    """``(state, player) -> (priors, value)`` from ``player``'s Q-network, on its own information.

    Args:
        agent: the NFSP agent whose Q-networks evaluate.
        temperature: softmax temperature of the priors (in chips).
    """

    def __init__(self, agent: NFSP, temperature: float = 1.0) -> None:
        self.agent = agent
        self.temperature = temperature

    def __call__(self, state: State, player: int) -> tuple[np.ndarray, float]:
        obs = state.information_state_tensor(player)[None]
        mask = state.legal_actions_mask()
        q = self.agent.learners[player].q_values(obs)[0].astype(np.float64)
        if state.current_player() != player:
            # Only the searcher's own nodes need priors; its value here is the best Q of the
            # information set it will act in next, which the network cannot see: fall back
            # to a neutral prior and the mean legal Q.
            return mask.astype(np.float64), float(q[mask > 0].mean()) if mask.any() else 0.0
        legal = mask > 0
        z = np.where(legal, q / self.temperature, -np.inf)
        priors = np.exp(z - z[legal].max())
        return priors / priors.sum(), float(q[legal].max())


class UCTBestResponse:
    """Chooses best-response actions by adaptive UCT for ``SelfPlay`` (needs ``backend="state"``).

    One ``AdaptiveUCT`` per seat, seeded from the agent's seed (their random states and the
    counters below are part of the agent's checkpoints, so a resumed run searches exactly as
    the uninterrupted one); the opponents' policy is the agent's average policy.
    """

    def __init__(self, agent: NFSP) -> None:
        self.agent = agent
        config = agent.config.best_response
        assert isinstance(config, UCTConfig)
        opponents = agent.policy()
        evaluator = QEvaluator(agent)
        seeds = np.random.SeedSequence([agent.seed, 7]).spawn(agent.num_players)
        self.searchers = [
            AdaptiveUCT(config, evaluator=evaluator, opponent_policy=opponents, seed=s)
            for s in seeds
        ]
        self.searches = 0
        self.simulations = 0
        self.stopped_early = 0

    def state_dict(self) -> dict[str, Any]:
        """The searchers' random states and the search counters."""
        return {
            "searchers": [searcher.state_dict() for searcher in self.searchers],
            "counters": {k: getattr(self, k) for k in _COUNTERS},
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` returned."""
        if len(state["searchers"]) != len(self.searchers):
            raise CheckpointError(f"state has {len(state['searchers'])} searchers, "
                             f"this agent {len(self.searchers)}")
        for searcher, searcher_state in zip(self.searchers, state["searchers"]):
            searcher.load_state_dict(searcher_state)
        for key in _COUNTERS:
            setattr(self, key, int(state["counters"][key]))

    def __call__(
        self, player: int, rows: np.ndarray, obs: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        states = self.agent.env.states
        actions = np.empty(len(rows), dtype=np.int64)
        for k, row in enumerate(rows):
            result = self.searchers[player].search(states[int(row)])
            actions[k] = result.action
            self.searches += 1
            self.simulations += result.simulations
            self.stopped_early += int(result.stopped_early)
        return actions


_COUNTERS = ("searches", "simulations", "stopped_early")
