"""The check-down value function of heads-up hold'em (AIVAT's ``u``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.aivat import aivat_head_to_head
from pokerzoo.evaluation.holdem_values import CheckDownValues
from pokerzoo.games import load_game
from pokerzoo.games.holdem.cards import hand_rank
from pokerzoo.policy import CallablePolicy, UniformRandomPolicy
from pokerzoo.public.spots.preflop_equity import (
    BOARDS_PER_MATCHUP,
    COMBOS,
    NUM_COMBOS,
    EquityTable,
)

GAME = load_game("no_limit_holdem", small_blind=1, big_blind=2, stacks=200,
                 bet_fractions=[0.5, 1.0])


def _deal(game, cards, actions_before_flop=(1, 1)):
    """A state with ``cards`` dealt (4 hole cards, then board cards) and calls/checks between."""
    state = game.new_initial_state()
    for card in cards[:4]:
        state.apply_action(card)
    for action in actions_before_flop:
        state.apply_action(action)
    for card in cards[4:]:
        while not state.is_chance_node():
            state.apply_action(1)
        state.apply_action(card)
    return state


def _brute_equity(holes, board):
    """Player 0's share of the pot over every completion of the board (Python reference)."""
    deck = [c for c in range(52) if c not in holes and c not in board]
    shares = []
    for rest in itertools.combinations(deck, 5 - len(board)):
        full = list(board) + list(rest)
        r0, r1 = hand_rank(holes[:2] + full), hand_rank(holes[2:] + full)
        shares.append(1.0 if r0 < r1 else 0.5 if r0 == r1 else 0.0)
    return float(np.mean(shares))


def test_terminal_states_return_their_payoffs() -> None:
    state = _deal(GAME, [51, 50, 3, 7], actions_before_flop=())
    state.apply_action(0)  # the small blind folds
    assert state.is_terminal()
    assert CheckDownValues(GAME).values([state]).tolist() == [state.returns()] == [[-1.0, 1.0]]
    river = _deal(GAME, [51, 50, 3, 7, 0, 9, 22, 30, 41])
    while not river.is_terminal():
        river.apply_action(1)
    assert CheckDownValues(GAME).values([river])[0].tolist() == river.returns()


def test_river_and_turn_equal_a_brute_force() -> None:
    values = CheckDownValues(GAME)
    for cards in ([51, 50, 3, 7, 0, 9, 22, 30, 41], [12, 13, 40, 44, 0, 9, 22, 30, 41],
                  [12, 13, 40, 44, 0, 9, 22, 30], [8, 9, 10, 11, 20, 24, 28, 32]):
        state = _deal(GAME, cards)
        equity = _brute_equity(cards[:4], cards[4:])
        assert values.values([state])[0].tolist() == [(2 * equity - 1) * 2,
                                                      -(2 * equity - 1) * 2]


def test_a_pending_bet_is_called_as_far_as_the_stacks_go() -> None:
    values = CheckDownValues(GAME)
    state = _deal(GAME, [51, 50, 3, 7, 0, 9, 22, 30, 41])
    state.apply_action(2)  # half-pot bet on the river: 2 into 4
    equity = _brute_equity([51, 50, 3, 7], [0, 9, 22, 30, 41])
    assert equity == 1.0
    assert values.values([state])[0].tolist() == [4.0, -4.0]  # the bet called: 4 each
    all_in = _deal(GAME, [51, 50, 3, 7, 0, 9, 22, 30, 41])
    all_in.apply_action(GAME.num_distinct_actions - 1)  # all-in, the last action
    assert values.values([all_in])[0].tolist() == [200.0, -200.0]


