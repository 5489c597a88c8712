"""The public trees of Kuhn poker and the Leduc family, built from the games' own rules.

``public_game_tree(game)`` walks the game from its initial state with one ``State`` per deal of
private cards, all moving together along the public actions and public cards: the first chance
steps (until every player holds its private cards) are the deals, later chance steps deal
public cards. No rule is written twice: legal actions, pots, chance probabilities and payoffs
are the states' own. Two players only (the engine is heads-up); any deck size, raise sizes,
blinds or caps the game's parameters allow.

Terminal values are dense ``[H_0, H_1]`` matrices of player 0's returns (``DenseTerminals``),
fine for Kuhn's and Leduc's handful of hands; impossible pairs (a shared card, or a card on the
board) hold 0.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerzoo.checkpoint import plain_data
from pokerzoo.errors import ConfigError, TreeTooLargeError
from pokerzoo.games.base import CHANCE as CHANCE_PLAYER
from pokerzoo.games.base import Game, State
from pokerzoo.games.registry import load_game
from pokerzoo.public.engine.solver import PublicSolver
from pokerzoo.public.engine.sweep_kernel import dense_terminal_kernel
from pokerzoo.public.engine.tree import FOLD, SHOWDOWN, PublicTree
from pokerzoo.public.engine.tree_builder import PublicTreeBuilder

History = tuple[int, int, tuple[int, ...]]
"""One history of a public node: player 0's hand index, player 1's, the game's history."""

_MAX_DEALS = 10_000  # hand pairs; a dense matrix per terminal is H0 x H1 float64


