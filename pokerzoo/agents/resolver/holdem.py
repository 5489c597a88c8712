"""Re-solving a heads-up no-limit hold'em blueprint at the start of the turn and the river.

``HoldemResolvingPolicy`` plays a blueprint (any state policy; Deep CFR's network policy is
asked for all hands at once) before the streets it re-solves. At the first decision of a
re-solved street it builds the street's spot (``holdem_tree.street_spot``: board, pot,
effective stack, the game's own sizes) with both players' ranges, solves it with the range
solver (``pokerzoo.public.holdem_spot.solve_spot``: to a target exploitability in % of the
pot, or a number of iterations or seconds), keeps the solution for that public street
start, and plays the solution's average strategy at the node of the actual line for its own
hand, each spot action mapped to the game action putting in the nearest chips.

Ranges at a street start: the blueprint's reach along the public line (each hand weighted by
the product of the blueprint's probabilities of its seat's actions, ``holdem_ranges``); a
street that was itself re-solved contributes the re-solve's strategies instead, while the
line stayed on its tree (nested re-solving at street starts, as Libratus: Brown and
Sandholm 2017, "Safe and nested subgame solving for imperfect-information games"); every
pair off the board enters a spot at no less than ``holdem_tree.RANGE_FLOOR`` of the largest
weight, so every hand the agent can hold has a strategy there. The
re-solves are **unsafe**: solved from both ranges alone, with no gadget bounding what the
opponent gains against the blueprint's counterfactual values (Brown and Sandholm 2017 show
such re-solving can be exploited where the blueprint was not; the gadgets of
``pokerzoo.public.resolve`` give that guarantee on the small games).

Where a re-solve cannot be followed the blueprint plays the rest of the street, counted in
``stats``: a game action the spot's tree lacks (a raise past the spot's raise cap), a hand
the solve's range dropped, or a street the blueprint never reaches with any hand of a player.
Where a re-solved street's strategies give no hand of a player the actual line (the opponent
played what the re-solve's model of it never does), that street's actions are weighted by
the blueprint instead. Solves run without ``max_seconds`` are deterministic, so a hand
is played the same whichever order public states are met in.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from pokerzoo.agents.resolver.holdem_ranges import (
    NUM_COMBOS,
    EmptyRangeError,
    betting_steps,
    blueprint_factor,
    board_blocked,
    check_range,
)
from pokerzoo.agents.resolver.holdem_tree import (
    SpotSettings,
    game_actions,
    spot_child,
    street_spot,
)
from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.games.base import Game, State
from pokerzoo.public.holdem_spot import SpotSolution, combo_indices, solve_spot, spot_seats
from pokerzoo.public.ranges import COMBO_INDEX
from pokerzoo.public.tree import DECISION, PublicTree

_OFF_TREE = "off the tree"
_NO_RANGE = "a player's range is empty"
STREETS = ("preflop", "flop", "turn", "river")
RESOLVABLE = ("turn", "river")


def parse_streets(text: str) -> tuple[int, ...]:
    """``"turn,river"`` -> the rounds ``(2, 3)``; ConfigError for other names."""
    names = [t.strip() for t in str(text).split(",") if t.strip()]
    bad = [n for n in names if n not in RESOLVABLE]
    if not names or bad:
        raise ConfigError(f"streets must name some of {list(RESOLVABLE)} (comma separated), "
                          f"got {text!r}")
    return tuple(sorted({STREETS.index(n) for n in names}))


@dataclass
class ResolveStats:
    """What the re-solves did (for reports)."""

    seconds: list[float] = field(default_factory=list)
    """Seconds of each re-solve (tree building and solving)."""
    iterations: list[int] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    """The round of each re-solve (2 turn, 3 river)."""
    exploitability_pct: list[float] = field(default_factory=list)
    off_tree: int = 0
    """Decisions played by the blueprint because the line left the spot's tree."""
    dropped_hands: int = 0
    """Decisions played by the blueprint because the hand was not in the solve's range."""
    empty_ranges: int = 0
    """Decisions played by the blueprint because the blueprint never plays the line to the
    street with any hand of a player (nothing to re-solve from)."""
    max_chip_gap: int = 0
    """Largest chip difference between a game action and the spot action it was matched to."""


@dataclass
class _Street:
    """One solved street: the solution and, per spot player, tree hand index per combo."""

    solution: SpotSolution
    hand_index: tuple[np.ndarray, np.ndarray]


