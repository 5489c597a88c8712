"""Leaf-value sources for depth-limited solving (``pokerzoo.public.depth_limit``).

* ``OracleLeaves``: exact values, by solving the rest of the game below each leaf with the
  leaf's reaches as its ranges (the engine's own subgame solve).
* ``MultiValuedLeaves`` (``pokerzoo.public.multi_valued``): the opponent chooses among a few
  continuation strategies at each leaf (Brown & Sandholm 2018).

A learned source (a value network over public belief states) lives with the agents
(``pokerzoo.agents.resolver.value_net``) and offers the same ``values`` method.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.public import sweep_kernel as kernel
from pokerzoo.public.depth_limit import Subgame, cut_tree, full_tree
from pokerzoo.public.solver import ALGORITHMS, PublicSolver
from pokerzoo.public.tree import PublicTree

_NO_UPDATE = (1.0, 1.0, False, 1.0, 0.0)


@dataclass
class _Rest:
    """One leaf's rest of the game and the solver last used there (for warm starts)."""

    tree: PublicTree
    solver: PublicSolver | None = None


class OracleLeaves:
    """Exact leaf values: the rest of the game below each leaf solved at the leaf's reaches.

    Below a leaf, both players play an equilibrium of the rest of the game given the reaches
    (the leaf's public belief state). Each player's returned values are its hands' best-
    response values against the other's solved strategy there: at an exact solve these are
    the equilibrium's counterfactual values, and they are a supergradient of the rest's value
    in the player's own reach (what makes a trunk solved against them converge to a whole-game
    equilibrium; Brown et al. 2020, ReBeL, section 4).

    Args:
        game: the game whose subgames it values (its whole public tree is built once).
        iterations: most CFR iterations per leaf solve.
        tolerance: stop a leaf's solve once its exploitability is at most this many chips
            (per unit of pair mass: the game's chip scale), checked every ``check_every``.
        algorithm: ``"cfr+"``, ``"dcfr"`` or ``"postflop"``.
        warm_start: start each leaf's solve from the regrets of its previous solve (the
            trunk's reaches move a little between calls); the strategy sums restart.
    """

    def __init__(self, game: Game, iterations: int = 2000, tolerance: float = 1e-5,
                 algorithm: str = "cfr+", check_every: int = 20,
                 warm_start: bool = True) -> None:
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise ConfigError(f"iterations must be an int >= 1, not {iterations!r}")
        if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or not (
            tolerance >= 0
        ):
            raise ConfigError(f"tolerance must be a number >= 0, not {tolerance!r}")
        if algorithm not in ALGORITHMS:
            raise ConfigError(f"algorithm must be one of {ALGORITHMS}, not {algorithm!r}")
        if isinstance(check_every, bool) or not isinstance(check_every, int) or check_every < 1:
            raise ConfigError(f"check_every must be an int >= 1, not {check_every!r}")
        self.small = full_tree(game)
        self.iterations = iterations
        self.tolerance = float(tolerance)
        self.algorithm = algorithm
        self.check_every = check_every
        self.warm_start = bool(warm_start)
        self._rests: dict[int, _Rest] = {}
        self.solves = 0
        """Leaf solves run so far (a count for benchmarks)."""
        self.solve_iterations = 0
        """CFR iterations those solves took in all."""

    def _rest(self, node: int) -> _Rest:
        rest = self._rests.get(node)
        if rest is None:
            full = self.small.tree
            reach = (np.asarray(full.initial_reach[0]), np.asarray(full.initial_reach[1]))
            tree, _, _ = cut_tree(full, node, reach, None)
            rest = self._rests[node] = _Rest(tree)
        return rest

    def values(self, subgame: Subgame, leaves: np.ndarray, reach0: np.ndarray,
               reach1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both players' counterfactual values ``[L, H0]``, ``[L, H1]`` at ``leaves``."""
        if subgame.small.game.name != self.small.game.name or (
            subgame.small.tree.num_nodes != self.small.tree.num_nodes
        ):
            raise ConfigError(f"these oracle leaves solve {self.small.game.name}; the subgame "
                              f"is of {subgame.small.game.name} with other parameters")
        leaves = np.asarray(leaves, dtype=np.int64)
        out0 = np.zeros((leaves.size, subgame.tree.num_hands(0)))
        out1 = np.zeros((leaves.size, subgame.tree.num_hands(1)))
        for row, leaf in enumerate(leaves.tolist()):
            node = int(subgame.leaf_full_nodes[leaf])
            out0[row], out1[row] = self.solve_leaf(node, reach0[row], reach1[row])
        return out0, out1

    def solve_leaf(self, node: int, reach0: np.ndarray, reach1: np.ndarray,
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Both players' values at the whole game's node ``node`` for these reaches."""
        mass0, mass1 = float(reach0.sum()), float(reach1.sum())
        if mass0 <= 0.0 and mass1 <= 0.0:
            return np.zeros(reach0.shape), np.zeros(reach1.shape)
        # The rest's equilibrium depends on the reaches' shapes only: solve at unit masses.
        # A player who never gets here has values weighted by nothing (0) and the other's are
        # taken against a uniform range of it (any strategy of the absent player's opponent
        # gives a supergradient there).
        rest = self._rest(node)
        r0 = reach0 / mass0 if mass0 > 0 else self._uniform(rest.tree, node, 0)
        r1 = reach1 / mass1 if mass1 > 0 else self._uniform(rest.tree, node, 1)
        from dataclasses import replace

        tree = replace(rest.tree, initial_reach=(r0, r1))
        solver = PublicSolver(tree, algorithm=self.algorithm)
        if self.warm_start and rest.solver is not None:
            solver.regrets[:] = rest.solver.regrets
        self._solve(solver)
        rest.solver = solver
        self.solves += 1
        v0 = solver._call(kernel.MODE_BEST_RESPONSE, 0, _NO_UPDATE, 0, r0.copy(), r1.copy())[0]
        v1 = solver._call(kernel.MODE_BEST_RESPONSE, 1, _NO_UPDATE, 0, r1.copy(), r0.copy())[0]
        return v0 * max(mass1, 0.0), v1 * max(mass0, 0.0)

    def _uniform(self, tree: PublicTree, node: int, player: int) -> np.ndarray:
        out = np.ones(tree.num_hands(player))
        for card in self.small.tree.board_cards(node):
            out[tree.hands_holding(player, card)] = 0.0
        return out / out.sum()

    def _solve(self, solver: PublicSolver) -> None:
        # Exploitability in chips of this tree: (BR_0 + BR_1) / 2 over pair mass 1 or less.
        while solver.iterations < self.iterations:
            solver.iterate(min(self.check_every, self.iterations - solver.iterations))
            if self.tolerance > 0 and solver.exploitability() <= self.tolerance:
                break
        self.solve_iterations += solver.iterations
