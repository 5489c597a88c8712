"""Re-solving a heads-up no-limit hold'em blueprint on the turn and the river.

``HoldemResolvingPolicy`` plays a blueprint (any state policy; Deep CFR's network policy is
asked for all hands at once) before the streets it re-solves. At the first decision of a
re-solved street it builds the street's spot (``holdem_tree.street_spot``: board, pot,
effective stack, the game's own sizes) with both players' ranges, solves it with the range
solver (``pokerzoo.public.spots.holdem_spot.solve_spot``: to a target exploitability in % of the
pot, or a number of iterations or seconds), keeps the solution, and plays the solution's
average strategy at the node of the actual line for its own hand, each spot action mapped to
the game action putting in the nearest chips.

Where the line leaves that tree (a raise past the spot's raise cap), the street is re-solved
from the decision after the action the tree lacks (``off_tree="resolve"``; a spot that starts
inside the street, its chips and bets counted), with the ranges there: the street-start
ranges times each player's solved strategies along the line, the off-tree action counted as
its nearest tree action (``holdem_tree.nearest_child``: a raise past the cap as a call), the
usual action translation. The new solve is followed in turn, and re-solved from again where
the line leaves it. ``continual=True`` also re-solves at every decision of the player asked
(DeepStack's continual re-solving: Moravčík et al. 2017), the ranges carried the same way.
``off_tree="blueprint"`` is the earlier behaviour: the blueprint plays the rest of the street.

Ranges at a street start: the blueprint's reach along the public line (each hand weighted by
the product of the blueprint's probabilities of its seat's actions, ``holdem_ranges``); a
street that was itself re-solved contributes its re-solves' strategies along the line instead
(nested re-solving, as Libratus: Brown and Sandholm 2017, "Safe and nested subgame solving
for imperfect-information games"). Where a solved strategy gives no hand of a player the
action it took (the opponent played what the solve's model of it never does), that action
weighs the range by the blueprint's probabilities instead (counted in ``stats``). Every pair
off the board enters a spot at no less than ``holdem_tree.RANGE_FLOOR`` of the largest
weight, so every hand the agent can hold has a strategy there.

Street-start re-solves are **unsafe**: solved from both ranges alone (Brown and Sandholm 2017
show such re-solving can be exploited where the blueprint was not). Re-solves inside a street
can use the CFR-D gadget (``gadget="cfr-d"``, ``holdem_gadget``): the opponent may take its
counterfactual values of the previous solve instead of entering, which bounds what it gains
there against that solve. With continual re-solving the river's start is re-solved behind it
too, the opponent's values read where the turn solve deals the river card (in that tree's
smaller river menu); the first re-solved street's start has no previous solve and stays
unsafe.

Where a re-solve cannot be followed the blueprint plays, counted in ``stats``: a line off the
tree with ``off_tree="blueprint"``, a hand the solve's range dropped, or a street the
blueprint never reaches with any hand of a player. Solves run without ``max_seconds`` are
deterministic, so a hand is played the same whichever order public states are met in.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from pokerzoo.agents.resolver.holdem_gadget import gadget_solve
from pokerzoo.agents.resolver.holdem_ranges import (
    NUM_COMBOS,
    EmptyRangeError,
    betting_steps,
    blueprint_factor,
    board_blocked,
    check_range,
    pair_probabilities,
)
from pokerzoo.agents.resolver.holdem_tree import (
    SpotSettings,
    game_actions,
    nearest_child,
    spot_child,
    street_spot,
)
from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.games.base import Game, State
from pokerzoo.public.engine.tree import CHANCE, DECISION
from pokerzoo.public.spots.holdem_spot import SpotSolution, combo_indices, solve_spot, spot_seats
from pokerzoo.public.spots.ranges import COMBO_INDEX

_OFF_TREE = "off the tree"
_NO_RANGE = "a player's range is empty"
STREETS = ("preflop", "flop", "turn", "river")
RESOLVABLE = ("turn", "river")
OFF_TREE_RULES = ("resolve", "blueprint")
HOLDEM_GADGETS = ("unsafe", "cfr-d")


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
    origins: list[str] = field(default_factory=list)
    """Where each re-solve starts: ``"street"`` (its start), ``"off tree"`` (after an action
    the previous solve lacks) or ``"decision"`` (continual re-solving), with ``" cfr-d"``
    when the gadget was used."""
    off_tree: int = 0
    """Decisions played by the blueprint because the line left the spot's tree
    (``off_tree="blueprint"``)."""
    dropped_hands: int = 0
    """Decisions played by the blueprint because the hand was not in the solve's range."""
    empty_ranges: int = 0
    """Decisions played by the blueprint because the blueprint never plays the line to the
    street with any hand of a player (nothing to re-solve from)."""
    range_fallbacks: int = 0
    """Actions on a line whose solved strategy gives no hand of the player the action, so the
    range was weighted by the blueprint's probabilities of it instead."""
    max_chip_gap: int = 0
    """Largest chip difference between a game action and the spot action it was matched to."""


