"""Building a public tree: ``PublicTreeBuilder`` collects nodes in any order, then lays them
out as a :class:`~pokerzoo.public.tree.PublicTree` (see that module for the layout).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.public.tree import (
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

    def _iso_arrays(self, nodes: list[_Pending]) -> dict[str, Any]:
        """The isomorphism arrays: per node its rows (``iso_offset`` / ``iso_count``), per
        row the card and the index of its permutation pair in ``iso_perm`` (``iso_row``).
        A permutation depends only on the suit swap, not on the card or the node, so the
        distinct pairs are kept once (a handful, where the benchmark flop has 12,376 rows)."""
        counts = np.array([len(x.iso) for x in nodes], dtype=np.int16)
        starts = np.zeros(len(nodes), dtype=np.int32)
        starts[1:] = np.cumsum(counts, dtype=np.int64)[:-1]
        rows = [row for x in nodes for row in x.iso]
        sizes = [h.shape[0] for h in self._hands]
        # Hand indices fit int16 (at most 1,326 two-card hands).
        index = np.int16 if max(sizes) <= 2**15 else np.int32
        both = np.zeros((len(rows), sizes[0] + sizes[1]), dtype=index)
        for k, row in enumerate(rows):
            both[k, :sizes[0]] = row[1]
            both[k, sizes[0]:] = row[2]
        distinct, row_index = np.unique(both, axis=0, return_inverse=True)
        return {
            "iso_offset": _frozen(starts), "iso_count": _frozen(counts),
            "iso_card": _frozen(np.array([row[0] for row in rows], dtype=np.int16)),
            "iso_row": _frozen(row_index.reshape(-1).astype(np.int32)),
            "iso_perm": (_frozen(distinct[:, :sizes[0]]), _frozen(distinct[:, sizes[0]:])),
        }

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
        kind = np.array([x.kind for x in nodes], dtype=np.int8)
        player = np.array([x.player for x in nodes], dtype=np.int8)
        num_children = np.array([len(x.children) for x in nodes], dtype=np.int32)
        fc = np.array([first_child.get(i, -1) for i in order], dtype=np.int32)
        sizes = np.array([self._hands[0].shape[0], self._hands[1].shape[0]], dtype=np.int64)
        decisions = np.flatnonzero(kind == DECISION)
        blocks = num_children[decisions].astype(np.int64) * sizes[player[decisions]]
        ends = np.cumsum(blocks)
        total = int(ends[-1]) if ends.size else 0
        # int32 while the storage fits it (half the bytes), int64 past 2**31 entries.
        offset = np.full(n, -1, dtype=np.int32 if total < 2**31 else np.int64)
        offset[decisions] = ends - blocks
        parent = np.array([final[x.parent] if x.parent >= 0 else -1 for x in nodes],
                          dtype=np.int32)
        depth = np.zeros(n, dtype=np.int32)
        for i in range(1, n):
            depth[i] = depth[parent[i]] + 1
        # Depths and label indices are small: int16 where they fit (2 MB less on the flop
        # benchmark, which the batched river pass's buffers use).
        if depth.max(initial=0) < 2**15:
            depth = depth.astype(np.int16)
        if len(labels) < 2**15:
            label_index = label_index.astype(np.int16)
        return PublicTree(
            kind=_frozen(kind), player=_frozen(player), parent=_frozen(parent),
            depth=_frozen(depth), first_child=_frozen(fc), num_children=_frozen(num_children),
            action_label=_frozen(label_index),
            pot=_frozen(np.array([x.pot for x in nodes], dtype=np.float64)),
            contrib=_frozen(np.array([x.contrib for x in nodes], dtype=np.float64)),
            board=_frozen(board_index), boards=_frozen(board_table),
            chance_card=_frozen(np.array([x.card for x in nodes], dtype=np.int16)),
            chance_weight=_frozen(np.array([x.weight for x in nodes], dtype=np.float64)),
            folder=_frozen(np.array([x.folder for x in nodes], dtype=np.int8)),
            terminal_data=_frozen(np.array([x.data for x in nodes], dtype=np.int32)),
            offset=_frozen(offset), **self._iso_arrays(nodes), labels=tuple(labels),
            hands=tuple(_frozen(h) for h in self._hands),
            initial_reach=tuple(_frozen(r) for r in self._reach),
            hand_names=self._names, num_cards=self._num_cards,
            starting_pot=self._starting_pot, terminals=terminals,
        )