class DenseTerminals:
    """Terminal values from dense ``[B, H_0, H_1]`` matrices of player 0's returns (zero-sum).

    By default terminal ``n``'s matrix is ``payoffs[terminal_data[n]]``. With ``table`` and
    ``scale`` (``[R]`` each) ``terminal_data[n]`` names a row ``r`` and the matrix is
    ``scale[r] * payoffs[table[r]]``: terminals whose payoffs differ by a factor share one
    base matrix (a fold is ``c`` times the live-pair mask, a showdown of equal contributions
    the pot times the share less one half), so memory grows with the bases, not the
    terminals. The scale multiplies the finished matrix-vector product, so a scale of 1.0
    gives the same bits as no scale.
    """

    def __init__(self, payoffs: np.ndarray, table: np.ndarray | None = None,
                 scale: np.ndarray | None = None) -> None:
        payoffs = np.ascontiguousarray(payoffs, dtype=np.float64)
        if payoffs.ndim != 3 or not np.all(np.isfinite(payoffs)):
            raise ConfigError("payoffs must be a finite [terminals, H_0, H_1] array")
        payoffs.flags.writeable = False
        self.payoffs = payoffs
        if (table is None) != (scale is None):
            raise ConfigError("give both table and scale (one row per terminal entry) or neither")
        self.table: np.ndarray | None = None
        self.scale: np.ndarray | None = None
        if table is not None and scale is not None:
            table = np.ascontiguousarray(table, dtype=np.int64)
            scale = np.ascontiguousarray(scale, dtype=np.float64)
            if table.ndim != 1 or scale.shape != table.shape:
                raise ConfigError("table and scale must be [rows] arrays of the same length")
            if ((table < 0) | (table >= payoffs.shape[0])).any():
                raise ConfigError(f"table must index the {payoffs.shape[0]} payoff matrices")
            if not np.all(np.isfinite(scale)):
                raise ConfigError("scale must be finite")
            table.flags.writeable = False
            scale.flags.writeable = False
            self.table, self.scale = table, scale

    @property
    def num_rows(self) -> int:
        """How many rows ``terminal_data`` may index."""
        return int(self.payoffs.shape[0] if self.table is None else self.table.shape[0])

    def matrix(self, row: int) -> np.ndarray:
        """Player 0's ``[H_0, H_1]`` payoffs of terminal-data row ``row``."""
        if self.table is None or self.scale is None:
            return self.payoffs[row]
        return self.scale[row] * self.payoffs[self.table[row]]

    def values(
        self, tree: PublicTree, node: int, player: int, opp_reach: np.ndarray
    ) -> np.ndarray:
        row = int(tree.terminal_data[node])
        if self.table is None or self.scale is None:
            matrix = self.payoffs[row]
            if player == 0:
                return matrix @ opp_reach
            return -(opp_reach @ matrix)
        base = self.payoffs[self.table[row]]
        out = base @ opp_reach if player == 0 else -(opp_reach @ base)
        return out * self.scale[row]

    def equity(
        self, tree: PublicTree, node: int, player: int, opp_reach: np.ndarray
    ) -> np.ndarray:
        """Showdown equity of ``player``'s hands at ``node`` (the share of the pot won at a
        showdown, ties half) against the opponent's reach: on the node's board where the tree
        has showdowns on it, else averaged over the next public card (uniform over the cards
        the pair leaves, as Leduc deals it). NaN where no opponent hand is compatible or no
        showdown follows."""
        board = tree.board_cards(node)
        wins = np.zeros((tree.num_hands(0), tree.num_hands(1)))
        present = np.zeros_like(wins)
        rows = [[c for c in row if c >= 0] for row in tree.boards.tolist()]
        own = [b for b, cards in enumerate(rows) if cards == board]
        later = [b for b, cards in enumerate(rows)
                 if len(cards) == len(board) + 1 and cards[:-1] == board]
        for tables in (own, later):
            for b in tables:
                outcome = self._showdown_outcome(tree, b)
                if outcome is not None:
                    here = self._present(tree, rows[b])
                    wins += here * outcome
                    present += here
            if present.any():
                break
        exact = present > 0
        pair = np.divide(wins, present, out=np.zeros_like(wins), where=exact)
        if player == 1:
            pair, exact = 1.0 - pair.T, exact.T
        pair_ok = exact & self._present(tree, board).astype(bool).reshape(exact.shape)
        num = (pair * pair_ok) @ opp_reach
        den = pair_ok.astype(np.float64) @ opp_reach
        return np.divide(num, den, out=np.full(num.shape, np.nan), where=den > 0)

    def _showdown_outcome(self, tree: PublicTree, board: int) -> np.ndarray | None:
        """Player 0's share of the pot per hand pair at a showdown on board ``board``."""
        nodes = np.flatnonzero((tree.kind == SHOWDOWN) & (tree.board == board))
        if nodes.size == 0:
            return None
        payoff = self.matrix(int(tree.terminal_data[nodes[0]]))
        return np.where(payoff > 0, 1.0, np.where(payoff < 0, 0.0, 0.5))

    @staticmethod
    def _present(tree: PublicTree, board: list[int]) -> np.ndarray:
        """1.0 for the hand pairs sharing no card with each other nor with ``board``."""
        free = [~tree.card_masks[p][board].any(axis=0) for p in (0, 1)]
        return (tree.compatible & np.outer(free[0], free[1])).astype(np.float64)

    def compiled(self, tree: PublicTree) -> tuple[Any, tuple[Any, ...]]:
        """The compiled sweep's kernel (``sweep_kernel.dense_terminal_kernel``) and data:
        ``(payoffs, base matrix per node, scale per node)``."""
        data = np.asarray(tree.terminal_data, dtype=np.int64)
        if self.table is None or self.scale is None:
            return dense_terminal_kernel, (self.payoffs, data, np.ones(data.shape[0]))
        rows = np.clip(data, 0, max(self.num_rows - 1, 0))
        ends = tree.kind >= FOLD
        index = np.where(ends, self.table[rows], 0)
        scale = np.where(ends, self.scale[rows], 1.0)
        return dense_terminal_kernel, (self.payoffs, index, scale)

    def state_dict(self) -> dict[str, Any]:
        state: dict[str, Any] = {"payoffs": self.payoffs}
        if self.table is not None:
            state["table"] = self.table
            state["scale"] = self.scale
        return state

    @classmethod
    def from_state(cls, tree: PublicTree, state: dict[str, Any]) -> DenseTerminals:
        return cls(state["payoffs"], state.get("table"), state.get("scale"))


