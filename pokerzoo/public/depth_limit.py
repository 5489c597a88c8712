"""Depth-limited public subgames and their solver: a trunk solved with values at its leaves.

``public_subgame(game, history, ranges, depth)`` (built in ``pokerzoo.public.subgame``,
re-exported here) cuts a small game's public tree (Kuhn, the Leduc family; built from the
rules by ``pokerzoo.public.small_games``) at the public state ``history`` reaches and keeps
``depth`` of it (``tree_subgame(tree)`` wraps any public tree, a hold'em spot's, without
leaves):

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
child that is never visited: ``DepthLimitedSolver`` sweeps with the engine's frontier mode
(``pokerzoo.public.sweep_kernel``: chance nodes are leaves; one pass records both reaches there,
the next reads the values) and asks a ``LeafValues`` source for the values in between. A plain
``PublicSolver`` on ``Subgame.tree`` would value the placeholders at 0.

Values are chips net of each player's contribution since the start of the game
(``pokerzoo.public.tree``'s convention); the value of a hand at a leaf is counterfactual
(weighted by the opponent's reach there), as at any node of the sweep.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.public import sweep_kernel as kernel
from pokerzoo.public.solver import PublicSolver, SolverConfig
from pokerzoo.public.subgame import (
    LEAF_LABEL,
    Depth,
    Subgame,
    cut_tree,
    find_node,
    full_tree,
    public_line,
    public_subgame,
    tree_subgame,
)

__all__ = [
    "LEAF_LABEL", "Depth", "DepthLimitedSolver", "LeafGame", "LeafValues", "Subgame",
    "cut_tree", "find_node", "full_tree", "public_line", "public_subgame", "tree_subgame",
]  # fmt: skip


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
    ``pokerzoo.public.solver.discounts`` gives them), ``"average"`` (both play their average
    strategies there) or ``"best_response"`` (``traverser`` best-responds there to the other's
    average strategy)."""

    def leaf_values(self, subgame: Subgame, leaves: np.ndarray, reach0: np.ndarray,
                    reach1: np.ndarray, mode: str, traverser: int,
                    scalars: tuple[float, float, bool, float, float]) -> np.ndarray:
        """``traverser``'s counterfactual values ``[L, H_traverser]`` at ``leaves``."""
        ...


_MODE_NAMES = {kernel.MODE_CFR: "cfr", kernel.MODE_AVERAGE: "average",
               kernel.MODE_BEST_RESPONSE: "best_response"}


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

    >>> from pokerzoo.games import load_game
    >>> from pokerzoo.public.leaf_values import OracleLeaves
    >>> game = load_game("leduc_holdem")
    >>> sub = public_subgame(game, [], [np.ones(6), np.ones(6)])
    >>> solver = DepthLimitedSolver(sub, OracleLeaves(game), algorithm="dcfr")
    >>> solver.iterate(50)
    >>> round(solver.game_value()[0], 2)
    -0.09
    """

    def __init__(self, subgame: Subgame, leaves: LeafValues | LeafGame | None,
                 config: SolverConfig | None = None, locks: dict[int, Any] | None = None,
                 **overrides: Any) -> None:
        if not isinstance(subgame, Subgame):
            raise ConfigError(f"expected a Subgame (public_subgame), got {type(subgame).__name__}")
        super().__init__(subgame.tree, config, locks, **overrides)
        if self.config.threads != 1:
            raise ConfigError("a depth-limited solve sweeps on one thread; threads must be 1")
        if subgame.num_leaves and not isinstance(leaves, LeafValues | LeafGame):
            raise ConfigError("the subgame has depth-limit leaves: leaves must offer "
                              "values(subgame, leaves, reach0, reach1) (a LeafValues)")
        if subgame.num_leaves and not np.array_equal(self._frontier, subgame.leaves):
            raise ConfigError("the subgame's chance nodes must all be depth-limit leaves")
        self.subgame = subgame
        self.leaf_source = leaves
        self._all_leaves = np.arange(subgame.num_leaves)

    def _sweep(self, mode: int, trav: int, scalars: tuple[float, float, bool, float, float],
               record: int = -1) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        tree = self.tree
        return self.sweep_from(mode, trav, scalars, 0, np.array(tree.initial_reach[trav]),
                               np.array(tree.initial_reach[1 - trav]), record)

    def sweep_from(self, mode: int, trav: int,
                   scalars: tuple[float, float, bool, float, float], start: int,
                   own: np.ndarray, opp: np.ndarray, record: int = -1,
                   ) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """One pass of ``mode`` (``sweep_kernel.MODE_*``) for ``trav`` over the subtree of
        ``start`` with these reaches there, the leaves valued by the source at the reaches the
        pass brings them: ``(trav's values at start, what record copied)`` (``record``: a node
        whose reaches and values are copied out, as in ``PublicSolver``)."""
        if not self.subgame.num_leaves:
            return self._call(mode, trav, scalars, start, own, opp, record=record)
        tree = self.tree
        count = self.subgame.num_leaves
        fronts = (np.zeros((count, tree.num_hands(trav))),
                  np.zeros((count, tree.num_hands(1 - trav))),
                  np.zeros((count, tree.num_hands(trav))))
        self._call(mode, trav, scalars, start, own, opp, update=False, fronts=fronts,
                   frontier_record=True)
        reach0, reach1 = (fronts[0], fronts[1]) if trav == 0 else (fronts[1], fronts[0])
        fronts[2][:] = self.leaf_values(mode, trav, reach0, reach1, scalars)
        return self._call(mode, trav, scalars, start, own, opp, record=record, fronts=fronts)

    def leaf_values(self, mode: int, trav: int, reach0: np.ndarray, reach1: np.ndarray,
                    scalars: tuple[float, float, bool, float, float] = (1.0, 1.0, False, 1.0,
                                                                        0.0)) -> np.ndarray:
        """``trav``'s values ``[L, H_trav]`` at every leaf for these reaches (one source call)."""
        source = self.leaf_source
        if isinstance(source, LeafGame):
            out = source.leaf_values(self.subgame, self._all_leaves, reach0, reach1,
                                     _MODE_NAMES[mode], trav, scalars)
        else:
            assert source is not None
            out = source.values(self.subgame, self._all_leaves, reach0, reach1)[trav]
        out = np.asarray(out, dtype=np.float64)
        shape = (self.subgame.num_leaves, self.tree.num_hands(trav))
        if out.shape != shape or not np.all(np.isfinite(out)):
            raise ConfigError(f"leaf values of player {trav} must be a finite {list(shape)} "
                              f"array, got shape {list(out.shape)}")
        return out

    def leaf_reaches(self, average: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Both players' reaches ``[L, H0]``, ``[L, H1]`` at the leaves under the average (or
        current) strategies."""
        tree = self.tree
        count = self.subgame.num_leaves
        fronts = (np.zeros((count, tree.num_hands(0))), np.zeros((count, tree.num_hands(1))),
                  np.zeros((count, tree.num_hands(0))))
        mode = kernel.MODE_AVERAGE if average else kernel.MODE_CFR
        if count:
            self._call(mode, 0, _NO_UPDATE, 0, np.array(tree.initial_reach[0]),
                       np.array(tree.initial_reach[1]), update=False, fronts=fronts,
                       frontier_record=True)
        return fronts[0], fronts[1]


_NO_UPDATE = (1.0, 1.0, False, 1.0, 0.0)
