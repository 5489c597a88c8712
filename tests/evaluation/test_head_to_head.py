"""Head-to-head matches: duplicate dealing, confidence intervals, any number of players."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.head_to_head import MatchResult, head_to_head, play_hand, sample_action
from pokerzoo.games import load_game
from pokerzoo.policy import UniformRandomPolicy


def always_call(state):
    return {1: 1.0}


def raise_when_possible(state):
    legal = state.legal_actions()
    return {legal[-1] if len(legal) > 2 else 1: 1.0}


def test_self_play_ci_contains_zero_and_shrinks_with_more_hands() -> None:
    game = load_game("no_limit_holdem")
    pols = [UniformRandomPolicy(), UniformRandomPolicy()]
    small = head_to_head(game, pols, 100, seed=1)
    large = head_to_head(game, pols, 1600, seed=3)
    for r in (small, large):
        lo, hi = r.interval(0)
        assert lo < 0 < hi
        assert r.mean_chips.sum() == pytest.approx(0.0, abs=1e-9)
    assert large.ci_chips[0] < 0.5 * small.ci_chips[0]  # about 1/sqrt(16) = 0.25 expected
    assert large.num_hands == 3200 and large.num_deals == 1600


def test_duplicate_dealing_cancels_card_luck() -> None:
    """Two deterministic policies that play alike: with duplicate dealing each deal is an exact
    wash, so the result is exactly 0 with a zero-width interval."""
    game = load_game("limit_holdem")
    r = head_to_head(game, [always_call, always_call], 30, seed=3)
    assert np.all(r.mean_chips == 0) and np.all(r.ci_chips == 0)
    plain = head_to_head(game, [always_call, always_call], 30, seed=3, duplicate=False)
    assert plain.ci_chips[0] > 0


def test_units_and_a_real_edge() -> None:
    game = load_game("limit_holdem")
    r = head_to_head(game, [raise_when_possible, UniformRandomPolicy()], 300, seed=4)
    assert r.mbb_per_game[0] == pytest.approx(10 * r.bb_per_100[0])
    assert r.mbb_per_game_ci[0] == pytest.approx(10 * r.bb_per_100_ci[0])
    assert r.bb_per_100[0] == pytest.approx(100 * r.mean_chips[0] / 100)
    lo, hi = r.interval(0, "mbb/g")
    assert lo > 0  # the maniac beats uniform random in limit hold'em
    assert "bb/100" in r.summary()


@pytest.mark.parametrize("n", [3, 6])
def test_multiway_seat_and_policy_winnings(n: int) -> None:
    game = load_game("no_limit_holdem", num_players=n)
    pols = [UniformRandomPolicy() for _ in range(n)]
    r = head_to_head(game, pols, 60, rng=np.random.default_rng(5))
    assert isinstance(r, MatchResult)
    assert r.mean_chips.shape == (n,) and r.seat_mean_chips.shape == (n,)
    assert r.num_hands == 60 * n
    assert r.mean_chips.sum() == pytest.approx(0, abs=1e-6)
    assert r.seat_mean_chips.sum() == pytest.approx(0, abs=1e-6)


def test_same_seed_same_result_and_errors() -> None:
    game = load_game("no_limit_holdem")
    pols = [UniformRandomPolicy(), always_call]
    a = head_to_head(game, pols, 20, seed=9)
    b = head_to_head(game, pols, 20, seed=9)
    np.testing.assert_array_equal(a.mean_chips, b.mean_chips)
    with pytest.raises(ValueError, match="2 seats"):
        head_to_head(game, pols * 2, 5)
    with pytest.raises(ValueError, match="num_deals"):
        head_to_head(game, pols, 0)
    with pytest.raises(ConfigError, match="cannot score a int"):
        head_to_head(game, [1, 2], 5)


def test_play_hand_uses_the_deck_in_order() -> None:
    game = load_game("no_limit_holdem")
    deck = list(range(51, -1, -1))
    returns = play_hand(game, [always_call, always_call], np.random.default_rng(0), deck=deck)
    # Seat 0: As Ah, seat 1: Ad Ac, board Ks Kh Kd Kc Qs: both play four kings, ace kicker.
    assert returns == [0.0, 0.0]
    rng = np.random.default_rng(0)
    counts = [sample_action({0: 0.25, 1: 0.75}, rng) for _ in range(4000)]
    assert abs(np.mean(counts) - 0.75) < 0.03


def test_any_game_kuhn_self_play_and_duplicate_deals() -> None:
    game = load_game("kuhn_poker")
    r = head_to_head(game, [UniformRandomPolicy(), UniformRandomPolicy()], 400, seed=6)
    lo, hi = r.interval(0)
    assert lo < 0 < hi and r.big_blind == 1
    # The same chance seed deals the same cards whatever the players do.
    seen: list[list[list[int]]] = []

    def recorder(action: int):
        def policy(state):
            seen.append(state.private_cards())
            return {action: 1.0}

        return policy

    for action in (0, 1):  # always pass, always bet
        play_hand(
            game,
            [recorder(action)] * 2,
            np.random.default_rng(action),
            chance_rng=np.random.default_rng(42),
        )
    assert len(seen) >= 4 and all(cards == seen[0] for cards in seen)