@dataclass(frozen=True, eq=False)
class SmallGameTree:
    """A small game's public tree with the game histories each public node groups.

    ``histories[n]`` lists ``(hand index of player 0, of player 1, game history)`` for every
    history of the game at public node ``n`` (a deal of private cards followed by the node's
    public line); ``deal_probability`` is the probability of each deal (the same for every
    pair the game can deal: ``1 / tree.pair_mass`` with unit initial weights).
    """

    game: Game
    tree: PublicTree
    histories: tuple[tuple[History, ...], ...]
    deal_probability: float

    def state(self, node: int, hand_0: int, hand_1: int) -> State:
        """The game state of public node ``node`` with these two hands."""
        for i0, i1, history in self.histories[node]:
            if i0 == hand_0 and i1 == hand_1:
                state = self.game.new_initial_state()
                for action in history:
                    state.apply_action(action)
                return state
        raise ConfigError(f"public node {node} has no history with hands ({hand_0}, {hand_1})")

    def information_state_keys(self, node: int) -> dict[int, Hashable]:
        """At a decision node, the acting player's information-state key of each hand it can
        hold there (hand index -> key)."""
        player = int(self.tree.player[node])
        if player < 0:
            raise ConfigError(f"public node {node} is not a decision node")
        keys: dict[int, Hashable] = {}
        for i0, i1, _ in self.histories[node]:
            hand = (i0, i1)[player]
            if hand not in keys:
                keys[hand] = self.state(node, i0, i1).information_state_key(player)
        return keys


def policy_blocks(small: SmallGameTree, policy: Any) -> dict[int, np.ndarray]:
    """A policy answering ``action_probabilities(state)`` (a ``TabularPolicy``, any agent's
    ``policy()``) as ``{decision node: [actions, hands]}`` blocks of the public tree; hands
    that cannot be at a node (blocked by its board) get the uniform strategy."""
    tree = small.tree
    blocks: dict[int, np.ndarray] = {}
    for node in np.flatnonzero(tree.kind == 0).tolist():
        player = int(tree.player[node])
        actions = int(tree.num_children[node])
        block = np.full((actions, tree.num_hands(player)), 1.0 / actions)
        done: set[int] = set()
        for i0, i1, _ in small.histories[node]:
            hand = (i0, i1)[player]
            if hand in done:
                continue
            done.add(hand)
            state = small.state(node, i0, i1)
            probs = policy.action_probabilities(state)
            block[:, hand] = [float(probs.get(a, 0.0)) for a in state.legal_actions()]
        blocks[node] = block
    return blocks


def _deals(game: Game) -> list[tuple[State, float]]:
    """Every state right after the private deals, with its chance probability."""
    out: list[tuple[State, float]] = []
    stack: list[tuple[State, float]] = [(game.new_initial_state(), 1.0)]
    while stack:
        state, prob = stack.pop()
        if all(state.private_cards()) or state.current_player() != CHANCE_PLAYER:
            out.append((state, prob))
            continue
        for action, p in state.chance_outcomes():
            child = state.clone()
            child.apply_action(action)
            stack.append((child, prob * p))
            if len(stack) + len(out) > _MAX_DEALS:
                raise TreeTooLargeError(
                    f"{game.name} deals more than {_MAX_DEALS} pairs of private hands; "
                    "dense public trees are for small games (Kuhn, Leduc)"
                )
    return out


def _check_game(game: Game) -> None:
    if not isinstance(game, Game):
        raise ConfigError(f"expected a pokerzoo Game, got {type(game).__name__}")
    if game.num_players != 2:
        raise ConfigError(
            f"the public engine is heads-up: {game.name} has {game.num_players} players, "
            "2 are allowed"
        )
    if game.game_type.hidden_model or game.game_type.utility != "zero_sum":
        raise ConfigError(
            f"{game.name} is not a zero-sum game with a known model; the public engine solves "
            "those only"
        )


