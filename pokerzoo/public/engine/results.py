"""What a solved public tree says at a node, and its save / load (no pickle).

``node_result(solver, node)`` runs one average-strategy sweep per player that records the
node: each player's reach over its hands, counterfactual values, EV per hand (chips, net of
the player's own contribution: ``pokerzoo.public.engine.tree``'s convention; a hold'em spot adds
``contrib[0, p]`` for the share of the pot), the acting player's strategy and per-action EV
per hand, and the same aggregated over hands (weighted by how often each hand is there).
Equity per hand comes from the terminals' ``equity(tree, node, player, opp_reach)`` where they
offer one (hold'em, Kuhn, Leduc); elsewhere it is ``None``.

``save_solver`` / ``load_solver`` write the tree, its terminals, the configuration, locks and
the solver's storage through ``pokerzoo.checkpoint`` (arrays and JSON); loading gives back the
same arrays bit for bit, so a loaded solver continues exactly as the saved one would.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from pokerzoo.checkpoint import checked_int, read_checkpoint, write_checkpoint
from pokerzoo.errors import CheckpointError, ConfigError
from pokerzoo.public.engine.solver import PublicSolver, SolverConfig
from pokerzoo.public.engine.tree import DECISION, PublicTree
from pokerzoo.public.engine.validation import (
    check_storage,
    check_terminal_state,
    check_tree_state,
    same_tree,
)

CHECKPOINT_NAME = "public_solver"
TERMINAL_CLASSES = {
    "DenseTerminals": "pokerzoo.public.engine.small_games:DenseTerminals",
    "HoldemTerminals": "pokerzoo.public.engine.holdem_terminal:HoldemTerminals",
    "PreflopTerminals": "pokerzoo.public.spots.preflop:PreflopTerminals",
}
"""The terminal classes a saved tree may name (a fixed table: no class is loaded by a name
read from a file unless it is listed here)."""
_STORAGE = ("regrets", "sums", "regrets16", "sums16", "rscale", "sscale")


def _storage_keys(solver: PublicSolver) -> tuple[str, ...]:
    """The solver arrays a save holds: PCFR+'s predictions too (its next strategy depends on
    them, so a resumed solve without them would not continue the same iterates)."""
    predictions = getattr(solver, "predictions", None)
    if predictions is not None and predictions.size:
        return (*_STORAGE, "predictions")
    return _STORAGE


@dataclass(frozen=True)
class NodeResult:
    """A solved tree at one node (arrays per player are over ``tree.hands[p]``)."""

    node: int
    line: list[str]
    player: int
    """The acting player (-1 at chance and terminal nodes)."""
    actions: list[str]
    reach: tuple[np.ndarray, np.ndarray]
    """Each player's reach of each hand (initial weight x own strategy x not blocked)."""
    ev: tuple[np.ndarray, np.ndarray]
    """EV per hand in chips (NaN where no opponent hand is compatible at the node)."""
    ev_total: tuple[float, float]
    """EV of each player over its hands, weighted by how often each is at the node."""
    strategy: np.ndarray | None
    """``[actions, hands]`` average strategy of the acting player."""
    action_ev: np.ndarray | None
    """``[actions, hands]`` the acting player's EV per hand after each action."""
    action_frequency: np.ndarray | None
    """``[actions]``: how often the acting player takes each action here."""
    action_ev_total: np.ndarray | None
    """``[actions]``: the acting player's EV after each action, over the hands taking it."""
    equity: tuple[np.ndarray, np.ndarray] | None


def _checked_node(tree: PublicTree, node: Any) -> int:
    if isinstance(node, bool) or not isinstance(node, int | np.integer) or not (
        0 <= node < tree.num_nodes
    ):
        raise ConfigError(f"node must be a node id 0..{tree.num_nodes - 1}, not {node!r}")
    return int(node)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(num.shape, np.nan)
    ok = den > 0
    out[ok] = num[ok] / den[ok]
    return out


def node_result(solver: PublicSolver, node: int) -> NodeResult:
    """Strategy, EV and reach per hand at ``node`` of a (partly) solved tree."""
    tree = solver.tree
    node = _checked_node(tree, node)
    reach, ev, totals, cfvs, masses = [], [], [], [], []
    recorded_actions = None
    actor = int(tree.player[node])
    for p in (0, 1):
        record = solver.expected_values(p, record=node).record
        assert record is not None
        own, opp, value, actions = record
        mass = tree.compatible_reach(p, opp)
        reach.append(own)
        cfvs.append(value)
        masses.append(mass)
        ev.append(_ratio(value, mass))
        den = float(own @ mass)
        totals.append(float(own @ value) / den if den > 0 else float("nan"))
        if p == actor:
            recorded_actions = actions
    strategy = action_ev = freq = action_total = None
    if tree.kind[node] == DECISION and recorded_actions is not None:
        strategy = solver.strategy(node)
        own, mass = reach[actor], masses[actor]
        action_ev = np.stack([_ratio(row, mass) for row in recorded_actions])
        weight = strategy * own
        freq = weight.sum(axis=1) / max(float(own.sum()), 1e-300)
        action_total = _ratio((weight * recorded_actions).sum(axis=1), weight @ mass)
    equity = None
    terminals: Any = tree.terminals
    if hasattr(terminals, "equity"):
        equity = (terminals.equity(tree, node, 0, reach[1]),
                  terminals.equity(tree, node, 1, reach[0]))
    return NodeResult(
        node=node, line=tree.line(node), player=actor,
        actions=[tree.label(c) for c in tree.children(node)],
        reach=(reach[0], reach[1]), ev=(ev[0], ev[1]), ev_total=(totals[0], totals[1]),
        strategy=strategy, action_ev=action_ev, action_frequency=freq,
        action_ev_total=action_total, equity=equity,
    )


