"""One re-solve of the continual re-solving agent, and what it keeps of it (``Solve``).

A re-solve starts at a public node ``root`` of a small game's public tree (Kuhn, the Leduc family;
``pokerzoo.public.engine.small_games``) for the agent's player ``a``, from ``a``'s range there and
either the opponent's range (unsafe re-solving) or the opponent's counterfactual values kept from
the previous solve (the CFR-D gadget of Burch, Johanson and Bowling 2014, or the max-margin gadget
of Moravcik et al. 2016: ``pokerzoo.public.subgames.resolve``). The subgame is copied out of the
full public tree below ``root`` (a decision node, or the chance node that starts a round), to the
end of the betting round (depth-limit leaves where the next public card is dealt, laid out as
``pokerzoo.public.subgames.depth_limit`` lays them, with values from a leaf-value source) or to the
end of the game, and solved by the engine's ``ResolvingSolver``.

Values are *local*: the counterfactual value of a hand at node ``n`` sums over the other
player's hands weighted by that player's reach at ``n`` and the chance weights below ``n``,
not above (what the engine's sweep records at ``n``). A value kept at node ``n`` of one
solve is therefore the value a solve rooted at ``n`` starts from, without rescaling.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.public.engine.small_games import DenseTerminals, SmallGameTree
from pokerzoo.public.engine.solver import PublicSolver
from pokerzoo.public.engine.tree import CHANCE, DECISION, FOLD, SHOWDOWN, PublicTree
from pokerzoo.public.engine.tree_builder import PublicTreeBuilder
from pokerzoo.public.subgames.depth_limit import LeafValues
from pokerzoo.public.subgames.resolve import ResolvingSolver
from pokerzoo.public.subgames.subgame import LEAF_LABEL, Subgame


@dataclass(frozen=True, eq=False)
class Solve:
    """What the agent keeps of one solve, every node named by its id in the full public tree.

    ``strategies``: the agent's played strategy ``[actions, H_a]`` at each of its decision
    nodes in the subgame. ``opp_values`` / ``opp_range``: the opponent's local counterfactual
    values (its best response to the played strategy, the leaf values at the leaves) and its
    reach ``[H_o]`` at every node of the subgame. ``leaves``: the chance nodes where the solve
    stopped (empty for a solve to the end of the game).
    """

    root: int
    player: int
    strategies: dict[int, np.ndarray]
    opp_values: dict[int, np.ndarray]
    opp_range: dict[int, np.ndarray]
    leaves: frozenset[int]
    played_as_is: bool = False
    """A blueprint: its strategies are played at the agent's turns inside it, not
    re-solved."""

    def contains(self, node: int) -> bool:
        """Whether ``node`` is inside the subgame, above its leaves."""
        return node in self.opp_values and node not in self.leaves


def blocked(tree: PublicTree, node: int, player: int) -> np.ndarray:
    """Bool ``[H_player]``: the hands holding a public card of ``node``'s board."""
    cards = tree.board_cards(node)
    if not cards:
        return np.zeros(tree.num_hands(player), dtype=bool)
    return np.asarray(tree.card_masks[player][cards].any(axis=0))


def subtree_nodes(tree: PublicTree, root: int, stop_at_chance: bool) -> list[int]:
    """The nodes below ``root`` (itself included) in preorder; with ``stop_at_chance`` a
    chance node other than ``root`` is kept but not entered (a depth-limit leaf)."""
    out: list[int] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(node)
        if tree.kind[node] == CHANCE and stop_at_chance and node != root:
            continue
        stack.extend(reversed(tree.children(node)))
    return out


