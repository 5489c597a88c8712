"""A check-down value function for heads-up hold'em: AIVAT's ``u`` from equities.

``CheckDownValues(game).values(states)`` estimates each player's final chips from a
full-information hold'em state (every dealt card known, the rest of the deck not yet dealt) as
if the hand went to showdown from there with no more betting:

* a pending bet is called (as far as the caller's stack goes), so both players end with the
  same amount in the pot, ``matched = min(largest contribution, smallest starting stack)`` (a
  bet above what the other can call comes back, as at a real showdown);
* the rest of the board, and any hole card not yet dealt, is dealt at random;
* player 0 then ends with ``(2 * equity_0 - 1) * matched`` chips, ``equity_0`` its share of the
  pot (wins plus half the ties); player 1 with the negative (the game is zero-sum).

Terminal states return their true payoffs (``state.returns()``). The equity is exact when the
unknown cards are at most two board cards (river: one comparison; turn: 44 rivers; flop: 990
turn-river pairs), and pre-flop with every hole card dealt when the exact pre-flop table is
given (``preflop=``); otherwise (pre-flop, and while hole cards are being dealt) it is the mean
over ``samples`` random completions drawn by a generator seeded from the state's cards alone,
so the function is deterministic and depends on nothing but the state, as AIVAT's unbiasedness
needs (Burch et al., "AIVAT: A New Variance Reduction Technique for Agent Evaluation in
Imperfect Information Games", AAAI 2018, arXiv:1612.06915). The estimate ignores future bets
and folds: it is a heuristic, and AIVAT stays unbiased whatever it is; the closer it is to the
played profile's values, the more variance the correction removes.

>>> from pokerzoo.games import load_game
>>> game = load_game("no_limit_holdem", small_blind=1, big_blind=2, stacks=200)
>>> state = game.new_initial_state()
>>> for card in (51, 50, 3, 7):   # two aces against a 2 and a 3
...     state.apply_action(card)
>>> values = CheckDownValues(game).values([state])
>>> bool(values[0, 0] > 1), float(values[0].sum())
(True, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game, State
from pokerzoo.games.holdem.arrays import hand_value
from pokerzoo.public.spots.preflop_equity import COMBOS, NUM_COMBOS, EquityTable

_DECK = 52
_NO_CARD = -1
DEFAULT_SAMPLES = 2000
"""Sampled completions per state where the exact enumeration is too large."""

_COMBO_OF = np.full((_DECK, _DECK), -1, dtype=np.int64)
_COMBO_OF[COMBOS[:, 0], COMBOS[:, 1]] = np.arange(NUM_COMBOS)
_COMBO_OF[COMBOS[:, 1], COMBOS[:, 0]] = np.arange(NUM_COMBOS)
"""The preflop table's combo index of two cards, in either order."""


@numba.njit(cache=True)
def _next_random(x: np.uint64) -> tuple[np.uint64, np.uint64]:
    """splitmix64: the next generator word and a 64-bit output."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x, z ^ (z >> np.uint64(31))


@numba.njit(cache=True)
def _showdown_share(full: np.ndarray, h0: np.ndarray, h1: np.ndarray,
                    counts: np.ndarray) -> float:
    """Player 0's share of the pot (1, 0.5 or 0) with the 9 slots of ``full`` filled."""
    for k in range(2):
        h0[k] = full[k]
        h1[k] = full[2 + k]
    for k in range(5):
        h0[2 + k] = full[4 + k]
        h1[2 + k] = full[4 + k]
    v0 = hand_value(h0, counts)
    v1 = hand_value(h1, counts)
    if v0 > v1:
        return 1.0
    if v0 == v1:
        return 0.5
    return 0.0


@numba.njit(cache=True)
def _equities(cards: np.ndarray, seeds: np.ndarray, samples: int) -> np.ndarray:
    """Player 0's check-down equity for each row of ``cards`` ``[B, 9]``: hole cards of seat 0
    (columns 0-1), seat 1 (2-3), board (4-8); ``-1`` where a card is not dealt yet."""
    batch = cards.shape[0]
    out = np.zeros(batch)
    counts = np.zeros(13, dtype=np.int64)
    h0 = np.empty(7, dtype=np.int64)
    h1 = np.empty(7, dtype=np.int64)
    full = np.empty(9, dtype=np.int64)
    deck = np.empty(_DECK, dtype=np.int64)
    missing = np.empty(9, dtype=np.int64)
    for b in range(batch):
        used = np.zeros(_DECK, dtype=np.bool_)
        n_missing = 0
        hole_missing = False
        for k in range(9):
            c = cards[b, k]
            full[k] = c
            if c >= 0:
                used[c] = True
            else:
                missing[n_missing] = k
                n_missing += 1
                if k < 4:
                    hole_missing = True
        n_deck = 0
        for c in range(_DECK):
            if not used[c]:
                deck[n_deck] = c
                n_deck += 1
        if not hole_missing and n_missing <= 2:
            # Exact: every remaining board (0, 1 or 2 cards to come).
            total = 0.0
            boards = 0
            if n_missing == 0:
                total = _showdown_share(full, h0, h1, counts)
                boards = 1
            elif n_missing == 1:
                for i in range(n_deck):
                    full[missing[0]] = deck[i]
                    total += _showdown_share(full, h0, h1, counts)
                    boards += 1
            else:
                for i in range(n_deck):
                    full[missing[0]] = deck[i]
                    for j in range(i + 1, n_deck):
                        full[missing[1]] = deck[j]
                        total += _showdown_share(full, h0, h1, counts)
                        boards += 1
            out[b] = total / boards
            continue
        # Sampled: partial Fisher-Yates draws of the missing cards (the cards to come are
        # uniform over the undealt deck, so filling the slots in order is exact sampling),
        # from a generator seeded by the state's cards.
        word = np.uint64(seeds[b])
        total = 0.0
        for _ in range(samples):
            for m in range(n_missing):
                word, r = _next_random(word)
                pick = m + np.int64(r % np.uint64(n_deck - m))
                tmp = deck[m]
                deck[m] = deck[pick]
                deck[pick] = tmp
                full[missing[m]] = deck[m]
            total += _showdown_share(full, h0, h1, counts)
        out[b] = total / samples
    return out


