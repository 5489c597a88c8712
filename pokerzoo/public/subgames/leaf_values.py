"""Leaf-value sources for depth-limited solving (``pokerzoo.public.subgames.depth_limit``).

* ``OracleLeaves``: exact values, by solving the rest of the game below each leaf with the
  leaf's reaches as its ranges (the engine's own subgame solve).
* ``MultiValuedLeaves`` (``pokerzoo.public.subgames.multi_valued``): the opponent chooses among
  a few continuation strategies at each leaf (Brown & Sandholm 2018).

A learned source (a value network over public belief states) lives with the agents
(``pokerzoo.agents.resolver.value_net``) and offers the same ``values`` method.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.public.engine.solver import ALGORITHMS, PASS_KINDS, PublicSolver
from pokerzoo.public.engine.tree import PublicTree
from pokerzoo.public.subgames.subgame import Subgame, cut_tree, full_tree


@dataclass
class _Rest:
    """One leaf's rest of the game and the solver last used there (for warm starts)."""

    tree: PublicTree
    solver: PublicSolver | None = None


class OracleLeaves:
    """Exact leaf values: the rest of the game below each leaf solved at the leaf's reaches.

    Two ways, one object:

    * ``values(subgame, leaves, reach0, reach1)`` (the ``LeafValues`` face; a pure function
      of the reaches, for value-net targets and checks): each leaf's rest of the game is
      solved from scratch (or from the regrets of its previous solve) until its
      exploitability is at most ``tolerance`` chips or ``iterations``; each player's values
      are its hands' best-response values against the other's solved strategy, which at an
      exact solve are the equilibrium's counterfactual values and a supergradient of the
      rest's value in the player's own reach (Burch, Johanson & Bowling 2014, CFR-D;
      Brown et al. 2020, ReBeL).
    * ``leaf_values(...)`` (the ``LeafGame`` face ``DepthLimitedSolver`` uses when
      ``coupled``): each leaf keeps one solver of its rest of the game, run one CFR pass per
      trunk pass with the trunk's reaches and scalars, so the trunk and its leaves together
      make exactly the whole game's CFR (the same updates in the same order); average and
      best-response passes go through the rest's average strategies. Its trunk game value and
      exploitability are then the whole game's. With ``coupled=False`` every trunk pass
      solves the leaves afresh (CFR-D: slower, converging as the trunk's regret and the
      leaf solves' error allow).

    Args:
        game: the game whose subgames it values (its whole public tree is built once).
        iterations: most CFR iterations per leaf solve (``values``).
        tolerance: stop a leaf's solve once its exploitability is at most this many chips
            (per unit of pair mass: the game's chip scale), checked every ``check_every``.
        algorithm: of the leaf solves (``values``): ``"cfr+"``, ``"dcfr"`` or ``"postflop"``.
        warm_start: start each leaf's solve from the regrets of its previous solve (the
            trunk's reaches move a little between calls); the strategy sums restart.
        coupled: how ``DepthLimitedSolver`` uses it (see above).
    """

    def __init__(self, game: Game, iterations: int = 1000, tolerance: float = 1e-4,
                 algorithm: str = "dcfr", check_every: int = 20,
                 warm_start: bool = True, coupled: bool = True) -> None:
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
        self.coupled = bool(coupled)
        self._rests: dict[int, _Rest] = {}
        # Per subgame object (dropped with it): each leaf's coupled rest solver.
        self._coupled: weakref.WeakKeyDictionary[Subgame, dict[int, PublicSolver]] = (
            weakref.WeakKeyDictionary())
        self.solves = 0
        """Leaf solves run so far by ``values`` (a count for benchmarks)."""
        self.solve_iterations = 0
        """CFR iterations those solves took in all."""

    def leaf_values(self, subgame: Subgame, leaves: np.ndarray, reach0: np.ndarray,
                    reach1: np.ndarray, mode: str, traverser: int,
                    scalars: tuple[float, float, bool, float, float]) -> np.ndarray:
        """``traverser``'s values at ``leaves`` for one pass of ``DepthLimitedSolver``."""
        if not self.coupled:
            return self.values(subgame, leaves, reach0, reach1)[traverser]
        self._check(subgame)
        if mode not in PASS_KINDS:
            raise ConfigError(f"mode must be one of {sorted(PASS_KINDS)}, not {mode!r}")
        out = np.zeros((len(leaves), subgame.tree.num_hands(traverser)))
        for row, leaf in enumerate(np.asarray(leaves, dtype=np.int64).tolist()):
            solver = self._coupled_solver(subgame, leaf)
            out[row] = solver.run_pass(mode, traverser, discounts=scalars,
                                       reaches=(reach0[row], reach1[row])).values
        return out

    def _coupled_solver(self, subgame: Subgame, leaf: int) -> PublicSolver:
        solvers = self._coupled.setdefault(subgame, {})
        solver = solvers.get(leaf)
        if solver is None:
            node = int(subgame.leaf_full_nodes[leaf])
            solver = solvers[leaf] = PublicSolver(self._rest(node).tree,
                                                  algorithm=self.algorithm)
        return solver

    def rest_solver(self, subgame: Subgame, leaf: int) -> PublicSolver:
        """The coupled solver of leaf ``leaf``'s rest of the game (its average strategies are
        the rest's part of the whole solution; its tree is ``cut_tree`` of the leaf's node)."""
        solver = self._coupled.get(subgame, {}).get(leaf)
        if solver is None:
            raise ConfigError(f"leaf {leaf} of this subgame has no coupled solver yet "
                              "(solve the subgame first)")
        return solver

    def _check(self, subgame: Subgame) -> None:
        whole = subgame.whole
        if whole.game.name != self.small.game.name or (
            whole.tree.num_nodes != self.small.tree.num_nodes
        ):
            raise ConfigError(f"these oracle leaves solve {self.small.game.name}; the subgame "
                              f"is of {whole.game.name} with other parameters")

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
        self._check(subgame)
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
        v0 = solver.best_response(0).values  # the tree's ranges are (r0, r1)
        v1 = solver.best_response(1).values
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