def test_zero_sum_deterministic_and_independent_of_the_batch() -> None:
    states = [GAME.new_initial_state()]
    for card in (51, 50, 3):  # hole cards dealt one at a time: sampled completions
        states.append(states[-1].child(card))
    flop = _deal(GAME, [12, 13, 40, 44, 0, 9, 22])
    states += [_deal(GAME, [12, 13, 40, 44], actions_before_flop=()), flop]
    first = CheckDownValues(GAME).values(states)
    again = CheckDownValues(GAME).values(states[::-1])[::-1]
    alone = np.concatenate([CheckDownValues(GAME).values([s]) for s in states])
    assert np.array_equal(first, again) and np.array_equal(first, alone)
    assert np.array_equal(first[:, 0], -first[:, 1])
    # The flop is enumerated exactly (990 turn-river pairs); swapping the hole cards (checked
    # pre-flop betting is symmetric in chips) swaps the values.
    swapped = _deal(GAME, [40, 44, 12, 13, 0, 9, 22])
    assert CheckDownValues(GAME).values([swapped])[0].tolist() == first[-1, ::-1].tolist()
    assert first[-1, 0] == pytest.approx(
        (2 * _brute_equity([12, 13, 40, 44], [0, 9, 22]) - 1) * 2, abs=1e-12)


def test_a_preflop_table_replaces_the_sampled_preflop_equities() -> None:
    # A made-up table (the real one takes minutes to count): the lookup must find each pair.
    index = np.arange(NUM_COMBOS)
    wins = (index[:, None] * 7 + index[None, :] * 3) % 1000 * 1000
    ties = (index[:, None] + index[None, :]) % 500
    values = CheckDownValues(GAME, preflop=EquityTable(wins=wins, ties=ties))
    aces = int(np.flatnonzero((COMBOS[:, 0] == 50) & (COMBOS[:, 1] == 51))[0])
    low = int(np.flatnonzero((COMBOS[:, 0] == 3) & (COMBOS[:, 1] == 7))[0])
    preflop = _deal(GAME, [51, 50, 7, 3], actions_before_flop=())   # cards in either order
    equity = (wins[aces, low] + ties[aces, low] / 2) / BOARDS_PER_MATCHUP
    assert values.values([preflop])[0].tolist() == [(2 * equity - 1) * 2, -(2 * equity - 1) * 2]
    # States the table does not cover are computed as without it.
    others = [GAME.new_initial_state(), _deal(GAME, [51, 50, 7, 3, 0, 9, 22])]
    assert np.array_equal(values.values(others), CheckDownValues(GAME).values(others))
    with pytest.raises(ConfigError, match="EquityTable"):
        CheckDownValues(GAME, preflop=EquityTable(wins=wins[:3], ties=ties[:3]))


def test_bad_arguments_are_one_line() -> None:
    with pytest.raises(ConfigError, match="heads-up"):
        CheckDownValues(load_game("no_limit_holdem", num_players=3))
    with pytest.raises(ConfigError, match="hold'em game"):
        CheckDownValues(load_game("kuhn_poker"))
    with pytest.raises(ConfigError, match="samples"):
        CheckDownValues(GAME, samples=0)


def _caller(state):
    """Checks or calls whatever happens."""
    return {1: 1.0}


def test_aivat_on_limit_holdem_agrees_with_the_raw_mean_and_cuts_the_variance() -> None:
    game = load_game("limit_holdem")
    values = CheckDownValues(game, samples=200)
    result = aivat_head_to_head(game, [UniformRandomPolicy(), CallablePolicy(_caller)], 60,
                                values, seed=3)
    raw, cor = result.per_deal_raw[:, 0], result.per_deal_aivat[:, 0]
    difference = cor - raw
    # Unbiased: the corrections' mean is zero within its own interval.
    assert abs(difference.mean()) <= 1.96 * difference.std(ddof=1) / np.sqrt(len(raw))
    assert abs(result.aivat_mean[0] - result.raw_mean[0]) <= result.raw_ci95[0] + \
        result.aivat_ci95[0]
    ratio = raw.var(ddof=1) / cor.var(ddof=1)
    assert ratio > 3.0  # measured 9.4 here (seed 3, 60 deals); 6.7 over 300 deals (seed 4)
