"""Where the agent's depth-limited re-solves get their leaf values.

* ``oracle``: the rest of the game below each leaf solved for the leaf's reaches, by the
  value network's compiled batch solver (``pbs.LeafStates.solve_states``: DCFR on every leaf
  of a call in one compiled loop, the best-response values of each hand against the other's
  average, as ``pokerzoo.public.subgames.leaf_values.OracleLeaves`` gives them; the engine's own
  ``OracleLeaves`` solves one leaf per ``PublicSolver`` and is several times slower per
  iteration on Leduc, too slow for the hundreds of re-solves of a whole agent).
* ``network``: ``value_net.NetworkLeaves`` over a trained ``ValueNet`` (torch; imported only
  then).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerzoo.agents.resolver.pbs import LeafStates
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game


class CompiledOracleLeaves:
    """Exact leaf values up to ``iterations`` of DCFR per leaf (a ``LeafValues`` source).

    Args:
        game: the game whose subgames it values (a game with rounds: the Leduc family).
        iterations: DCFR iterations of each leaf's solve.
    """

    def __init__(self, game: Game, iterations: int = 200) -> None:
        self.states = LeafStates(game, leaves="round_end", iterations=iterations)
        self.game = game
        self.calls = 0
        """Calls answered (each solves every leaf asked)."""

    def values(self, subgame: Any, leaves: np.ndarray, reach0: np.ndarray,
               reach1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both players' counterfactual values ``[L, H0]``, ``[L, H1]`` at ``leaves``."""
        tree = self.states.tree
        if subgame.small.game.name != self.game.name or (
            subgame.small.tree.num_nodes != tree.num_nodes
        ):
            raise ConfigError(f"these oracle leaves solve {self.game.name}; the subgame is of "
                              f"{subgame.small.game.name} with other parameters")
        nodes = np.asarray(subgame.leaf_full_nodes)[np.asarray(leaves, dtype=np.int64)]
        reach0 = np.asarray(reach0, dtype=np.float64)
        reach1 = np.asarray(reach1, dtype=np.float64)
        batch = self.states.solve_states(nodes, reach0, reach1)
        self.calls += 1
        pot = np.asarray(tree.pot)[nodes][:, None]
        # solve_states normalises both ranges and reports values per pot: scale back to the
        # counterfactual values of these reaches (linear in the opponent's mass).
        mass = [np.where(self.states.blocked(p, nodes), 0.0, r).sum(axis=1, keepdims=True)
                for p, r in enumerate((reach0, reach1))]
        return batch.value0 * pot * mass[1], batch.value1 * pot * mass[0]


class JointOracleLeaves:
    """Exact leaf values by solving the rest of the game *with* the trunk (a ``LeafGame``).

    Below each leaf the rest of the game has its own regrets and strategy sums; every pass of
    the trunk's solver runs the same pass of the rest at the trunk's current reaches there
    (CFR passes update the traverser's regrets below the leaf with the iteration's discounts),
    and returns the values of the rest's current strategies (average ones, or the best
    response, in measuring passes). Together the trunk and its rests are CFR on the whole
    subgame, so the leaf values converge to the equilibrium values of the ranges the trunk
    converges to, at the trunk's own rate: the depth-limited re-solve computes no more than a
    full-depth one, and keeps its leaves (their values are what the next round's re-solve
    starts from). One instance serves one re-solve; ``JointOracle.fresh`` makes them.
    """

    def __init__(self, oracle: JointOracle, config: Any) -> None:
        self.oracle = oracle
        self.config = config
        self._solvers: dict[int, Any] = {}

    def _solver(self, node: int) -> Any:
        from pokerzoo.public.engine.solver import PublicSolver

        if node not in self._solvers:
            self._solvers[node] = PublicSolver(self.oracle.rest(node), self.config)
        return self._solvers[node]

    def leaf_values(self, subgame: Any, leaves: np.ndarray, reach0: np.ndarray,
                    reach1: np.ndarray, mode: str, traverser: int,
                    scalars: tuple[float, float, bool, float, float]) -> np.ndarray:
        """``traverser``'s values ``[L, H_traverser]`` at ``leaves`` (see the class doc); CFR
        passes update the rests with the trunk's ``scalars``."""
        nodes = np.asarray(subgame.leaf_full_nodes)[np.asarray(leaves, dtype=np.int64)]
        out = np.zeros((nodes.size, (reach0, reach1)[traverser].shape[1]))
        for row, node in enumerate(nodes.tolist()):
            # Only CFR passes take the discounts (and update the rest below the leaf).
            out[row] = self._solver(node).run_pass(mode, traverser, discounts=scalars,
                                                   reaches=(reach0[row], reach1[row])).values
        return out