def copy_subgame(small: SmallGameTree, root: int, agent: int, own_range: np.ndarray,
                 opp_reach: np.ndarray, depth: str | None) -> tuple[Subgame, dict[int, int]]:
    """The subgame below ``root`` (any public node, a chance node included; initial reach:
    the agent's range and ``opp_reach``), cut at the next public cards when ``depth ==
    "round"`` (leaves laid out as ``public_subgame`` lays them); returns it with the map full
    id -> subgame id."""
    tree = small.tree
    reach = [np.zeros(tree.num_hands(0)), np.zeros(tree.num_hands(1))]
    reach[agent] = own_range
    reach[1 - agent] = opp_reach
    builder = PublicTreeBuilder(list(tree.hands), reach, tree.num_cards, tree.starting_pot,
                                tree.hand_names)
    payoffs = list(tree.terminals.payoffs)  # type: ignore[union-attr]
    placeholder = len(payoffs)
    payoffs.append(np.zeros_like(payoffs[0]))
    provisional: dict[int, int] = {}
    full_of: dict[int, int] = {}
    leaves: list[int] = []
    for node in subtree_nodes(tree, root, depth == "round"):
        is_root = node == root
        parent = -1 if is_root else provisional[int(tree.parent[node])]
        common: dict[str, Any] = dict(
            pot=float(tree.pot[node]), contrib=tuple(tree.contrib[node]),
            board=tree.board_cards(node), card=-1 if is_root else int(tree.chance_card[node]),
            weight=1.0 if is_root else float(tree.chance_weight[node]))
        label = "" if is_root else tree.label(node)
        kind = int(tree.kind[node])
        if kind == DECISION:
            new = builder.add_decision(parent, label, int(tree.player[node]), **common)
        elif kind == CHANCE:
            new = builder.add_chance(parent, label, **common)
            if depth == "round" and not is_root:  # a leaf: one placeholder child
                free = next(c for c in range(tree.num_cards) if c not in common["board"])
                leaf = builder.add_terminal(new, LEAF_LABEL, SHOWDOWN, pot=common["pot"],
                                            contrib=common["contrib"], board=common["board"],
                                            data=placeholder, card=free, weight=1.0)
                full_of[leaf] = node
                leaves.append(new)
        else:
            new = builder.add_terminal(parent, label, kind, folder=int(tree.folder[node])
                                       if kind == FOLD else -1,
                                       data=int(tree.terminal_data[node]), **common)
        provisional[node] = new
        full_of[new] = node
    sub_tree, final = builder.build(DenseTerminals(np.stack(payoffs)))
    full_node = np.empty(sub_tree.num_nodes, dtype=np.int64)
    for new, node in full_of.items():
        full_node[final[new]] = node
    leaf_ids = np.sort(final[np.asarray(leaves, dtype=np.int64)]) if leaves else np.zeros(
        0, dtype=np.int64)
    subgame = Subgame(small, sub_tree, tuple(tree.line(root)), depth, root, full_node, leaf_ids)
    return subgame, {full: int(final[p]) for full, p in provisional.items()}


def solve_subgame(
    small: SmallGameTree, root: int, agent: int, own_range: np.ndarray,
    opp_range: np.ndarray | None, opp_values: np.ndarray | None, *, depth: str | None,
    leaves: Any, iterations: int, gadget: str = "cfr-d", algorithm: str = "dcfr",
    draw: int | None = None, leaf_rule: str = "current",
) -> Solve:
    """Re-solve from ``root`` for ``iterations`` with the engine's ``ResolvingSolver``:
    ``gadget`` ``"unsafe"`` from ``opp_range``, ``"cfr-d"`` or ``"max-margin"`` from
    ``opp_values``. The agent plays the average strategy, or with ``draw`` = t the current
    strategy of iteration t (ReBeL's rule) at each of its nodes. ``leaf_rule``: which
    values a per-pass leaf source gives (``pokerzoo.public.subgames.depth_limit.LEAF_RULES``; the
    joint oracle, a ``LeafGame`` without them, always takes part in the passes itself)."""
    tree = small.tree
    if (gadget == "unsafe") != (opp_values is None) or (gadget == "unsafe") == (
        opp_range is None
    ):
        raise ConfigError("an unsafe re-solve takes the opponent's range, a gadget its "
                          "counterfactual values")
    opp = 1 - agent
    free = ~blocked(tree, root, opp)
    own_range = np.where(blocked(tree, root, agent), 0.0, own_range)
    reach = np.where(free, np.asarray(opp_range), 0.0) if opp_range is not None else (
        free.astype(np.float64))
    cfv = np.where(free, opp_values, 0.0) if opp_values is not None else None
    subgame, ids = copy_subgame(small, root, agent, own_range, reach, depth)
    method = {"cfr-d": "cfrd", "max-margin": "max_margin", "unsafe": "unsafe"}[gadget]
    rule = leaf_rule if isinstance(leaves, LeafValues) else "current"
    solver = ResolvingSolver(subgame, agent, cfv, leaves, method, algorithm=algorithm,
                             leaf_rule=rule)
    mine = [n for n in ids if tree.kind[n] == DECISION and tree.player[n] == agent]
    if draw is None:
        solver.iterate(iterations)
        strategies = {n: solver.strategy(ids[n], average=True) for n in mine}
    else:
        solver.iterate(draw - 1)  # iteration `draw` plays the regrets of the ones before
        strategies = {n: solver.strategy(ids[n], average=False) for n in mine}
        solver.iterate(iterations - draw + 1)  # the opponent's average: the whole solve's
    leaf_nodes = frozenset(int(subgame.full_node[x]) for x in subgame.leaves)
    return played_solve(solver, root, agent, ids, strategies, leaf_nodes)


