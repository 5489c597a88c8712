"""Full-width counterfactual regret minimisation over the compiled tree.

``CFRSolver`` is the whole family, configured by ``CFRConfig``; ``CFR`` and ``CFRPlus`` are its
named presets (more live in ``CFR_PRESETS``). All share one face: ``iterate(n)``,
``average_policy()``, ``current_policy()``, ``state_dict()``.

>>> from pokerzoo import load_game
>>> from pokerzoo.evaluation import exploitability
>>> solver = CFRPlus(load_game("kuhn_poker"))
>>> solver.iterate(200)
>>> exploitability(solver.tree, solver.average_policy()) < 1e-2
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pokerzoo import schedule
from pokerzoo.agents.base import check_units
from pokerzoo.agents.cfr.kernels import kernel_arrays, run_iterations, with_payoffs
from pokerzoo.agents.tabular import TabularSolver, config_from_params
from pokerzoo.config import check, normalise, with_overrides
from pokerzoo.entry_points import unknown_name
from pokerzoo.games.base import ConfigError, Game
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.tree.tabular_policy import TabularPolicy


@dataclass(frozen=True)
class CFRConfig:
    """Hyperparameters of the CFR family (defaults: vanilla CFR as in OpenSpiel's CFRSolver)."""

    alternating_updates: bool = True
    """Update players one after the other, each against the others' newest strategy."""
    regret_matching_plus: bool = False
    """Clip cumulative regrets at zero after every update (CFR+, Tammelin 2014)."""
    linear_averaging: bool = False
    """Weight iteration t's contribution to the average strategy by ``t^averaging_power``
    (CFR+: t)."""
    averaging_power: float = 1.0
    """The power of t in iteration t's weight under ``linear_averaging`` (1: linear, as CFR+;
    2: quadratic, as PCFR+)."""
    predictive: bool = False
    """Match the next strategy on the regrets plus predicted regrets: those of this
    iteration's values, the prediction of the next ones (predictive CFR+ with
    ``regret_matching_plus``; Farina, Kroer and Sandholm, AAAI 2021, arXiv:2007.14358)."""
    discount: tuple[float, float, float] | None = None
    """DCFR's (alpha, beta, gamma) (Brown & Sandholm 2019); ``None`` for no discounting."""
    oracle: bool = False
    """Unknown-environment games only: solve the hidden true model d* (an oracle baseline)
    instead of the believed model (prior or posterior mean); see ``pokerzoo.agents.solver_tree``."""

    def __post_init__(self) -> None:
        normalise(self)
        if self.discount is not None:
            if len(self.discount) != 3:
                raise ConfigError(f"discount must be (alpha, beta, gamma), got {self.discount!r}")
            if self.linear_averaging:
                raise ConfigError("discount and linear_averaging both weight the average")
        check(self.averaging_power >= 0.0, "averaging_power", ">= 0", self.averaging_power)
        if self.averaging_power != 1.0 and not self.linear_averaging:
            raise ConfigError(f"averaging_power={self.averaging_power} weights the average only "
                              "with linear_averaging=True")

    @classmethod
    def from_params(cls, **params: Any) -> CFRConfig:
        return config_from_params(cls, "CFR", **params)


CFR_PRESETS: dict[str, CFRConfig] = {
    "cfr": CFRConfig(),
    "cfr+": CFRConfig(regret_matching_plus=True, linear_averaging=True),
    # Linear CFR (Brown & Sandholm 2019) is DCFR with alpha = beta = gamma = 1.
    "lcfr": CFRConfig(discount=(1.0, 1.0, 1.0)),
    "dcfr": CFRConfig(discount=(1.5, 0.0, 2.0)),
    # Predictive CFR+ with quadratic averaging, the choice of Farina, Kroer and Sandholm (2021).
    "pcfr+": CFRConfig(regret_matching_plus=True, linear_averaging=True, averaging_power=2.0,
                       predictive=True),
}


class CFRSolver(TabularSolver):
    """Full-width CFR on a compiled ``GameTree`` (any member of the family via ``config``).

    Args:
        game: the game to solve (its tree must fit in memory).
        config: a ``CFRConfig`` (or a mapping of its fields); keyword ``overrides`` replace
            its fields (both checked: ``ConfigError`` names a wrong one and what it allows).
        tree: a tree already built for ``game`` (e.g. from a believed model), to avoid
            rebuilding it.
        name: the agent's name (default: the class's), as the registry names its presets.
    """

    name: str = "cfr-family"
    _state_arrays: ClassVar[tuple[str, ...]] = ("regrets", "strategy_sum", "sigma")

    def __init__(
        self,
        game: Game,
        config: CFRConfig | Mapping[str, Any] | None = None,
        tree: GameTree | None = None,
        *,
        name: str | None = None,
        **overrides: Any,
    ) -> None:
        super().__init__(game, with_overrides(CFRConfig, config, overrides, what="CFR"), tree,
                         name)
        shape = self.tree.infoset_mask.shape
        self.regrets = np.zeros(shape)
        self.strategy_sum = np.zeros(shape)
        mask = self.tree.infoset_mask
        self._sigma = mask / mask.sum(axis=1, keepdims=True)
        self.sequence_form = self.tree.sequence_form
        self._kernel_arrays = kernel_arrays(self.sequence_form, mask)
        self._x = np.zeros(self.sequence_form.num_sequences)
        self._q = np.zeros(self.sequence_form.num_sequences)
        # PCFR+'s scratch (zero between iterations, so not saved in checkpoints).
        self._predicted = np.zeros(self.sequence_form.num_sequences if self.config.predictive
                                   else 0)
        self._prune_below = 0.0

    def use_payoffs(
        self,
        payoff_coef: np.ndarray,
        entry_chance_reach: np.ndarray | None = None,
        prune_below: float = 0.0,
    ) -> None:
        """Learn on from here with other terminal payoffs over the same information sets (model
        based agents switch the model of an unknown game every round; regrets carry over).

        Args:
            payoff_coef: ``[num_players, num_entries]``, per entry of ``sequence_form``: chance
                reach times utility, summed over the entry's terminals.
            entry_chance_reach: ``[num_entries]`` chance reach per entry (for pruning).
            prune_below: skip entries whose chance-times-opponent reach is below it (two
                players; 0: none).

        Raises:
            ConfigError: for coefficients of another shape, or pruning without reaches.
        """
        coef = np.asarray(payoff_coef, dtype=np.float64)
        if coef.shape != self.sequence_form.payoff_coef.shape:
            raise ConfigError(
                f"payoff_coef must have shape {self.sequence_form.payoff_coef.shape}, got "
                f"{coef.shape}"
            )
        if prune_below > 0 and entry_chance_reach is None:
            raise ConfigError("pruning (prune_below > 0) needs entry_chance_reach")
        self._kernel_arrays = with_payoffs(
            self._kernel_arrays, self.sequence_form, coef, entry_chance_reach
        )
        self._prune_below = float(prune_below)

    @property
    def sigma(self) -> np.ndarray:
        """The current (regret-matching) strategy, ``[num_infosets, num_actions]``."""
        return self._sigma

    @sigma.setter
    def sigma(self, value: np.ndarray) -> None:
        self._sigma[...] = np.asarray(value, dtype=np.float64).reshape(self._sigma.shape)

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` full-width iterations."""
        n = check_units(n)
        if n == 0:
            return
        cfg = self.config
        rule = schedule.custom_rule(
            floor=cfg.regret_matching_plus, discount=cfg.discount,
            averaging_power=cfg.averaging_power if cfg.linear_averaging else 0.0,
        )
        run_iterations(
            self._kernel_arrays, self.regrets, self.strategy_sum, self._sigma.reshape(-1),
            self._x, self._q, schedule.rule_table(rule, self._iteration + 1, n),
            cfg.alternating_updates, self._predicted, self._prune_below,
        )
        self._iteration += n

    def current_policy(self) -> TabularPolicy:
        """The regret-matching strategy of the next iteration."""
        return TabularPolicy.from_tree(self.tree, self.sigma)

    def average_policy(self) -> TabularPolicy:
        """The average strategy (uniform at information sets never reached)."""
        return TabularPolicy.from_tree(self.tree, self.strategy_sum)


class CFR(CFRSolver):
    """Vanilla CFR (Zinkevich et al. 2007) with alternating updates, as OpenSpiel's CFRSolver."""

    name: str = "cfr"

    def __init__(self, game: Game, tree: GameTree | None = None, **overrides: Any) -> None:
        super().__init__(game, CFR_PRESETS["cfr"], tree, **overrides)


class CFRPlus(CFRSolver):
    """CFR+ (Tammelin 2014): regret matching+, linear averaging, alternating updates."""

    name: str = "cfr+"

    def __init__(self, game: Game, tree: GameTree | None = None, **overrides: Any) -> None:
        super().__init__(game, CFR_PRESETS["cfr+"], tree, **overrides)


def make_preset(preset: str, game: Game, seed: int = 0, **params: Any) -> CFRSolver:
    """The registry's agent ``preset`` (a key of ``CFR_PRESETS``), ``params`` overriding its
    config fields."""
    if preset not in CFR_PRESETS:
        raise unknown_name("CFR preset", preset, CFR_PRESETS)
    del seed  # full-width CFR is deterministic
    return CFRSolver(game, {**dataclasses.asdict(CFR_PRESETS[preset]), **params}, name=preset)
