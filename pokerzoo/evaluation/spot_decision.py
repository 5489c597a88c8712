"""An agent's decision at one node of a spot, scored against the spot's equilibrium.

Where :mod:`pokerzoo.evaluation.spot_eval` locks an agent at *every* node of its player (which, on a
flop spot, asks a network agent hundreds of millions of times), this scores what the agent
does at one decision (``scope="decision"``) or at every node of its player on that decision's
street below it (``scope="street"``):

1. the spot's actions on ``line`` (spot labels from the root, e.g. ``["bet 5"]``) are locked,
   every hand taking them, so the node is faced as the spot declares it;
2. the equilibrium of the rest is solved: the reference value ``V_eq`` of the node's player;
3. the agent's player is locked, hand by hand, to the agent's action frequencies at the scored
   nodes (its policy asked on a ``State`` of its game at each node: spot actions and game
   actions matched by chips), the rest solved again: ``V_lock``;
4. EV loss = ``V_eq - V_lock`` (chips per deal of the spot, and % of its starting pot).

Both solves are approximate; their best responses bound each value (``-BR_opp <= V <=
BR_own``), so the loss comes with an interval that holds whatever the solves' error.

Game actions the spot lacks at a scored node (a 3/4-pot raise where the spot has half pot and
pot) go, with ``off_tree="nearest"``, to the spot's bet or raise (never its check or call)
nearest in chips (split evenly on a tie); with ``"drop"`` they are dropped and the rest
renormalized. Their largest share of a
hand's probability is reported as ``off_tree_mass``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.spot_eval import (
    _game_chips,
    find_line,
    reach_spot_root,
    spot_action_map,
)
from pokerzoo.games.base import Game, State
from pokerzoo.public.engine.solver import PublicSolver
from pokerzoo.public.engine.tree import DECISION, PublicTree
from pokerzoo.public.spots.holdem_spot import HoldemSpot, spot_seats
from pokerzoo.public.spots.spot_locks import node_of_line

SCOPES = ("decision", "street")
OFF_TREE = ("nearest", "drop")


def node_at(tree: PublicTree, line: Sequence[str]) -> int:
    """The node the spot labels ``line`` lead to from the root; ConfigError naming the
    labels offered where one is missing."""
    return node_of_line(tree, line)


def line_locks(tree: PublicTree, node: int) -> dict[int, np.ndarray]:
    """Every decision above ``node`` locked to the action toward it, with every hand."""
    locks: dict[int, np.ndarray] = {}
    while node > 0:
        parent = int(tree.parent[node])
        if tree.kind[parent] == DECISION:
            k = int(tree.num_children[parent])
            strategy = np.zeros((k, tree.num_hands(int(tree.player[parent]))))
            strategy[node - int(tree.first_child[parent])] = 1.0
            locks[parent] = strategy
        node = parent
    return locks


def scored_nodes(tree: PublicTree, node: int, scope: str) -> list[int]:
    """``node``, and with ``scope="street"`` every node of its player below it before the next
    chance node."""
    if scope not in SCOPES:
        raise ConfigError(f"scope must be one of {SCOPES}, got {scope!r}")
    if tree.kind[node] != DECISION:
        raise ConfigError(f"the line {tree.line(node)} ends at no decision")
    if scope == "decision":
        return [node]
    player = int(tree.player[node])
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if tree.kind[n] != DECISION:
            continue  # a chance node starts the next street; terminals end it
        if int(tree.player[n]) == player:
            out.append(n)
        stack.extend(tree.children(n))
    return sorted(out)


@dataclass
class _Columns:
    """The agent's strategy at the scored nodes, one column per hand."""

    off_tree: str
    off_tree_mass: float = 0.0
    queries: int = 0
    locks: dict[int, np.ndarray] = field(default_factory=dict)

    def column(self, state: State, spot_chips: list[int | None], probs: dict[int, float]
               ) -> np.ndarray:
        """Probabilities of the spot's actions (``spot_chips[i]``: chips its action puts in,
        ``None`` for fold) from the policy's over the game's actions."""
        out = np.zeros(len(spot_chips))
        puts = [c for c in spot_chips if c is not None]
        # A bet or raise the spot lacks goes to one of its bets or raises, never to a call.
        sizes = [i for i, c in enumerate(spot_chips) if c is not None and c > min(puts)]
        off = 0.0
        for action, p in probs.items():
            if p <= 0.0:
                continue
            chips = None if action == 0 else _game_chips(state, action)
            exact = [i for i, c in enumerate(spot_chips) if c == chips]
            if exact:
                out[exact] += p / len(exact)
                continue
            off += p
            if self.off_tree == "nearest" and chips is not None and sizes:
                gap = [abs(int(spot_chips[i] or 0) - chips) for i in sizes]
                near = [sizes[j] for j, g in enumerate(gap) if g == min(gap)]
                out[near] += p / len(near)
        self.off_tree_mass = max(self.off_tree_mass, off)
        total = float(out.sum())
        if total <= 0.0:
            return np.full(len(spot_chips), 1.0 / len(spot_chips))
        return out / total