def played_solve(solver: PublicSolver, root: int, agent: int, ids: dict[int, int],
                 strategies: dict[int, np.ndarray], leaves: frozenset[int],
                 played_as_is: bool = False) -> Solve:
    """The ``Solve`` of the agent playing ``strategies`` in ``solver``'s (sub)game: the
    opponent's best-response values to them and its reach under its average strategy, at
    every decision and chance node of ``ids`` (recorded sweeps, one per node)."""
    opp = 1 - agent
    judge = solver
    if any(not np.array_equal(s, solver.strategy(ids[n])) for n, s in strategies.items()):
        # The played strategy is not the average (ReBeL's draw): lock it, keep the rest.
        locks = {ids[n]: s for n, s in strategies.items()}
        if isinstance(solver, ResolvingSolver):
            judge = ResolvingSolver(solver.subgame, agent, solver.opp_cfv, solver.leaf_source,
                                    solver.method, config=solver.config, locks=locks,
                                    leaf_rule=solver.leaf_rule)
            judge.gadget_sums = solver.gadget_sums.copy()
            judge.gadget_regrets = solver.gadget_regrets.copy()
            judge.leaf_sums = [s.copy() for s in solver.leaf_sums]
            judge.leaf_weights = solver.leaf_weights.copy()
        else:
            judge = PublicSolver(solver.tree, locks=locks, config=solver.config)
        judge.sums[:] = solver.sums
        judge.regrets[:] = solver.regrets
    keep = {full: node for full, node in ids.items() if solver.tree.kind[node] <= CHANCE}
    # Both enter with the judge's root reaches: the agent's range, the opponent's range or
    # (a gadget) its average entering weight.
    values = _recorded(judge, "best_response", opp, keep, "values")
    ranges = _recorded(judge, "average", opp, keep, "own_reach")
    return Solve(root, agent, strategies, values, ranges, leaves, played_as_is)


def _recorded(solver: PublicSolver, kind: str, trav: int, nodes: dict[int, int],
              field: str) -> dict[int, np.ndarray]:
    """Per node of ``nodes`` (full id -> solver id), what one pass of ``kind`` for ``trav``
    from the solver's root reaches records there (``field`` of its ``NodeRecord``). The leaf
    values of a depth-limited solve are asked once for the pass, then every node is recorded
    against them."""
    frontier = None
    if solver.frontier_leaves:
        frontier = solver.leaf_values(kind, trav, *solver.frontier_reaches(kind, trav))
    out: dict[int, np.ndarray] = {}
    for full, node in nodes.items():
        record = solver.run_pass(kind, trav, record=node, frontier=frontier).record
        assert record is not None
        out[full] = getattr(record, field).copy()
    return out
