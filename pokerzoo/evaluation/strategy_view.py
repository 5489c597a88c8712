"""What a policy plays, in a form people read: strategy tables and 13x13 preflop grids.

Two views, for any policy answering ``action_probabilities(state)`` (agents: their
``policy()``):

* ``strategy_rows`` / ``format_strategy``: one row per information set of a game whose tree
  fits (Kuhn, Leduc): the seat, its private card, the board, the betting so far by action
  names and the probability of each action by name, grouped by player and betting round.
* ``preflop_chart``: for hold'em, the policy at one pre-flop decision (a seat and a betting
  history) averaged over the card combinations of each of the 169 starting-hand classes, as
  one 13x13 matrix per legal action in the standard grid (``hand_class_cell``): pairs on the
  diagonal, suited hands above it, offsuit hands below, aces top-left. Drawing is in
  ``pokerzoo.runs.strategy_plots``.

Opponents' hole cards. A hold'em state needs every seat's cards, but a policy that plays on
what its seat knows (its information state) cannot depend on them. Each of the 1,326
combinations of the charted seat is therefore dealt with ``opponent_samples`` random
non-conflicting opponent hands (one by default) and the answers are averaged; more samples
only change the picture for a policy that looks at cards its seat cannot see.

>>> from pokerzoo import load_game
>>> from pokerzoo.policy import UniformRandomPolicy
>>> text = format_strategy(strategy_rows(load_game("kuhn_poker"), UniformRandomPolicy()))
>>> for line in text.splitlines()[:3]:
...     print(line)
Player 0, round 1
  card  board  history   pass   bet
  J     -      -        0.500 0.500
"""

from __future__ import annotations

import math
import sys
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError, InvalidPolicyError, TreeTooLargeError
from pokerzoo.evaluation.arguments import is_int
from pokerzoo.evaluation.exact import tabularize
from pokerzoo.evaluation.unknown import evaluation_tree
from pokerzoo.games.base import Game, State
from pokerzoo.policy import StatePolicy, as_state_policy, policy_of
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.tree.tabular_policy import checked_rows

TABLE_MAX_NODES = 5_000_000
"""Largest tree (histories) ``strategy_rows`` builds; bigger games are charted instead."""

RANK_ORDER = "AKQJT98765432"
"""Ranks along the rows and columns of a 13x13 grid, top/left first."""

# ---------------------------------------------------------------------------------------------
# Tables of tabular games
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StrategyRow:
    """One information set of a strategy table."""

    player: int
    round: int
    """Betting round (0 first) the decision is in."""
    cards: str
    """The acting seat's private cards by name."""
    board: str
    """Public cards by name (``"-"`` for none)."""
    history: str
    """Betting so far by action names; rounds separated by ``" | "`` (``"-"`` for none)."""
    probs: dict[str, float]
    """Probability of each legal action, by action name, in action-id order."""
    key: Hashable = field(compare=False)
    """The information-state key (``TabularPolicy`` row key)."""


