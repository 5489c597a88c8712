"""Adaptive UCT: known best responses in Kuhn, agreement with fixed budgets, early stops."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import pokerzoo
from pokerzoo.components.determinisation import sampler_from_histories
from pokerzoo.components.uct import AdaptiveUCT, UCTConfig
from pokerzoo.games.base import State

PASS, BET = 0, 1  # Kuhn: facing a bet, PASS folds and BET calls
CALL, RAISE = 1, 2  # Leduc

FIXED = UCTConfig(max_simulations=2000, threshold=None)
ADAPTIVE = UCTConfig(max_simulations=2000, threshold=300, confidence=0.95, test_every=50)


def _state(name: str, history: list[int], **params: Any) -> State:
    s = pokerzoo.load_game(name, **params).new_initial_state()
    for a in history:
        s.apply_action(a)
    return s


def bets_only_with_king(state: State) -> dict[int, float]:
    card = state.private_cards()[state.current_player()][0]
    return {BET: 1.0} if card == 2 else {PASS: 1.0}


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        ([0, 2, BET], BET),  # King facing a bet: calling always wins 2
        ([2, 0, BET], PASS),  # Jack facing a bet: calling always loses 2, folding 1
        ([1, 0, BET], PASS),
    ],
)
def test_dominant_actions_found_and_adaptive_stops_at_the_threshold(
    history: list[int], expected: int
) -> None:
    s = _state("kuhn_poker", history)
    fixed = AdaptiveUCT(FIXED, seed=0).search(s)
    adaptive = AdaptiveUCT(ADAPTIVE, seed=0).search(s)
    assert fixed.action == adaptive.action == expected
    assert fixed.simulations == 2000 and not fixed.stopped_early
    # Returns are deterministic (zero variance), so the first test already decides.
    assert adaptive.simulations == 300 and adaptive.stopped_early
    assert adaptive.candidates == (expected,)
    i = fixed.actions.index(expected)
    assert fixed.q[i] == (2.0 if expected == BET else -1.0)
    assert fixed.visits.sum() == 2000 and fixed.visits[i] == fixed.visits.max()


def test_queen_facing_a_bet_depends_on_the_belief() -> None:
    s = _state("kuhn_poker", [2, 1, BET])
    # Against a uniform opponent the bettor holds J or K equally: calling is worth 0 > -1.
    uniform = AdaptiveUCT(ADAPTIVE, seed=1).search(s)
    assert uniform.action == BET
    # Against an opponent who bets only with the King, the belief puts it on the King: fold.
    informed = AdaptiveUCT(ADAPTIVE, opponent_policy=bets_only_with_king, seed=1).search(s)
    assert informed.action == PASS
    assert informed.stopped_early and informed.simulations == ADAPTIVE.threshold
    assert informed.q[informed.actions.index(PASS)] == -1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("history", "expected"), [([0, 1], BET), ([1, 0], BET)])
def test_adaptive_agrees_with_fixed_budget_at_the_root(
    seed: int, history: list[int], expected: int
) -> None:
    """Player 0 against a uniform opponent: with the Jack, betting is worth -1/2 and passing
    -1; with the Queen, 1/2 and 0. Both searches find it; the adaptive one stops sooner."""
    s = _state("kuhn_poker", history)
    fixed = AdaptiveUCT(FIXED, seed=seed).search(s)
    adaptive = AdaptiveUCT(ADAPTIVE, seed=seed).search(s)
    assert fixed.action == adaptive.action == expected
    assert adaptive.simulations < fixed.simulations
    assert math.isclose(fixed.q[fixed.actions.index(BET)], 0.5 - (history[0] == 0), abs_tol=0.15)


def test_no_early_stop_without_threshold_or_significance() -> None:
    # King at the root against a uniform opponent: bet and pass are both worth 1.5.
    s = _state("kuhn_poker", [2, 0])
    strict = UCTConfig(max_simulations=1000, threshold=200, confidence=0.999999, test_every=100)
    result = AdaptiveUCT(strict, seed=0).search(s)
    assert result.simulations == 1000 and not result.stopped_early
    assert set(result.candidates) == {PASS, BET}
    assert result.policy() == pytest.approx(
        {a: n / 1000 for a, n in zip(result.actions, result.visits)}
    )


def test_evaluator_priors_and_values_are_used() -> None:
    calls: list[tuple[int, int]] = []

    def evaluator(state: State, player: int) -> tuple[np.ndarray, float]:
        calls.append((state.current_player(), player))
        return np.array([0.95, 0.05, 7.0]), 0.0  # index 2 is not an action: ignored

    s = _state("kuhn_poker", [0, 1])  # player 0 holds the Jack
    short = UCTConfig(max_simulations=40, threshold=None, c_puct=50.0)
    early = AdaptiveUCT(short, evaluator=evaluator, seed=0).search(s)
    # A huge c follows the prior: pass (0.95) gets most of the first visits.
    assert early.visits[early.actions.index(PASS)] > early.visits[early.actions.index(BET)]
    assert calls and all(acting == player for acting, player in calls)
    # Each information set is evaluated once, when created.
    assert len(calls) <= 1 + 2
    full = AdaptiveUCT(FIXED, evaluator=evaluator, seed=0).search(s)
    assert full.action == BET


def test_searched_opponents() -> None:
    s = _state("kuhn_poker", [0, 2, BET])
    config = UCTConfig(max_simulations=1000, threshold=200, opponents="search")
    assert AdaptiveUCT(config, seed=0).search(s).action == BET
    # Three-player Kuhn: player 2 holds the Ace-high card 3 facing a bet; call.
    s3 = _state("kuhn_poker", [0, 1, 3, BET, PASS], num_players=3)
    assert s3.current_player() == 2
    r = AdaptiveUCT(config, seed=0).search(s3)
    assert r.action == BET and r.q[r.actions.index(BET)] > 0


def test_explicit_sampler_and_determinism() -> None:
    game = pokerzoo.load_game("kuhn_poker")
    sampler = sampler_from_histories(game, [([2, 1, BET], 1.0)], player=1)
    a = AdaptiveUCT(FIXED, seed=5).search(sampler=sampler)
    b = AdaptiveUCT(FIXED, seed=5).search(sampler=sampler)
    assert a.action == PASS
    np.testing.assert_array_equal(a.visits, b.visits)
    with pytest.raises(ValueError, match="outside"):
        AdaptiveUCT(FIXED, seed=0).search(_state("kuhn_poker", [0, 2, BET]), sampler=sampler)
    with pytest.raises(ValueError, match="state or a sampler"):
        AdaptiveUCT(FIXED).search()


def test_leduc_pair_raises_quickly() -> None:
    # Player 0 holds J (card 0) and the public card is the other J: an unbeatable pair.
    s = _state("leduc_holdem", [0, 3, CALL, CALL, 1])
    assert s.current_player() == 0 and s.legal_actions() == [CALL, RAISE]
    fixed = AdaptiveUCT(UCTConfig(max_simulations=1500, threshold=None), seed=0).search(s)
    adaptive = AdaptiveUCT(UCTConfig(max_simulations=1500, threshold=500), seed=0).search(s)
    assert fixed.action == adaptive.action == RAISE
    assert np.all(fixed.q > 0)


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="threshold"):
        UCTConfig(max_simulations=100, threshold=200)
    with pytest.raises(ValueError, match="confidence"):
        UCTConfig(confidence=1.0)
    with pytest.raises(ValueError, match="opponents"):
        UCTConfig(opponents="average")
    assert UCTConfig(confidence=0.95).z_critical == pytest.approx(1.959964, abs=1e-6)
