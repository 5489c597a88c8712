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

from typing import TYPE_CHECKING

import numpy as np

from pokerzoo.components.uct import AdaptiveUCT, UCTConfig
from pokerzoo.games.base import State

if TYPE_CHECKING:
    from pokerzoo.agents.nfsp.agent import NFSP


def uct_config(agent: NFSP) -> UCTConfig:
    """The search parameters of ``agent.config`` (threshold capped at the budget)."""
    cfg = agent.config
    return UCTConfig(
        max_simulations=cfg.uct_simulations,
        threshold=min(cfg.uct_threshold, cfg.uct_simulations),
        confidence=cfg.uct_confidence,
    )


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

    One ``AdaptiveUCT`` per seat, seeded from the agent's seed (their generators are not part
    of checkpoints: a resumed UCT run restores weights, buffers and counters exactly, but its
    searches draw fresh random numbers); the opponents' policy is the agent's average policy.
    """

    def __init__(self, agent: NFSP) -> None:
        self.agent = agent
        config = uct_config(agent)
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