def save_solver(solver: PublicSolver, path: str | os.PathLike) -> None:
    """Write ``solver`` (tree, terminals, config, locks, storage, iterations) to ``path``."""
    terminals: Any = solver.tree.terminals
    name = type(terminals).__name__
    if name not in TERMINAL_CLASSES or not hasattr(terminals, "state_dict"):
        raise ConfigError(f"cannot save a tree whose terminals are {name}; savable: "
                          f"{sorted(TERMINAL_CLASSES)} (with state_dict())")
    state = {
        "tree": solver.tree.state_dict(),
        "terminals": {"class": name, "state": terminals.state_dict()},
        "config": asdict(solver.config),
        "iterations": solver.iterations,
        "locks": {str(n): s for n, s in solver.locks.items()},
        "storage": {k: getattr(solver, k) for k in _storage_keys(solver)},
    }
    write_checkpoint(path, agent_name=CHECKPOINT_NAME, state=state)


def load_solver(path: str | os.PathLike) -> PublicSolver:
    """Read a solver written by ``save_solver`` (nothing in the file is executed).

    No saved array reaches a compiled sweep unchecked (``pokerzoo.public.engine.validation``): a
    saved hold'em spot's tree is rebuilt from the spot's stored definition and the stored
    tree must equal it exactly; any other tree is checked for structural consistency; then
    the locks, the configuration, the solver's arrays (shape, dtype, finite, sums >= 0) and
    the iteration count are checked.

    Raises:
        CheckpointError: naming the field that is wrong, for any tampered or damaged file.
    """
    _, state = read_checkpoint(path, agent_name=CHECKPOINT_NAME)
    try:
        if not isinstance(state, dict):
            raise CheckpointError(f"{path} is not a saved public solver: its state is no table")
        saved_terminals = state["terminals"]
        name = saved_terminals["class"] if isinstance(saved_terminals, dict) else None
        if not isinstance(name, str) or name not in TERMINAL_CLASSES:
            raise CheckpointError(f"{path}: unknown terminal class {name!r}; a saved tree has "
                                  f"one of {sorted(TERMINAL_CLASSES)}")
        tree = _checked_tree(name, state["tree"], saved_terminals["state"])
        locks_in = state["locks"]
        if not isinstance(locks_in, dict) or not all(
            isinstance(k, str) and k.isdigit() for k in locks_in
        ):
            raise CheckpointError(f"{path}: saved solver field locks must map node ids to "
                                  "strategies")
        locks = {int(n): s for n, s in locks_in.items()}
        config = state["config"]
        if not isinstance(config, dict):
            raise CheckpointError(f"{path}: saved solver field config is not a table")
        solver = PublicSolver(tree, SolverConfig(**config), locks=locks)
        keys = _storage_keys(solver)
        check_storage(state["storage"], {key: getattr(solver, key) for key in keys})
        for key in keys:
            getattr(solver, key)[...] = state["storage"][key]
        solver.iterations = checked_int(state["iterations"], "iterations", high=MAX_ITERATIONS)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        if isinstance(exc, CheckpointError):
            raise CheckpointError(f"{path}: {exc}") from exc
        raise CheckpointError(f"{path} is not a saved public solver: "
                              f"{type(exc).__name__}: {exc}") from exc
    return solver


MAX_ITERATIONS = 10**12
"""The most iterations a saved solver may claim (far past any solve that could run)."""


def _checked_tree(name: str, tree_state: Any, terminal_state: Any) -> PublicTree:
    """The saved tree with its terminals, once proven safe for the compiled sweeps."""
    spot = terminal_state.get("spot") if isinstance(terminal_state, dict) else None
    if name == "HoldemTerminals" and spot is not None:
        from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree

        if not isinstance(spot, dict):
            raise CheckpointError("saved tree field terminals.spot is not a spot's fields")
        rebuilt = build_spot_tree(HoldemSpot.from_dict(spot))
        same_tree(tree_state, rebuilt)
        check_terminal_state(name, terminal_state, tree_state)
        expected: Any = rebuilt.terminals
        if not _same_terminals(terminal_state, expected.state_dict()):
            raise CheckpointError("saved tree field terminals differs from the terminals its "
                                  "spot's definition builds")
        return rebuilt
    check_tree_state(tree_state)
    check_terminal_state(name, terminal_state, tree_state)
    module, attr = TERMINAL_CLASSES[name].split(":")
    cls = getattr(importlib.import_module(module), attr)
    tree = PublicTree.from_state(tree_state)
    terminals = cls.from_state(tree, terminal_state)
    return dataclasses.replace(tree, terminals=terminals)


def _same_terminals(saved: dict[str, Any], expected: dict[str, Any]) -> bool:
    boards = saved.get("showdown_boards")
    want = expected["showdown_boards"]
    return (isinstance(boards, np.ndarray) and boards.shape == want.shape
            and bool(np.array_equal(boards, want)) and saved.get("spot") == expected["spot"])
