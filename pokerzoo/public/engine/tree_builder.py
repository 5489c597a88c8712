"""Building a public tree: ``PublicTreeBuilder`` collects nodes in any order, then lays them
out as a :class:`~pokerzoo.public.engine.tree.PublicTree` (see that module for the layout).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.public.engine.tree import (
    BOARD_SLOTS,
    CHANCE,
    DECISION,
    FOLD,
    KIND_NAMES,
    SHOWDOWN,
    PublicTree,
    TerminalValues,
    _frozen,
)


@dataclass(slots=True)
class _Pending:
    parent: int
    kind: int
    player: int
    label: str
    pot: float
    contrib: tuple[float, float]
    board: tuple[int, ...]
    card: int
    weight: float
    folder: int
    data: int
    iso: tuple[tuple[int, np.ndarray, np.ndarray], ...] = ()
    children: list[int] = field(default_factory=list)


class PublicTreeBuilder:
    """Collect public nodes in any order (a parent before its children), then ``build()``.

    Every ``add_*`` returns a provisional id used as ``parent`` of later nodes; ``build``
    returns the tree and the map from provisional to final ids. Children keep the order in
    which they were added (the action order of the decision).

    >>> b = PublicTreeBuilder(hands=[[[0], [1]], [[0], [1]]], initial_reach=[[1, 1], [1, 1]],
    ...                       num_cards=2, starting_pot=2.0)
    >>> root = b.add_decision(-1, "", player=0, pot=2, contrib=(1, 1))
    >>> _ = b.add_terminal(root, "fold", FOLD, pot=2, contrib=(1, 1), folder=0)
    >>> _ = b.add_terminal(root, "check", SHOWDOWN, pot=2, contrib=(1, 1))
    >>> tree, ids = b.build()
    >>> tree.summary()["nodes"], tree.label(2)
    (3, 'check')
    """

    def __init__(
        self,
        hands: Sequence[Sequence[Sequence[int]]] | Sequence[np.ndarray],
        initial_reach: Sequence[Sequence[float]] | Sequence[np.ndarray],
        num_cards: int,
        starting_pot: float,
        hand_names: Sequence[Sequence[str]] | None = None,
    ) -> None:
        if len(hands) != 2 or len(initial_reach) != 2:
            raise ConfigError("a public tree has exactly 2 players (hands and initial_reach of 2)")
        self._hands = tuple(np.asarray(h, dtype=np.int64).reshape(len(h), -1) for h in hands)
        self._reach = tuple(np.asarray(r, dtype=np.float64).reshape(-1) for r in initial_reach)
        for p in range(2):
            h, r = self._hands[p], self._reach[p]
            if h.shape[0] == 0:
                raise ConfigError(f"player {p} has no hands; every player needs at least one")
            if r.shape != (h.shape[0],) or not np.all(np.isfinite(r)) or np.any(r < 0):
                raise ConfigError(
                    f"initial_reach[{p}] must hold {h.shape[0]} finite weights >= 0"
                )
            if h.min() < 0 or h.max() >= num_cards:
                raise ConfigError(f"hands[{p}] hold cards outside 0..{num_cards - 1}")
        if hand_names is None:
            hand_names = [[" ".join(map(str, row)) for row in h.tolist()] for h in self._hands]
        self._names = tuple(tuple(str(s) for s in names) for names in hand_names)
        self._num_cards = int(num_cards)
        self._starting_pot = float(starting_pot)
        self._nodes: list[_Pending] = []

    def _add(self, parent: int, pending: _Pending) -> int:
        if parent == -1:
            if self._nodes:
                raise ConfigError("the tree already has a root; give a parent id")
        elif not 0 <= parent < len(self._nodes):
            raise ConfigError(f"unknown parent id {parent}")
        elif self._nodes[parent].kind not in (DECISION, CHANCE):
            raise ConfigError(f"node {parent} is a terminal; it cannot have children")
        self._nodes.append(pending)
        node = len(self._nodes) - 1
        if parent >= 0:
            self._nodes[parent].children.append(node)
        return node

    def add_decision(
        self, parent: int, label: str, player: int, pot: float, contrib: Sequence[float],
        board: Sequence[int] = (), card: int = -1, weight: float = 1.0,
        isomorphic: Sequence[tuple[int, Sequence[int], Sequence[int]]] = (),
    ) -> int:
        """A node where ``player`` acts. ``card``/``weight``: when ``parent`` is a chance node,
        the public card dealt on this edge and its probability; ``isomorphic``: the other
        cards this child stands for, each ``(card, hand permutation of player 0, of player
        1)`` (see the module docstring)."""
        if player not in (0, 1):
            raise ConfigError(f"player must be 0 or 1, not {player!r}")
        return self._add(parent, self._pending(parent, DECISION, player, label, pot, contrib,
                                               board, card, weight, -1, -1, isomorphic))

    def add_chance(
        self, parent: int, label: str, pot: float, contrib: Sequence[float],
        board: Sequence[int] = (), card: int = -1, weight: float = 1.0,
        isomorphic: Sequence[tuple[int, Sequence[int], Sequence[int]]] = (),
    ) -> int:
        """A node that deals a public card (its children carry ``card`` and ``weight``)."""
        return self._add(parent, self._pending(parent, CHANCE, -1, label, pot, contrib, board,
                                               card, weight, -1, -1, isomorphic))

    def add_terminal(
        self, parent: int, label: str, kind: int, pot: float, contrib: Sequence[float],
        board: Sequence[int] = (), folder: int = -1, data: int = -1, card: int = -1,
        weight: float = 1.0,
        isomorphic: Sequence[tuple[int, Sequence[int], Sequence[int]]] = (),
    ) -> int:
        """A fold (``FOLD``, ``folder`` given) or showdown (``SHOWDOWN``) terminal; ``data`` is
        an index into the terminal-value object's own tables."""
        if kind == FOLD and folder not in (0, 1):
            raise ConfigError(f"a fold terminal needs folder 0 or 1, not {folder!r}")
        if kind not in (FOLD, SHOWDOWN):
            raise ConfigError(f"terminal kind must be FOLD ({FOLD}) or SHOWDOWN ({SHOWDOWN})")
        return self._add(parent, self._pending(parent, kind, -1, label, pot, contrib, board,
                                               card, weight, folder if kind == FOLD else -1,
                                               data, isomorphic))

    def _pending(
        self, parent: int, kind: int, player: int, label: str, pot: float,
        contrib: Sequence[float], board: Sequence[int], card: int, weight: float,
        folder: int, data: int,
        isomorphic: Sequence[tuple[int, Sequence[int], Sequence[int]]] = (),
    ) -> _Pending:
        if len(contrib) != 2:
            raise ConfigError("contrib needs one amount per player (2)")
        if len(board) > BOARD_SLOTS:
            raise ConfigError(f"a board holds at most {BOARD_SLOTS} cards, not {len(board)}")
        if parent >= 0 and self._nodes[parent].kind == CHANCE:
            if not 0 <= card < self._num_cards or not weight > 0:
                raise ConfigError("a chance node's child needs its dealt card and a weight > 0")
        return _Pending(parent, kind, player, str(label), float(pot),
                        (float(contrib[0]), float(contrib[1])), tuple(int(c) for c in board),
                        int(card), float(weight), int(folder), int(data),
                        self._isomorphic(parent, card, isomorphic))

    def _isomorphic(
        self, parent: int, card: int,
        isomorphic: Sequence[tuple[int, Sequence[int], Sequence[int]]],
    ) -> tuple[tuple[int, np.ndarray, np.ndarray], ...]:
        if not isomorphic:
            return ()
        if parent < 0 or self._nodes[parent].kind != CHANCE:
            raise ConfigError("isomorphic cards belong to the children of chance nodes only")
        out = []
        for item in isomorphic:
            if len(item) != 3:
                raise ConfigError("each isomorphic card is (card, permutation 0, permutation 1)")
            other, perm0, perm1 = item
            if not 0 <= int(other) < self._num_cards or int(other) == card:
                raise ConfigError(f"isomorphic card {other!r} must be another card of the deck")
            perms = []
            for p, perm in enumerate((perm0, perm1)):
                array = np.asarray(perm, dtype=np.int64)
                size = self._hands[p].shape[0]
                if array.shape != (size,) or not np.array_equal(np.sort(array),
                                                                np.arange(size)):
                    raise ConfigError(f"the hand permutation of player {p} must reorder "
                                      f"0..{size - 1}")
                perms.append(array)
            out.append((int(other), perms[0], perms[1]))
        return tuple(out)

    def build(self, terminals: TerminalValues | None = None) -> tuple[PublicTree, np.ndarray]:
        """Lay the nodes out (sibling blocks in preorder); returns ``(tree, final_id)`` where
        ``final_id[provisional] = final``."""
        if not self._nodes:
            raise ConfigError("the tree is empty: add a root first")
        if len(self._nodes) >= 2**31:
            raise ConfigError(f"a public tree holds fewer than 2**31 nodes, not "
                              f"{len(self._nodes):,}")
        for i, pending in enumerate(self._nodes):
            if pending.kind in (DECISION, CHANCE) and not pending.children:
                raise ConfigError(f"node {i} ({KIND_NAMES[pending.kind]}) has no children")
        order = [0]
        first_child: dict[int, int] = {}
        stack = [0]
        # Number each node's children as one block, then descend into them in order.
        while stack:
            node = stack.pop()
            kids = self._nodes[node].children
            if kids:
                first_child[node] = len(order)
                order.extend(kids)
                stack.extend(reversed(kids))
        final = np.empty(len(self._nodes), dtype=np.int64)
        final[np.asarray(order)] = np.arange(len(order))
        return self._arrays(order, first_child, final, terminals), final

    def _arrays(
        self, order: list[int], first_child: dict[int, int], final: np.ndarray,
        terminals: TerminalValues | None,
    ) -> PublicTree:
        n = len(order)
        nodes = [self._nodes[i] for i in order]
        labels: dict[str, int] = {}
        boards: dict[tuple[int, ...], int] = {}
        label_index = np.full(n, -1, dtype=np.int32)
        board_index = np.zeros(n, dtype=np.int32)
        for i, node in enumerate(nodes):
            if i > 0:
                label_index[i] = labels.setdefault(node.label, len(labels))
            board_index[i] = boards.setdefault(node.board, len(boards))
        board_table = np.full((len(boards), BOARD_SLOTS), -1, dtype=np.int16)
        for cards, b in boards.items():
            board_table[b, :len(cards)] = cards
        parent = np.array([final[x.parent] if x.parent >= 0 else -1 for x in nodes],
                          dtype=np.int32)
        depth = np.zeros(n, dtype=np.int32)
        for i in range(1, n):
            depth[i] = depth[parent[i]] + 1
        rows = [row for x in nodes for row in x.iso]
        sizes = [h.shape[0] for h in self._hands]
        pairs = np.zeros((len(rows), sizes[0] + sizes[1]), dtype=iso_index_dtype(sizes))
        for k, row in enumerate(rows):
            pairs[k, :sizes[0]] = row[1]
            pairs[k, sizes[0]:] = row[2]
        iso = iso_arrays(np.array([len(x.iso) for x in nodes], dtype=np.int16),
                         np.array([row[0] for row in rows], dtype=np.int16), pairs,
                         np.arange(len(rows)), sizes)
        arrays: dict[str, np.ndarray] = dict(
            kind=np.array([x.kind for x in nodes], dtype=np.int8),
            player=np.array([x.player for x in nodes], dtype=np.int8),
            parent=parent, depth=depth,
            first_child=np.array([first_child.get(i, -1) for i in order], dtype=np.int32),
            num_children=np.array([len(x.children) for x in nodes], dtype=np.int32),
            action_label=label_index,
            pot=np.array([x.pot for x in nodes], dtype=np.float64),
            contrib=np.array([x.contrib for x in nodes], dtype=np.float64),
            board=board_index, boards=board_table,
            chance_card=np.array([x.card for x in nodes], dtype=np.int16),
            chance_weight=np.array([x.weight for x in nodes], dtype=np.float64),
            folder=np.array([x.folder for x in nodes], dtype=np.int8),
            terminal_data=np.array([x.data for x in nodes], dtype=np.int32),
        )
        return self.build_laid_out(arrays, tuple(labels), iso, terminals)

    def build_laid_out(self, nodes: dict[str, np.ndarray], labels: tuple[str, ...],
                       iso: dict[str, Any],
                       terminals: TerminalValues | None = None) -> PublicTree:
        """The tree of node arrays already laid out as ``build`` lays them out (what
        :func:`expand_templates` gives; see :func:`assemble_tree`), with this builder's
        hands, ranges and names; no node need have been added."""
        return assemble_tree(nodes, labels, iso, self._hands, self._reach, self._names,
                             self._num_cards, self._starting_pot, terminals)


