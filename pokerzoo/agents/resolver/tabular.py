"""The re-solving agent as a table: every public state either seat can reach, re-solved as
play would, written into a ``TabularPolicy`` the exact evaluator scores (``nash_conv``).

The map between the public tree and the game tree's information sets (``InfosetIndex``)
serves both directions: tabularising (public node, hand -> row) and answering an env turn
(information-state key -> public node, hand).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.public.engine.small_games import SmallGameTree
from pokerzoo.public.engine.tree import DECISION
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.tree.tabular_policy import TabularPolicy


@dataclass(frozen=True, eq=False)
class InfosetIndex:
    """Where each information set of the game tree sits in the public tree.

    ``rows[node]``: ``(hand index, infoset row)`` pairs of the acting player's hands at
    public decision ``node``; ``actions[node]``: the game's action ids of its children in
    order; ``where[key]``: ``(node, hand)`` of an information-state key.
    """

    rows: dict[int, list[tuple[int, int]]]
    actions: dict[int, list[int]]
    where: dict[Hashable, tuple[int, int]]

    @classmethod
    def build(cls, small: SmallGameTree, tree: GameTree) -> InfosetIndex:
        row_of = {key: i for i, key in enumerate(tree.infoset_keys)}
        rows: dict[int, list[tuple[int, int]]] = {}
        actions: dict[int, list[int]] = {}
        where: dict[Hashable, tuple[int, int]] = {}
        for node in np.flatnonzero(small.tree.kind == DECISION).tolist():
            keys = small.information_state_keys(node)
            i0, i1, _ = small.histories[node][0]
            actions[node] = list(small.state(node, i0, i1).legal_actions())
            rows[node] = []
            for hand, key in sorted(keys.items()):
                if key not in row_of:
                    raise ConfigError(f"information set {key!r} of public node {node} is not "
                                      "in the game tree; the trees are of different games")
                rows[node].append((hand, row_of[key]))
                where[key] = (node, hand)
        return cls(rows, actions, where)


def walk_order(small: SmallGameTree) -> list[tuple[int, int]]:
    """Every ``(seat, public decision node)`` of the agent, shallow nodes first (a turn's
    earlier turns come before it), seat 0's before seat 1's at one depth."""
    tree = small.tree
    nodes = np.flatnonzero(tree.kind == DECISION)
    order = np.lexsort((nodes, tree.player[nodes], tree.depth[nodes]))
    return [(int(tree.player[n]), int(n)) for n in nodes[order]]


def tabular_policy(
    tree: GameTree, index: InfosetIndex, strategy: Callable[[int, int], np.ndarray],
    small: SmallGameTree,
) -> TabularPolicy:
    """The table of ``strategy(seat, node) -> [actions, H_seat]`` over every information set
    of ``tree`` (each public decision node asked once, for its acting seat)."""
    probs = np.zeros(tree.infoset_mask.shape, dtype=np.float64)
    for seat, node in walk_order(small):
        block = strategy(seat, node)
        hands = np.array([h for h, _ in index.rows[node]], dtype=np.int64)
        rows = np.array([r for _, r in index.rows[node]], dtype=np.int64)
        cols = np.array(index.actions[node], dtype=np.int64)
        probs[np.ix_(rows, cols)] = block[:, hands].T
    return TabularPolicy(tree.infoset_keys, probs, tree.infoset_mask, tree.game.name,
                         tree.game.params())