def agent_decision_locks(game: Game, spot: HoldemSpot, tree: PublicTree, policy: Any,
                         nodes: Sequence[int], off_tree: str = "nearest"
                         ) -> tuple[dict[int, np.ndarray], float, int]:
    """The agent's ``[actions, hands]`` strategy at each of ``nodes`` (one player's), the
    largest off-tree share of a hand's probability, and the number of policy queries."""
    if off_tree not in OFF_TREE:
        raise ConfigError(f"off_tree must be one of {OFF_TREE}, got {off_tree!r}")
    line = find_line(game, spot)
    seats = spot_seats(game)
    cols = _Columns(off_tree)
    for node in nodes:
        player = int(tree.player[node])
        path = [node]
        while path[-1] > 0:
            path.append(int(tree.parent[path[-1]]))
        path = path[::-1]
        hands = tree.hands[player]
        strategy = np.zeros((int(tree.num_children[node]), len(hands)))
        for h, hand in enumerate(hands):
            mine = (int(hand[0]), int(hand[1]))
            taken = set(mine) | set(spot.board_cards)
            free = [c for c in range(52) if c not in taken][:2]
            holes = {seats[player]: mine, seats[1 - player]: (free[0], free[1])}
            state = reach_spot_root(game, spot, line, holes, spot.board_cards)
            for parent, child in zip(path, path[1:]):
                mapping = spot_action_map(tree, parent, state)
                state.apply_action(mapping[child - int(tree.first_child[parent])])
            spot_chips: list[int | None] = [
                None if tree.label(c) == "fold"
                else int(round(float(tree.contrib[c, player] - tree.contrib[node, player])))
                for c in tree.children(node)]
            cols.queries += 1
            probs = {int(a): float(p) for a, p in policy.action_probabilities(state).items()}
            strategy[:, h] = cols.column(state, spot_chips, probs)
        cols.locks[node] = strategy
    return cols.locks, cols.off_tree_mass, cols.queries


@dataclass(frozen=True)
class DecisionEvaluation:
    """An agent's EV loss at a spot's decision (chips per deal of the spot)."""

    player: int
    line: list[str]
    scope: str
    nodes: int
    equilibrium_value: float
    agent_value: float
    agent_value_at_equilibrium: float
    ev_loss_chips: float
    ev_loss_pct_pot: float
    ev_loss_bounds_chips: tuple[float, float]
    equilibrium_exploitability_pct: float
    locked_exploitability_pct: float
    off_tree_mass: float
    queries: int
    locked_iterations: int
    agent_strategy: np.ndarray
    equilibrium_strategy: np.ndarray
    labels: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "spot_player": ("oop", "ip")[self.player], "spot_decision": self.line,
            "spot_scope": self.scope, "spot_locked_nodes": self.nodes,
            "spot_equilibrium_value": self.equilibrium_value,
            "spot_agent_value": self.agent_value,
            "spot_ev_loss_at_equilibrium_chips": (self.equilibrium_value
                                                  - self.agent_value_at_equilibrium),
            "spot_locked_iterations": self.locked_iterations,
            "spot_ev_loss_chips": self.ev_loss_chips,
            "spot_ev_loss_pct_pot": self.ev_loss_pct_pot,
            "spot_ev_loss_bounds_chips": list(self.ev_loss_bounds_chips),
            "spot_equilibrium_exploitability_pct": self.equilibrium_exploitability_pct,
            "spot_locked_exploitability_pct": self.locked_exploitability_pct,
            "spot_off_tree_mass": self.off_tree_mass, "spot_policy_queries": self.queries,
            "spot_actions": self.labels,
        }

    def hand_frequencies(self, tree: PublicTree, hand: str) -> dict[str, dict[str, float]]:
        """Per cent per action at the decision for one combo (``"AdQh"``): agent and
        equilibrium."""
        from pokerzoo.games.holdem.cards import CARD_STRINGS

        cards = {CARD_STRINGS.index(hand[:2]), CARD_STRINGS.index(hand[2:])}
        hands = tree.hands[self.player]
        match = [i for i, h in enumerate(hands) if {int(h[0]), int(h[1])} == cards]
        if not match:
            raise ConfigError(f"{hand} is not in the {('oop', 'ip')[self.player]} range")
        i = match[0]
        return {who: {lab: 100.0 * float(s[k, i]) for k, lab in enumerate(self.labels)}
                for who, s in (("agent", self.agent_strategy),
                               ("equilibrium", self.equilibrium_strategy))}


