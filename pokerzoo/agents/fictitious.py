"""Full-width fictitious play over the compiled tree: XFP, GXFP, BUFP(X) and BUFP(EF).

All four are one iteration with different choices (``FPConfig``). At iteration t every
information set u gets a *best row* b(u), and the behavioural profile pi (which is itself the
fictitious-play average, so ``average_policy()`` returns it) steps towards it by 1/(t+1):

* **best row**: the argmax over u's actions of the belief-weighted value of the action (BUFP
  paper Eq. 9-10; beliefs are the other players' and chance's reach of u's histories under pi,
  normalised, Eq. 12: the acting player counts as having aimed for u), with below u either
  the acting player's best response (``continuation="best_response"``: XFP, BUFP) or its
  current profile (``"current"``: GXFP's *best decisions*, Deep GXFP paper Sec. 2.1.3).
* **step**: ``"realization"``: XFP's realization-weighted step (Heinrich, Lanctot, Silver 2015),
  pi' = pi + a*x_b*(b - pi) / ((1-a)*x_pi + a*x_b), which mixes the sequence-form strategies, so
  information sets the best rows do not reach keep their row; ``"behavioural"``: EFFP's uniform
  step pi' = (1-a)*pi + a*b at every information set, on or off the path (Hendon et al. 1996),
  which makes BUFP(EF) a GWFP process towards a Bayesian perfect equilibrium.

Choices where the papers are ambiguous (all parameters; defaults in brackets):

* BUFP's play below u [best response]. Eq. 9's formula keeps the player's current strategy
  below u, its prose says "player i the optimal response". With the realization-weighted step
  the formula's reading locks in: a row that the best decisions stop reaching is never updated
  again, and its stale play keeps the parent's decision away from it (Kuhn: exploitability
  stays at 0.22 forever). The prose's reading converges and makes BUFP(X) XFP with beliefs, as
  the paper's BUFP(X) results suggest. ``continuation="current"`` gives the formula's reading.
* beliefs at information sets the others and chance never reach [``"bayes"``]: uniform over
  the set's histories, carried down by Bayes' rule; ``"uniform"`` restarts at each such set.
  The solvers start from the uniform profile and every step keeps probabilities positive, so
  this only matters for profiles loaded with zeros.
* ties between best actions [the first legal action within ``tie_tolerance``; ``"uniform"``
  splits the step between them]. XFP weighs histories by the raw counterfactual reach and uses
  no tolerance, so that rounding breaks exact ties as OpenSpiel's best response does.
* GXFP's update of "the acting player's strategy" [players in turn, ``alternating``], as Deep
  GXFP's loop over players does; its step is 1/(n+1) at every information set.

>>> from pokerzoo import load_game
>>> from pokerzoo.evaluation import exploitability
>>> solver = FictitiousPlaySolver(load_game("kuhn_poker"), FP_PRESETS["xfp"])
>>> solver.iterate(100)
>>> exploitability(solver.tree, solver.average_policy()) < 0.03
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pokerzoo.agents.base import check_units
from pokerzoo.agents.fictitious_kernels import run_iterations, work_arrays
from pokerzoo.agents.tabular import TabularSolver, config_from_params
from pokerzoo.config import normalise, with_overrides
from pokerzoo.entry_points import unknown_name
from pokerzoo.evaluation.perfect import BELIEF_MODES, node_beliefs
from pokerzoo.games.base import ConfigError, Game
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.tree.kernels import beliefs as K
from pokerzoo.tree.kernels.arrays import tree_arrays
from pokerzoo.tree.tabular_policy import TabularPolicy, normalise_rows


@dataclass(frozen=True)
class FPConfig:
    """Hyperparameters of the fictitious-play family (defaults: BUFP(X), the paper's best)."""

    continuation: str = "best_response"
    """The acting player's play below the information set when valuing its actions:
    ``"best_response"`` (XFP, BUFP) or ``"current"`` profile (best decisions: GXFP)."""
    step: str = "realization"
    """``"realization"`` (XFP's realization-weighted step, BUFP(X)) or ``"behavioural"``
    (EFFP's uniform step 1/(t+1) at every information set, BUFP(EF), GXFP)."""
    alternating: bool = False
    """Update players in turn, each against the others' newest rows (GXFP)."""
    beliefs: str = "bayes"
    """Beliefs where the others' and chance's reach is zero; see ``BELIEF_MODES``."""
    normalise_beliefs: bool = True
    """Weigh an information set's histories by the normalised belief; ``False``: by the raw
    counterfactual reach, as XFP's best response does (same argmax except at exact ties, which
    rounding then breaks as OpenSpiel's best response does)."""
    ties: str = "first"
    """Tied best actions: ``"first"`` legal one, or ``"uniform"`` over them."""
    tie_tolerance: float = 1e-12
    """Actions within this much (chips, belief-weighted) of the best count as tied."""
    oracle: bool = False
    """Unknown-environment games only: solve the hidden true model d* (an oracle baseline)
    instead of the believed model (prior or posterior mean); see ``pokerzoo.agents.solver_tree``."""

    def __post_init__(self) -> None:
        normalise(self)
        for name, value, allowed in [
            ("continuation", self.continuation, ("current", "best_response")),
            ("step", self.step, ("realization", "behavioural")),
            ("beliefs", self.beliefs, BELIEF_MODES),
            ("ties", self.ties, ("first", "uniform")),
        ]:
            if value not in allowed:
                raise ConfigError(f"{name} must be one of {allowed}, got {value!r}")
        if not self.tie_tolerance >= 0:
            raise ConfigError(f"tie_tolerance must be >= 0, got {self.tie_tolerance!r}")

    @classmethod
    def from_params(cls, **params: Any) -> FPConfig:
        return config_from_params(cls, "fictitious-play", **params)


FP_PRESETS: dict[str, FPConfig] = {
    "xfp": FPConfig(
        continuation="best_response", step="realization", normalise_beliefs=False,
        tie_tolerance=0.0,
    ),
    "gxfp": FPConfig(continuation="current", step="behavioural", alternating=True),
    "bufp-x": FPConfig(continuation="best_response", step="realization"),
    "bufp-ef": FPConfig(continuation="best_response", step="behavioural"),
}


class FictitiousPlaySolver(TabularSolver):
    """Full-width fictitious play on a compiled ``GameTree`` (any member via ``config``).

    Args:
        game: the game to solve (its tree must fit in memory).
        config: an ``FPConfig`` (default BUFP(X)) or a mapping of its fields; keyword
            ``overrides`` replace its fields (both checked: ``ConfigError`` names a wrong one
            and what it allows).
        tree: a tree already built for ``game``, to avoid rebuilding it.
        initial: the starting profile (default uniform), any ``[num_infosets, num_actions]``
            array or ``TabularPolicy`` aligned with the tree.
        name: the agent's name (default: the class's), as the registry names its presets.
    """

    name: str = "fictitious-play"
    _state_arrays: ClassVar[tuple[str, ...]] = ("probs", "best")

    def __init__(
        self,
        game: Game,
        config: FPConfig | Mapping[str, Any] | None = None,
        tree: GameTree | None = None,
        initial: TabularPolicy | np.ndarray | None = None,
        *,
        name: str | None = None,
        **overrides: Any,
    ) -> None:
        config = with_overrides(FPConfig, config, overrides, what="fictitious-play")
        super().__init__(game, config, tree, name)
        t = self.tree
        mask = t.infoset_mask
        if initial is None:
            self.probs = mask / mask.sum(axis=1, keepdims=True)
        else:
            rows = initial.aligned_to(t) if isinstance(initial, TabularPolicy) else initial
            self.probs = normalise_rows(np.asarray(rows, dtype=np.float64), mask)
        self.best = self.probs.copy()
        self._parents = K.infoset_parents(
            t.parent, t.player, t.infoset, t.action, t.infoset_node, t.infoset_player,
            t.num_players,
        )
        self._work = work_arrays(t.utilities, *mask.shape)
        self._tree_arrays = tree_arrays(t)

    def use_numbers(self, chance_prob: np.ndarray, utilities: np.ndarray) -> None:
        """Learn on from here with other chance probabilities and terminal utilities over the
        same histories (``[num_nodes]`` and ``[num_nodes, num_players]``, as the tree's);
        model-based agents switch the model of an unknown game every round.

        Raises:
            ConfigError: for arrays of other shapes.
        """
        t = self.tree
        chance = np.asarray(chance_prob, dtype=np.float64)
        util = np.asarray(utilities, dtype=np.float64)
        if chance.shape != t.chance_prob.shape or util.shape != t.utilities.shape:
            raise ConfigError(
                f"need chance_prob {t.chance_prob.shape} and utilities {t.utilities.shape}, got "
                f"{chance.shape} and {util.shape}"
            )
        self._tree_arrays = self._tree_arrays._replace(chance_prob=chance, utilities=util)
        self._work.values[...] = util

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` full-width iterations."""
        n = check_units(n)
        if n == 0:
            return
        cfg = self.config
        run_iterations(
            self._tree_arrays, *self._parents, self.probs, self.best, self._iteration + 1, n,
            cfg.alternating, cfg.continuation == "best_response", cfg.step == "realization",
            cfg.beliefs == "bayes", cfg.normalise_beliefs, cfg.ties == "uniform",
            cfg.tie_tolerance, self._work,
        )
        self._iteration += n

    def average_policy(self) -> TabularPolicy:
        """The fictitious-play profile pi_t (itself the running average of best rows)."""
        return TabularPolicy.from_tree(self.tree, self.probs)

    def current_policy(self) -> TabularPolicy:
        """The last iteration's best rows (pure unless ties are split); uniform before any."""
        return TabularPolicy.from_tree(self.tree, self.best)

    def beliefs(self) -> np.ndarray:
        """``[num_nodes]``: each decision node's belief within its information set under pi_t."""
        return node_beliefs(self.tree, self.probs, self.config.beliefs)


def make_preset(preset: str, game: Game, seed: int = 0, **params: Any) -> FictitiousPlaySolver:
    """The registry's agent ``preset`` (a key of ``FP_PRESETS``), ``params`` overriding its
    config fields."""
    if preset not in FP_PRESETS:
        raise unknown_name("fictitious-play preset", preset, FP_PRESETS)
    del seed  # full-width fictitious play is deterministic
    config = {**dataclasses.asdict(FP_PRESETS[preset]), **params}
    return FictitiousPlaySolver(game, config, name=preset)
