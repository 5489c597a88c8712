"""The public tree: public actions x public cards, with per-player arrays over private hands.

One node per *public* state (the betting so far and the public cards). Each player ``p`` has one
fixed hand list for the whole tree, ``hands[p]`` (``[H_p, k]`` private card ids; k = 1 for Kuhn
and Leduc, 2 for hold'em) and an initial weight per hand ``initial_reach[p]`` (its range).
Hands blocked by a public card dealt lower in the tree keep their row; the chance step zeroes
their reach below that card (``hands_holding``).

Layout (every array read-only, one row per node, root 0): children of a node are contiguous,
``first_child[n] .. first_child[n] + num_children[n] - 1``, and sibling blocks are laid out in
depth-first preorder (a node's children are numbered together, then the first child's subtree
gets its blocks, then the second's, ...), so ``first_child[n] > n`` and a forward loop over node
ids visits every parent before its children.

Per-decision-node storage: a solver keeps ``[num_children[n], H_player[n]]`` blocks (regrets,
strategy sums) in one flat array; ``offset[n]`` is where node ``n``'s block starts (-1 at other
nodes) and ``storage_size`` the total number of entries.

Value convention (every value in this package, both kinds of terminal):
    Values are **chips won net of the player's own contribution** since the start of the game
    (what ``State.returns()`` gives): winning a pot of 6 to which you put 3 is +3, folding after
    putting in 2 is -2. The *counterfactual value* of player ``p``'s hand ``h`` at node ``n`` is
    ``sum over opponent hands h' not sharing a card with h (nor the board) of
    opp_reach(h') * chance weights on the path * u_p(h, h')``, where ``opp_reach`` is the
    opponent's initial weight times its strategy's probabilities along the path. The expected
    value of the game for ``p`` is ``sum_h initial_reach_p(h) * cfv_p(h) / Z`` with ``Z`` the
    sum of ``initial_reach_0(h0) * initial_reach_1(h1)`` over compatible pairs
    (``PublicTree.pair_mass``), so ranges need not be normalised. In a hold'em spot that starts
    with chips already in the pot, a player's "EV" as solvers report it (the share of the pot
    won) is this value plus ``contrib[0, p]``.

Suit isomorphism: a chance node's child for card ``c`` may also stand for other cards ``c'``
whose subtrees are the same up to a suit swap (the ranges and the board allow it). Its
``iso_count[n]`` rows from ``iso_offset[n]`` name each such card (``iso_card``) and, per player,
the permutation ``iso_perm[p][k]`` of hand indices under the swap taking ``c'`` to ``c``: the
value of hand ``h`` had ``c'`` come is the child's value of hand ``iso_perm[p][k][h]``. Each
such card has the child's ``chance_weight``; its subtree is not stored.

Terminals: ``kind`` 2 (a fold, ``folder[n]`` folded) or 3 (a showdown). Their values come from a
``TerminalValues`` object attached to the tree (dense matrices for Kuhn/Leduc, compiled sweeps
for hold'em); ``terminal_data[n]`` is a free index into that object's own tables.

Build a tree with ``PublicTreeBuilder`` (nodes added in any order, parents first; ``build``
lays them out).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from pokerzoo.errors import ConfigError

DECISION, CHANCE, FOLD, SHOWDOWN = 0, 1, 2, 3
KIND_NAMES = ("decision", "chance", "fold", "showdown")
BOARD_SLOTS = 5


@runtime_checkable
class TerminalValues(Protocol):
    """Counterfactual values at terminal nodes (see the module docstring's convention)."""

    def values(
        self, tree: PublicTree, node: int, player: int, opp_reach: np.ndarray
    ) -> np.ndarray:
        """Values ``[H_player]`` of ``player``'s hands at terminal ``node`` given the
        opponent's reach ``[H_opponent]`` (chance weights already in it)."""
        ...


@runtime_checkable
class CompiledTerminals(Protocol):
    """Terminal values the compiled sweep (``pokerzoo.public.sweep_kernel``) calls directly.

    ``compiled(tree)`` returns ``(kernel, data)``: ``kernel`` a ``numba.njit`` function
    ``kernel(node, player, opp_reach, out, data) -> None`` that writes into ``out[H_player]``
    the values of ``TerminalValues.values`` at terminal ``node`` (fold or showdown: it reads
    the kind itself, e.g. from a copy of ``tree.kind`` kept in ``data``), and ``data`` a tuple
    of arrays and scalars the kernel reads, passed through the sweep unchanged. Hands blocked
    by the board may get any finite value (the sweep zeroes them). With
    ``SolverConfig.threads > 1`` several threads call the kernel at once: it must not write
    into ``data`` (scratch arrays are allocated inside, or per call).

    To save and load solved trees (``pokerzoo.public.solver``), a terminal class also offers
    ``state_dict() -> dict`` (arrays and JSON scalars) and ``from_state(tree, state)`` (a
    classmethod), and is listed in ``solver.TERMINAL_CLASSES`` (no code is loaded by name
    from a file).
    """

    def compiled(self, tree: PublicTree) -> tuple[Any, tuple[Any, ...]]:
        """The kernel and its data for ``tree`` (see the class docstring)."""
        ...


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class PublicTree:
    """A public tree as flat read-only arrays (see the module docstring for the layout).

    Node arrays (length ``num_nodes``): kind, player (-1 off decisions), parent (-1 at the
    root), depth, first_child, num_children, action_label (index into ``labels``; the root's
    is -1), pot (float64 chips), contrib (``[num_nodes, 2]`` float64), board (index into
    ``boards``, ``[num_boards, 5]`` -1 padded), chance_card and chance_weight (of the edge into
    a chance node's child; -1 / 1.0 elsewhere), folder (-1 off fold terminals), terminal_data,
    offset (storage start of decision nodes, -1 elsewhere), iso_offset and iso_count (the
    isomorphic cards a chance child stands for: rows of ``iso_card`` ``[K]`` and
    ``iso_perm[p]`` ``[K, H_p]``; see the module docstring).
    """

    kind: np.ndarray
    player: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    action_label: np.ndarray
    pot: np.ndarray
    contrib: np.ndarray
    board: np.ndarray
    boards: np.ndarray
    chance_card: np.ndarray
    chance_weight: np.ndarray
    folder: np.ndarray
    terminal_data: np.ndarray
    offset: np.ndarray
    iso_offset: np.ndarray
    iso_count: np.ndarray
    iso_card: np.ndarray
    iso_perm: tuple[np.ndarray, ...]
    labels: tuple[str, ...]
    hands: tuple[np.ndarray, ...]
    initial_reach: tuple[np.ndarray, ...]
    hand_names: tuple[tuple[str, ...], ...]
    num_cards: int
    starting_pot: float
    terminals: TerminalValues | None = field(default=None, repr=False)
    num_players: int = 2

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])

    def num_hands(self, player: int) -> int:
        return int(self.hands[player].shape[0])

    @functools.cached_property
    def storage_size(self) -> int:
        """Entries of one per-decision-node ``[actions, hands]`` storage array."""
        ends = [
            int(self.offset[n]) + int(self.num_children[n]) * self.num_hands(int(self.player[n]))
            for n in np.flatnonzero(self.kind == DECISION)
        ]
        return max(ends, default=0)

    def children(self, node: int) -> range:
        start = int(self.first_child[node])
        return range(start, start + int(self.num_children[node]))

    def label(self, node: int) -> str:
        """The label of the edge into ``node`` ("" at the root)."""
        index = int(self.action_label[node])
        return self.labels[index] if index >= 0 else ""

    def line(self, node: int) -> list[str]:
        """The edge labels from the root down to ``node``."""
        out: list[str] = []
        while node > 0:
            out.append(self.label(node))
            node = int(self.parent[node])
        return out[::-1]

    def board_cards(self, node: int) -> list[int]:
        row = self.boards[int(self.board[node])]
        return [int(c) for c in row if c >= 0]

    def block(self, storage: np.ndarray, node: int) -> np.ndarray:
        """Node ``node``'s ``[actions, hands]`` view of a flat per-decision storage array."""
        if self.kind[node] != DECISION:
            kind = KIND_NAMES[self.kind[node]]
            raise ConfigError(f"node {node} is a {kind} node; storage blocks are at decisions")
        start = int(self.offset[node])
        rows = int(self.num_children[node])
        cols = self.num_hands(int(self.player[node]))
        return storage[start:start + rows * cols].reshape(rows, cols)

    @functools.cached_property
    def card_masks(self) -> tuple[np.ndarray, ...]:
        """Per player, ``[num_cards, H_p]`` bool: which hands hold each card."""
        masks = []
        for hands in self.hands:
            mask = np.zeros((self.num_cards, hands.shape[0]), dtype=bool)
            for col in range(hands.shape[1]):
                mask[hands[:, col], np.arange(hands.shape[0])] = True
            mask.flags.writeable = False
            masks.append(mask)
        return tuple(masks)

    def hands_holding(self, player: int, card: int) -> np.ndarray:
        """Bool ``[H_player]``: the hands of ``player`` that hold ``card``."""
        return self.card_masks[player][card]

    @functools.cached_property
    def compatible(self) -> np.ndarray:
        """``[H_0, H_1]`` bool: the hand pairs that share no card (dense; small games and tests)."""
        a = self.card_masks[0].astype(np.int64)
        b = self.card_masks[1].astype(np.int64)
        out = (a.T @ b) == 0
        out.flags.writeable = False
        return out

    @functools.cached_property
    def pair_mass(self) -> float:
        """``Z``: the total initial weight of compatible hand pairs (see the value convention)."""
        if self.hands[0].shape[1] == 1 or self.num_hands(0) * self.num_hands(1) <= 4_000_000:
            return float(self.initial_reach[0] @ self.compatible @ self.initial_reach[1])
        # Inclusion-exclusion over cards: pairs sharing a card are subtracted once per shared
        # card, so pairs holding the same two cards were subtracted twice; add them back once.
        per_card_0 = self.card_masks[0].astype(np.float64) @ self.initial_reach[0]
        per_card_1 = self.card_masks[1].astype(np.float64) @ self.initial_reach[1]
        total = float(self.initial_reach[0].sum() * self.initial_reach[1].sum())
        return total - float(per_card_0 @ per_card_1) + self._same_combo_mass()

    def _same_combo_mass(self) -> float:
        # Two-card pairs sharing both cards were subtracted twice by the per-card sums.
        index = {tuple(sorted(map(int, h))): i for i, h in enumerate(self.hands[1])}
        mass = 0.0
        for i, h in enumerate(self.hands[0]):
            j = index.get(tuple(sorted(map(int, h))))
            if j is not None:
                mass += float(self.initial_reach[0][i] * self.initial_reach[1][j])
        return mass

    def path_weight(self, node: int) -> float:
        """The product of the chance weights on the edges from the root to ``node``."""
        weight = 1.0
        while node > 0:
            weight *= float(self.chance_weight[node])
            node = int(self.parent[node])
        return weight

    def compatible_reach(self, player: int, opp_reach: np.ndarray) -> np.ndarray:
        """``[H_player]``: the opponent's reach summed over the hands sharing no card with each
        of ``player``'s hands (inclusion-exclusion over per-card sums; exact for 1- and 2-card
        hands)."""
        opp = 1 - player
        per_card = self.card_masks[opp].astype(np.float64) @ opp_reach
        out = float(np.sum(opp_reach)) - self.card_masks[player].T.astype(np.float64) @ per_card
        if self.hands[player].shape[1] == 2:
            same = self._same_combo(player)
            has = same >= 0
            out[has] += opp_reach[same[has]]
        return out

    def _same_combo(self, player: int) -> np.ndarray:
        index = {tuple(sorted(map(int, h))): i for i, h in enumerate(self.hands[1 - player])}
        return np.array([index.get(tuple(sorted(map(int, h))), -1) for h in self.hands[player]],
                        dtype=np.int64)

    def state_dict(self) -> dict[str, Any]:
        """The tree's arrays and tables (for checkpoints; ``from_state`` rebuilds it)."""
        names = ("kind", "player", "parent", "depth", "first_child", "num_children",
                 "action_label", "pot", "contrib", "board", "boards", "chance_card",
                 "chance_weight", "folder", "terminal_data", "offset", "iso_offset",
                 "iso_count", "iso_card")
        state: dict[str, Any] = {name: np.array(getattr(self, name)) for name in names}
        state["iso_perm"] = [np.array(x) for x in self.iso_perm]
        state["labels"] = list(self.labels)
        state["hands"] = [np.array(h) for h in self.hands]
        state["initial_reach"] = [np.array(r) for r in self.initial_reach]
        state["hand_names"] = [list(n) for n in self.hand_names]
        state["num_cards"] = self.num_cards
        state["starting_pot"] = self.starting_pot
        return state

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> PublicTree:
        """The tree ``state_dict`` describes, without terminals (attach them with
        ``dataclasses.replace(tree, terminals=...)``)."""
        arrays: dict[str, Any] = {k: _frozen(np.asarray(v)) for k, v in state.items()
                  if k not in ("labels", "hands", "initial_reach", "hand_names", "num_cards",
                               "starting_pot", "iso_perm")}
        return cls(
            **arrays,
            iso_perm=tuple(_frozen(np.asarray(x)) for x in state["iso_perm"]),
            labels=tuple(str(x) for x in state["labels"]),
            hands=tuple(_frozen(np.asarray(h)) for h in state["hands"]),
            initial_reach=tuple(_frozen(np.asarray(r)) for r in state["initial_reach"]),
            hand_names=tuple(tuple(str(x) for x in n) for n in state["hand_names"]),
            num_cards=int(state["num_cards"]), starting_pot=float(state["starting_pot"]),
        )

    def summary(self) -> dict[str, int]:
        counts = np.bincount(self.kind, minlength=4)
        return {
            "nodes": self.num_nodes,
            **{KIND_NAMES[k]: int(counts[k]) for k in range(4)},
            "hands_0": self.num_hands(0),
            "hands_1": self.num_hands(1),
            "storage": self.storage_size,
        }