def strategy_rows(
    game: Game | GameTree, policy: object, player: int | None = None,
    max_nodes: int = TABLE_MAX_NODES,
) -> list[StrategyRow]:
    """The policy at every information set of ``game``, ordered by player, round, history
    (shorter first) and card.

    ``game`` may be a game (its evaluation tree is built; for unknown-environment games the
    tree of d*, whose information sets the agent's view shares) or a ``GameTree``. ``policy``
    is anything evaluators accept (state policy, ``TabularPolicy``, agent, callable).
    ``player`` keeps one seat's rows only.

    Raises:
        ConfigError: the game's tree is too big for a table (hold'em: draw
            ``preflop_chart`` instead) or ``player`` is not a seat.
        InvalidPolicyError: the policy's answer at some information set is not a distribution.
    """
    if isinstance(game, GameTree):
        tree = game
    else:
        tree = _table_tree(game, max_nodes)
    g = tree.game
    if player is not None and not (is_int(player) and 0 <= player < g.num_players):
        raise ConfigError(f"player must be a seat 0..{g.num_players - 1}, got {player!r}")
    probs = tabularize(tree, policy).probs
    names = action_names(g)
    order: dict[tuple[int, int, str], int] = {}
    entries = []
    for i in range(tree.num_infosets):
        p = int(tree.infoset_player[i])
        if player is not None and p != player:
            continue
        state = tree.infoset_state(i)
        public = state.public_state()
        rnd = int(public.get("round", 0))
        history = " | ".join(" ".join(r) for r in public.get("betting", [])[: rnd + 1])
        history = history.strip(" |") or "-"
        if rnd > 0 and history != "-" and not public["betting"][rnd]:
            history += " |"  # a new round with no action yet: show where it starts
        own = state.private_cards()[p]
        board = " ".join(g.card_to_string(c) for c in public.get("public_cards", [])) or "-"
        legal = np.flatnonzero(tree.infoset_mask[i])
        row = StrategyRow(
            player=p, round=rnd,
            cards=" ".join(g.card_to_string(c) for c in own) or "-",
            board=board, history=history,
            probs={names[a]: float(probs[i, a]) for a in legal},
            key=tree.infoset_keys[i],
        )
        group = (p, rnd, history)
        order.setdefault(group, len(order))
        depth = 0 if history == "-" else len(history.replace("|", " ").split())
        entries.append(((p, rnd, depth, order[group], tuple(own), board), row))
    entries.sort(key=lambda e: e[0])
    return [row for _, row in entries]


def format_strategy(rows: Sequence[StrategyRow], digits: int = 3) -> str:
    """``rows`` as text: one block per (player, round), one aligned line per information set,
    one column per action name (``-`` where the action is not legal)."""
    if not rows:
        return "(no information sets)"
    # Merge the rows' action orders (each in action-id order) into one column order.
    columns: list[str] = []
    for r in rows:
        at = 0
        for name in r.probs:
            if name in columns:
                at = columns.index(name) + 1
            else:
                columns.insert(at, name)
                at += 1
    width_p = max(digits + 2, *(len(c) for c in columns))
    w_cards = max(4, *(len(r.cards) for r in rows))
    w_board = max(5, *(len(r.board) for r in rows))
    w_hist = max(7, *(len(r.history) for r in rows))
    head = (f"  {'card':<{w_cards}}  {'board':<{w_board}}  {'history':<{w_hist}} "
            + " ".join(f"{c:>{width_p}}" for c in columns))
    lines: list[str] = []
    group = None
    for r in rows:
        if (r.player, r.round) != group:
            group = (r.player, r.round)
            if lines:
                lines.append("")
            lines.extend([f"Player {r.player}, round {r.round + 1}", head])
        cells = " ".join(
            f"{r.probs[c]:>{width_p}.{digits}f}" if c in r.probs else f"{'-':>{width_p}}"
            for c in columns
        )
        lines.append(f"  {r.cards:<{w_cards}}  {r.board:<{w_board}}  {r.history:<{w_hist}} "
                     + cells)
    return "\n".join(lines)


def rows_as_dicts(rows: Sequence[StrategyRow]) -> list[dict[str, Any]]:
    """``rows`` as JSON-ready dicts (the key as its ``repr``)."""
    return [
        {"player": r.player, "round": r.round, "cards": r.cards, "board": r.board,
         "history": r.history, "probs": dict(r.probs), "key": repr(r.key)}
        for r in rows
    ]


def action_names(game: Game) -> list[str]:
    """The state-free name of every action id of ``game`` (e.g. Leduc: fold, call, raise)."""
    return [game.action_to_string(a) for a in range(game.num_distinct_actions)]