class HoldemResolvingPolicy:
    """A state policy: the blueprint before the re-solved streets, re-solves on them.

    Args:
        game: heads-up no-limit hold'em.
        blueprint: a state policy of the same game (``action_probabilities(state)``).
        streets: the rounds re-solved (``parse_streets``).
        exploitability_pct, max_iterations, max_seconds: when a re-solve stops (the first
            reached; ``max_seconds=None``: no time limit, deterministic).
        settings: the spots' raise caps and inner river sizes.
        keep: solved streets kept (turn solutions hold every river: hundreds of MB).
    """

    def __init__(self, game: Game, blueprint: Any, streets: tuple[int, ...] = (2, 3),
                 exploitability_pct: float = 1.0, max_iterations: int = 300,
                 max_seconds: float | None = None, settings: SpotSettings | None = None,
                 keep: int = 4) -> None:
        self.roles = spot_seats(game)
        if not hasattr(blueprint, "action_probabilities"):
            raise ConfigError(f"the blueprint must be a state policy (action_probabilities), "
                              f"got {type(blueprint).__name__}")
        self.game = game
        self.blueprint = blueprint
        self.streets = tuple(streets)
        self.exploitability_pct = exploitability_pct
        self.max_iterations = max_iterations
        self.max_seconds = max_seconds
        self.settings = settings or SpotSettings()
        self.keep = keep
        self.stats = ResolveStats()
        self._solved: OrderedDict[tuple, _Street] = OrderedDict()
        self._ranges: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._nodes: dict[tuple, Any] = {}

    # Public lines ---------------------------------------------------------------------------

    @staticmethod
    def _round_of(state: State) -> int:
        return int(state.public_state()["round"])

    def _key(self, steps: list[tuple[State, int]], rnd: int, board: list[int]) -> tuple:
        """The public street start of round ``rnd``: its board and the betting before it."""
        before = tuple(a for s, a in steps if self._round_of(s) < rnd)
        return tuple(board[: rnd + 2]), before

    def _street_steps(self, steps: list[tuple[State, int]], rnd: int) -> list[tuple[State, int]]:
        return [(s, a) for s, a in steps if self._round_of(s) == rnd]

    # Ranges ---------------------------------------------------------------------------------

    def _start_ranges(self, steps: list[tuple[State, int]], rnd: int,
                      board: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Per spot player, ``[1326]`` range weights at the start of round ``rnd``."""
        key = self._key(steps, rnd, board)
        cached = self._ranges.get(key)
        if cached is not None:
            return cached
        prev = rnd - 1
        blocked = board_blocked(board[: rnd + 2])

        def usable(f: list[np.ndarray] | None) -> bool:
            return f is not None and all(bool(np.any((f[i] > 0) & ~blocked)) for i in range(2))

        factors: list[np.ndarray] | None = None
        if prev in self.streets:
            base = self._start_ranges(steps, prev, board)
            solved = self._solution_factors(steps, prev, board)
            if solved is not None:
                factors = [base[i] * solved[i] for i in range(2)]
            if not usable(factors):
                # The line left the re-solve's tree, or the re-solve never plays it with any
                # hand of a player: that street's actions weighted by the blueprint instead.
                street = self._street_steps(steps, prev)
                factors = [base[i] * blueprint_factor(self.game, self.blueprint, street,
                                                      self.roles[i]) for i in range(2)]
        else:
            before = [(s, a) for s, a in steps if self._round_of(s) < rnd]
            factors = [blueprint_factor(self.game, self.blueprint, before, self.roles[i])
                       for i in range(2)]
        assert factors is not None  # set on every branch above
        out = []
        for i in range(2):
            w = np.where(blocked, 0.0, factors[i])
            check_range(w, self.roles[i], f"the {STREETS[rnd]} after {list(key[1])}")
            out.append(w)
        result = (out[0], out[1])
        if len(self._ranges) >= 4096:
            self._ranges.clear()
        self._ranges[key] = result
        return result

    def _solution_factors(self, steps: list[tuple[State, int]], rnd: int,
                          board: list[int]) -> list[np.ndarray] | None:
        """Per spot player, the re-solve of round ``rnd``'s probabilities of its actions on
        the line (``None`` if the line left the tree)."""
        street = self._solve(steps, rnd, board)
        tree = street.solution.tree
        factors = [np.ones(NUM_COMBOS), np.ones(NUM_COMBOS)]
        edges = self._line_edges(tree, steps, rnd)
        if edges is None:
            return None
        for node, child in edges:
            p = int(tree.player[node])
            column = street.solution.solver.strategy(node)[child - int(tree.first_child[node])]
            index = street.hand_index[p]
            factors[p] *= np.where(index >= 0, column[np.maximum(index, 0)], 0.0)
        return factors

    def _line_edges(self, tree: PublicTree, steps: list[tuple[State, int]],
                    rnd: int) -> list[tuple[int, int]] | None:
        """The spot's (node, child) edges that round ``rnd``'s actions on the line take from
        the root, matched by chips (``None`` if an action is not on the spot's tree)."""
        edges, node = [], 0
        for before, action in self._street_steps(steps, rnd):
            found = spot_child(tree, node, before, action)
            if found is None:
                return None
            child, gap = found
            self.stats.max_chip_gap = max(self.stats.max_chip_gap, gap)
            edges.append((node, child))
            node = child
        return edges

    # Solving --------------------------------------------------------------------------------

    def _solve(self, steps: list[tuple[State, int]], rnd: int, board: list[int],
               current: State | None = None) -> _Street:
        """The solved street ``rnd`` of the line (``current``: the state being played, the
        street's start when no action of the street is among ``steps`` yet)."""
        key = self._key(steps, rnd, board)
        found = self._solved.get(key)
        if found is not None:
            self._solved.move_to_end(key)
            return found
        ranges = self._start_ranges(steps, rnd, board)
        start = next((s for s, _ in steps if self._round_of(s) == rnd), current)
        if start is None:
            raise ConfigError(f"no decision of the {STREETS[rnd]} on this line to re-solve")
        start_time = time.perf_counter()
        spot = street_spot(self.game, start, ranges, self.settings)
        solution = solve_spot(spot, exploitability_pct=self.exploitability_pct,
                              max_iterations=self.max_iterations, max_seconds=self.max_seconds)
        self.stats.seconds.append(time.perf_counter() - start_time)
        self.stats.iterations.append(solution.iterations)
        self.stats.rounds.append(rnd)
        self.stats.exploitability_pct.append(solution.exploitability_pct)
        index = []
        for p in range(2):
            where = np.full(NUM_COMBOS, -1, dtype=np.int64)
            combos = combo_indices(solution.tree, p)
            where[combos] = np.arange(len(combos))
            index.append(where)
        street = _Street(solution, (index[0], index[1]))
        self._solved[key] = street
        while len(self._solved) > self.keep:
            self._solved.popitem(last=False)
        return street

    # Playing --------------------------------------------------------------------------------

    def _blueprint(self, state: State) -> dict[int, float]:
        return dict(self.blueprint.action_probabilities(state))

    def action_probabilities(self, state: State) -> dict[int, float]:
        """``{action: probability}`` of the player to act: the re-solve of the street where
        the street is re-solved and the line is on its tree, else the blueprint."""
        if state.is_chance_node() or state.is_terminal():
            raise InvalidPolicyError("the re-solving policy is asked at player decisions only")
        rnd = self._round_of(state)
        if rnd not in self.streets:
            return self._blueprint(state)
        seat = state.current_player()
        key = cast(tuple, state.information_state_key(seat))  # (seat, hole, board, betting)
        public = (seat, key[2], key[3])  # the hole cards left out: one entry per public node
        node_play = self._nodes.get(public)
        if node_play is None:
            node_play = self._node_play(state, rnd)
            if len(self._nodes) >= 4096:
                self._nodes.clear()
            self._nodes[public] = node_play
        if node_play is _OFF_TREE:
            self.stats.off_tree += 1
            return self._blueprint(state)
        if node_play is _NO_RANGE:
            self.stats.empty_ranges += 1
            return self._blueprint(state)
        actions, strategy, hand_index = node_play
        hole = state.private_cards()[seat]
        hand = int(hand_index[COMBO_INDEX[hole[0], hole[1]]])
        if hand < 0:
            self.stats.dropped_hands += 1
            return self._blueprint(state)
        out: dict[int, float] = dict.fromkeys(state.legal_actions(), 0.0)
        for a, p in zip(actions, strategy[:, hand], strict=True):
            out[a] += float(p)
        total = sum(out.values())
        if not total > 0:
            raise InvalidPolicyError(f"the re-solve gives hand {hole} no action at {key}")
        return {a: p / total for a, p in out.items()}

    def _node_play(self, state: State, rnd: int) -> Any:
        """At ``state``'s public node: the game action of each spot child, the solve's
        strategy ``[children, hands]`` and the hand index of the acting player, or
        ``_OFF_TREE``."""
        history = state.history()
        steps = betting_steps(self.game, state)
        board = [int(c) for c in state.public_state()["public_cards"]]
        try:
            street = self._solve(steps, rnd, board, state)
        except EmptyRangeError:
            return _NO_RANGE
        tree = street.solution.tree
        edges = self._line_edges(tree, steps, rnd)
        if edges is None:
            return _OFF_TREE
        node = edges[-1][1] if edges else 0
        seat = state.current_player()
        role = self.roles.index(seat)
        if tree.kind[node] != DECISION or int(tree.player[node]) != role:
            raise ConfigError(f"the spot's node {tree.line(node)} is not spot player {role}'s "
                              f"decision, where the game at {history} is")
        actions, gap = game_actions(tree, node, state)
        self.stats.max_chip_gap = max(self.stats.max_chip_gap, gap)
        return actions, street.solution.solver.strategy(node), street.hand_index[role]

    def summary(self) -> Mapping[str, Any]:
        """The re-solves so far: count, seconds (mean, max), fallbacks, chip gap."""
        s = self.stats
        return {
            "resolves": len(s.seconds),
            "seconds_mean": float(np.mean(s.seconds)) if s.seconds else 0.0,
            "seconds_max": float(np.max(s.seconds)) if s.seconds else 0.0,
            "iterations_mean": float(np.mean(s.iterations)) if s.iterations else 0.0,
            "exploitability_pct_mean": (float(np.mean(s.exploitability_pct))
                                        if s.exploitability_pct else 0.0),
            "off_tree": s.off_tree,
            "dropped_hands": s.dropped_hands,
            "empty_ranges": s.empty_ranges,
            "max_chip_gap": s.max_chip_gap,
        }


__all__ = ["HoldemResolvingPolicy", "RESOLVABLE", "ResolveStats", "parse_streets"]