@dataclass
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
        counts = np.array([len(x.iso) for x in nodes], dtype=np.int32)
        starts = np.zeros(len(nodes), dtype=np.int64)
        starts[1:] = np.cumsum(counts)[:-1]
        rows = [row for x in nodes for row in x.iso]
        perms = tuple(
            np.array([row[1 + p] for row in rows], dtype=np.int64).reshape(
                len(rows), self._hands[p].shape[0])
            for p in (0, 1)
        )
        return {
            "iso_offset": _frozen(starts), "iso_count": _frozen(counts),
            "iso_card": _frozen(np.array([row[0] for row in rows], dtype=np.int16)),
            "iso_perm": tuple(_frozen(x) for x in perms),
        }

    def build(self, terminals: TerminalValues | None = None) -> tuple[PublicTree, np.ndarray]:
        """Lay the nodes out (sibling blocks in preorder); returns ``(tree, final_id)`` where
        ``final_id[provisional] = final``."""
        if not self._nodes:
            raise ConfigError("the tree is empty: add a root first")
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
        fc = np.array([first_child.get(i, -1) for i in order], dtype=np.int64)
        offset = np.full(n, -1, dtype=np.int64)
        sizes = [self._hands[0].shape[0], self._hands[1].shape[0]]
        position = 0
        for i in np.flatnonzero(kind == DECISION).tolist():
            offset[i] = position
            position += int(num_children[i]) * sizes[int(player[i])]
        parent = np.array([final[x.parent] if x.parent >= 0 else -1 for x in nodes], dtype=np.int64)
        depth = np.zeros(n, dtype=np.int32)
        for i in range(1, n):
            depth[i] = depth[parent[i]] + 1
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
            terminal_data=_frozen(np.array([x.data for x in nodes], dtype=np.int64)),
            offset=_frozen(offset), **self._iso_arrays(nodes), labels=tuple(labels),
            hands=tuple(_frozen(h) for h in self._hands),
            initial_reach=tuple(_frozen(r) for r in self._reach),
            hand_names=self._names, num_cards=self._num_cards,
            starting_pot=self._starting_pot, terminals=terminals,
        )