class JointOracle:
    """The rests of a game below its round-end chance nodes (cut once), for
    ``JointOracleLeaves``."""

    def __init__(self, game: Game) -> None:
        from pokerzoo.public.subgames.subgame import full_tree

        self.game = game
        self.small = full_tree(game)
        self._rests: dict[int, Any] = {}

    def rest(self, node: int) -> Any:
        """The public tree of the rest of the game below the whole tree's ``node``."""
        from pokerzoo.public.subgames.subgame import cut_tree

        if node not in self._rests:
            full = self.small.tree
            reach = (np.asarray(full.initial_reach[0]), np.asarray(full.initial_reach[1]))
            self._rests[node] = cut_tree(full, node, reach, None)[0]
        return self._rests[node]

    def fresh(self, config: Any) -> JointOracleLeaves:
        """Leaves for one re-solve (solved with ``config``, a ``SolverConfig``)."""
        return JointOracleLeaves(self, config)



class HandOffLeaves:
    """A diagnostic ``LeafGame``: the trunk's CFR passes take their leaf values from
    ``search``, every measuring pass (the values a re-solve hands on to the next one, and its
    best-response checks) from ``hand_off``.

    With a value net as ``search`` and ``CompiledOracleLeaves`` as ``hand_off``, a
    depth-limited re-solve plays the trunk the net found, and the next round starts from the
    exact values of the ranges that trunk leaves there: it separates the trunk's error from the
    error of the values the net hands on.
    """

    def __init__(self, search: Any, hand_off: Any) -> None:
        for name, source in (("search", search), ("hand_off", hand_off)):
            if not callable(getattr(source, "values", None)):
                raise ConfigError(f"{name} must offer values(subgame, leaves, reach0, reach1)")
        self.search = search
        self.hand_off = hand_off

    def leaf_values(self, subgame: Any, leaves: np.ndarray, reach0: np.ndarray,
                    reach1: np.ndarray, mode: str, traverser: int,
                    scalars: tuple[float, float, bool, float, float]) -> np.ndarray:
        """``traverser``'s values ``[L, H_traverser]``: ``search``'s in CFR passes, else
        ``hand_off``'s."""
        source = self.search if mode == "cfr" else self.hand_off
        return np.asarray(source.values(subgame, leaves, reach0, reach1)[traverser])


class RecordingLeaves:
    """A ``LeafValues`` source that answers from ``source`` and keeps a share of the queries:
    the public belief states (whole-tree leaf node, both reaches) a re-solving agent's trunks
    actually ask about, for value-net data from the agent's own play (ReBeL's, Brown et al.
    2020, where DeepStack drew random ranges).

    Args:
        source: a ``LeafValues`` source.
        keep: the share of query rows kept (each row drawn independently).
        seed: seeds those draws.
    """

    def __init__(self, source: Any, keep: float = 1.0, seed: int = 0) -> None:
        if not callable(getattr(source, "values", None)):
            raise ConfigError("source must offer values(subgame, leaves, reach0, reach1)")
        if isinstance(keep, bool) or not isinstance(keep, int | float) or not 0 < keep <= 1:
            raise ConfigError(f"keep must be a share in (0, 1], not {keep!r}")
        self.source = source
        self.keep = float(keep)
        self._rng = np.random.default_rng(seed)
        self._parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def values(self, subgame: Any, leaves: np.ndarray, reach0: np.ndarray,
               reach1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``source``'s values; the rows kept are remembered."""
        leaves = np.asarray(leaves, dtype=np.int64)
        pick = self._rng.random(leaves.size) < self.keep
        if pick.any():
            nodes = np.asarray(subgame.leaf_full_nodes)[leaves[pick]]
            self._parts.append((nodes, np.array(reach0[pick], dtype=np.float64),
                                np.array(reach1[pick], dtype=np.float64)))
        return self.source.values(subgame, leaves, reach0, reach1)

    def queries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(nodes [N], reach0 [N, H0], reach1 [N, H1])`` of the rows kept so far."""
        if not self._parts:
            raise ConfigError("no leaf queries recorded yet")
        return (np.concatenate([p[0] for p in self._parts]),
                np.concatenate([p[1] for p in self._parts]),
                np.concatenate([p[2] for p in self._parts]))
