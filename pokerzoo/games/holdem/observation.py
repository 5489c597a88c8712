"""What players see of a hold'em state: the information-state tensor and the public view.

The tensor is declared once as a ``TensorLayout`` (``holdem_layout``); the same declaration
writes the tensor and generates the field table in the game classes' docstrings. Chip amounts
are given in units of 100 big blinds (a default stack), bets in the history as fractions of the
pot before the action.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from pokerzoo.games.base import Field, TensorLayout
from pokerzoo.games.holdem.cards import CARD_STRINGS

if TYPE_CHECKING:
    from pokerzoo.games.holdem.game import HoldemGame
    from pokerzoo.games.holdem.state import HoldemState

ROUND_NAMES = ("preflop", "flop", "turn", "river")


def history_slots(num_players: int, limit: bool, raise_cap: int) -> int:
    """Action slots per betting round in the tensor.

    Limit: ``(raise_cap + 1) * num_players`` can hold every possible round. No-limit:
    ``2 * num_players + 6``; in the rare longer round the last slot shows the latest action
    (the information-state key stays exact).
    """
    return (raise_cap + 1) * num_players if limit else 2 * num_players + 6


@dataclass(frozen=True)
class AmountBounds:
    """The largest values of a hold'em tensor's amount entries (``inf``: not bounded)."""

    pot: float = math.inf
    """Chips in the pot, in tensor units (all starting stacks together)."""
    seat: tuple[float, ...] | None = None
    """Per seat: its stack, contribution or round bet, in tensor units (its starting stack)."""
    bet_ratio: float = math.inf
    """Chips put in by one action over the pot before it (the biggest stack over the forced
    bets)."""


def holdem_layout(
    num_players: int, num_actions: int, slots: int, bounds: AmountBounds | None = None
) -> TensorLayout:
    """The information-state tensor layout of a hold'em game, with each entry's range."""
    n = num_players
    slot = n + num_actions + 1
    b = bounds or AmountBounds()
    seat = b.seat if b.seat is not None else (math.inf,) * n
    bet_slot = (1.0,) * (n + num_actions) + (max(1.0, b.bet_ratio),)
    return TensorLayout(
        [
            Field("player", n, "one-hot: the observer's seat (0 small blind, 1 big blind)"),
            Field("position", n, "one-hot: observer's post-flop acting order (last = button)"),
            Field("round", 4, "one-hot: current betting round (pre-flop, flop, turn, river)"),
            Field("hole_cards", 52, "two ones: the observer's hole cards (card = 4*rank+suit)"),
            Field("flop", 52, "three ones: the flop cards, once dealt"),
            Field("turn", 52, "one one: the turn card, once dealt"),
            Field("river", 52, "one one: the river card, once dealt"),
            Field("pot", 1, "chips in the middle (bets included), in units of 100 big blinds",
                  high=b.pot),
            Field("stacks", n, "chips behind per seat, in units of 100 big blinds", high=seat),
            Field("contributions", n, "chips put in per seat this hand, in 100 big blinds",
                  high=seat),
            Field("round_bets", n, "chips bet per seat in the current round, in 100 big blinds",
                  high=seat),
            Field("to_call", 1, "chips the observer must add to call, as a fraction of the pot"),
            Field("folded", n, "1 for each seat that has folded"),
            Field("all_in", n, "1 for each seat still in the hand with no chips behind"),
            Field(
                "betting",
                4 * slots * slot,
                f"4 rounds x {slots} action slots x ({n} one-hot seat, {num_actions} one-hot "
                "action, chips put in / pot before)",
                high=bet_slot * (4 * slots),
            ),
        ]
    )


class TensorPlan:
    """Where a game's tensor entries go, as plain ints (``layout_offsets`` lookups by name cost
    more than the writes), and how amounts are scaled."""

    __slots__ = (
        "size", "n", "player", "position", "round", "hole", "board", "pot", "to_call",
        "folded", "all_in", "betting", "slots", "width", "num_actions", "postflop_first",
        "scale", "exact", "opening",
    )  # fmt: skip

    def __init__(self, game: HoldemGame) -> None:
        o = game.layout_offsets
        n = self.n = game.num_players
        self.size = game.information_state_layout.size
        self.player, self.position, self.round = o["player"], o["position"], o["round"]
        self.hole, self.pot, self.to_call = o["hole_cards"], o["pot"], o["to_call"]
        self.board = (o["flop"],) * 3 + (o["turn"], o["river"])  # per board card
        self.folded, self.all_in, self.betting = o["folded"], o["all_in"], o["betting"]
        self.slots, self.num_actions = game.history_slots, game.num_distinct_actions
        self.width = n + self.num_actions + 1
        self.postflop_first = game.postflop_first
        # Amounts are float32(chips) * float32(scale) rounded to float32. While every amount
        # fits float32's 24-bit mantissa, that product is exact in a Python float, so writing
        # ``chips * scale`` entry by entry rounds to the same float32 as a vector multiply.
        self.scale = float(np.float32(game.tensor_amount_scale))
        self.exact = sum(game.starting_stacks) < 2**24
        # Until the first bet or board card every hand's public entries are the same (round,
        # forced bets, stacks): written once, by the first hand that gets there, then copied.
        self.opening: np.ndarray | None = None


_PLANS: dict[int, tuple[HoldemGame, TensorPlan]] = {}


def tensor_plan(game: HoldemGame) -> TensorPlan:
    """The ``TensorPlan`` of ``game``, cached by identity: games are immutable, and hashing
    one (its whole config) would cost more than the lookup saves."""
    entry = _PLANS.get(id(game))
    if entry is None or entry[0] is not game:
        if len(_PLANS) >= 64:  # keeps the games it holds few
            _PLANS.clear()
        entry = _PLANS[id(game)] = (game, TensorPlan(game))
    return entry[1]


class PublicTensor:
    """The entries of a state's tensor that every seat sees alike, kept on the state and brought
    up to date from what happened since the last look (a state's history only grows; clones
    start without one)."""

    __slots__ = ("plan", "tensor", "history", "logged", "dealt", "count", "round")

    def __init__(self, plan: TensorPlan, state: HoldemState) -> None:
        self.plan = plan
        self.logged = 0  # betting actions written
        self.dealt = 0  # board cards written
        self.count = [0, 0, 0, 0]  # betting actions written per round
        if plan.opening is not None and _at_opening(state):
            self.tensor = plan.opening.copy()
            self.history = len(state._history)  # length of the history the tensor shows
            self.round = 0
        else:
            self.tensor = np.zeros(plan.size, dtype=np.float32)
            self.history = -1
            self.round = -1

    def update(self, state: HoldemState) -> None:
        """Write what changed since the history this tensor shows."""
        plan, t = self.plan, self.tensor
        if self.round != state._round:
            if self.round >= 0:
                t[plan.round + self.round] = 0.0
            self.round = state._round
            t[plan.round + self.round] = 1.0
        board = state._board
        for i in range(self.dealt, len(board)):
            t[plan.board[i] + board[i]] = 1.0
        self.dealt = len(board)
        stacks, contrib, folded = state._stacks, state._contrib, state._folded
        # pot, stacks, contributions and round_bets are adjacent in the layout.
        amounts = [sum(contrib), *stacks, *contrib, *state._bets]
        start = plan.pot
        if plan.exact:
            scale = plan.scale
            for i, chips in enumerate(amounts, start):
                t[i] = chips * scale
        else:
            t[start : start + len(amounts)] = amounts
            t[start : start + len(amounts)] *= plan.scale
        # Folding and going all-in are for the rest of the hand: set, never cleared.
        for q in range(plan.n):
            if folded[q]:
                t[plan.folded + q] = 1.0
            elif stacks[q] == 0:
                t[plan.all_in + q] = 1.0
        log = state._log
        if self.logged < len(log):
            slots, width, base = plan.slots, plan.width, plan.betting
            action_at, amount_at = plan.n, plan.n + plan.num_actions
            count = self.count
            for rnd, seat, action, put, pot_before, _ in log[self.logged :]:
                k = count[rnd]
                count[rnd] = k + 1
                if k < slots:
                    s = base + (rnd * slots + k) * width
                else:  # an overflowing round shows its latest action in its last slot
                    s = base + (rnd * slots + slots - 1) * width
                    t[s : s + width] = 0.0
                t[s + seat] = 1.0
                t[s + action_at + action] = 1.0
                t[s + amount_at] = put / pot_before
            self.logged = len(log)
        self.history = len(state._history)


def _at_opening(state: HoldemState) -> bool:
    """Before the first bet or board card (where every hand's public entries are alike)."""
    return not state._log and not state._board


def information_state_tensor(state: HoldemState, p: int) -> np.ndarray:
    """The tensor of ``state`` seen by seat ``p`` (see ``holdem_layout``).

    Envs ask for one every step, so the seat-independent entries are kept on the state
    (``PublicTensor``) and updated with what happened since; a copy of them gets the seat's own
    entries. Every entry is one scalar store: cheaper than building index arrays for a batched
    write.
    """
    public = state._public_tensor
    if public is None:
        public = state._public_tensor = PublicTensor(tensor_plan(state.game), state)
    plan = public.plan
    if public.history != len(state._history):
        public.update(state)
        if plan.opening is None and _at_opening(state):
            plan.opening = public.tensor.copy()
    t = public.tensor.copy()
    t[plan.player + p] = 1.0
    t[plan.position + (p - plan.postflop_first) % plan.n] = 1.0
    hole = plan.hole
    for c in state._hole[p]:
        t[hole + c] = 1.0
    t[plan.to_call] = (state._max_bet - state._bets[p]) / sum(state._contrib)
    return t


def action_string(entry: tuple[int, int, int, int, int, int], facing_bet: bool) -> str:
    """Readable form of one logged betting action, e.g. ``"raise to 300"``."""
    _, _, action, put, _, bet_to = entry
    if action == 0:
        return "fold"
    if action == 1:
        return f"call {put}" if put else "check"
    return f"{'raise to' if facing_bet else 'bet'} {bet_to}"


def public_state(state: HoldemState) -> dict[str, Any]:
    """The public view with the keys of ``State.public_state`` plus hold'em extras."""
    rounds = state._round + 1
    betting: list[list[str]] = [[] for _ in range(rounds)]
    opened = [True, False, False, False]  # pre-flop the big blind is the bet
    for entry in state._log:
        rnd = entry[0]
        betting[rnd].append(action_string(entry, opened[rnd]))
        if entry[2] >= 2:
            opened[rnd] = True
    return {
        "pot": sum(state._contrib),
        "contributions": list(state._contrib),
        "public_cards": list(state._board),
        "public_card_strings": [CARD_STRINGS[c] for c in state._board],
        "betting": betting,
        "round": state._round,
        "round_name": ROUND_NAMES[state._round],
        "stacks": list(state._stacks),
        "round_bets": list(state._bets),
        "folded": list(state._folded),
        "button": state.game.button,
        "small_blind": state.game.config.small_blind,
        "big_blind": state.game.config.big_blind,
    }