def iso_index_dtype(sizes: Sequence[int]) -> type[np.integer[Any]]:
    """The dtype of hand indices in ``iso_perm``: int16 while they fit (at most 1,326
    two-card hands), else int32."""
    return np.int16 if max(sizes) <= 2**15 else np.int32


def iso_arrays(counts: np.ndarray, cards: np.ndarray, pairs: np.ndarray,
               pair_of_row: np.ndarray, sizes: Sequence[int]) -> dict[str, Any]:
    """The tree's isomorphism arrays from ``counts[n]`` (the rows of each node, in node order),
    each row's card ``cards[k]`` and permutation pair ``pairs[pair_of_row[k]]`` (a row of both
    players' permutations side by side, ``[H_0 + H_1]``; ``pairs`` may repeat a pair): per node
    its rows (``iso_offset`` / ``iso_count``), per row its card and the index of its pair in
    ``iso_perm`` (``iso_row``). A permutation depends only on the suit swap, not on the card or
    the node, so the distinct pairs are kept once (a handful, where the benchmark flop has
    12,376 rows), in ``np.unique``'s order."""
    starts = np.zeros(counts.shape[0], dtype=np.int32)
    starts[1:] = np.cumsum(counts, dtype=np.int64)[:-1]
    # Only the pairs the rows use, each once: np.unique over rows of ~700 hands is slow.
    used, which = np.unique(np.asarray(pair_of_row, dtype=np.int64), return_inverse=True)
    distinct, row_index = np.unique(pairs[used], axis=0, return_inverse=True)
    return {
        "iso_offset": _frozen(starts), "iso_count": _frozen(counts.astype(np.int16)),
        "iso_card": _frozen(cards.astype(np.int16)),
        "iso_row": _frozen(row_index.reshape(-1)[which.reshape(-1)].astype(np.int32)),
        "iso_perm": (_frozen(distinct[:, :sizes[0]]), _frozen(distinct[:, sizes[0]:])),
    }


