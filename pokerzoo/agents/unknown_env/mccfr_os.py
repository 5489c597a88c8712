"""MCCFR-OS on an unknown environment: outcome sampling that learns from the hands it plays.

The VCFR paper's "MCCFR-OS" baseline (Lanctot, Waugh, Zinkevich, Bowling 2009, outcome
sampling with epsilon-greedy exploration, epsilon = 0.1). Outcome sampling needs one sampled
terminal history per traversal, so the environment can sample it: rounds alternate the
traverser p (round t: player t mod 2), and each round plays one hand, p following
``epsilon * uniform + (1 - epsilon) * sigma_p`` and the other player its current
regret-matching strategy sigma, then walks the hand's path (its terminal's row of the agent's
tree) to apply p's sampled regret and average-strategy updates with the reward actually paid.
Two rounds are one OpenSpiel ``iteration()`` (one episode per player, the second traversal
seeing the regrets the first updated), so the paper's 20,000 interactions are 10,000
iterations. No model is used: chance is dealt on-policy by the environment, so its
probabilities cancel in the regret weight and are never read.

Estimators (as OpenSpiel's ``outcome_sampling_mccfr`` with baseline 0 and our
``pokerzoo.agents.cfr.mccfr_kernels.outcome_sampling``), at each of p's information sets I on
the path, with reaches up to I and q the behaviour's sampling reach of the players' actions:

* regret: ``pi_-p / q * (v(I, a) - v(I))`` with the importance-corrected tail values;
* average strategy: ``pi_p / q * sigma(I)`` ("stochastically-weighted averaging", OpenSpiel's
  choice). q omits chance here (it is unknown), which scales each information set's increments
  by a constant (its chance reach), removed when the rows are normalised.

The output policy is the average strategy.

>>> from pokerzoo import load_game
>>> from pokerzoo.evaluation.unknown import nash_conv_in_true_model
>>> game = load_game("unknown_kuhn_poker", seed=0)
>>> agent = make_agent(game, seed=0)
>>> agent.iterate(4001)
>>> agent.episodes, agent.rounds, agent.view.sampler.counter.episodes
(4001, 4001, 4001)
>>> nash_conv_in_true_model(game, agent.policy()) < 0.5
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from pokerzoo.agents.tabular import config_from_params
from pokerzoo.agents.unknown_env.base import UnknownEnvAgent
from pokerzoo.config import check, with_overrides
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.games.unknown.model import EpisodeBatch
from pokerzoo.tree.episodes import TreeEpisodeSampler


@dataclass(frozen=True)
class MCCFROSConfig:
    """Hyperparameters of MCCFR-OS on an unknown environment (defaults: the VCFR paper's)."""

    epsilon: float = 0.1
    """The traverser samples from ``epsilon * uniform + (1 - epsilon) * sigma``; 0.1 as the
    VCFR paper (Lanctot et al. and OpenSpiel use 0.6 on known games). Must be in (0, 1]: an
    action sigma gives 0 would otherwise never be tried, so its regret could never grow."""

    def __post_init__(self) -> None:
        eps = self.epsilon
        ok = not isinstance(eps, bool) and isinstance(eps, int | float) and 0.0 < eps <= 1.0
        check(ok, "epsilon", "a number in (0, 1]", eps)

    @classmethod
    def from_params(cls, **params: Any) -> MCCFROSConfig:
        return config_from_params(cls, "MCCFR-OS", **params)


@numba.njit(cache=True)
def outcome_sampling_updates(
    parent, player, infoset, action, infoset_mask, leaves, traversers, values, behaviour, sigma,
    regrets, strategy_sum, path, reach,
):
    """Outcome-sampling updates, in place, for hands that ended at tree rows ``leaves``.

    Hand h's traverser ``traversers[h]`` was paid ``values[h]``; every player acted by
    ``behaviour`` (``[num_infosets, num_actions]``) and ``sigma`` is the current strategy
    (the traverser's, where its regrets and average are updated). ``path`` and ``reach``
    (``[depth]``, ``[depth, 3]``) are work buffers. Chance nodes are skipped: their
    probabilities would multiply both the others' reach and the sampling reach.
    """
    num_actions = regrets.shape[1]
    for h in range(leaves.shape[0]):
        p = traversers[h]
        # The decision edges of the hand, deepest first (each as the child row it led to).
        steps = 0
        node = leaves[h]
        while node > 0:
            up = parent[node]
            if player[up] >= 0:
                path[steps] = node
                steps += 1
            node = up
        # Forward: reaches before each decision (own sigma, others' sigma, behaviour).
        mine = 1.0
        others = 1.0
        sampled = 1.0
        for k in range(steps - 1, -1, -1):
            child = path[k]
            up = parent[child]
            iset = infoset[up]
            a = action[child]
            reach[k, 0] = mine
            reach[k, 1] = others
            reach[k, 2] = sampled
            if player[up] == p:
                mine *= sigma[iset, a]
            else:
                others *= behaviour[iset, a]
            sampled *= behaviour[iset, a]
        # Backward: the importance-corrected value of the sampled tail, updated at p's sets.
        value = values[h]
        for k in range(steps):
            child = path[k]
            up = parent[child]
            if player[up] != p:
                continue  # others act on-policy: sigma / behaviour = 1 leaves the value as is
            iset = infoset[up]
            a = action[child]
            corrected = value / behaviour[iset, a]  # the sampled action's value estimate
            estimate = sigma[iset, a] * corrected  # the information set's value estimate
            w = reach[k, 1] / reach[k, 2]
            avg_w = reach[k, 0] / reach[k, 2]
            for b in range(num_actions):
                if infoset_mask[iset, b]:
                    q = corrected if b == a else 0.0
                    regrets[iset, b] += w * (q - estimate)
                    strategy_sum[iset, b] += avg_w * sigma[iset, b]
            value = estimate


class MCCFROS(UnknownEnvAgent):
    """Outcome-sampling MCCFR fed by the environment's hands (see the module doc).

    Args:
        game: the interaction view (or the environment game ``load_game`` returns).
        config: an ``MCCFROSConfig`` (or a mapping of its fields); keyword ``overrides``
            replace its fields (both checked: ``ConfigError`` names a wrong one).
        seed: seed of the agent's generator.

    Attributes:
        regrets, strategy_sum: ``[num_infosets, num_actions]`` cumulative sampled regrets and
            average-strategy weights.
    """

    name = "mccfr-os-unknown"

    def __init__(
        self,
        game: Game,
        config: MCCFROSConfig | Mapping[str, Any] | None = None,
        seed: int = 0,
        **overrides: Any,
    ) -> None:
        config = with_overrides(MCCFROSConfig, config, overrides, what="MCCFR-OS")
        # One hand per round, the traverser alternating: each hand's profile is built from the
        # newest regrets (OpenSpiel's order), and no two hands share a round.
        super().__init__(game, seed, episodes_per_round=1)
        if self.tree.num_players != 2:
            raise ConfigError(f"MCCFR-OS is for two-player games, got {self.tree.num_players}")
        self.config = config
        shape = self.tree.infoset_mask.shape
        self.regrets = np.zeros(shape)
        self.strategy_sum = np.zeros(shape)
        self._leaf_of_terminal = TreeEpisodeSampler(self.tree).leaf_of_terminal
        depth = int(self.tree.depth.max()) + 1
        self._path = np.zeros(depth, dtype=np.int64)
        self._reach = np.zeros((depth, 3))

    def current_strategy(self) -> np.ndarray:
        """Regret matching of the cumulative regrets (uniform where none is positive)."""
        return self.normalised(np.maximum(self.regrets, 0.0))

    def _traverser(self) -> int:
        """The player whose regrets the current round updates (rounds alternate)."""
        # ``rounds`` counts the round being played once it started (``_left_in_round`` > 0).
        return (self.rounds - 1) % 2 if self._left_in_round else self.rounds % 2

    def _start_round(self) -> np.ndarray:
        sigma = self.current_strategy()
        eps = self.config.epsilon
        explore = eps * self.uniform_profile() + (1.0 - eps) * sigma
        # The traverser explores, the other player plays sigma.
        owner = self.tree.infoset_player[:, None]
        return np.where(owner == self._traverser(), explore, sigma)

    def _observe(self, batch: EpisodeBatch, hand: int, profile: np.ndarray) -> None:
        traversers = np.full(len(batch), self._traverser(), dtype=np.int64)
        values = np.ascontiguousarray(batch.rewards[np.arange(len(batch)), traversers])
        # The regrets have not changed since the round (one hand) started, so this is the
        # sigma the traverser's behaviour was mixed from.
        sigma = self.current_strategy()
        tree = self.tree
        outcome_sampling_updates(
            tree.parent, tree.player, tree.infoset, tree.action, tree.infoset_mask,
            self._leaf_of_terminal[batch.terminals], traversers, values,
            profile, sigma, self.regrets, self.strategy_sum, self._path, self._reach,
        )

    def output_policy_array(self) -> np.ndarray:
        """The sampled average strategy (weights; uniform where never updated)."""
        return self.strategy_sum

    def _identity(self) -> dict[str, Any]:
        return {**super()._identity(), "config": dataclasses.asdict(self.config)}

    def _extra_state(self) -> dict[str, Any]:
        return {"regrets": self.regrets.copy(), "strategy_sum": self.strategy_sum.copy()}

    def _load_extra_state(self, state: Mapping[str, Any]) -> None:
        self.regrets = np.array(state["regrets"], dtype=np.float64)
        self.strategy_sum = np.array(state["strategy_sum"], dtype=np.float64)


def make_agent(game: Game, seed: int = 0, **params: Any) -> MCCFROS:
    """The registry's MCCFR-OS baseline on an unknown game, ``params`` its config fields."""
    return MCCFROS(game, params, seed=seed)
