"""Depth-limited public subgames and their solver: a trunk solved with values at its leaves.

``public_subgame(game, history, ranges, depth)`` (in ``pokerzoo.public.subgames.subgame``) cuts a
small game's public tree (Kuhn, the Leduc family; built from the rules by
``pokerzoo.public.engine.small_games``) at the public state ``history`` reaches and keeps ``depth``
of it (``tree_subgame(tree)`` wraps any public tree, a hold'em spot's, without leaves):

* ``history``: the public edge labels from the start of the game, in the public tree's own
  terms (``PublicTree.labels``): betting actions as ``game.action_to_string`` names them
  (Leduc: ``"fold"``, ``"call"`` (a check is a call of 0), ``"raise"``) and public cards as
  ``game.card_to_string`` names them (``"Qh"``); ``public_line(game, state)`` reads it off a
  game ``State``. The private deals are not in it.
* ``ranges``: each player's weights over the whole tree's hand lists (``tree.hands[p]``),
  without the chance weights on the path (the engine's reach convention); hands blocked by the
  board are given weight 0.
* ``depth``: ``"round"`` stops where the next public card is dealt (that chance node is a
  leaf; a history that ends where a card is about to be dealt keeps that deal and the round
  after it), an int ``k`` stops after ``k`` more actions or at the round's end, whichever comes
  first (a trunk holds at most one betting round), ``None`` keeps the whole rest (no leaves).

In the trunk (``Subgame.tree``) every depth-limit leaf is a chance node with one placeholder
child that is never visited: the leaves are the engine's frontier (``PublicSolver.run_pass``:
one pass records both reaches there, the next reads the values), which ``DepthLimitedSolver``
declares its own (``frontier_leaves``), so every pass asks a ``LeafValues`` source for the
values in between (``leaf_values``). A plain ``PublicSolver`` on ``Subgame.tree`` would value
the placeholders at 0.

Values are chips net of each player's contribution since the start of the game
(``pokerzoo.public.engine.tree``'s convention); the value of a hand at a leaf is counterfactual
(weighted by the opponent's reach there), as at any node of the sweep.

Which values a ``LeafValues`` source is asked for (``leaf_rule``, one of ``LEAF_RULES``):

* ``"current"``: every CFR pass at the current strategies' reaches (CFR-D's subgame values,
  Burch, Johanson & Bowling 2014; DeepStack's value function), and every measuring pass
  (average, best response) at the average strategies' reaches.
* ``"mean"``: CFR passes as ``"current"``; measuring passes take each player's leaf values
  averaged over the iterations with the strategy sums' weights, each recorded in the other
  player's CFR pass (whose reach at the leaves is the one its strategy sum takes in), so they
  are counterfactual for the other's *average* reach: the values the trunk's regrets were
  taken against, which the subgames below can keep (the mixture of the per-pass leaf
  solutions reaches them; DeepStack keeps the opponent's counterfactual values averaged over
  the re-solve's iterations, Moravčík et al. 2017).
* ``"cfr-avg"``: ReBeL's CFR-AVG (Brown, Bakhtin, Lerer & Gong 2020, "Combining Deep
  Reinforcement Learning and Search for Imperfect-Information Games", section 6): a CFR pass
  of iteration ``t`` asks for the values ``V(b_t)`` at the PBS of the *average* strategies
  (both players' average reaches at the leaves), per hand and per unit of the other's
  compatible reach (ReBeL's infostate values), and hands the traverser ``v_t`` such that the
  weighted mean of ``v_1 .. v_t`` (weights: the strategy sums' discounts and weights of the
  solver's algorithm) is ``V(b_t)``: ``v_t = (W_t V(b_t) - d_t W_{t-1} V(b_{t-1})) / w_t``
  with ``W_t = d_t W_{t-1} + w_t``, the weight of the other player's strategy sums (whose
  average the leaf reaches follow), times the other's current compatible reach (the pass's
  counterfactual weighting). Measuring passes take the values at their own reaches.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.public.engine.solver import PASS_KINDS, PublicSolver, SolverConfig
from pokerzoo.public.subgames.subgame import (
    Subgame,
)
from pokerzoo.schedule import NO_UPDATE, Discounts

__all__ = ["LEAF_RULES", "DepthLimitedSolver", "LeafGame", "LeafValues"]


@runtime_checkable
class LeafValues(Protocol):
    """A source of values at a subgame's depth-limit leaves.

    ``values(subgame, leaves, reach0, reach1)`` gets leaf indices ``leaves`` ``[L]`` (into
    ``subgame.leaves``) and both players' reaches there (``[L, H0]``, ``[L, H1]``: initial
    range times the strategies on the path, no chance weights) and returns each player's
    counterfactual values there, ``([L, H0], [L, H1])``, in chips (the tree's convention):
    player 0's value of hand ``h`` sums over player 1's hands ``h'`` sharing no card with
    ``h`` (nor the board) ``reach1[h'] * E[u_0 | h, h', the rest of the game]``, the chance
    of the cards still to come inside the expectation.
    """

    def values(self, subgame: Subgame, leaves: np.ndarray, reach0: np.ndarray,
               reach1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ...


@runtime_checkable
class LeafGame(Protocol):
    """Leaf values that take part in the solve (multi-valued leaves' opponent choices, an
    oracle's rest-of-game solvers run in step with the trunk): the solver says which pass
    each call serves. ``mode`` is ``"cfr"`` (``traverser``'s regrets below or at the leaves
    are updated from these reaches with the iteration's ``scalars``, as
    ``pokerzoo.public.engine.solver.discounts`` gives them), ``"average"`` (both play their average
    strategies there) or ``"best_response"`` (``traverser`` best-responds there to the other's
    average strategy)."""

    def leaf_values(self, subgame: Subgame, leaves: np.ndarray, reach0: np.ndarray,
                    reach1: np.ndarray, mode: str, traverser: int,
                    scalars: tuple[float, float, bool, float, float]) -> np.ndarray:
        """``traverser``'s counterfactual values ``[L, H_traverser]`` at ``leaves``."""
        ...


LEAF_RULES = ("current", "mean", "cfr-avg")
"""How a ``LeafValues`` source's values enter the solve (the module docstring)."""


class DepthLimitedSolver(PublicSolver):
    """CFR+/DCFR on a subgame's trunk with leaf values from ``leaves`` at the current reaches.

    Every pass for a traverser is two sweeps: the first records both reaches at the leaves
    (no update), ``leaves.values`` turns them into values, the second sweeps with those values
    (and updates, in CFR passes). ``game_value`` and ``best_response_values`` /
    ``exploitability`` are measured in the trunk against the source's values at the average
    strategies' reaches: exact for a source whose values are linear in the opponent's reach
    (fixed continuations); for an ``OracleLeaves`` a best response in the trunk against the
    continuation solved at those reaches (an upper bound of the trunk's exploitability,
    0 at its equilibrium).

    Args:
        subgame: from ``public_subgame``.
        leaves: a ``LeafValues`` (or ``LeafGame``) source; ignored when there are no leaves.
        config, locks, overrides: as ``PublicSolver`` (``threads`` must be 1).
        leaf_rule: ``"current"``, ``"mean"`` or ``"cfr-avg"`` (the module docstring); the
            last two ask a ``LeafGame`` for its ``values`` (it must offer them).

    >>> from pokerzoo.games import load_game
    >>> from pokerzoo.public.subgames.leaf_values import OracleLeaves
    >>> from pokerzoo.public.subgames.subgame import public_subgame
    >>> game = load_game("leduc_holdem")
    >>> sub = public_subgame(game, [], [np.ones(6), np.ones(6)])
    >>> solver = DepthLimitedSolver(sub, OracleLeaves(game), algorithm="dcfr")
    >>> solver.iterate(50)
    >>> round(solver.game_value()[0], 2)
    -0.09
    """

    def __init__(self, subgame: Subgame, leaves: LeafValues | LeafGame | None,
                 config: SolverConfig | None = None, locks: dict[int, Any] | None = None,
                 leaf_rule: str = "current", **overrides: Any) -> None:
        if not isinstance(subgame, Subgame):
            raise ConfigError(f"expected a Subgame (public_subgame), got {type(subgame).__name__}")
        super().__init__(subgame.tree, config, locks, **overrides)
        if self.config.threads != 1:
            raise ConfigError("a depth-limited solve sweeps on one thread; threads must be 1")
        if subgame.num_leaves and not isinstance(leaves, LeafValues | LeafGame):
            raise ConfigError("the subgame has depth-limit leaves: leaves must offer "
                              "values(subgame, leaves, reach0, reach1) (a LeafValues)")
        if subgame.num_leaves and not np.array_equal(self.frontier_nodes, subgame.leaves):
            raise ConfigError("the subgame's chance nodes must all be depth-limit leaves")
        if leaf_rule not in LEAF_RULES:
            raise ConfigError(f"leaf_rule must be one of {LEAF_RULES}, not {leaf_rule!r}")
        if leaf_rule != "current" and subgame.num_leaves and not isinstance(leaves,
                                                                            LeafValues):
            raise ConfigError(f"leaf_rule={leaf_rule!r} asks the leaf source for "
                              "values(subgame, leaves, reach0, reach1); this one has none")
        self.subgame = subgame
        self.leaf_source = leaves
        self.leaf_rule = leaf_rule
        self._all_leaves = np.arange(subgame.num_leaves)
        count = subgame.num_leaves
        self.leaf_sums = [np.zeros((count, self.tree.num_hands(p))) for p in (0, 1)]
        """Per player, the weighted sum of its leaf values over the iterations (``"mean"``:
        counterfactual, recorded in the other's passes; ``"cfr-avg"``: handed to it, per unit
        of the other's compatible reach), discounted as the strategy sums are (``"cfr-avg"``:
        the other player's sums); divided by ``leaf_weights`` it is the mean."""
        self.leaf_weights = np.zeros(2)
        # cfr-avg: each player's strategy-sum weight so far and the scalars of its last update.
        self._sum_weights = np.zeros(2)
        self._last_scalars = [(1.0, 0.0), (1.0, 0.0)]

    @property
    def frontier_leaves(self) -> bool:
        """Whether the trunk has depth-limit leaves: then every pass from the root values them
        through ``leaf_values``."""
        return self.subgame.num_leaves > 0

    def leaf_values(self, kind: str, traverser: int, reach0: np.ndarray, reach1: np.ndarray,
                    discounts: Discounts | tuple[float, float, bool, float, float] = NO_UPDATE,
                    ) -> np.ndarray:
        """``traverser``'s values ``[L, H_traverser]`` at every leaf for a pass of ``kind``
        (``PASS_KINDS``) that brings these reaches there (one source call; ``leaf_rule`` says
        which values)."""
        if kind not in PASS_KINDS:
            raise ConfigError(f"kind must be one of {PASS_KINDS}, not {kind!r}")
        source = self.leaf_source
        if self.leaf_rule != "current" and self.subgame.num_leaves:
            out = self._ruled_values(kind, traverser, reach0, reach1, discounts)
        elif isinstance(source, LeafGame):
            out = source.leaf_values(self.subgame, self._all_leaves, reach0, reach1, kind,
                                     traverser, discounts)
        else:
            assert source is not None
            out = source.values(self.subgame, self._all_leaves, reach0, reach1)[traverser]
        out = np.asarray(out, dtype=np.float64)
        shape = (self.subgame.num_leaves, self.tree.num_hands(traverser))
        if out.shape != shape or not np.all(np.isfinite(out)):
            raise ConfigError(f"leaf values of player {traverser} must be a finite {list(shape)} "
                              f"array, got shape {list(out.shape)}")
        return out

    def _source_values(self, trav: int, reach0: np.ndarray, reach1: np.ndarray,
                       ) -> tuple[np.ndarray, np.ndarray]:
        source = self.leaf_source
        assert isinstance(source, LeafValues)
        return source.values(self.subgame, self._all_leaves, reach0, reach1)

    def _ruled_values(self, kind: str, trav: int, reach0: np.ndarray, reach1: np.ndarray,
                      scalars: tuple[float, float, bool, float, float]) -> np.ndarray:
        """``leaf_rule`` ``"mean"`` / ``"cfr-avg"`` (the module docstring)."""
        discount, weight = float(scalars[3]), float(scalars[4])
        if kind != "cfr":
            if self.leaf_rule == "mean" and self.leaf_weights[trav] > 0:
                return self.leaf_sums[trav] / self.leaf_weights[trav]
            return self._source_values(trav, reach0, reach1)[trav]
        if self.leaf_rule == "mean":
            values = self._source_values(trav, reach0, reach1)
            other = 1 - trav
            self.leaf_sums[other] = discount * self.leaf_sums[other] + weight * np.asarray(
                values[other], dtype=np.float64)
            self.leaf_weights[other] = discount * self.leaf_weights[other] + weight
            return np.asarray(values[trav], dtype=np.float64)
        # ReBeL's leaf values are per infostate (expected chips of a hand): difference those,
        # per unit of the other's compatible reach at the averages, and weight them by the
        # other's current reach, as a value net's answer is (so a leaf the other does not
        # reach now is worth nothing to trav's regrets). The weights: those of the other's
        # strategy sums (the average its reach at the leaves follows), of its last update
        # (alternating passes update it once between two passes of trav).
        other = 1 - trav
        averages = self.leaf_reaches(True)
        target = np.asarray(self._source_values(trav, *averages)[trav], dtype=np.float64)
        mass = self._compatible(trav, averages[other])
        unit = np.divide(target, mass, out=np.zeros_like(target), where=mass > 0)
        total = self._sum_weights[other]
        last_discount, last_weight = self._last_scalars[other]
        if total > 0 and self.leaf_weights[trav] > 0 and last_weight > 0:
            step = (total * unit - last_discount * self.leaf_sums[trav]) / last_weight
        else:
            step = unit
        self.leaf_sums[trav] = total * unit
        self.leaf_weights[trav] = total
        self._sum_weights[trav] = discount * self._sum_weights[trav] + weight
        self._last_scalars[trav] = (discount, weight)
        return step * self._compatible(trav, (reach0, reach1)[other])

    def _compatible(self, player: int, opp_reach: np.ndarray) -> np.ndarray:
        """``[L, H_player]``: per leaf, the other's reach over the hands sharing no card with
        each of ``player``'s hands."""
        tree = self.tree
        if tree.hands[player].shape[1] != 1:  # two-card hands: the tree's own count per row
            return np.stack([tree.compatible_reach(player, row) for row in opp_reach])
        masks_opp = tree.card_masks[1 - player].astype(np.float64)
        masks_own = tree.card_masks[player].astype(np.float64)
        per_card = opp_reach @ masks_opp.T
        return opp_reach.sum(axis=1, keepdims=True) - per_card @ masks_own

    def mean_leaf_values(self, player: int) -> np.ndarray | None:
        """``[L, H_player]``: ``player``'s leaf values averaged over the iterations as the
        strategy sums are (``leaf_rule`` ``"mean"``: counterfactual; ``"cfr-avg"``: per unit
        of the other's compatible reach; ``None`` before any iteration or under
        ``"current"``)."""
        if self.leaf_weights[player] <= 0:
            return None
        return self.leaf_sums[player] / self.leaf_weights[player]

    def leaf_reaches(self, average: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Both players' reaches ``[L, H0]``, ``[L, H1]`` at the leaves under the average (or
        current) strategies."""
        tree = self.tree
        if not self.subgame.num_leaves:
            return np.zeros((0, tree.num_hands(0))), np.zeros((0, tree.num_hands(1)))
        reached = self.frontier_reaches("average" if average else "cfr", 0)
        return reached.reach0, reached.reach1