def assemble_tree(
    nodes: dict[str, np.ndarray], labels: tuple[str, ...], iso: dict[str, Any],
    hands: Sequence[np.ndarray], reach: Sequence[np.ndarray], names: Sequence[Sequence[str]],
    num_cards: int, starting_pot: float, terminals: TerminalValues | None,
) -> PublicTree:
    """The :class:`~pokerzoo.public.engine.tree.PublicTree` of laid-out node arrays (``nodes``: its
    per-node fields but ``offset``, by name; ``iso``: :func:`iso_arrays`): the storage offsets
    of the decisions (in node order) and the narrow dtypes where values fit."""
    kind, player, num_children = nodes["kind"], nodes["player"], nodes["num_children"]
    sizes = np.array([hands[0].shape[0], hands[1].shape[0]], dtype=np.int64)
    decisions = np.flatnonzero(kind == DECISION)
    blocks = num_children[decisions].astype(np.int64) * sizes[player[decisions]]
    ends = np.cumsum(blocks)
    total = int(ends[-1]) if ends.size else 0
    # int32 while the storage fits it (half the bytes), int64 past 2**31 entries.
    offset = np.full(kind.shape[0], -1, dtype=np.int32 if total < 2**31 else np.int64)
    offset[decisions] = ends - blocks
    narrowed = dict(nodes, offset=offset)
    # Depths and label indices are small: int16 where they fit (2 MB less on the flop
    # benchmark, which the batched river pass's buffers use).
    if nodes["depth"].max(initial=0) < 2**15:
        narrowed["depth"] = nodes["depth"].astype(np.int16)
    if len(labels) < 2**15:
        narrowed["action_label"] = nodes["action_label"].astype(np.int16)
    frozen: dict[str, Any] = {name: _frozen(array) for name, array in narrowed.items()}
    return PublicTree(
        **frozen, **iso, labels=labels,
        hands=tuple(_frozen(h) for h in hands), initial_reach=tuple(_frozen(r) for r in reach),
        hand_names=tuple(tuple(n) for n in names), num_cards=num_cards,
        starting_pot=starting_pot, terminals=terminals,
    )