@dataclass
class _Street:
    """One solve: the solution; per spot player, the tree hand index of each combo and the
    largest weight of its range at the root (the spot's range scale)."""

    solution: SpotSolution
    hand_index: tuple[np.ndarray, np.ndarray]
    tops: tuple[float, float]


@dataclass
class _Position:
    """Where a line is: the solve that holds it, the node there, both players' ranges."""

    street: _Street
    node: int
    ranges: list[np.ndarray]


class HoldemResolvingPolicy:
    """A state policy: the blueprint before the re-solved streets, re-solves on them.

    Args:
        game: heads-up no-limit hold'em.
        blueprint: a state policy of the same game (``action_probabilities(state)``).
        streets: the rounds re-solved (``parse_streets``).
        exploitability_pct, max_iterations, max_seconds: when a re-solve stops (the first
            reached; ``max_seconds=None``: no time limit, deterministic).
        settings: the spots' raise caps and inner river sizes.
        keep: solves kept (turn solutions hold every river: hundreds of MB).
        off_tree: ``"resolve"`` (re-solve from the decision after an action the tree lacks)
            or ``"blueprint"`` (the blueprint plays the rest of the street).
        continual: also re-solve at every decision of the player asked.
        gadget: re-solves inside a street ``"unsafe"`` or behind the ``"cfr-d"`` gadget.
    """

    def __init__(self, game: Game, blueprint: Any, streets: tuple[int, ...] = (2, 3),
                 exploitability_pct: float = 1.0, max_iterations: int = 300,
                 max_seconds: float | None = None, settings: SpotSettings | None = None,
                 keep: int = 4, off_tree: str = "resolve", continual: bool = False,
                 gadget: str = "unsafe") -> None:
        self.roles = spot_seats(game)
        if not hasattr(blueprint, "action_probabilities"):
            raise ConfigError(f"the blueprint must be a state policy (action_probabilities), "
                              f"got {type(blueprint).__name__}")
        if off_tree not in OFF_TREE_RULES:
            raise ConfigError(f"off_tree must be one of {list(OFF_TREE_RULES)}, got "
                              f"{off_tree!r}")
        if gadget not in HOLDEM_GADGETS:
            raise ConfigError(f"a hold'em re-solve's gadget must be one of "
                              f"{list(HOLDEM_GADGETS)}, got {gadget!r}")
        if not isinstance(continual, bool):
            raise ConfigError(f"continual must be True or False, got {continual!r}")
        if off_tree == "blueprint" and (continual or gadget != "unsafe"):
            raise ConfigError("off_tree='blueprint' plays each street's first solve only: "
                              "continual re-solving and the gadget need off_tree='resolve'")
        self.game = game
        self.blueprint = blueprint
        self.streets = tuple(streets)
        self.exploitability_pct = exploitability_pct
        self.max_iterations = max_iterations
        self.max_seconds = max_seconds
        self.settings = settings or SpotSettings()
        self.keep = keep
        self.off_tree = off_tree
        self.continual = continual
        self.gadget = gadget
        self.stats = ResolveStats()
        self._solved: OrderedDict[tuple, _Street] = OrderedDict()
        self._ranges: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._nodes: dict[tuple, Any] = {}

    # Public lines ---------------------------------------------------------------------------

    @staticmethod
    def _round_of(state: State) -> int:
        return int(state.public_state()["round"])

    def _key(self, steps: list[tuple[State, int]], rnd: int, board: list[int], tag: int,
             upto: int = 0) -> tuple:
        """A solve's root: round ``rnd``'s board, the betting before it and the first
        ``upto`` actions of the round; ``tag``: the seat whose decisions are re-solved at
        (continual re-solving), -1 otherwise."""
        before = tuple(a for s, a in steps if self._round_of(s) < rnd)
        inside = tuple(a for _, a in self._street_steps(steps, rnd)[:upto])
        return tuple(board[: rnd + 2]), before + inside, tag

    def _street_steps(self, steps: list[tuple[State, int]], rnd: int) -> list[tuple[State, int]]:
        return [(s, a) for s, a in steps if self._round_of(s) == rnd]

    # Ranges ---------------------------------------------------------------------------------

    def _start_ranges(self, steps: list[tuple[State, int]], rnd: int, board: list[int],
                      tag: int = -1) -> tuple[np.ndarray, np.ndarray]:
        """Per spot player, ``[1326]`` range weights at the start of round ``rnd`` (``tag``:
        the seat re-solved at each decision, -1 for none)."""
        key = self._key(steps, rnd, board, tag)
        cached = self._ranges.get(key)
        if cached is not None:
            return cached
        prev = rnd - 1
        blocked = board_blocked(board[: rnd + 2])

        def usable(f: list[np.ndarray] | None) -> bool:
            return f is not None and all(bool(np.any((f[i] > 0) & ~blocked)) for i in range(2))

        factors: list[np.ndarray] | None = None
        if prev in self.streets:
            end = self._follow(steps, prev, board, tag)
            if end is not None:
                factors = end.ranges
            if not usable(factors):
                # The line left the re-solve's tree (off_tree="blueprint"), or no hand of a
                # player plays it: that street's actions weighted by the blueprint instead.
                base = self._start_ranges(steps, prev, board, tag)
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

    def _weighed(self, weights: np.ndarray, street: _Street, node: int, child: int, role: int,
                 before: State, action: int) -> np.ndarray:
        """``role``'s range after it takes ``child`` at ``node`` (game ``action`` at
        ``before``): times the solve's probability of it, or the blueprint's where the solve
        gives no hand of the range that action."""
        tree = street.solution.tree
        column = street.solution.solver.strategy(node)[child - int(tree.first_child[node])]
        index = street.hand_index[role]
        out = weights * np.where(index >= 0, column[np.maximum(index, 0)], 0.0)
        if np.any(out > 0):
            return out
        self.stats.range_fallbacks += 1
        out = weights * pair_probabilities(self.game, self.blueprint, before)[:, action]
        return out if np.any(out > 0) else weights

    def _follow(self, steps: list[tuple[State, int]], rnd: int, board: list[int], tag: int,
                current: State | None = None) -> _Position | None:
        """Round ``rnd``'s actions on the line through its solves: the solve holding the
        line's end (``current``, the decision being played, or the street's end when
        ``None``), the node there, both ranges there; ``None`` where the line leaves a tree
        and ``off_tree="blueprint"``. New solves start where the line leaves a tree (and at
        ``tag``'s decisions when re-solving continually)."""
        street = self._street_steps(steps, rnd)
        first = street[0][0] if street else current
        if first is None:
            raise ConfigError(f"no decision of the {STREETS[rnd]} on this line to re-solve")
        ranges = list(self._start_ranges(steps, rnd, board, tag))
        carry, resolver = self._carried_to_street(steps, rnd, board, tag)
        solve = self._solve(self._key(steps, rnd, board, tag), first, ranges, rnd, "street",
                            carry, resolver)
        node, left, anchor = 0, False, -1
        points = [*street, (current, -1)] if current is not None else street
        for i, (before, action) in enumerate(points):
            assert before is not None  # current is only listed when given
            role = self.roles.index(before.current_player())
            tree = solve.solution.tree
            astray = tree.kind[node] != DECISION or int(tree.player[node]) != role
            if astray and self.off_tree == "blueprint":
                return None
            turn = self.continual and i > 0 and before.current_player() == tag
            if left or astray or turn:
                # Values carried to a gadget: the opponent's at its decision before the
                # action the tree lacked, or at this decision (continual re-solving).
                carry = (solve, anchor) if left else None if astray else (solve, node)
                solve = self._solve(self._key(steps, rnd, board, tag, i), before, ranges, rnd,
                                    "off tree" if left or astray else "decision", carry, role)
                node, left = 0, False
                tree = solve.solution.tree
            if action < 0:
                break
            found = spot_child(tree, node, before, action)
            if found is None:
                if self.off_tree == "blueprint":
                    return None
                child, left, anchor = nearest_child(tree, node, before, action), True, node
            else:
                child, gap = found
                self.stats.max_chip_gap = max(self.stats.max_chip_gap, gap)
            ranges[role] = self._weighed(ranges[role], solve, node, child, role, before, action)
            node = child
        return _Position(solve, node, ranges)

    def _carried_to_street(self, steps: list[tuple[State, int]], rnd: int, board: list[int],
                           tag: int) -> tuple[tuple[_Street, int] | None, int]:
        """For a gadget re-solve at the start of round ``rnd`` (continual re-solving, the
        round before re-solved too): the previous round's last solve and its node where this
        round's card was dealt, whose opponent values the gadget carries, and the spot player
        of ``tag``; ``(None, 0)`` elsewhere."""
        if self.gadget != "cfr-d" or tag < 0 or rnd - 1 not in self.streets:
            return None, 0
        end = self._follow(steps, rnd - 1, board, tag)
        if end is None:
            return None, 0
        tree = end.street.solution.tree
        if tree.kind[end.node] != CHANCE:
            return None, 0
        card = board[rnd + 1]  # the card this round deals (the board's 4th or 5th)
        kids = [c for c in tree.children(end.node) if int(tree.chance_card[c]) == card]
        if not kids or tree.kind[kids[0]] != DECISION:
            return None, 0
        return (end.street, kids[0]), self.roles.index(tag)

    # Solving --------------------------------------------------------------------------------

    def _solve(self, key: tuple, root: State, ranges: list[np.ndarray], rnd: int, origin: str,
               carry: tuple[_Street, int] | None = None, role: int = 0) -> _Street:
        """The solve rooted at ``root`` (the line's position ``key``) from ``ranges``;
        ``carry``: the previous solve and the node of its opponent values, for a gadget
        re-solve of spot player ``role``."""
        found = self._solved.get(key)
        if found is not None:
            self._solved.move_to_end(key)
            return found
        for i in range(2):
            check_range(ranges[i], self.roles[i], f"the {STREETS[rnd]} after {list(key[1])}")
        start_time = time.perf_counter()
        spot = street_spot(self.game, root, (ranges[0], ranges[1]), self.settings)
        tops = (float(np.max(ranges[0])), float(np.max(ranges[1])))
        if self.gadget == "cfr-d" and carry is not None:
            previous, node = carry
            solution = gadget_solve(spot, role, previous.solution, node,
                                    previous.tops[role] / tops[role], self.exploitability_pct,
                                    self.max_iterations, self.max_seconds)
            origin += " cfr-d"
        else:
            solution = solve_spot(spot, exploitability_pct=self.exploitability_pct,
                                  max_iterations=self.max_iterations,
                                  max_seconds=self.max_seconds)
        self.stats.seconds.append(time.perf_counter() - start_time)
        self.stats.iterations.append(solution.iterations)
        self.stats.rounds.append(rnd)
        self.stats.exploitability_pct.append(solution.exploitability_pct)
        self.stats.origins.append(origin)
        index = []
        for p in range(2):
            where = np.full(NUM_COMBOS, -1, dtype=np.int64)
            combos = combo_indices(solution.tree, p)
            where[combos] = np.arange(len(combos))
            index.append(where)
        street = _Street(solution, (index[0], index[1]), tops)
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
        ``_OFF_TREE`` / ``_NO_RANGE``."""
        steps = betting_steps(self.game, state)
        board = [int(c) for c in state.public_state()["public_cards"]]
        seat = state.current_player()
        try:
            at = self._follow(steps, rnd, board, seat if self.continual else -1, state)
        except EmptyRangeError:
            return _NO_RANGE
        if at is None:
            return _OFF_TREE
        tree, role = at.street.solution.tree, self.roles.index(seat)
        if tree.kind[at.node] != DECISION or int(tree.player[at.node]) != role:
            raise ConfigError(f"the spot's node {tree.line(at.node)} is not spot player "
                              f"{role}'s decision, where the game at {state.history()} is")
        actions, gap = game_actions(tree, at.node, state)
        self.stats.max_chip_gap = max(self.stats.max_chip_gap, gap)
        return actions, at.street.solution.solver.strategy(at.node), at.street.hand_index[role]

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
            "off_tree_resolves": sum(o.startswith("off tree") for o in s.origins),
            "decision_resolves": sum(o.startswith("decision") for o in s.origins),
            "range_fallbacks": s.range_fallbacks,
            "dropped_hands": s.dropped_hands,
            "empty_ranges": s.empty_ranges,
            "max_chip_gap": s.max_chip_gap,
        }


__all__ = ["HOLDEM_GADGETS", "HoldemResolvingPolicy", "OFF_TREE_RULES", "RESOLVABLE",
           "ResolveStats", "parse_streets"]
