"""Monte Carlo CFR over the compiled tree: outcome sampling and external sampling.

Lanctot, Waugh, Zinkevich, Bowling (2009), "Monte Carlo Sampling for Regret Minimization in
Extensive Games". One ``iterate`` unit is one sampled traversal per player (OpenSpiel's
``iteration()``); the traversals are compiled (``mccfr_kernels``) and every random number
comes from the solver's seeded ``numpy.random.Generator``, saved in checkpoints.

>>> from pokerzoo import load_game
>>> from pokerzoo.evaluation import exploitability
>>> solver = MCCFRSolver(load_game("kuhn_poker"), MCCFRConfig(sampling="external"), seed=1)
>>> solver.iterate(2000)
>>> exploitability(solver.tree, solver.average_policy()) < 0.05
True
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pokerzoo.agents.base import check_units
from pokerzoo.agents.cfr import mccfr_kernels as K
from pokerzoo.agents.tabular import TabularSolver, config_from_params
from pokerzoo.config import normalise, with_overrides
from pokerzoo.entry_points import unknown_name
from pokerzoo.games.base import ConfigError, Game
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.tree.kernels.arrays import tree_arrays
from pokerzoo.tree.tabular_policy import TabularPolicy


@dataclass(frozen=True)
class MCCFRConfig:
    """Hyperparameters of Monte Carlo CFR (defaults: outcome sampling as Lanctot et al.)."""

    sampling: str = "outcome"
    """``"outcome"`` (one terminal history per player and iteration) or ``"external"`` (the
    updating player's actions all explored, the others' and chance's sampled)."""
    exploration: float = 0.6
    """Outcome sampling's epsilon: the updating player samples from
    ``epsilon*uniform + (1-epsilon)*sigma``. 0.6 as Lanctot et al. (2009) and OpenSpiel; the
    VCFR paper's baseline uses 0.1. Ignored by external sampling."""
    oracle: bool = False
    """Unknown-environment games only: solve the hidden true model d* (an oracle baseline)
    instead of the believed model (prior or posterior mean); see ``pokerzoo.agents.solver_tree``."""

    def __post_init__(self) -> None:
        normalise(self)
        if self.sampling not in ("outcome", "external"):
            raise ConfigError(f"sampling must be 'outcome' or 'external', got {self.sampling!r}")
        if not 0.0 <= self.exploration <= 1.0:
            raise ConfigError(f"exploration must be in [0, 1], got {self.exploration!r}")
        if self.sampling == "outcome" and self.exploration == 0.0:
            # Without exploration an action sigma gives 0 is never sampled, so its regret
            # estimate can never grow: outcome sampling needs epsilon > 0 to converge.
            raise ConfigError("outcome sampling needs exploration > 0")

    @classmethod
    def from_params(cls, **params: Any) -> MCCFRConfig:
        return config_from_params(cls, "MCCFR", **params)


class MCCFRSolver(TabularSolver):
    """Monte Carlo CFR on a compiled ``GameTree``.

    Args:
        game: the game to solve (its tree must fit in memory).
        config: an ``MCCFRConfig`` (or a mapping of its fields); keyword ``overrides`` replace
            its fields (both checked: ``ConfigError`` names a wrong one and what it allows).
        seed: seed of the solver's ``numpy.random.Generator`` (or pass ``rng``).
        tree: a tree already built for ``game``.
        rng: a Generator to use instead of seeding one.
        name: the agent's name (default: the class's), as the registry names its presets.
    """

    name: str = "mccfr"
    _state_arrays: ClassVar[tuple[str, ...]] = ("regrets", "strategy_sum")

    def __init__(
        self,
        game: Game,
        config: MCCFRConfig | Mapping[str, Any] | None = None,
        seed: int | None = 0,
        tree: GameTree | None = None,
        rng: np.random.Generator | None = None,
        *,
        name: str | None = None,
        **overrides: Any,
    ) -> None:
        super().__init__(game, with_overrides(MCCFRConfig, config, overrides, what="MCCFR"), tree,
                         name)
        self.rng = rng if rng is not None else np.random.default_rng(seed)
        shape = self.tree.infoset_mask.shape
        self.regrets = np.zeros(shape)
        self.strategy_sum = np.zeros(shape)
        n, num_actions = self.tree.num_nodes, shape[1]
        width = max(num_actions, int(self.tree.num_children.max()))
        self._tree_arrays = tree_arrays(self.tree)
        if self.config.sampling == "outcome":
            depth = K.max_depth(self.tree.depth)
            self._work: tuple = (
                np.zeros(depth, dtype=np.int64),
                np.zeros(depth, dtype=np.int64),
                np.zeros((depth, num_actions)),
                np.zeros(depth),
                np.zeros((depth, 3)),
                np.zeros(width),
            )
        else:
            self._work = (
                np.zeros(n, dtype=np.int64),
                np.zeros(n, dtype=np.int64),
                np.zeros(n),
                np.zeros(n, dtype=np.int64),
                np.zeros(num_actions),
                np.zeros(width),
            )

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations (one sampled traversal per player each)."""
        n = check_units(n)
        if n == 0:
            return
        args = (self.rng, self._tree_arrays, self.regrets, self.strategy_sum, n)
        if self.config.sampling == "outcome":
            K.outcome_sampling(*args, self.config.exploration, *self._work)
        else:
            K.external_sampling(*args, *self._work)
        self._iteration += n

    def current_policy(self) -> TabularPolicy:
        """Regret matching of the cumulative regrets."""
        positive = np.where(self.tree.infoset_mask, np.maximum(self.regrets, 0.0), 0.0)
        return TabularPolicy.from_tree(self.tree, positive)

    def average_policy(self) -> TabularPolicy:
        """The sampled average strategy (uniform at information sets never sampled)."""
        return TabularPolicy.from_tree(self.tree, self.strategy_sum)

    def _extra_state(self) -> dict[str, Any]:
        return {"rng": copy.deepcopy(self.rng.bit_generator.state)}

    def _load_extra_state(self, state: Mapping[str, Any]) -> None:
        self.rng.bit_generator.state = copy.deepcopy(state["rng"])


MCCFR_PRESETS: dict[str, MCCFRConfig] = {
    "mccfr-os": MCCFRConfig(sampling="outcome"),
    "mccfr-es": MCCFRConfig(sampling="external"),
}
"""The registry's MCCFR agents."""


def make_preset(preset: str, game: Game, seed: int = 0, **params: Any) -> MCCFRSolver:
    """The registry's agent ``preset`` (a key of ``MCCFR_PRESETS``), ``params`` overriding its
    config fields."""
    if preset not in MCCFR_PRESETS:
        raise unknown_name("MCCFR preset", preset, MCCFR_PRESETS)
    config = {**dataclasses.asdict(MCCFR_PRESETS[preset]), **params}
    return MCCFRSolver(game, config, seed=seed, name=preset)
