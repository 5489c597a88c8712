"""Local best response: known answers, range bookkeeping, and exploitability lower bounds of
always-call and uniform random policies."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.evaluation.lbr import COMBOS, LocalBestResponse, local_best_response
from pokerzoo.games import load_game
from pokerzoo.games.holdem.cards import cards_from_string
from pokerzoo.policy import UniformRandomPolicy


def always_call(state):
    return {1: 1.0}


def fold_to_any_bet(state):
    return {0: 1.0} if 0 in state.legal_actions() else {1: 1.0}


def test_folding_policy_loses_the_blinds_every_hand() -> None:
    """LBR sees a 100% fold probability, so it bets and wins 100 as the button (small blind)
    and 50 as the big blind (the button folds at once): 75 chips = 750 mbb per hand."""
    for name in ("no_limit_holdem", "limit_holdem"):
        r = local_best_response(load_game(name), fold_to_any_bet, 5, seed=0, wp_samples=2)
        assert r.seat_mean_chips == (100.0, 50.0)
        assert r.mbb_per_game == pytest.approx(750.0) and r.mbb_per_game_ci == 0.0


def test_range_update_keeps_only_consistent_hands() -> None:
    game = load_game("no_limit_holdem")

    def raise_with_an_ace(state):
        hole = state.private_cards()[state.current_player()]
        return {2: 1.0} if any(c >= 48 for c in hole) else {1: 1.0}

    lbr = LocalBestResponse(game, raise_with_an_ace, rng=np.random.default_rng(0))
    state = game.new_initial_state()
    for c in cards_from_string("AsKd2c3d"):  # seat 0 (the policy) holds an ace
        state.apply_action(c)
    weights = lbr.initial_range()
    for c in cards_from_string("2c3d"):  # LBR is seat 1
        lbr.remove_card(weights, c)
    lbr.observe_opponent(state, 0, 2, weights)
    kept = COMBOS[weights > 0]
    assert len(kept) > 0 and all((a >= 48) or (b >= 48) for a, b in kept)
    assert not any(c in (0, 5) for c in kept.ravel())  # LBR's cards are out of the range
    assert weights.sum() == pytest.approx(1.0)


def test_win_probability_on_the_river() -> None:
    game = load_game("limit_holdem")
    lbr = LocalBestResponse(game, always_call, rng=np.random.default_rng(0))
    for holes, board, expected in (
        ("2c3dAhAd", "AsKsQsJsTs", 0.5),  # the board plays for everyone
        ("2c3dAsKs", "QsJsTs4h5h", 1.0),  # seat 1 holds the royal flush
    ):
        state = game.new_initial_state()
        for c in cards_from_string(holes):
            state.apply_action(c)
        state.apply_action(1)
        state.apply_action(1)
        for c in cards_from_string(board):
            state.apply_action(c)
            if state.current_player() >= 0:
                state.apply_action(1)
                state.apply_action(1)
        weights = lbr.initial_range()
        for c in state.private_cards()[1] + state.public_state()["public_cards"]:
            lbr.remove_card(weights, c)
        assert lbr.win_probability(state, 1, weights) == pytest.approx(expected)


@pytest.mark.slow
def test_always_call_is_very_exploitable() -> None:
    nl = local_best_response(load_game("no_limit_holdem"), always_call, 60, seed=1)
    assert nl.mbb_per_game - nl.mbb_per_game_ci > 2000  # over 2 big blinds a hand
    fl = local_best_response(load_game("limit_holdem"), always_call, 40, seed=2)
    assert fl.mbb_per_game - fl.mbb_per_game_ci > 500
    assert "mbb/g" in nl.summary()


def test_uniform_random_loses_to_lbr() -> None:
    r = local_best_response(load_game("limit_holdem"), UniformRandomPolicy(), 40, seed=6)
    assert r.mbb_per_game - r.mbb_per_game_ci > 1000
    assert r.num_hands == 80 and r.bb_per_100 == pytest.approx(r.mbb_per_game / 10)


@pytest.mark.slow
def test_uniform_random_loses_to_lbr_no_limit() -> None:
    game = load_game("no_limit_holdem", stacks=2000)  # 20 big blinds: less variance per hand
    r = local_best_response(game, UniformRandomPolicy(), 800, seed=3, wp_samples=12)
    assert r.mbb_per_game - r.mbb_per_game_ci > 0


def test_errors() -> None:
    with pytest.raises(ValueError, match="heads-up"):
        LocalBestResponse(load_game("no_limit_holdem", num_players=3), always_call)
    with pytest.raises(ValueError, match="bet_actions"):
        LocalBestResponse(load_game("limit_holdem"), always_call, bet_actions=[3])
    with pytest.raises(ValueError, match="num_deals"):
        local_best_response(load_game("limit_holdem"), always_call, 0)
