"""Exact evaluation against OpenSpiel and known values."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability as os_exploitability

from pokerzoo import load_game
from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.evaluation import (
    best_response,
    expected_values,
    exploitability,
    nash_conv,
    tabularize,
)
from pokerzoo.policy import UniformRandomPolicy
from pokerzoo.tree import TabularPolicy, build

PAIRS = [
    ("kuhn_poker", {}, "kuhn_poker"),
    ("kuhn_poker", {"num_players": 3}, "kuhn_poker(players=3)"),
    ("leduc_holdem", {}, "leduc_poker"),
]


@pytest.mark.parametrize(("name", "params", "os_name"), PAIRS)
def test_uniform_values_and_nash_conv_match_openspiel(name, params, os_name):
    tree = build(load_game(name, **params))
    uniform = TabularPolicy.uniform(tree)
    os_game = pyspiel.load_game(os_name)
    os_uniform = os_policy.UniformRandomPolicy(os_game)
    expected = expected_game_score.policy_value(
        os_game.new_initial_state(), [os_uniform] * os_game.num_players()
    )
    np.testing.assert_allclose(expected_values(tree, uniform), expected, atol=1e-9)
    assert nash_conv(tree, uniform) == pytest.approx(
        os_exploitability.nash_conv(os_game, os_uniform), abs=1e-9
    )


def test_kuhn_equilibrium_value_is_minus_one_eighteenth():
    tree = build(load_game("kuhn_poker"))
    # The alpha = 0 equilibrium: player 0 never bets first and calls a bet with Q 1/3 of the
    # time; player 1 bluffs J 1/3 after a check, bets K, and calls a bet with Q 1/3.
    table = {
        (0, 0, ()): [1, 0], (0, 1, ()): [1, 0], (0, 2, ()): [1, 0],
        (0, 0, (0, 1)): [1, 0], (0, 1, (0, 1)): [2 / 3, 1 / 3], (0, 2, (0, 1)): [0, 1],
        (1, 0, (0,)): [2 / 3, 1 / 3], (1, 1, (0,)): [1, 0], (1, 2, (0,)): [0, 1],
        (1, 0, (1,)): [1, 0], (1, 1, (1,)): [2 / 3, 1 / 3], (1, 2, (1,)): [0, 1],
    }
    probs = np.array([table[k] for k in tree.infoset_keys], dtype=float)
    policy = TabularPolicy.from_tree(tree, probs)
    assert expected_values(tree, policy)[0] == pytest.approx(-1 / 18, abs=1e-12)
    assert nash_conv(tree, policy) == pytest.approx(0.0, abs=1e-12)


def test_best_response_is_pure_and_attains_its_value():
    tree = build(load_game("leduc_holdem"))
    uniform = TabularPolicy.uniform(tree)
    for player in (0, 1):
        br = best_response(tree, uniform, player)
        rows = tree.infosets_of(player)
        assert np.all(np.isin(br.policy.probs[rows], (0.0, 1.0)))
        assert expected_values(tree, br.policy)[player] == pytest.approx(br.value, abs=1e-12)


def test_any_state_policy_is_tabularised():
    tree = build(load_game("leduc_holdem"))
    via_callable = exploitability(tree, UniformRandomPolicy())
    assert via_callable == pytest.approx(exploitability(tree, TabularPolicy.uniform(tree)))
    table = tabularize(tree, lambda s: {a: 1.0 / len(s.legal_actions()) for a in s.legal_actions()})
    np.testing.assert_allclose(table.probs, TabularPolicy.uniform(tree).probs)
    with pytest.raises(ConfigError, match="action_probabilities"):
        exploitability(tree, 42)
    with pytest.raises(InvalidPolicyError, match="illegal action 0"):
        exploitability(tree, lambda s: {0: 1.0})  # fold is not always legal


@pytest.mark.parametrize(
    ("name", "params"),
    [("kuhn_poker", {}), ("kuhn_poker", {"num_players": 3}), ("leduc_holdem", {}),
     ("unknown_leduc_holdem", {"seed": 1})],
)
def test_sequence_form_best_responses_equal_the_history_sweep(name, params):
    from pokerzoo.evaluation.exact import _all_best_responses, _history_best_responses

    tree = build(load_game(name, **params))
    rng = np.random.default_rng(5)
    for _ in range(3):
        probs = rng.random(tree.infoset_mask.shape) ** 3 * tree.infoset_mask
        probs /= probs.sum(axis=1, keepdims=True)
        values, best, on_policy = _all_best_responses(tree, probs)
        history_values, history_best = _history_best_responses(tree, probs)
        np.testing.assert_allclose(values, history_values, atol=1e-12)
        np.testing.assert_allclose(on_policy, expected_values(tree, probs), atol=1e-12)
        # Random policies leave no exact ties, so the chosen actions agree too.
        assert np.array_equal(best, history_best)
