"""Node locking of a hold'em spot by line and by hand, as users write it.

The solver locks by internal ids: ``PublicSolver(tree, locks={node: [actions, hands]})``.
Here a lock names a **line** and **hands** instead::

    solve_spot(spot, locks={
        "check, bet 50": {                        # the decision after these actions
            "AKs": "call",                        # a hand class: always call
            "QQ": {"call": 0.5, "raise 150": 0.5},
            "AhKh": {"fold": 0.25},               # one combo; the rest shared (see below)
            "*": {"fold": 1},                     # every hand not named above
        },
    })

* The line is comma-separated action labels as ``solve.py --line`` takes them (``"check,
  bet 50"``); ``""`` or ``"root"`` is the root. A list of labels or a node id works too, and
  a node id or a line may also map straight to a ``[actions, hands]`` array.
* Hands are hand classes (``"AKs"``, ``"QQ"``, ``"AKo"``), single combos (``"AhKh"``) or
  range strings (``"QQ+,AKs"``); each maps to ``{action label: frequency}``, or to one action
  label (frequency 1). ``"*"`` stands for every hand of the player's range not named by
  another entry. A hand named by two entries is refused.
* **Partial locks**: frequencies are in 0..1 and sum to at most 1; the actions a hand's
  entry leaves out share the rest equally (``{"fold": 0.25}`` over fold, call and raise is
  fold 0.25, call 0.375, raise 0.375). An entry naming every action must sum to 1.
* A lock fixes the whole decision (the solver locks nodes, not hands), so every hand of the
  acting player's range must be covered: name it or give ``"*"``. Hands that the node's
  board blocks never reach it and need no entry.

Everything is checked against the tree before the solve: an unknown line, a line that ends
at no decision, an unknown action, an entry with no hand of the acting player's range there,
are one-line :class:`~pokerzoo.errors.ConfigError`\\ s. :func:`line_locks` turns the whole
table into the solver's id/array form, so the solver is unchanged.

In a spot file the same table is ``[locks]`` (see ``docs/spot_format.md``)::

    [locks."check, bet 50"]
    AKs = "call"
    QQ = { call = 0.5, "raise 150" = 0.5 }
    "*" = { fold = 1 }
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.public.engine.tree import DECISION, PublicTree
from pokerzoo.public.spots.holdem_spot import read_spot_toml
from pokerzoo.public.spots.ranges import COMBO_INDEX, NUM_COMBOS, parse_range

REST = "*"
"""The hand entry standing for every hand of the range not named by another entry."""
ROOT_NAMES = ("", "root")


def parse_line(text: str) -> list[str]:
    """``"check, bet 94"`` -> ``["check", "bet 94"]``; ``""`` and ``"root"`` are the root."""
    if not isinstance(text, str):
        raise ConfigError(f"a line is a string of comma-separated action labels, got {text!r}")
    if text.strip().lower() in ROOT_NAMES:
        return []
    return [part.strip() for part in text.split(",") if part.strip()]


def node_of_line(tree: PublicTree, labels: Sequence[str]) -> int:
    """The node reached from the root by the edge ``labels``.

    Raises:
        ConfigError: a label that is no action there, naming the ones that are.
    """
    node = 0
    for label in labels:
        kids = {tree.label(c): c for c in tree.children(node)}
        if label not in kids:
            raise ConfigError(f"no action {label!r} after {tree.line(node)}; "
                              f"there: {sorted(kids)}")
        node = kids[label]
    return node


def _lock_node(tree: PublicTree, key: object) -> tuple[int, str]:
    """The decision node a lock's key names, and the key as the messages show it."""
    if isinstance(key, bool):
        raise ConfigError(f"a lock is keyed by a line or a node id, got {key!r}")
    if isinstance(key, int | np.integer):
        return int(key), f"node {int(key)}"  # PublicSolver checks the id
    if isinstance(key, str):
        labels = parse_line(key)
    elif isinstance(key, Sequence) and all(isinstance(k, str) for k in key):
        labels = list(key)
    else:
        raise ConfigError(f"a lock is keyed by a line ('check, bet 50') or a node id, "
                          f"got {key!r}")
    shown = f"line {', '.join(labels) or 'root'!r}"
    node = node_of_line(tree, labels)
    if tree.kind[node] != DECISION:
        raise ConfigError(f"the lock of {shown}: it ends at no decision (locks name the "
                          f"line to a player's decision)")
    return node, shown


def _frequencies(entry: object, actions: list[str], where: str) -> np.ndarray:
    """One hand entry (``{action: frequency}`` or an action label) as a row ``[actions]``."""
    if isinstance(entry, str):
        entry = {entry: 1.0}
    if not isinstance(entry, Mapping) or not entry:
        raise ConfigError(f"{where} must map actions to frequencies, e.g. {{'call': 1}}, or "
                          f"name one action; got {entry!r}")
    row = np.full(len(actions), np.nan)
    for action, value in entry.items():
        if action not in actions:
            raise ConfigError(f"{where}: no action {action!r} there; allowed: {actions}")
        if isinstance(value, bool) or not isinstance(value, int | float) or not (
                math.isfinite(value) and 0.0 <= value <= 1.0):
            raise ConfigError(f"{where}: the frequency of {action!r} must be a number in "
                              f"0..1, got {value!r}")
        row[actions.index(action)] = float(value)
    given = np.isfinite(row)
    total = float(row[given].sum())
    if total > 1.0 + 1e-9:
        raise ConfigError(f"{where}: the frequencies sum to {total:g}, more than 1")
    if given.all():
        if abs(total - 1.0) > 1e-6:
            raise ConfigError(f"{where}: the frequencies of all the actions sum to {total:g}; "
                              "they must sum to 1 (or leave actions out to share the rest)")
        return row
    row[~given] = (1.0 - total) / int((~given).sum())
    return row