class _Walker:
    """Groups the histories of every deal by their public line and feeds the builder."""

    def __init__(self, game: Game, hands: list[list[int]], builder: PublicTreeBuilder) -> None:
        self.game = game
        self.index = [{card: i for i, card in enumerate(h)} for h in hands]
        self.builder = builder
        self.groups: dict[int, list[tuple[int, int, State]]] = {}
        self.payoffs: list[np.ndarray] = []
        self.sizes = (len(hands[0]), len(hands[1]))

    def walk(self, states: list[tuple[int, int, State]], parent: int, label: str,
             card: int = -1, weight: float = 1.0) -> None:
        first = states[0][2]
        public = first.public_state()
        pot, contrib = float(public["pot"]), [float(c) for c in public["contributions"]]
        board = [int(c) for c in public["public_cards"]]
        player = first.current_player()
        if any(s.current_player() != player for _, _, s in states):
            raise ConfigError(f"{self.game.name}: histories of one public state disagree on "
                              "who acts; its public_state() does not determine the turn")
        if first.is_terminal():
            node = self._terminal(states, parent, label, pot, contrib, board, card, weight)
        elif player == CHANCE_PLAYER:
            node = self.builder.add_chance(parent, label, pot, contrib, board, card, weight)
            self._chance_children(states, node)
        else:
            node = self.builder.add_decision(parent, label, player, pot, contrib, board,
                                             card, weight)
            actions = first.legal_actions()
            for action in actions:
                children = []
                for i0, i1, s in states:
                    if s.legal_actions() != actions:
                        raise ConfigError(f"{self.game.name}: legal actions depend on private "
                                          "cards; the public engine needs public actions")
                    child = s.clone()
                    child.apply_action(action)
                    children.append((i0, i1, child))
                self.walk(children, node, self.game.action_to_string(action, first))
        self.groups[node] = states

    def _terminal(self, states: list[tuple[int, int, State]], parent: int, label: str,
                  pot: float, contrib: list[float], board: list[int], card: int,
                  weight: float) -> int:
        matrix = np.zeros(self.sizes)
        returns = set()
        for i0, i1, s in states:
            r = s.returns()
            if abs(r[0] + r[1]) > 1e-9:
                raise ConfigError(f"{self.game.name} is not zero-sum at {s.history()}")
            matrix[i0, i1] = r[0]
            returns.add(float(r[0]))
        self.payoffs.append(matrix)
        data = len(self.payoffs) - 1
        if len(returns) == 1 and returns != {0.0}:
            # One result whatever the cards: nobody showed down, someone folded (the loser).
            folder = 0 if returns.pop() < 0 else 1
            return self.builder.add_terminal(parent, label, FOLD, pot, contrib, board,
                                             folder=folder, data=data, card=card,
                                             weight=weight)
        return self.builder.add_terminal(parent, label, SHOWDOWN, pot, contrib, board,
                                         data=data, card=card, weight=weight)

    def _chance_children(self, states: list[tuple[int, int, State]], node: int) -> None:
        by_card: dict[int, list[tuple[int, int, State]]] = {}
        weights: dict[int, float] = {}
        for i0, i1, s in states:
            for action, p in s.chance_outcomes():
                if weights.setdefault(action, p) != p:
                    raise ConfigError(f"{self.game.name}: the chance of public card {action} "
                                      "differs between deals beyond card removal")
                child = s.clone()
                child.apply_action(action)
                by_card.setdefault(action, []).append((i0, i1, child))
        for action in sorted(by_card):
            self.walk(by_card[action], node, self.game.card_to_string(action), card=action,
                      weight=weights[action])


