"""Checks of saved public trees and solver states before any compiled sweep sees them.

The compiled sweeps do no bounds checks, so an array read from a file that indexes another
(a child, a parent, a storage offset, a board, a hand) must be proven in range first, or a
tampered file reads and writes outside the arrays (a segmentation fault at best).

Two checks, chosen by what the file holds:

- a saved hold'em spot carries its definition (the ``HoldemSpot`` fields), so its tree is
  rebuilt from that definition and every stored tree array must equal the rebuilt one exactly
  (``same_tree``): the strongest check, which also refuses a board or a payoff that was
  changed consistently;
- a generic saved tree (Kuhn, Leduc, a spot without its definition) is checked for structural
  consistency (``check_tree_state``), vectorised over nodes: index ranges, children contiguous
  and pointing back to their parent, depths, kinds and players valid, storage blocks inside the
  storage and disjoint, hand lists and permutations in range, chance weights in [0, 1], pots
  and payoffs finite.

Then ``check_storage`` checks the solver's arrays (shape, dtype, finiteness, sign).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from pokerzoo.checkpoint import checked_array
from pokerzoo.errors import CheckpointError
from pokerzoo.public.engine.tree import CHANCE, DECISION, FOLD, SHOWDOWN, PublicTree

MAX_SAVED_NODES = 2**31 - 1
_INDEX_ARRAYS = ("kind", "player", "parent", "depth", "first_child", "num_children",
                 "action_label", "board", "chance_card", "folder", "terminal_data", "offset",
                 "iso_offset", "iso_count")
_TREE_ARRAYS = (*_INDEX_ARRAYS, "pot", "contrib", "boards", "chance_weight", "iso_card",
                "iso_row")


def _refuse(field: str, why: str) -> CheckpointError:
    return CheckpointError(f"saved tree field {field} {why}; the file was tampered with or "
                           "damaged: use an intact copy or solve again")


def _field(state: Mapping[str, Any], name: str) -> Any:
    if name not in state:
        raise _refuse(name, "is missing")
    return state[name]


def same_tree(state: Mapping[str, Any], rebuilt: PublicTree) -> None:
    """Require the saved tree ``state`` to equal ``rebuilt`` (built from the saved spot's
    definition) array for array: same keys, dtypes, shapes and values.

    Raises:
        CheckpointError: naming the first field that differs.
    """
    expected = rebuilt.state_dict()
    if not isinstance(state, Mapping):
        raise _refuse("tree", "is not a table of arrays")
    for name in sorted(set(state) | set(expected)):
        if name not in state:
            raise _refuse(name, "is missing")
        if name not in expected:
            raise _refuse(name, "is not a field of a tree")
        if not _equal(state[name], expected[name]):
            raise _refuse(name, "differs from the tree its spot's definition builds")


def _equal(saved: Any, expected: Any) -> bool:
    if isinstance(expected, np.ndarray):
        return (isinstance(saved, np.ndarray) and saved.dtype == expected.dtype
                and saved.shape == expected.shape
                and bool(np.array_equal(saved, expected, equal_nan=saved.dtype.kind == "f")))
    if isinstance(expected, list):
        return (isinstance(saved, list) and len(saved) == len(expected)
                and all(_equal(a, b) for a, b in zip(saved, expected, strict=True)))
    return type(saved) is type(expected) and bool(saved == expected)


def _node_array(state: Mapping[str, Any], name: str, num_nodes: int, kinds: str) -> np.ndarray:
    value = _field(state, name)
    shape = (num_nodes, 2) if name == "contrib" else (num_nodes,)
    return checked_array(value, f"tree.{name}", kinds=kinds, shape=shape)


def check_tree_state(state: Mapping[str, Any]) -> None:
    """Check a saved tree's arrays for structural consistency (vectorised over nodes).

    Raises:
        CheckpointError: naming the field that is out of range or inconsistent.
    """
    if not isinstance(state, Mapping):
        raise _refuse("tree", "is not a table of arrays")
    kind = checked_array(_field(state, "kind"), "tree.kind", kinds="iu", ndim=1)
    n = int(kind.shape[0])
    if not 1 <= n <= MAX_SAVED_NODES:
        raise _refuse("kind", f"has {n} nodes; a tree has 1 to {MAX_SAVED_NODES}")
    a = {name: _node_array(state, name, n, "iu").astype(np.int64) for name in _INDEX_ARRAYS}
    pot = _node_array(state, "pot", n, "f")
    contrib = _node_array(state, "contrib", n, "f")
    weight = _node_array(state, "chance_weight", n, "f")
    num_cards = _field(state, "num_cards")
    if isinstance(num_cards, bool) or not isinstance(num_cards, int) or not 1 <= num_cards <= 52:
        raise _refuse("num_cards", "must be an int from 1 to 52")
    labels = _field(state, "labels")
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        raise _refuse("labels", "must be a list of strings")
    hands = _checked_hands(state, num_cards)
    sizes = np.array([h.shape[0] for h in hands], dtype=np.int64)

    kind = a["kind"]
    if (kind < DECISION).any() or (kind > SHOWDOWN).any():
        raise _refuse("kind", "holds a kind outside 0..3 (decision, chance, fold, showdown)")
    nodes = np.arange(n, dtype=np.int64)
    parent, first, count = a["parent"], a["first_child"], a["num_children"]
    if parent[0] != -1 or (n > 1 and ((parent[1:] < 0) | (parent[1:] >= nodes[1:])).any()):
        raise _refuse("parent", "must be -1 at the root and a lower node id elsewhere")
    inner = (kind == DECISION) | (kind == CHANCE)
    if (count < 0).any() or (count[~inner] != 0).any() or (count[inner] < 1).any():
        raise _refuse("num_children", "must be >= 1 at decision and chance nodes, 0 at terminals")
    if int(count.sum()) != n - 1:
        raise _refuse("num_children", f"sums to {int(count.sum())}; a tree of {n} nodes has "
                      f"{n - 1} children")
    has = count > 0
    if ((first[has] <= nodes[has]) | (first[has] + count[has] > n)).any():
        raise _refuse("first_child", f"points outside the nodes after its own (up to {n - 1})")
    child, up = nodes[1:], parent[1:]
    if ((child < first[up]) | (child >= first[up] + count[up])).any():
        raise _refuse("first_child", "and parent disagree: a child lies outside its parent's "
                      "block of children")
    if a["depth"][0] != 0 or (n > 1 and (a["depth"][1:] != a["depth"][up] + 1).any()):
        raise _refuse("depth", "must be 0 at the root and its parent's depth + 1 elsewhere")
    player = a["player"]
    decision = kind == DECISION
    if ((player[decision] < 0) | (player[decision] > 1)).any() or (player[~decision] != -1).any():
        raise _refuse("player", "must be 0 or 1 at decision nodes and -1 elsewhere")
    folder = a["folder"]
    fold = kind == FOLD
    if ((folder[fold] < 0) | (folder[fold] > 1)).any() or (folder[~fold] != -1).any():
        raise _refuse("folder", "must be 0 or 1 at fold nodes and -1 elsewhere")
    label = a["action_label"]
    if label[0] != -1 or (n > 1 and ((label[1:] < 0) | (label[1:] >= len(labels))).any()):
        raise _refuse("action_label", f"must be -1 at the root and 0..{len(labels) - 1} "
                      "elsewhere")
    boards = checked_array(_field(state, "boards"), "tree.boards", kinds="iu", ndim=2,
                           low=-1, high=num_cards - 1)
    if boards.shape[0] < 1 or boards.shape[1] != 5:
        raise _refuse("boards", "must be a [boards >= 1, 5] table")
    if ((a["board"] < 0) | (a["board"] >= boards.shape[0])).any():
        raise _refuse("board", f"must index the {boards.shape[0]} boards")
    card = a["chance_card"]
    if ((card < -1) | (card >= num_cards)).any():
        raise _refuse("chance_card", f"must be -1 or a card 0..{num_cards - 1}")
    if ((weight < 0) | (weight > 1)).any():
        raise _refuse("chance_weight", "must be a probability in [0, 1]")
    if (pot < 0).any() or (contrib < 0).any():
        raise _refuse("pot", "and contrib must be >= 0")
    if (a["terminal_data"] < -1).any():
        raise _refuse("terminal_data", "must be -1 or the index of a terminal's table")
    _check_offsets(a["offset"], decision, player, count, sizes)
    _check_iso(state, a, num_cards, sizes)


def _checked_hands(state: Mapping[str, Any], num_cards: int) -> list[np.ndarray]:
    hands_in, reach_in = _field(state, "hands"), _field(state, "initial_reach")
    names = _field(state, "hand_names")
    if not all(isinstance(x, list) and len(x) == 2 for x in (hands_in, reach_in, names)):
        raise _refuse("hands", "initial_reach and hand_names must list two players")
    hands = []
    for p in (0, 1):
        h = checked_array(hands_in[p], f"tree.hands[{p}]", kinds="iu", ndim=2, low=0,
                          high=num_cards - 1)
        if not 1 <= h.shape[0] <= 1326 or not 1 <= h.shape[1] <= 2:
            raise _refuse(f"hands[{p}]", "must be [1..1326 hands, 1 or 2 cards]")
        if h.shape[1] == 2 and (h[:, 0] == h[:, 1]).any():
            raise _refuse(f"hands[{p}]", "holds a hand with one card twice")
        hands.append(h)
        checked_array(reach_in[p], f"tree.initial_reach[{p}]", kinds="f",
                      shape=(h.shape[0],), low=0.0)
        if not isinstance(names[p], list) or len(names[p]) != h.shape[0]:
            raise _refuse(f"hand_names[{p}]", "must name each hand once")
    return hands


def _check_offsets(offset: np.ndarray, decision: np.ndarray, player: np.ndarray,
                   count: np.ndarray, sizes: np.ndarray) -> None:
    if (offset[~decision] != -1).any():
        raise _refuse("offset", "must be -1 off decision nodes")
    start = offset[decision]
    if (start < 0).any():
        raise _refuse("offset", "must be >= 0 at decision nodes")
    length = count[decision] * sizes[player[decision]]
    order = np.argsort(start, kind="stable")
    start, end = start[order], (start + length)[order]
    if (end[:-1] > start[1:]).any():
        raise _refuse("offset", "gives decision nodes overlapping storage blocks")


def _check_iso(state: Mapping[str, Any], a: Mapping[str, np.ndarray], num_cards: int,
               sizes: np.ndarray) -> None:
    iso_card = checked_array(_field(state, "iso_card"), "tree.iso_card", kinds="iu", ndim=1,
                             low=0, high=num_cards - 1)
    rows = iso_card.shape[0]
    iso_row = checked_array(_field(state, "iso_row"), "tree.iso_row", kinds="iu",
                            shape=(rows,), low=0)
    off, cnt = a["iso_offset"], a["iso_count"]
    if (cnt < 0).any() or (off < 0).any() or (off + cnt > rows).any():
        raise _refuse("iso_offset", f"and iso_count must give rows within 0..{rows}")
    perms = _field(state, "iso_perm")
    if not isinstance(perms, list) or len(perms) != 2:
        raise _refuse("iso_perm", "must list two players' permutations")
    distinct = None
    for p in (0, 1):
        perm = checked_array(perms[p], f"tree.iso_perm[{p}]", kinds="iu", ndim=2)
        if perm.shape[1] != sizes[p] or (distinct is not None and perm.shape[0] != distinct):
            raise _refuse(f"iso_perm[{p}]", f"must be [permutations, {int(sizes[p])}]")
        distinct = perm.shape[0]
        if perm.size and (np.sort(perm, axis=1) != np.arange(sizes[p])).any():
            raise _refuse(f"iso_perm[{p}]", "holds a row that is not a permutation of hands")
    if rows and (iso_row.max() >= (distinct or 0)):
        raise _refuse("iso_row", f"must index the {distinct} permutations")


def check_storage(saved: Mapping[str, Any], target: Mapping[str, np.ndarray]) -> None:
    """Require each saved solver array to match its freshly allocated ``target`` in shape and
    dtype, to be finite, and the strategy sums and scales to be >= 0.

    Raises:
        CheckpointError: naming the array.
    """
    if not isinstance(saved, Mapping):
        raise CheckpointError("saved solver field storage is not a table of arrays")
    for key, fresh in target.items():
        if key not in saved:
            raise CheckpointError(f"saved solver field storage.{key} is missing")
        value = saved[key]
        if not isinstance(value, np.ndarray) or value.dtype != fresh.dtype:
            found = value.dtype if isinstance(value, np.ndarray) else type(value).__name__
            raise CheckpointError(f"saved solver field storage.{key} holds {found}; it must "
                                  f"hold {fresh.dtype} (as this tree's solver stores it)")
        low = 0.0 if key in ("sums", "rscale", "sscale") else None
        checked_array(value, f"storage.{key}", kinds=fresh.dtype.kind, shape=fresh.shape,
                      low=low)


def check_terminal_state(name: str, state: Any, tree: Mapping[str, Any]) -> None:
    """Check a saved tree's terminal tables against its (already checked) tree arrays: the
    payoffs of dense terminals, the hands and showdown boards of hold'em terminals, and that
    every terminal's ``terminal_data`` indexes them.

    Raises:
        CheckpointError: naming the field.
    """
    if not isinstance(state, Mapping):
        raise _refuse("terminals", "is not a table")
    kind = np.asarray(tree["kind"])
    data = np.asarray(tree["terminal_data"], dtype=np.int64)
    sizes = tuple(int(h.shape[0]) for h in tree["hands"])
    if name in ("DenseTerminals", "PreflopTerminals"):
        payoffs = checked_array(_field(state, "payoffs"), "terminals.payoffs", kinds="f", ndim=3)
        if name == "PreflopTerminals" and "equity" in state:
            checked_array(state["equity"], "terminals.equity", kinds="f", shape=sizes,
                          low=0.0, high=1.0)
        if payoffs.shape[1:] != sizes:
            raise _refuse("terminals.payoffs", f"must be [tables, {sizes[0]}, {sizes[1]}]")
        rows = payoffs.shape[0]
        if ("table" in state) != ("scale" in state):
            raise _refuse("terminals.table", "and terminals.scale come together")
        if "table" in state:
            table = checked_array(state["table"], "terminals.table", kinds="iu", ndim=1,
                                  low=0, high=payoffs.shape[0] - 1)
            checked_array(state["scale"], "terminals.scale", kinds="f", shape=table.shape)
            rows = table.shape[0]
        ends = (kind == FOLD) | (kind == SHOWDOWN)
        if ((data[ends] < 0) | (data[ends] >= rows)).any():
            raise _refuse("terminal_data", f"must index the {rows} payoff rows")
        return
    hands = _field(state, "hands")
    if not isinstance(hands, list) or len(hands) != 2 or not all(
        _equal(hands[p], tree["hands"][p]) for p in (0, 1)
    ):
        raise _refuse("terminals.hands", "differ from the tree's hands")
    if int(tree["num_cards"]) != 52 or tree["hands"][0].shape[1] != 2:
        raise _refuse("num_cards", "must be 52 with two-card hands in a hold'em tree")
    boards = checked_array(_field(state, "showdown_boards"), "terminals.showdown_boards",
                           kinds="iu", ndim=2, low=0, high=51)
    if boards.shape[1] != 5 or _repeats(boards):
        raise _refuse("terminals.showdown_boards", "must be rows of five different cards")
    rows = np.asarray(tree["boards"])
    if _repeats(rows):
        raise _refuse("boards", "holds a board with a card twice")
    showdown = kind == SHOWDOWN
    if ((data[showdown] < 0) | (data[showdown] >= boards.shape[0])
            | (rows[tree["board"][showdown], 4] < 0)).any():
        raise _refuse("terminal_data", f"must index the {boards.shape[0]} showdown boards "
                      "at showdowns on five-card boards")
    if showdown.any() and (np.sort(boards[data[showdown]], axis=1)
                           != np.sort(rows[tree["board"][showdown]], axis=1)).any():
        raise _refuse("terminals.showdown_boards", "differ from the boards of the showdowns")


def _repeats(rows: np.ndarray) -> bool:
    """Whether a row of cards (-1 padded) holds one card twice."""
    ordered = np.sort(rows.astype(np.int64), axis=1)
    return bool(((ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)).any())
