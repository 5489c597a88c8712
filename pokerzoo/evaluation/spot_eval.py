"""A hold'em agent scored at a spot: its EV loss against the spot's equilibrium.

The agent's strategy at every public node of the spot where its player acts is read hand by
hand from its policy (``policy.action_probabilities(state)``) on a heads-up hold'em ``State``
that reaches the node: the hand's hole cards and the board dealt, a betting line of the game
that leads to the spot's pot and stacks replayed (:func:`find_line`), then the spot's actions.
Spot actions map to the game's actions by the chips they put in; a spot whose tree has an
action the game cannot take is refused. The agent's player is then locked to that strategy at
every one of its nodes and the opponent best-responds (exact, on the public tree):

    EV loss = equilibrium value - value of the locked agent against a best response,

in chips and in % of the spot's starting pot, at the spot's declared ranges or at the ranges
the policy's own play reaches the spot with (:func:`own_ranges`). Probability the
policy puts on game actions the spot's tree lacks is dropped and the rest renormalized (its
largest share is reported as ``off_tree_mass``).

The tree is built without suit isomorphism: an isomorphic chance card reuses another card's
subtree with the hands permuted, exact only for suit-symmetric strategies, which an agent's
need not be.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game, State
from pokerzoo.public.engine.solver import PublicSolver
from pokerzoo.public.engine.tree import CHANCE, DECISION, PublicTree
from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree, spot_seats
from pokerzoo.public.spots.ranges import COMBO_CARDS, combo_name

MAX_LINE_STATES = 20_000
"""Most betting states :func:`find_line` expands before giving up."""
DEFAULT_MAX_QUERIES = 2_000_000
"""Most policy queries (agent nodes x hands) a spot evaluation makes before refusing."""


def _contributions(state: State) -> list[int]:
    return [int(c) for c in state.public_state()["contributions"]]


def _stacks(state: State) -> list[int]:
    return [int(c) for c in state.public_state()["stacks"]]


def deal_holes(game: Game, holes: Mapping[int, tuple[int, int]]) -> State:
    """A new hand of heads-up ``game`` with these hole cards dealt (seat -> two cards)."""
    state = game.new_initial_state()
    for seat in range(2):
        for card in holes[seat]:
            state.apply_action(int(card))
    return state


def dummy_holes(board: tuple[int, ...], avoid: set[int]) -> tuple[int, int]:
    """Two cards off ``board`` and ``avoid`` (a placeholder hand to replay the betting with)."""
    free = [c for c in range(52) if c not in avoid and c not in board]
    return free[0], free[1]


def find_line(game: Game, spot: HoldemSpot) -> list[int]:
    """The shortest betting line of ``game`` (its action ids, all streets before the spot's)
    after which the spot's street starts with ``starting_pot`` chips in the middle, equal
    contributions and ``effective_stack`` chips behind; ConfigError if none exists."""
    spot_seats(game)
    board = spot.board_cards
    half = spot.starting_pot / 2.0
    h0 = dummy_holes(board, set())
    h1 = dummy_holes(board, set(h0))
    queue: deque[tuple[State, list[int]]] = deque([(deal_holes(game, {0: h0, 1: h1}), [])])
    expanded = 0
    while queue and expanded < MAX_LINE_STATES:
        state, line = queue.popleft()
        expanded += 1
        if state.is_terminal():
            continue
        if state.is_chance_node():
            dealt = len(state.public_state()["public_cards"])
            if dealt >= len(board):
                continue
            nxt = state.clone()
            nxt.apply_action(board[dealt])
            now = len(nxt.public_state()["public_cards"])
            if now == len(board) and not nxt.is_chance_node():
                contrib, stacks = _contributions(nxt), _stacks(nxt)
                if contrib[0] == contrib[1] == half and min(stacks) == spot.effective_stack:
                    return line
                continue
            queue.append((nxt, line))
            continue
        for action in state.legal_actions():
            nxt = state.clone()
            nxt.apply_action(action)
            if max(_contributions(nxt)) <= half:
                queue.append((nxt, line + [action]))
    raise ConfigError(
        f"no betting line of {game!r} reaches the spot's street with a pot of "
        f"{spot.starting_pot} and {spot.effective_stack} chips behind; the game's blinds, "
        "stacks and sizes must allow it"
    )


def reach_spot_root(game: Game, spot: HoldemSpot, line: list[int],
                    holes: Mapping[int, tuple[int, int]], board: tuple[int, ...]) -> State:
    """The state at the spot's root for these hole cards (seat -> cards)."""
    state = deal_holes(game, holes)
    actions = iter(line)
    dealt = 0
    while dealt < len(spot.board_cards) or state.is_chance_node():
        if state.is_chance_node():
            state.apply_action(board[dealt])
            dealt += 1
        else:
            state.apply_action(next(actions))
    return state


def _game_chips(state: State, action: int) -> int:
    before = sum(_contributions(state))
    nxt = state.clone()
    nxt.apply_action(action)
    return sum(_contributions(nxt)) - before


def spot_action_map(tree: PublicTree, node: int, state: State) -> list[int]:
    """The game action of each of ``node``'s children, matched by chips put in."""
    p = int(tree.player[node])
    legal = state.legal_actions()
    chips = {a: _game_chips(state, a) for a in legal}
    out = []
    for child in tree.children(node):
        label = tree.label(child)
        put = int(round(float(tree.contrib[child, p] - tree.contrib[node, p])))
        if label == "fold":
            match = [a for a in legal if a == 0]
        else:
            match = [a for a in legal if a != 0 and chips[a] == put]
        if not match:
            offered = sorted({chips[a] for a in legal if a != 0})
            raise ConfigError(
                f"the spot's action {label!r} after {tree.line(node) or 'the root'} puts in "
                f"{put} chips; the game's actions there put in {offered} (and fold): use sizes "
                "the game offers"
            )
        out.append(match[0])
    return out


@dataclass
class _Walk:
    game: Game
    spot: HoldemSpot
    tree: PublicTree
    policy: Any
    player: int
    line: list[int]
    locks: dict[int, np.ndarray] = field(default_factory=dict)
    off_tree_mass: float = 0.0
    queries: int = 0

    def seat_holes(self, hand: np.ndarray, board: tuple[int, ...]) -> dict[int, tuple[int, int]]:
        """Hole cards per seat: the agent's hand, and two cards no one holds for the other."""
        seats = spot_seats(self.game)
        mine = (int(hand[0]), int(hand[1]))
        other = dummy_holes(board, set(mine))
        return {seats[self.player]: mine, seats[1 - self.player]: other}

    def rebuild(self, hand: np.ndarray, path: list[tuple[str, int]]) -> State:
        board = tuple(self.spot.board_cards) + tuple(v for k, v in path if k == "card")
        state = reach_spot_root(self.game, self.spot, self.line, self.seat_holes(hand, board),
                            self.spot.board_cards)
        for _, value in path:
            state.apply_action(value)
        return state

    def walk(self, node: int, states: list[State | None], path: list[tuple[str, int]]) -> None:
        tree = self.tree
        hands = tree.hands[self.player]
        if tree.kind[node] == CHANCE:
            for child in tree.children(node):
                card = int(tree.chance_card[child])
                nxt: list[State | None] = []
                for h, state in enumerate(states):
                    if state is None or card in hands[h]:
                        nxt.append(None)
                    elif card in state.private_cards()[spot_seats(self.game)[1 - self.player]]:
                        nxt.append(self.rebuild(hands[h], path + [("card", card)]))
                    else:
                        s = state.clone()
                        s.apply_action(card)
                        nxt.append(s)
                self.walk(child, nxt, path + [("card", card)])
            return
        if tree.kind[node] != DECISION:
            return
        sample = next((s for s in states if s is not None), None)
        if sample is None:
            return
        mapping = spot_action_map(tree, node, sample)
        if int(tree.player[node]) == self.player:
            self.locks[node] = self.strategy(mapping, states)
        for i, child in enumerate(tree.children(node)):
            nxt = []
            for state in states:
                if state is None:
                    nxt.append(None)
                    continue
                s = state.clone()
                s.apply_action(mapping[i])
                nxt.append(s)
            self.walk(child, nxt, path + [("action", mapping[i])])

    def strategy(self, mapping: list[int], states: list[State | None]) -> np.ndarray:
        """``[actions, hands]``: the policy's probabilities of the mapped game actions, split
        evenly where two spot actions are one game action, renormalized over the spot's."""
        k = len(mapping)
        share = {a: mapping.count(a) for a in mapping}
        out = np.full((k, len(states)), 1.0 / k)
        for h, state in enumerate(states):
            if state is None:
                continue  # the hand cannot be here: any strategy will do
            self.queries += 1
            probs = self.policy.action_probabilities(state)
            column = np.array([float(probs.get(a, 0.0)) / share[a] for a in mapping])
            total = float(column.sum())
            self.off_tree_mass = max(self.off_tree_mass, 1.0 - min(total, 1.0))
            if total > 0:
                out[:, h] = column / total
        return out


def check_queries(tree: PublicTree, player: int, max_queries: int) -> None:
    """Refuse, before anything is solved or asked, a spot whose scoring would ask the policy
    more than ``max_queries`` times (one per hand at each of ``player``'s nodes)."""
    if player not in (0, 1):
        raise ConfigError(f"player must be 0 (out of position) or 1 (in position), got {player!r}")
    nodes = int(np.sum((tree.kind == DECISION) & (tree.player == player)))
    need = nodes * tree.num_hands(player)
    if need > max_queries:
        raise ConfigError(
            f"scoring this spot asks the policy {need:,} times ({nodes:,} nodes x "
            f"{tree.num_hands(player)} hands), over max_queries={max_queries:,}: use a later "
            "street, fewer sizes or a raise cap"
        )


def agent_locks(game: Game, spot: HoldemSpot, tree: PublicTree, policy: Any, player: int,
                max_queries: int = DEFAULT_MAX_QUERIES) -> tuple[dict[int, np.ndarray], float]:
    """The agent's strategy as locks ``{node: [actions, hands]}`` at every node of ``player``
    (0 out of position, 1 in position), and the largest policy mass off the spot's tree."""
    check_queries(tree, player, max_queries)
    line = find_line(game, spot)
    walk = _Walk(game, spot, tree, policy, player, line)
    states: list[State | None] = []
    for hand in tree.hands[player]:
        states.append(reach_spot_root(game, spot, line, walk.seat_holes(hand, spot.board_cards),
                                  spot.board_cards))
    walk.walk(0, states, [])
    return walk.locks, walk.off_tree_mass


def label_action(state: State, label: str) -> int:
    """The game action of a spot label at ``state``: fold, check/call, or the bet or raise that
    takes the player's bet this street to the label's chips (``"bet 5"``, ``"raise 15"``,
    ``"allin 195"``)."""
    if label == "fold":
        return 0
    if label in ("check", "call"):
        return 1
    word, _, amount = label.partition(" ")
    seat = state.current_player()
    for action in state.legal_actions():
        if action <= 1:
            continue
        nxt = state.clone()
        nxt.apply_action(action)
        if amount.isdigit() and int(nxt.public_state()["round_bets"][seat]) == int(amount):
            return int(action)
    raise ConfigError(f"the game has no action {label!r} at this point; spot labels are fold, "
                      "check, call or a bet/raise/allin to a number of chips the game offers")


def own_ranges(game: Game, policy: Any, spot: HoldemSpot, min_weight: float = 1e-6,
               through: Sequence[str] = ()) -> HoldemSpot:
    """The spot at the ranges ``policy`` reaches it with playing both seats (self-play): each
    combo of each player weighted by the chance its seat takes the line's actions
    (:func:`find_line`) with it, and then the spot's actions ``through`` (labels from the
    spot's root, e.g. ``["bet 5"]``: the range facing that bet); combos under ``min_weight``
    of the largest are left out."""
    line = find_line(game, spot)
    seats = spot_seats(game)
    board = spot.board_cards
    texts = []
    for player in (0, 1):
        seat = seats[player]
        weights = []
        for combo in range(1326):
            a, b = (int(c) for c in COMBO_CARDS[combo])
            if a in board or b in board:
                continue
            other = dummy_holes(board, {a, b})
            state = deal_holes(game, {seat: (a, b), 1 - seat: other})
            reach = 1.0
            for action in line:
                while state.is_chance_node():
                    state.apply_action(board[len(state.public_state()["public_cards"])])
                if state.current_player() == seat:
                    reach *= float(policy.action_probabilities(state).get(action, 0.0))
                state.apply_action(action)
            while state.is_chance_node():
                state.apply_action(board[len(state.public_state()["public_cards"])])
            for label in through:
                action = label_action(state, label)
                if state.current_player() == seat and reach > 0:
                    reach *= float(policy.action_probabilities(state).get(action, 0.0))
                state.apply_action(action)
            weights.append((combo, reach))
        top = max(w for _, w in weights)
        if top <= 0:
            raise ConfigError(f"the policy never takes the line {line} to the spot as "
                              f"{('oop', 'ip')[player]}: no range to score it at")
        texts.append(",".join(f"{combo_name(c)}:{min(w / top, 1.0):.6g}" for c, w in weights
                              if w >= min_weight * top))
    return HoldemSpot.from_dict({**spot.to_dict(), "oop_range": texts[0], "ip_range": texts[1]})


@dataclass(frozen=True)
class SpotEvaluation:
    """An agent's score at a spot (chips in the tree's convention; differences are exact)."""

    player: int
    equilibrium_value: float
    agent_value: float
    ev_loss_chips: float
    ev_loss_pct_pot: float
    equilibrium_exploitability_pct: float
    off_tree_mass: float
    line: list[int]
    ranges: str = "declared"

    def to_dict(self) -> dict[str, Any]:
        return {
            "spot_player": ("oop", "ip")[self.player],
            "spot_equilibrium_value": self.equilibrium_value,
            "spot_agent_value_vs_best_response": self.agent_value,
            "spot_ev_loss_chips": self.ev_loss_chips,
            "spot_ev_loss_pct_pot": self.ev_loss_pct_pot,
            "spot_equilibrium_exploitability_pct": self.equilibrium_exploitability_pct,
            "spot_off_tree_mass": self.off_tree_mass,
            "spot_line": self.line,
            "spot_ranges": self.ranges,
        }


def evaluate_at_spot(
    game: Game, policy: Any, spot: HoldemSpot | str | Path, player: int,
    exploitability_pct: float = 0.3, max_iterations: int = 2000,
    max_queries: int = DEFAULT_MAX_QUERIES, equilibrium: PublicSolver | None = None,
) -> SpotEvaluation:
    """Score ``policy`` as the spot's ``player`` at the spot's declared ranges: the spot is
    solved to ``exploitability_pct`` % of the pot (or ``equilibrium``, a solver of the same
    tree, is used), the agent's nodes locked, and the opponent's best response computed."""
    if isinstance(spot, (str, Path)):
        spot = HoldemSpot.from_toml(spot)
    if not isinstance(spot, HoldemSpot):
        raise ConfigError(f"spot must be a HoldemSpot or a TOML path, got {type(spot).__name__}")
    spot = HoldemSpot.from_dict({**spot.to_dict(), "suit_isomorphism": False})
    if equilibrium is None:
        tree = build_spot_tree(spot)
        check_queries(tree, player, max_queries)
        find_line(game, spot)  # refused before the solve, not after
        equilibrium = PublicSolver(tree)
        equilibrium.solve(max_iterations, target_pct=exploitability_pct)
    tree = equilibrium.tree
    locks, off = agent_locks(game, spot, tree, policy, player, max_queries)
    locked = PublicSolver(tree, locks=locks)
    opponent_br = locked.best_response_values()[1 - player]
    agent_value = -opponent_br  # zero-sum in the tree's convention
    eq_value = equilibrium.game_value()[player]
    loss = eq_value - agent_value
    return SpotEvaluation(player, eq_value, agent_value, loss,
                          100.0 * loss / spot.starting_pot,
                          equilibrium.exploitability_pct(), off, find_line(game, spot))


__all__ = [
    "SpotEvaluation", "agent_locks", "check_queries", "evaluate_at_spot", "find_line",
    "label_action", "own_ranges",
]