def _hand_table(tree: PublicTree, node: int, table: Mapping[Any, Any], shown: str) -> np.ndarray:
    """A ``{hands: frequencies}`` table at decision ``node`` as the ``[actions, hands]``
    strategy of the acting player."""
    player = int(tree.player[node])
    who = ("out of position", "in position")[player]
    actions = [tree.label(c) for c in tree.children(node)]
    hands = np.asarray(tree.hands[player])
    board = tree.board_cards(node)
    position = np.full(NUM_COMBOS, -1, dtype=np.int64)
    position[COMBO_INDEX[hands[:, 0], hands[:, 1]]] = np.arange(hands.shape[0])
    blocked = np.isin(hands, np.asarray(board, dtype=hands.dtype)).any(axis=1)
    strategy = np.zeros((len(actions), hands.shape[0]))
    named = np.zeros(hands.shape[0], dtype=bool)
    rest = None
    for spec, entry in table.items():
        where = f"the lock of {shown}, {spec!r}"
        if not isinstance(spec, str):
            raise ConfigError(f"the lock of {shown}: hands are named by strings ('AKs', "
                              f"'AhKh', 'QQ+'), got {spec!r}")
        row = _frequencies(entry, actions, where)
        if spec.strip() == REST:
            rest = row
            continue
        try:
            combos = np.flatnonzero(parse_range(spec, board) > 0)
        except ConfigError as err:
            raise ConfigError(f"{where}: {err}") from None
        mine = position[combos]
        mine = mine[mine >= 0]
        if mine.size == 0:
            raise ConfigError(f"{where}: no hand of the {who} player's range there "
                              f"(the acting player at that line)")
        if named[mine].any():
            raise ConfigError(f"{where}: names hands another entry of this lock names too")
        strategy[:, mine] = row[:, None]
        named[mine] = True
    left = ~named & ~blocked
    if rest is not None:
        strategy[:, left] = rest[:, None]
    elif left.any():
        names = [tree.hand_names[player][i] for i in np.flatnonzero(left)[:3]]
        raise ConfigError(f"the lock of {shown} leaves {int(left.sum())} of the {who} "
                          f"player's hands unlocked (e.g. {', '.join(names)}); name them or "
                          f"give '{REST}' for the rest")
    # Hands the board blocks never reach the node: any strategy does; a uniform one sums to 1.
    strategy[:, blocked & ~named] = 1.0 / len(actions)
    return strategy


def line_locks(tree: PublicTree, locks: Mapping[Any, Any] | None) -> dict[int, Any]:
    """Locks by line and hand (see the module doc) in the solver's ``{node id: [actions,
    hands]}`` form; node ids and arrays pass through (``PublicSolver`` checks them).

    Raises:
        ConfigError: an unknown line or action, a line ending at no decision, a hand entry
            with no hand of the acting player's range, a hand left unlocked, bad
            frequencies, or two keys naming one node.
    """
    if locks is None:
        return {}
    if not isinstance(locks, Mapping):
        raise ConfigError(f"locks must map lines to hand tables, got {type(locks).__name__}")
    out: dict[int, Any] = {}
    for key, value in locks.items():
        node, shown = _lock_node(tree, key)
        if node in out:
            raise ConfigError(f"the lock of {shown}: that decision is locked twice")
        out[node] = _hand_table(tree, node, value, shown) if isinstance(value, Mapping) else (
            value)
    return out


def spot_file_locks(path: str | Path) -> Mapping[str, Any] | None:
    """The ``[locks]`` table of a spot file (top level, or inside its ``[spot]`` table), or
    ``None`` when it has none.

    Raises:
        ConfigError: the file cannot be read or is not TOML, or ``locks`` is not a table.
    """
    data = read_spot_toml(path)
    spot = data.get("spot", data)
    locks = spot.get("locks", data.get("locks")) if isinstance(spot, Mapping) else None
    if locks is not None and not isinstance(locks, Mapping):
        raise ConfigError(f"locks in {str(path)!r} must be a table ([locks.\"check, bet 50\"]), "
                          f"got {locks!r}")
    return locks


def spot_locks(tree: PublicTree, locks: Mapping[Any, Any] | None,
               path: str | Path | None = None) -> dict[int, Any]:
    """``line_locks`` of the spot file's ``[locks]`` (when ``path`` is given) and ``locks``
    together; a decision locked by both is refused."""
    from_file = line_locks(tree, spot_file_locks(path)) if path is not None else {}
    given = line_locks(tree, locks)
    both = sorted(set(from_file) & set(given))
    if both:
        raise ConfigError(f"decision(s) {[tree.line(n) for n in both]} are locked by both the "
                          "spot file and the locks argument; lock each once")
    return {**from_file, **given}


__all__ = ["REST", "line_locks", "node_of_line", "parse_line", "spot_file_locks", "spot_locks"]