@numba.njit(cache=True, nogil=True)
def expand_templates(g_kind, g_edge_start, g_edge_count, e_child, e_label, g_next,
                     s_deal_start, s_deal_count, d_label, d_state, root, root_state,
                     num_nodes):
    """Lay out the tree a template graph stands for, in the layout of ``build`` (each node's
    children numbered as one block when the node is reached, depth first in child order).

    The graph (``G`` nodes, a DAG: equal betting states are one node) holds the betting:
    a decision ``g`` (``g_kind`` 0) has the edges ``g_edge_start[g]`` .. ``+ g_edge_count[g]``,
    each to ``e_child`` with the label code ``e_label``; a chance node (``g_kind`` 1) deals
    the cards of its board's state ``s`` (``s_deal_start[s]`` .. ``+ s_deal_count[s]``),
    each deal ``d`` to ``g_next[g]`` on the board's state ``d_state[d]``, labelled
    ``d_label[d]``; the other kinds are terminals. Returns per node its template node, board
    state, parent, depth, first child (-1 at leaves), children, label code (-1 at the root),
    deal (-1 off chance children) and rank in preorder (the order a recursive walk reaches
    the nodes), and how many nodes were laid out (at most ``num_nodes``, -1 past it)."""
    g_of = np.empty(num_nodes, np.int32)
    state = np.empty(num_nodes, np.int32)
    parent = np.empty(num_nodes, np.int32)
    depth = np.empty(num_nodes, np.int32)
    first_child = np.full(num_nodes, -1, np.int32)
    num_children = np.zeros(num_nodes, np.int32)
    label = np.empty(num_nodes, np.int32)
    deal = np.full(num_nodes, -1, np.int32)
    pre = np.empty(num_nodes, np.int32)
    stack = np.empty(num_nodes, np.int32)
    g_of[0], state[0], parent[0], depth[0], label[0] = root, root_state, -1, 0, -1
    top, size, visited = 1, 1, 0
    stack[0] = 0
    while top > 0:
        top -= 1
        node = stack[top]
        pre[visited] = node
        visited += 1
        g = g_of[node]
        s = state[node]
        if g_kind[g] == 0:
            start, count = g_edge_start[g], g_edge_count[g]
        elif g_kind[g] == 1:
            start, count = s_deal_start[s], s_deal_count[s]
        else:
            continue
        if size + count > num_nodes:
            return g_of, state, parent, depth, first_child, num_children, label, deal, pre, -1
        first_child[node] = size
        num_children[node] = count
        for k in range(count):
            child = size + k
            parent[child] = node
            depth[child] = depth[node] + 1
            if g_kind[g] == 0:
                g_of[child] = e_child[start + k]
                state[child] = s
                label[child] = e_label[start + k]
            else:
                g_of[child] = g_next[g]
                state[child] = d_state[start + k]
                label[child] = d_label[start + k]
                deal[child] = start + k
        # Pushed last to first, so the first child is reached next.
        for k in range(count - 1, -1, -1):
            stack[top] = size + k
            top += 1
        size += count
    return g_of, state, parent, depth, first_child, num_children, label, deal, pre, size


@numba.njit(cache=True, nogil=True)
def first_seen(codes, num_codes):
    """``(distinct, index)`` of codes in ``0 .. num_codes - 1``: the distinct codes in the
    order they first occur, and each entry's position among them (int32), in one pass."""
    rank = np.full(num_codes, -1, np.int32)
    distinct = np.empty(num_codes, np.int32)
    index = np.empty(codes.shape[0], np.int32)
    seen = 0
    for i in range(codes.shape[0]):
        code = codes[i]
        if rank[code] < 0:
            rank[code] = seen
            distinct[seen] = code
            seen += 1
        index[i] = rank[code]
    return distinct[:seen], index