def _table_tree(game: Game, max_nodes: int) -> GameTree:
    if game.game_type.hole_card_charts:
        raise ConfigError(
            f"{game!r} is too big for a table of every information set; draw its pre-flop "
            "13x13 charts instead (evaluate.py --strategy-chart out.png)"
        )
    try:
        return evaluation_tree(game, max_nodes)
    except TreeTooLargeError as exc:
        raise ConfigError(
            f"{game!r} has more than {max_nodes:,} histories, too many for a strategy table "
            "(tables are for games like Kuhn and Leduc)"
        ) from exc


# ---------------------------------------------------------------------------------------------
# Hold'em pre-flop grids
# ---------------------------------------------------------------------------------------------


def hand_class_cell(cards_a: Any, cards_b: Any) -> tuple[np.ndarray, np.ndarray]:
    """Grid ``(row, column)`` of the hand classes of hole cards ``cards_a``, ``cards_b``
    (card ints ``4 * rank + suit``, arrays or ints; either order).

    Rows and columns run A, K, ..., 2. Pairs sit on the diagonal, suited hands above it
    (row: the higher rank) and offsuit hands below it (column: the higher rank): AA is
    ``(0, 0)``, AKs ``(0, 1)``, AKo ``(1, 0)``, 32o ``(12, 11)``, 22 ``(12, 12)``.

    >>> hand_class_cell(51, 47), hand_class_cell(51, 46)  # As Ks, As Kh
    ((0, 1), (1, 0))
    """
    a = np.asarray(cards_a, dtype=np.int64)
    b = np.asarray(cards_b, dtype=np.int64)
    if np.any((a < 0) | (a > 51) | (b < 0) | (b > 51)) or np.any(a == b):
        raise ConfigError("hole cards must be two different card ints in 0..51")
    high = 12 - np.maximum(a // 4, b // 4)
    low = 12 - np.minimum(a // 4, b // 4)
    suited = (a % 4) == (b % 4)
    rows, cols = np.where(suited, high, low), np.where(suited, low, high)
    if rows.ndim == 0:
        return int(rows), int(cols)  # type: ignore[return-value]
    return rows, cols


def hand_class_labels() -> list[list[str]]:
    """The 13x13 grid of class names: ``"AA"``, ``"AKs"`` (above the diagonal), ``"AKo"``."""
    grid = []
    for i, ri in enumerate(RANK_ORDER):
        row = []
        for j, rj in enumerate(RANK_ORDER):
            if i == j:
                row.append(ri + rj)
            elif i < j:
                row.append(ri + rj + "s")
            else:
                row.append(rj + ri + "o")
        grid.append(row)
    return grid


def class_combinations() -> np.ndarray:
    """``13x13``: card combinations per class (pairs 6, suited 4, offsuit 12; 1,326 in all)."""
    grid = np.full((13, 13), 12.0)
    grid[np.triu_indices(13, k=1)] = 4.0
    np.fill_diagonal(grid, 6.0)
    return grid


@dataclass(frozen=True)
class PreflopChart:
    """A hold'em policy at one pre-flop decision, per starting-hand class."""

    game: Game
    seat: int
    history: list[int]
    """Betting actions (ids) before the decision."""
    history_names: list[str]
    actions: list[int]
    """The legal actions at the decision, one panel each."""
    action_names: list[str]
    matrix: np.ndarray
    """``[len(actions), 13, 13]``: mean probability of each action per hand class."""
    labels: list[list[str]]
    """``13x13`` class names (``hand_class_labels``)."""
    opponent_samples: int

    def title(self) -> str:
        history = ", ".join(self.history_names) or "first to act"
        return f"{self.game.name}: seat {self.seat}, pre-flop after {history}"

    def panel(self, action: int | str) -> np.ndarray:
        """The ``13x13`` matrix of one action, by id or name."""
        key = self.action_names.index(action) if isinstance(action, str) else (
            self.actions.index(action))
        return self.matrix[key]

    def frequencies(self) -> np.ndarray:
        """``[len(actions)]``: how often each action is played over all 1,326 combinations
        (classes weighted by their combination counts, ``class_combinations``)."""
        weights = class_combinations()
        return (self.matrix * weights).sum(axis=(1, 2)) / weights.sum()


def preflop_chart(
    game: Game, policy: object, seat: int | None = None, history: str | Sequence[int] = "",
    opponent_samples: int = 1, seed: int = 0,
) -> PreflopChart:
    """The policy at one pre-flop decision, averaged over each hand class's combinations.

    ``history`` is the pre-flop betting before the decision: action ids, or a string of
    actions separated by commas, each an id or a name as the game prints it at that point
    (``"call"``, ``"raise"``, ``"bet/raise 0.5 pot"``; case-insensitive). ``seat`` must be
    the seat to act after it (``None``: that seat). Each of the seat's 1,326 combinations is
    dealt ``opponent_samples`` times with random non-conflicting opponents' cards (see the
    module docs) and the answers are averaged per class.

    Raises:
        ConfigError: not a hold'em game, an unknown or illegal action in ``history``, a
            history that leaves pre-flop, a ``seat`` not to act, bad ``opponent_samples``.
        InvalidPolicyError: an answer that is not a distribution over the legal actions.
    """
    if not (isinstance(game, Game) and game.game_type.hole_card_charts):
        raise ConfigError(
            f"13x13 pre-flop charts are for hold'em games (limit_holdem, no_limit_holdem), "
            f"not {game!r}; print a strategy table instead (evaluate.py --strategy)"
        )
    if not (is_int(opponent_samples) and 1 <= opponent_samples <= 1000):
        raise ConfigError(f"opponent_samples must be an integer from 1 to 1000, "
                          f"got {opponent_samples!r}")
    n = game.num_players
    template = game.new_initial_state()
    for card in range(2 * n):  # any deal: pre-flop betting does not depend on the cards
        template.apply_action(card)
    actions_before, names_before = _parse_history(game, template, history)
    acting = template.current_player()
    if seat is not None and seat != acting:
        raise ConfigError(
            f"seat {seat} is not to act after {', '.join(names_before) or 'no betting'}; "
            f"seat {acting} is (give the history that leads to seat {seat}'s turn)"
        )
    seat = acting
    legal = template.legal_actions()
    names = [game.action_to_string(a, template) for a in legal]

    # Every combination of the charted seat, each dealt opponent_samples times.
    first, second = np.triu_indices(52, k=1)
    combos = np.repeat(np.stack([first, second], axis=1), opponent_samples, axis=0)
    deals = _deal(combos, seat, n, np.random.default_rng(seed))
    states = []
    for deal in deals.tolist():
        state = game.new_initial_state()
        for card in deal:
            state.apply_action(card)
        for a in actions_before:
            state.apply_action(a)
        states.append(state)
    probs = _ask(policy, states, seat, game.num_distinct_actions)
    mask = np.zeros_like(probs, dtype=bool)
    mask[:, legal] = True
    labels = hand_class_labels()
    rows, cols = hand_class_cell(combos[:, 0], combos[:, 1])
    keys = [f"{labels[r][c]} ({game.card_to_string(int(x))}{game.card_to_string(int(y))})"
            for r, c, (x, y) in zip(rows.tolist(), cols.tolist(), combos.tolist())]
    probs = checked_rows(probs, mask, keys)

    cell = rows * 13 + cols
    counts = np.bincount(cell, minlength=169).astype(np.float64)
    matrix = np.stack([
        np.bincount(cell, weights=probs[:, a], minlength=169) / counts for a in legal
    ]).reshape(len(legal), 13, 13)
    return PreflopChart(
        game=game, seat=seat, history=actions_before, history_names=names_before,
        actions=legal, action_names=names, matrix=matrix, labels=labels,
        opponent_samples=opponent_samples,
    )


def _parse_history(
    game: Game, state: State, history: str | Sequence[int]
) -> tuple[list[int], list[str]]:
    """Apply ``history`` to ``state`` (in place); the action ids and their names."""
    tokens: list[str | int] = []
    if isinstance(history, str):
        tokens.extend(t.strip() for t in history.split(",") if t.strip())
    else:
        tokens.extend(history)
    ids: list[int] = []
    names: list[str] = []
    for token in tokens:
        legal = state.legal_actions()
        by_name = {game.action_to_string(a, state).lower(): a for a in legal}
        by_name.update({game.action_to_string(a).lower(): a for a in legal})
        if is_int(token) or (isinstance(token, str) and token.isdigit()):
            action = int(token)
        elif isinstance(token, str) and token.lower() in by_name:
            action = by_name[token.lower()]
        else:
            action = -1
        if action not in legal:
            offered = ", ".join(f"{a} ({game.action_to_string(a, state)})" for a in legal)
            where = ", ".join(names) or "the start"
            raise ConfigError(f"history action {token!r} is not legal after {where}; "
                              f"legal: {offered}")
        names.append(game.action_to_string(action, state))
        state.apply_action(action)
        ids.append(action)
        if state.current_player() < 0:
            raise ConfigError(
                f"history {', '.join(names)} ends the pre-flop betting; a pre-flop chart needs "
                "a history after which a seat is still to act pre-flop"
            )
    return ids, names


def _deal(combos: np.ndarray, seat: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``[len(combos), 2n]`` chance actions: ``seat`` gets each combo, the other seats
    uniformly random cards from the rest of the deck (vectorised: random keys, dealt ones
    pushed last, then an argsort)."""
    m = len(combos)
    keys = rng.random((m, 52))
    keys[np.arange(m)[:, None], combos] = np.inf
    others = np.argsort(keys, axis=1)[:, : 2 * (n - 1)]
    deals = np.empty((m, 2 * n), dtype=np.int64)
    deals[:, 2 * seat : 2 * seat + 2] = combos
    rest = [s for s in range(n) if s != seat]
    for k, s in enumerate(rest):
        deals[:, 2 * s : 2 * s + 2] = others[:, 2 * k : 2 * k + 2]
    return deals


def _ask(policy: object, states: list[State], seat: int, num_actions: int) -> np.ndarray:
    """``[len(states), num_actions]``: the policy's answers, batched where it can be."""
    resolved = policy_of(policy)
    batched = _batched_network(resolved)
    if batched is not None:
        obs = np.stack([s.information_state_tensor(seat) for s in states])
        masks = np.stack([s.legal_actions_mask() for s in states])
        return np.asarray(batched(seat, obs, masks), dtype=np.float64)
    state_policy: StatePolicy = as_state_policy(resolved)
    probs = np.zeros((len(states), num_actions), dtype=np.float64)
    for i, state in enumerate(states):
        answer = state_policy.action_probabilities(state)
        if not isinstance(answer, Mapping):
            raise InvalidPolicyError(
                f"action_probabilities returned a {type(answer).__name__}; it must return "
                "{action: probability}"
            )
        for a, p in answer.items():
            if not (is_int(a) and 0 <= a < num_actions):
                raise InvalidPolicyError(
                    f"action_probabilities named action {a!r}; actions are integers in "
                    f"[0, {num_actions})"
                )
            probs[i, a] = float(p) if isinstance(p, int | float | np.number) else math.nan
    return probs


def _batched_network(policy: object) -> Any:
    """NFSP's network policy answers a whole batch in one forward pass
    (``agent.average_probs(seat, obs, masks)``); ``None`` for other policies. The module is
    looked up only if already imported, so charts of other policies never import torch."""
    module = sys.modules.get("pokerzoo.agents.nfsp.agent")
    network_policy = getattr(module, "NetworkPolicy", None) if module else None
    if network_policy is not None and isinstance(policy, network_policy):
        return policy.agent.average_probs
    return None
