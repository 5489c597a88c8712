"""PSRLCFR: posterior sampling for extensive games (Zhou, Li, Zhu, ICLR 2020).

Each round t:

1. draw d_t from the posterior and run one CFR iteration on it, regrets accumulating across
   the changing samples (sigma_t is the strategy that iteration plays);
2. draw a fresh d~_t; for each player i compute the interaction strategy
   sigma~^i = argmax_sigma sum_{t' <= t} [u^i(sigma, sigma_{t'}^{-i} | d~_t) -
   u^i(sigma, sigma_{t'}^{-i} | d_{t'})]: one best-response pass. Both sums are linear in
   player i's realization plan, so two accumulators per player over the sequence-form payoff
   entries e hold them: A_i(e) = sum_t' pi_{-i}^{sigma_t'}(e) (the others' reach, so the first
   term is A_i(e) times d~_t's chance-weighted payoff of e) and C_i(e) = sum_t'
   pi_{-i}^{sigma_t'}(e) times d_t''s chance-weighted payoff of e;
3. play two hands, (sigma~^1, sigma_t^2) and (sigma~^2, sigma_t^1), which update the posterior.

The output is CFR's reach-weighted average strategy. 10,000 rounds of 2 hands are the paper's
20,000 interactions.

>>> from pokerzoo import load_game
>>> agent = PSRLCFR(load_game("unknown_kuhn_poker", seed=0), seed=0)
>>> agent.iterate(10)
>>> agent.episodes, agent.rounds
(10, 5)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerzoo.agents.cfr.full_width import CFR_PRESETS, CFRSolver
from pokerzoo.agents.tabular import config_from_params
from pokerzoo.agents.unknown_env.base import UnknownEnvAgent
from pokerzoo.agents.unknown_env.beliefs import believed_numbers
from pokerzoo.agents.unknown_env.payoffs import ModelPayoffs
from pokerzoo.config import normalise, with_overrides
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.exact import best_actions_for_payoffs
from pokerzoo.games.base import Game


@dataclass(frozen=True)
class PSRLCFRConfig:
    """PSRLCFR's one choice: the CFR variant run on the sampled models."""

    cfr: str = "cfr"
    """A key of ``CFR_PRESETS`` (the paper runs vanilla CFR)."""

    def __post_init__(self) -> None:
        normalise(self)
        if self.cfr not in CFR_PRESETS:
            raise ConfigError(f"cfr must be one of {sorted(CFR_PRESETS)}, got {self.cfr!r}")

    @classmethod
    def from_params(cls, **params: Any) -> PSRLCFRConfig:
        return config_from_params(cls, "PSRLCFR", **params)


class PSRLCFR(UnknownEnvAgent):
    """PSRLCFR (see the module doc). Two-player games only.

    Args:
        game: the interaction view (or the environment game ``load_game`` returns).
        config: a ``PSRLCFRConfig`` (or a mapping of its fields); keyword ``overrides``
            replace its fields (both checked: ``ConfigError`` names a wrong one).
        seed: seed of the agent's generator.
    """

    name = "psrlcfr"

    def __init__(
        self,
        game: Game,
        config: PSRLCFRConfig | Mapping[str, Any] | None = None,
        seed: int = 0,
        **overrides: Any,
    ) -> None:
        config = with_overrides(PSRLCFRConfig, config, overrides, what="PSRLCFR")
        super().__init__(game, seed, episodes_per_round=2)
        if self.tree.num_players != 2:
            raise ConfigError(f"PSRLCFR is for two-player games, got {self.tree.num_players}")
        self.config = config
        self.solver = CFRSolver(self.game, CFR_PRESETS[self.config.cfr], tree=self.tree)
        self.payoffs = ModelPayoffs(self.tree)
        form = self.tree.sequence_form
        entries = form.payoff_sequences.shape[0]
        self._opponent_reach_sum = np.zeros((2, entries))
        self._sampled_payoff_sum = np.zeros((2, entries))

    def _start_round(self) -> list[np.ndarray]:
        form = self.tree.sequence_form
        chance, rewards = believed_numbers(self.posterior, "sample", self.rng)
        coef, _ = self.payoffs.coefficients(chance, rewards)
        sigma = self.solver.sigma.copy()  # sigma_t, the strategy this iteration plays
        x = form.realization_plan(sigma)
        for i in range(2):
            reach = x[form.payoff_sequences[:, 1 - i]]
            self._opponent_reach_sum[i] += reach
            self._sampled_payoff_sum[i] += reach * coef[i]
        self.solver.use_payoffs(coef)
        self.solver.iterate(1)
        fresh_chance, fresh_rewards = believed_numbers(self.posterior, "sample", self.rng)
        fresh, _ = self.payoffs.coefficients(fresh_chance, fresh_rewards)
        weights = self._opponent_reach_sum * fresh - self._sampled_payoff_sum
        best = best_actions_for_payoffs(self.tree, weights)
        pure = np.zeros_like(sigma)
        pure[np.arange(len(best)), best] = 1.0
        owner = self.tree.infoset_player
        # Hand 1: player 0 explores, player 1 plays sigma_t; hand 2 the other way round.
        first = np.where((owner == 0)[:, None], pure, sigma)
        second = np.where((owner == 1)[:, None], pure, sigma)
        return [first, second]

    def output_policy_array(self) -> np.ndarray:
        """CFR's reach-weighted average strategy (weights)."""
        return self.solver.strategy_sum

    def _identity(self) -> dict[str, Any]:
        return {**super()._identity(), "cfr": self.config.cfr}

    def _extra_state(self) -> dict[str, Any]:
        return {
            "solver": self.solver.state_dict(),
            "opponent_reach_sum": self._opponent_reach_sum.copy(),
            "sampled_payoff_sum": self._sampled_payoff_sum.copy(),
        }

    def _load_extra_state(self, state: Mapping[str, Any]) -> None:
        self.solver.load_state_dict(state["solver"])
        self._opponent_reach_sum = np.array(state["opponent_reach_sum"], dtype=np.float64)
        self._sampled_payoff_sum = np.array(state["sampled_payoff_sum"], dtype=np.float64)


def make_agent(game: Game, seed: int = 0, **params: Any) -> PSRLCFR:
    """The registry's ``psrlcfr`` agent (``params``: ``PSRLCFRConfig`` fields)."""
    return PSRLCFR(game, params, seed=seed)
