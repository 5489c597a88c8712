"""Determinisation samplers: exact posteriors on Kuhn/Leduc, validation, particle fallback."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy import stats

import pokerzoo
from pokerzoo.components.determinisation import (
    consistent_histories,
    resampling_sampler,
    sampler_from_histories,
)
from pokerzoo.games.base import State


def _state(name: str, history: list[int]) -> State:
    s = pokerzoo.load_game(name).new_initial_state()
    for a in history:
        s.apply_action(a)
    return s


def bets_only_with_king(state: State) -> dict[int, float]:
    """A Kuhn policy: bet (or call) with the King, pass (or fold) otherwise."""
    card = state.private_cards()[state.current_player()][0]
    return {1: 1.0} if card == 2 else {0: 1.0}


def test_kuhn_posterior_by_chance_and_by_opponent_reach() -> None:
    # Player 1 holds the Queen after player 0 bet: player 0 holds the Jack or the King.
    s = _state("kuhn_poker", [2, 1, 1])
    assert sorted(consistent_histories(s)) == [([0, 1, 1], 0.5), ([2, 1, 1], 0.5)]
    # An opponent that bets only with the King reveals it.
    assert consistent_histories(s, opponent_policy=bets_only_with_king) == [([2, 1, 1], 1.0)]
    # The searcher's own policy does not enter its belief.
    s0 = _state("kuhn_poker", [0, 2, 0, 1])  # player 0 (Jack) passed, player 1 bet
    hist = dict((tuple(h), w) for h, w in consistent_histories(s0))
    assert hist == {(0, 1, 0, 1): 0.5, (0, 2, 0, 1): 0.5}
    weighted = consistent_histories(s0, opponent_policy=bets_only_with_king)
    assert weighted == [([0, 2, 0, 1], 1.0)]


def test_leduc_public_card_is_kept_and_hidden_card_ranges() -> None:
    # Player 0 holds card 0, player 1 card 3; raise, call; public card 4.
    s = _state("leduc_holdem", [0, 3, 2, 1, 4])
    hist = consistent_histories(s)
    assert {h[1] for h, _ in hist} == {1, 2, 3, 5}  # every card but the seen 0 and 4
    assert all(h[0] == 0 and h[2:] == [2, 1, 4] for h, _ in hist)
    np.testing.assert_allclose([w for _, w in hist], 0.25)
    sampler = resampling_sampler(s)
    rng = np.random.default_rng(0)
    key = s.information_state_key(0)
    for _ in range(20):
        d = sampler(rng)
        assert d.information_state_key(0) == key and d.current_player() == 0


def test_sampler_from_histories_frequencies_and_validation() -> None:
    game = pokerzoo.load_game("kuhn_poker")
    sampler = sampler_from_histories(game, [([0, 1, 1], 1.0), ([2, 1, 1], 3.0)], player=1)
    rng = np.random.default_rng(3)
    counts = Counter(sampler(rng).history()[0] for _ in range(4000))
    assert stats.chisquare([counts[0], counts[2]], [1000, 3000]).pvalue > 1e-3
    # Samples are independent copies.
    a = sampler(rng)
    a.apply_action(0)
    assert sampler(rng).current_player() == 1
    with pytest.raises(ValueError, match="information set"):
        sampler_from_histories(game, [([0, 1, 1], 1.0), ([1, 2, 1], 1.0)], player=1)
    with pytest.raises(ValueError, match="positive weight"):
        sampler_from_histories(game, [([0, 1, 1], 0.0)])
    only = sampler_from_histories(game, [([0, 1, 1], 0.0), ([2, 1, 1], 2.0)], player=1)
    assert only(rng).history() == [2, 1, 1]


def test_impossible_belief_is_an_error() -> None:
    # Player 1 bet; an opponent policy that always passes makes that history impossible.
    s = _state("kuhn_poker", [0, 2, 0, 1])
    with pytest.raises(ValueError, match="positive weight"):
        resampling_sampler(s, opponent_policy=lambda st: {0: 1.0})


def test_particle_fallback_approximates_the_posterior() -> None:
    """With enumeration disabled, importance-weighted particles give the same belief."""
    s = _state("leduc_holdem", [0, 3, 2, 1, 4])
    sampler = resampling_sampler(s, limit=0, particles=3000)
    rng = np.random.default_rng(1)
    draws = Counter(sampler(rng).history()[1] for _ in range(4000))
    assert set(draws) == {1, 2, 3, 5}
    assert stats.chisquare([draws[c] for c in (1, 2, 3, 5)]).pvalue > 1e-4
    # Opponent reach enters the particle weights too.
    k = _state("kuhn_poker", [2, 1, 1])
    weighted = resampling_sampler(k, opponent_policy=bets_only_with_king, limit=0, particles=50)
    assert {tuple(weighted(rng).history()) for _ in range(50)} == {(2, 1, 1)}
