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
the permutation ``iso_perm[p][iso_row[k]]`` of hand indices under the swap taking ``c'`` to
``c``: the value of hand ``h`` had ``c'`` come is the child's value of hand
``iso_perm[p][iso_row[k]][h]``. The permutations depend only on the suit swap, so
``iso_perm`` keeps each distinct pair once and ``iso_row`` points rows at them. Each such card
has the child's ``chance_weight``; its subtree is not stored.

Terminals: ``kind`` 2 (a fold, ``folder[n]`` folded) or 3 (a showdown). Their values come from a
``TerminalValues`` object attached to the tree (dense matrices for Kuhn/Leduc, compiled sweeps
for hold'em); ``terminal_data[n]`` is a free index into that object's own tables.

Build a tree with ``PublicTreeBuilder`` (nodes added in any order, parents first; ``build``
lays them out).
"""

from __future__ import annotations

import functools
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
    """Terminal values the compiled sweep (``pokerzoo.public.engine.sweep_kernel``) calls directly.

    ``compiled(tree)`` returns ``(kernel, data)``: ``kernel`` a ``numba.njit`` function
    ``kernel(node, player, opp_reach, out, data) -> None`` that writes into ``out[H_player]``
    the values of ``TerminalValues.values`` at terminal ``node`` (fold or showdown: it reads
    the kind itself, e.g. from a copy of ``tree.kind`` kept in ``data``), and ``data`` a tuple
    of arrays and scalars the kernel reads, passed through the sweep unchanged. Hands blocked
    by the board may get any finite value (the sweep zeroes them). With
    ``SolverConfig.threads > 1`` several threads call the kernel at once: it must not write
    into ``data`` (scratch arrays are allocated inside, or per call).

    To save and load solved trees (``pokerzoo.public.engine.solver``), a terminal class also offers
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
    isomorphic cards a chance child stands for: rows of ``iso_card`` and ``iso_row`` ``[K]``,
    the distinct permutations ``iso_perm[p]`` ``[P, H_p]``; see the module docstring).

    Built trees keep node indices in int32 (at most ``2**31 - 1`` nodes), depths, label indices
    and hand indices in ``iso_perm`` in int16 (where they fit), and ``offset`` in int32 while
    the storage has fewer than ``2**31`` entries (int64 past that); trees loaded from older
    checkpoints may hold wider integers, which work the same.
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
    iso_row: np.ndarray
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
                 "iso_count", "iso_card", "iso_row")
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
        if "iso_row" not in arrays:  # saved before the permutations were kept once each
            arrays["iso_row"] = _frozen(np.arange(len(arrays["iso_card"]), dtype=np.int32))
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