def public_game_tree(game: Game) -> SmallGameTree:
    """The public tree of a small heads-up game (Kuhn, the Leduc family) from its rules.

    >>> from pokerzoo.games import load_game
    >>> small = public_game_tree(load_game("kuhn_poker"))
    >>> small.tree.summary()["nodes"], small.tree.num_hands(0)
    (9, 3)
    """
    _check_game(game)
    deals = _deals(game)
    hands: list[list[int]] = [[], []]
    for state, _ in deals:
        for p, cards in enumerate(state.private_cards()):
            if len(cards) != 1:
                raise ConfigError(f"{game.name} deals {len(cards)} private cards; the dense "
                                  "public trees take one per player (Kuhn, Leduc)")
            if cards[0] not in hands[p]:
                hands[p].append(cards[0])
    hands = [sorted(h) for h in hands]
    probs = {round(prob, 15) for _, prob in deals}
    if len(probs) != 1:
        raise ConfigError(f"{game.name} deals private cards with unequal probabilities; "
                          "initial weights per hand cannot express that")
    num_cards = max(max(h) for h in hands) + 1
    builder = PublicTreeBuilder(
        hands=[[[c] for c in h] for h in hands],
        initial_reach=[np.ones(len(h)) for h in hands],
        num_cards=num_cards,
        starting_pot=float(deals[0][0].public_state()["pot"]),
        hand_names=[[game.card_to_string(c) for c in h] for h in hands],
    )
    walker = _Walker(game, hands, builder)
    index = walker.index
    states = [(index[0][s.private_cards()[0][0]], index[1][s.private_cards()[1][0]], s)
              for s, _ in deals]
    walker.walk(states, -1, "")
    tree, final = builder.build(DenseTerminals(np.stack(walker.payoffs)))
    histories: list[tuple[History, ...]] = [()] * tree.num_nodes
    for provisional, group in walker.groups.items():
        histories[int(final[provisional])] = tuple(
            (i0, i1, tuple(s.history())) for i0, i1, s in group
        )
    return SmallGameTree(game=game, tree=tree, histories=tuple(histories),
                         deal_probability=float(deals[0][1]))


@dataclass(frozen=True, eq=False)
class GameSolution:
    """A small game solved on the public engine (``solve_game``)."""

    small: SmallGameTree
    solver: PublicSolver
    game_value: tuple[float, float]
    """Each player's expected chips under the average strategies."""
    exploitability: float
    """``(BR_0 + BR_1) / 2`` in chips."""
    exploitability_pct: float
    """The same in % of the starting pot (the antes and blinds)."""
    iterations: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        game = self.small.game
        return {
            "game": game.name,
            "game_params": plain_data(game.params()),
            "algorithm": self.solver.config.algorithm,
            "game_value": list(self.game_value),
            "exploitability": self.exploitability,
            "exploitability_pct_pot": self.exploitability_pct,
            "iterations": self.iterations,
            "seconds": self.seconds,
        }


def solve_game(
    name: str,
    *,
    iterations: int = 1000,
    exploitability_pct: float | None = None,
    check_every: int = 10,
    progress: Callable[[int, float], None] | None = None,
    game_params: Mapping[str, Any] | None = None,
    **solver_params: Any,
) -> GameSolution:
    """Solve a whole small game (``"kuhn_poker"``, ``"leduc_holdem"``, with ``game_params``)
    on the public engine, up to ``iterations`` or until the exploitability is at most
    ``exploitability_pct`` % of the starting pot. ``solver_params`` are ``SolverConfig``
    fields (``algorithm="dcfr"``, ``storage="compressed"``, ...).

    >>> solution = solve_game("kuhn_poker", iterations=200, algorithm="dcfr")
    >>> round(solution.game_value[0], 3)
    -0.056
    """
    if not isinstance(name, str):
        raise ConfigError(f"name must be a game name (str), not {name!r}")
    if game_params is not None and not isinstance(game_params, Mapping):
        raise ConfigError(f"game_params must be a mapping of parameters, not {game_params!r}")
    start = time.perf_counter()
    small = public_game_tree(load_game(name, **dict(game_params or {})))
    solver = PublicSolver(small.tree, **solver_params)
    solver.solve(iterations, exploitability_pct, check_every, progress)
    exploitability = solver.exploitability()
    return GameSolution(
        small=small, solver=solver, game_value=solver.game_value(),
        exploitability=exploitability,
        exploitability_pct=100.0 * exploitability / small.tree.starting_pot,
        iterations=solver.iterations, seconds=time.perf_counter() - start,
    )