def _card_seed(row: np.ndarray) -> int:
    """A 63-bit seed from the dealt cards alone (each of the 9 slots base 53, ``-1`` as 0)."""
    seed = 0
    for card in row:
        seed = seed * 53 + int(card) + 1
    return seed & (2**63 - 1)


class CheckDownValues:
    """Each player's chips if a heads-up hold'em hand were checked down from the state.

    Args:
        game: a heads-up hold'em game (limit or no-limit).
        samples: random completions per state where the equity is not enumerated exactly
            (pre-flop and during the deal); keyword-only.
        preflop: the exact all-in equities of every pair of combos
            (``pokerzoo.public.spots.preflop_equity.equity_table()``, built once in about two
            minutes and cached): with it, pre-flop states with all four hole cards dealt are
            exact instead of sampled; keyword-only.

    Raises:
        ConfigError: if the game is not heads-up hold'em, ``samples`` is not positive or
            ``preflop`` is not an equity table.
    """

    def __init__(self, game: Game, *, samples: int = DEFAULT_SAMPLES,
                 preflop: EquityTable | None = None) -> None:
        starting = getattr(game, "starting_stacks", None)
        if starting is None or not hasattr(game, "odd_chip_order"):
            raise ConfigError(f"CheckDownValues needs a hold'em game, got {game.name}")
        if game.num_players != 2:
            raise ConfigError(f"CheckDownValues is for heads-up hold'em (2 players), got "
                              f"{game.num_players} players")
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise ConfigError(f"samples must be a positive int, got {samples!r}")
        if preflop is not None and not (isinstance(preflop, EquityTable)
                                        and preflop.wins.shape == (NUM_COMBOS, NUM_COMBOS)
                                        and preflop.ties.shape == (NUM_COMBOS, NUM_COMBOS)):
            raise ConfigError(f"preflop must be an EquityTable of {NUM_COMBOS} x {NUM_COMBOS} "
                              f"combos (preflop_equity.equity_table()), got {preflop!r:.80}")
        self.game = game
        self.samples = samples
        self._preflop = None if preflop is None else preflop.equity
        self._smallest_stack = int(min(starting))

    def values(self, states: Sequence[State]) -> np.ndarray:
        """``[len(states), 2]`` estimated final chips (terminal states: their payoffs)."""
        out = np.zeros((len(states), 2))
        rows: list[int] = []
        cards: list[list[int]] = []
        matched: list[float] = []
        for i, state in enumerate(states):
            if state.game is not self.game and state.game.name != self.game.name:
                raise ConfigError(f"CheckDownValues of {self.game.name} was given a state "
                                  f"of {state.game.name}")
            if state.is_terminal():
                out[i] = state.returns()
                continue
            public = state.public_state()
            row = [_NO_CARD] * 9
            for seat, hole in enumerate(state.private_cards()[:2]):
                for k, card in enumerate(hole[:2]):
                    row[2 * seat + k] = int(card)
            for k, card in enumerate(public["public_cards"][:5]):
                row[4 + k] = int(card)
            rows.append(i)
            cards.append(row)
            matched.append(float(min(max(public["contributions"]), self._smallest_stack)))
        if rows:
            card_array = np.asarray(cards, dtype=np.int64)
            seeds = np.array([_card_seed(r) for r in card_array], dtype=np.uint64)
            equity = np.empty(len(rows))
            # The table's rows: every hole card dealt and no board; the rest are computed.
            looked_up = np.zeros(len(rows), dtype=bool)
            if self._preflop is not None:
                looked_up = (card_array[:, :4] >= 0).all(axis=1) & (card_array[:, 4] < 0)
                first = _COMBO_OF[card_array[looked_up, 0], card_array[looked_up, 1]]
                second = _COMBO_OF[card_array[looked_up, 2], card_array[looked_up, 3]]
                equity[looked_up] = self._preflop[first, second]
            rest = ~looked_up
            equity[rest] = _equities(card_array[rest], seeds[rest], self.samples)
            won = (2.0 * equity - 1.0) * np.asarray(matched)
            out[rows, 0] = won
            out[rows, 1] = -won
        return out