def solve_locked(tree: PublicTree, locks: dict[int, np.ndarray], exploitability_pct: float,
                 max_iterations: int, threads: int = 1, start: PublicSolver | None = None,
                 on_start: Any = None) -> PublicSolver:
    """The rest of the tree solved to ``exploitability_pct`` % of the pot around ``locks``;
    from ``start``'s regrets, strategy sums and iteration count (a solver of the same tree
    in f32), so only what the locks change has to move, and up to ``max_iterations`` more.
    ``on_start(solver)`` sees the solver before its first iteration."""
    solver = PublicSolver(tree, locks=locks, threads=threads)
    more = max_iterations
    if start is not None:
        if start.tree is not tree or start.config.storage != "f32":
            raise ConfigError("a warm start needs a solver of the same tree with f32 storage")
        solver.regrets[:] = start.regrets
        solver.sums[:] = start.sums
        solver.iterations = start.iterations
        more += start.iterations
    if on_start is not None:
        on_start(solver)
    solver.solve(more, target_pct=exploitability_pct)
    return solver


def evaluate_decision(
    game: Game, policy: Any, spot: HoldemSpot, tree: PublicTree, line: Sequence[str],
    scope: str = "decision", exploitability_pct: float = 0.3, max_iterations: int = 2000,
    equilibrium: PublicSolver | None = None, off_tree: str = "nearest", threads: int = 1,
    warm: bool = True,
) -> DecisionEvaluation:
    """Score ``policy`` at the decision ``line`` leads to (see the module docstring);
    ``equilibrium``: a solver of ``tree`` with ``line_locks`` already solved (reused).
    ``warm``: the locked solve starts from the equilibrium (``solve_locked``), else from zero.
    ``agent_value_at_equilibrium``: the agent's value with everything else kept at the
    equilibrium (no one adapts to the agent's frequencies)."""
    node = node_at(tree, line)
    nodes = scored_nodes(tree, node, scope)
    player = int(tree.player[node])
    base = line_locks(tree, node)
    if equilibrium is None:
        equilibrium = solve_locked(tree, base, exploitability_pct, max_iterations, threads)
    agent, off, queries = agent_decision_locks(game, spot, tree, policy, nodes, off_tree)
    fixed: list[float] = []
    if not warm:  # the value at the equilibrium's continuation, from its own copy
        solve_locked(tree, {**base, **agent}, exploitability_pct, 0, threads, equilibrium,
                     lambda s: fixed.append(s.game_value()[player]))
    locked = solve_locked(tree, {**base, **agent}, exploitability_pct, max_iterations, threads,
                          equilibrium if warm else None,
                          lambda s: fixed.append(s.game_value()[player]))
    v_eq, v_lock = equilibrium.game_value()[player], locked.game_value()[player]
    br_eq, br_lock = equilibrium.best_response_values(), locked.best_response_values()
    low = -br_eq[1 - player] - br_lock[player]
    high = br_eq[player] + br_lock[1 - player]
    loss = v_eq - v_lock
    return DecisionEvaluation(
        player, list(line), scope, len(nodes), v_eq, v_lock, fixed[0], loss,
        100.0 * loss / spot.starting_pot, (low, high), equilibrium.exploitability_pct(),
        locked.exploitability_pct(), off, queries, locked.iterations - (
            equilibrium.iterations if warm else 0), agent[node], equilibrium.strategy(node),
        [tree.label(c) for c in tree.children(node)],
    )


def range_frequencies(tree: PublicTree, r: DecisionEvaluation) -> dict[str, dict[str, float]]:
    """Per cent per action over the player's whole range at the decision (hands weighted by
    their range weight), agent beside equilibrium."""
    weight = np.asarray(tree.initial_reach[r.player], dtype=float)
    weight = weight / weight.sum()
    return {who: {lab: 100.0 * float(s[k] @ weight) for k, lab in enumerate(r.labels)}
            for who, s in (("agent", r.agent_strategy), ("equilibrium", r.equilibrium_strategy))}


__all__ = [
    "DecisionEvaluation", "agent_decision_locks", "evaluate_decision", "line_locks", "node_at",
    "range_frequencies", "scored_nodes", "solve_locked",
]
