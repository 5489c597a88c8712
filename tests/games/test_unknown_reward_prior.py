"""The unknown games' two readings of the rewards: ``reward_prior="bernoulli"`` (the default,
unchanged) and ``"fixed"`` (one +-1 per terminal, paid on every visit)."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.components.posterior import Posterior
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.unknown import true_model_of


@pytest.mark.parametrize("name", ["unknown_kuhn_poker", "unknown_leduc_holdem"])
def test_the_default_is_bernoulli_and_unchanged(name: str) -> None:
    plain = load_game(name, seed=7)
    named = load_game(name, seed=7, reward_prior="bernoulli")
    assert plain == named
    assert plain.model_fingerprint == named.model_fingerprint
    assert "reward_prior" not in plain.params()  # params of games made before the option


def test_fixed_rewards_are_point_masses_on_plus_minus_one() -> None:
    game = load_game("unknown_leduc_holdem", base="leduc5", seed=11, reward_prior="fixed")
    model = true_model_of(game)
    assert set(np.unique(model.reward_probs)) == {0.0, 1.0}
    assert np.array_equal(model.reward_probs.sum(axis=1), np.ones(len(model.reward_probs)))
    paid = model.expected_returns[:, 0]
    assert set(np.unique(paid)) == {-1.0, 1.0}
    # Same seed, same chance model as the Bernoulli reading; a +-1 split near one half.
    bernoulli = true_model_of(load_game("unknown_leduc_holdem", base="leduc5", seed=11))
    assert np.array_equal(model.chance_probs, bernoulli.chance_probs)
    assert 0.4 < float((paid > 0).mean()) < 0.6


def test_every_visit_of_a_fixed_terminal_pays_the_same() -> None:
    game = load_game("unknown_kuhn_poker", seed=5, reward_prior="fixed")
    expected = true_model_of(game).expected_returns
    rng = np.random.default_rng(0)
    seen: dict[tuple[int, ...], list[float]] = {}
    for _ in range(300):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(rng))
            else:
                actions = state.legal_actions()
                state.apply_action(actions[int(rng.integers(len(actions)))])
        paid = state.sample_returns(rng)
        assert paid in ([-1.0, 1.0], [1.0, -1.0])
        assert paid == [float(r) for r in expected[state.terminal_index()]]
        assert seen.setdefault(tuple(state.history()), paid) == paid
    assert len(seen) > 10


def test_fixed_params_round_trip_through_load_game() -> None:
    game = load_game("unknown_kuhn_poker", seed=3, reward_prior="fixed")
    params = game.params()
    assert params["reward_prior"] == "fixed"
    again = load_game("unknown_kuhn_poker", **params)
    assert again == game
    assert again.model_fingerprint == game.model_fingerprint
    assert again != load_game("unknown_kuhn_poker", seed=3)


def test_resampled_fixed_environments_stay_fixed() -> None:
    game = load_game("unknown_kuhn_poker", seed=3, reward_prior="fixed")
    other = game.with_resampled_environment(np.random.default_rng(1))
    assert set(np.unique(true_model_of(other).reward_probs)) == {0.0, 1.0}


def test_a_bad_reading_is_refused() -> None:
    with pytest.raises(ConfigError, match="reward_prior must be one of"):
        load_game("unknown_kuhn_poker", seed=3, reward_prior="gaussian")


def test_the_beta_posterior_learns_a_fixed_terminal() -> None:
    # The agents' posterior assumes Bernoulli rewards (Beta(1, 1)); on a point mass it is
    # consistent, not exact: after n visits paying +1 its mean is (n + 1) / (n + 2).
    game = load_game("unknown_kuhn_poker", seed=3, reward_prior="fixed")
    model = true_model_of(game)
    structure = game.structure
    t = 0
    history = structure.terminal_histories[t]
    paid = model.expected_returns[t]
    posterior = Posterior(game)
    for _ in range(8):
        posterior.observe(list(history), list(paid))
    mean = posterior.mean_model().expected_returns[t, 0]
    assert mean == pytest.approx(paid[0] * 8 / 10)
