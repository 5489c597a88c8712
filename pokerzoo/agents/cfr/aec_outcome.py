"""Outcome-sampling MCCFR on any PettingZoo AEC env (Lanctot et al. 2009), as OpenSpiel's.

Each traversal plays *one* hand: the env is reset with a seed from the solver's generator
(chance stays inside the env), the updating player samples from ``epsilon``-uniform mixed with
its current strategy, the others from theirs; on the way back the sampled counterfactual
values, importance-weighted by the sampling probability, update the updating player's regrets
and its average strategy (stochastically weighted averaging). Nothing is copied or replayed,
so any env that meets the adapter's requirements works (PettingZoo's classic envs included);
tables and checkpoints are ``AECTabularSolver``'s.

>>> from pettingzoo.classic import tictactoe_v3
>>> solver = AECOutcomeMCCFR(tictactoe_v3.env, seed=0)
>>> solver.iterate(20)
>>> solver.num_infosets > 0
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerzoo.agents.base import check_units
from pokerzoo.agents.cfr.aec_tables import AECTabularSolver, regret_matching
from pokerzoo.errors import ConfigError
from pokerzoo.wrappers.aec_learner_state import AECState


class AECOutcomeMCCFR(AECTabularSolver):
    """Outcome-sampling MCCFR on an AEC env (see the module).

    Args:
        env: a factory ``() -> AECEnv`` or an instance.
        seed: seeds the resets and every sampled action.
        exploration: the updating player's epsilon (0.6 as Lanctot et al. and OpenSpiel).
    """

    name = "mccfr-os-aec"

    def __init__(self, env: Any, seed: int = 0, exploration: float = 0.6) -> None:
        if not 0.0 < exploration <= 1.0:
            raise ConfigError(f"exploration must be in (0, 1], got {exploration!r}")
        super().__init__(env, seed)
        self.exploration = float(exploration)

    def iterate(self, n: int = 1) -> None:
        """``n`` iterations: one sampled hand per player each."""
        for _ in range(check_units(n)):
            for player in range(self.num_players):
                self.env.reset(seed=int(self.rng.integers(2**31)))
                self._episode(AECState(self.env, self.spec), player, 1.0, 1.0, 1.0)
            self._iteration += 1

    def _episode(self, state: AECState, update: int, my_reach: float, opp_reach: float,
                 sample_reach: float) -> float:
        """The sampled value of ``state`` for ``update``, divided by the sampling probability
        of the rest of the hand (OpenSpiel's ``outcome_sampling._episode``)."""
        if state.is_terminal():
            return state.returns()[update]
        p = state.current_player()
        legal = np.flatnonzero(state.legal_actions_mask())
        table = self._table(p, state.information_state_key(p))
        sigma = regret_matching(table[0], legal)
        sample = sigma
        if p == update:
            sample = self.exploration / len(legal) + (1.0 - self.exploration) * sigma
        k = min(int(np.searchsorted(np.cumsum(sample), self.rng.random(), side="right")),
                len(legal) - 1)
        state.apply_action(int(legal[k]))
        child = self._episode(
            state, update,
            my_reach * sigma[k] if p == update else my_reach,
            opp_reach if p == update else opp_reach * sigma[k],
            sample_reach * sample[k],
        )
        values = np.zeros(len(legal))
        values[k] = child / sample[k]
        value = float(sigma @ values)
        if p == update:
            table[0, legal] += (values - value) * opp_reach / sample_reach
            # Stochastically weighted averaging: the player's own reach over the sampling's.
            table[1, legal] += my_reach * sigma / sample_reach
        return value
