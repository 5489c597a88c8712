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


def information_state_tensor(state: HoldemState, p: int) -> np.ndarray:
    """Write the tensor of ``state`` seen by seat ``p`` (see ``holdem_layout``).

    Envs call this every step, so the writes are batched: one fancy-indexed write for all the
    one-hot entries and one slice write per block of adjacent amount fields.
    """
    game = state.game
    n = state._n
    t = np.zeros(game.information_state_layout.size, dtype=np.float32)
    o = game.layout_offsets
    ones = [
        o["player"] + p,
        o["position"] + (p - game.postflop_first) % n,
        o["round"] + state._round,
    ]
    hc = o["hole_cards"]
    ones += [hc + c for c in state._hole[p]]
    for i, c in enumerate(state._board):
        ones.append(o["flop" if i < 3 else ("turn" if i == 3 else "river")] + c)
    pot = sum(state._contrib)
    # pot, stacks, contributions and round_bets are adjacent in the layout.
    amounts = [pot, *state._stacks, *state._contrib, *state._bets]
    start = o["pot"]
    t[start : start + len(amounts)] = amounts
    t[start : start + len(amounts)] *= game.tensor_amount_scale
    t[o["to_call"]] = (state._max_bet - state._bets[p]) / pot
    folded, stacks = state._folded, state._stacks
    ones += [o["folded"] + q for q in range(n) if folded[q]]
    ones += [o["all_in"] + q for q in range(n) if not folded[q] and stacks[q] == 0]
    slots, na = game.history_slots, game.num_distinct_actions
    width = n + na + 1
    base = o["betting"]
    per_round: list[list[tuple[int, int, int, int, int, int]]] = [[], [], [], []]
    for entry in state._log:
        per_round[entry[0]].append(entry)
    amount_idx, amount_val = [], []
    for rnd, entries in enumerate(per_round):
        if len(entries) > slots:  # an overflowing round shows its latest action last
            entries = entries[: slots - 1] + entries[-1:]
        for k, (_, seat, action, put, pot_before, _) in enumerate(entries):
            s = base + (rnd * slots + k) * width
            ones += (s + seat, s + n + action)
            amount_idx.append(s + n + na)
            amount_val.append(put / pot_before)
    t[ones] = 1.0
    t[amount_idx] = amount_val
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
