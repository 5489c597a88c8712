"""Evaluators refuse what they cannot score, and check their arguments."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.evaluation import (
    best_response,
    best_response_values,
    expected_values,
    exploitability,
    head_to_head,
    nash_conv,
    tabularize,
    total_exploitability,
)
from pokerzoo.policy import UniformRandomPolicy
from pokerzoo.tree import TabularPolicy, build


@pytest.fixture(scope="module")
def kuhn():
    return build(load_game("kuhn_poker"))


@pytest.fixture(scope="module")
def leduc():
    return build(load_game("leduc_holdem"))


def _first_illegal(tree) -> tuple[int, int]:
    i, a = np.argwhere(~tree.infoset_mask)[0]
    return int(i), int(a)


EVALUATORS = [
    exploitability,
    nash_conv,
    expected_values,
    best_response_values,
    lambda tree, policy: best_response(tree, policy, 0),
    total_exploitability,
]


@pytest.mark.parametrize("evaluate", EVALUATORS)
def test_an_all_zero_policy_is_refused_not_scored_as_an_equilibrium(kuhn, evaluate) -> None:
    with pytest.raises(InvalidPolicyError, match=r"\(0, 0, \(\)\).*sum to 0\.0"):
        evaluate(kuhn, np.zeros(kuhn.infoset_mask.shape))


def test_each_kind_of_bad_row_is_named_with_its_information_set(leduc) -> None:
    uniform = TabularPolicy.uniform(leduc).probs
    row = 7
    key = repr(leduc.infoset_keys[row])

    nan = uniform.copy()
    nan[row, np.flatnonzero(leduc.infoset_mask[row])[0]] = np.nan
    with pytest.raises(InvalidPolicyError, match="must be finite") as err:
        exploitability(leduc, nan)
    assert key in str(err.value)

    double = uniform.copy()
    double[row] *= 2
    with pytest.raises(InvalidPolicyError, match="sum to 2.0; they must sum to 1") as err:
        exploitability(leduc, double)
    assert key in str(err.value)

    negative = uniform.copy()
    legal = np.flatnonzero(leduc.infoset_mask[row])
    negative[row, legal[0]] = -0.5
    negative[row, legal[1]] += 0.5 + 1 / len(legal)
    with pytest.raises(InvalidPolicyError, match=">= 0") as err:
        nash_conv(leduc, negative)
    assert key in str(err.value)

    i, a = _first_illegal(leduc)
    illegal = uniform.copy()
    illegal[i] = 0.0
    illegal[i, a] = 1.0
    with pytest.raises(InvalidPolicyError, match=f"illegal action {a} has probability 1.0") as err:
        exploitability(leduc, illegal)
    assert repr(leduc.infoset_keys[i]) in str(err.value)

    with pytest.raises(InvalidPolicyError, match="shape"):
        exploitability(leduc, uniform[:-1])
    with pytest.raises(InvalidPolicyError, match="real numbers"):
        exploitability(leduc, uniform.astype(object))


def test_the_first_offending_information_set_is_reported(leduc) -> None:
    probs = TabularPolicy.uniform(leduc).probs.copy()
    probs[[30, 5, 100]] *= 3  # rows 5, 30 and 100 are all bad; 5 comes first
    with pytest.raises(InvalidPolicyError, match=r"\(row 5\)"):
        exploitability(leduc, probs)


def test_tabular_policies_and_state_policies_are_checked_too(kuhn) -> None:
    bad = TabularPolicy.uniform(kuhn).copy()
    bad.probs[3] = np.nan
    with pytest.raises(InvalidPolicyError, match="finite"):
        exploitability(kuhn, bad)
    # ``tabularize`` no longer turns NaN or empty rows into uniform ones.
    with pytest.raises(InvalidPolicyError, match="finite"):
        tabularize(kuhn, lambda state: {a: float("nan") for a in state.legal_actions()})
    with pytest.raises(InvalidPolicyError, match="sum to 0.0"):
        tabularize(kuhn, lambda state: {})
    with pytest.raises(InvalidPolicyError, match="names action 5"):
        tabularize(kuhn, lambda state: {5: 1.0})
    with pytest.raises(InvalidPolicyError, match="returned a list"):
        tabularize(kuhn, lambda state: [0.5, 0.5])
    with pytest.raises(InvalidPolicyError, match="real numbers"):
        tabularize(kuhn, lambda state: {0: "half", 1: "half"})
    # A policy of another game does not cover this tree's information sets.
    other = TabularPolicy.uniform(build(load_game("kuhn_poker", num_players=3)))
    with pytest.raises(InvalidPolicyError, match="does not cover"):
        exploitability(kuhn, other)


def test_solver_weights_with_nan_are_refused_not_made_uniform(kuhn) -> None:
    weights = np.ones(kuhn.infoset_mask.shape)
    weights[2, 1] = np.nan
    with pytest.raises(InvalidPolicyError, match="not finite"):
        TabularPolicy.from_tree(kuhn, weights)
    # Zero weight (an information set never reached) still plays uniformly.
    zero = TabularPolicy.from_tree(kuhn, np.zeros(kuhn.infoset_mask.shape))
    np.testing.assert_array_equal(zero.probs, TabularPolicy.uniform(kuhn).probs)


def test_valid_policies_still_score_the_known_values(kuhn, leduc) -> None:
    # Uniform Kuhn: NashConv 11/12 (OpenSpiel); uniform Leduc: NashConv 4.747222...
    assert exploitability(kuhn, TabularPolicy.uniform(kuhn)) == pytest.approx(11 / 24)
    assert exploitability(kuhn, UniformRandomPolicy()) == pytest.approx(11 / 24)
    assert nash_conv(leduc, TabularPolicy.uniform(leduc)) == pytest.approx(4.7472222, abs=1e-6)
    # Kuhn's equilibrium with alpha = 0 (Kuhn 1950): exploitability 0, value -1/18.
    jack, queen, king = 0, 1, 2
    rows = {  # (player, card, history) -> (P(pass), P(bet)); 0 is pass/fold, 1 bet/call
        **{(0, c, ()): (1, 0) for c in (jack, queen, king)},
        (0, jack, (0, 1)): (1, 0), (0, queen, (0, 1)): (2 / 3, 1 / 3), (0, king, (0, 1)): (0, 1),
        (1, jack, (1,)): (1, 0), (1, queen, (1,)): (2 / 3, 1 / 3), (1, king, (1,)): (0, 1),
        (1, jack, (0,)): (2 / 3, 1 / 3), (1, queen, (0,)): (1, 0), (1, king, (0,)): (0, 1),
    }
    equilibrium = np.array([rows[key] for key in kuhn.infoset_keys], dtype=np.float64)
    assert exploitability(kuhn, equilibrium) == pytest.approx(0.0, abs=1e-12)
    assert expected_values(kuhn, equilibrium)[0] == pytest.approx(-1 / 18)
    # A float32 table whose rows sum to 1 up to float32 rounding is accepted.
    rng = np.random.default_rng(0)
    noisy = rng.random(leduc.infoset_mask.shape) * leduc.infoset_mask
    noisy = (noisy / noisy.sum(axis=1, keepdims=True)).astype(np.float32)
    value = exploitability(leduc, noisy)
    assert value == pytest.approx(exploitability(leduc, noisy.astype(np.float64)), rel=1e-6)


def test_evaluator_arguments_are_checked(kuhn) -> None:
    uniform = TabularPolicy.uniform(kuhn)
    with pytest.raises(ConfigError, match=r"player must be an int in \[0, 2\), got '0'"):
        best_response(kuhn, uniform, player="0")
    with pytest.raises(ConfigError, match=r"player must be an int in \[0, 2\), got 2"):
        best_response(kuhn, uniform, player=2)
    with pytest.raises(ConfigError, match="player must be an int"):
        best_response(kuhn, uniform, player=True)
    assert best_response(kuhn, uniform, player=np.int64(1)).player == 1
    game = load_game("kuhn_poker")
    pols = [UniformRandomPolicy(), UniformRandomPolicy()]
    with pytest.raises(ConfigError, match="num_deals must be an integer >= 1, got 2.5"):
        head_to_head(game, pols, num_deals=2.5)
    with pytest.raises(ConfigError, match="num_deals"):
        head_to_head(game, pols, num_deals="3")
    with pytest.raises(ConfigError, match="seed"):
        head_to_head(game, pols, 3, seed=-1)
    with pytest.raises(ConfigError, match="policies"):
        head_to_head(game, "ab", 3)
    assert head_to_head(game, pols, np.int64(3), seed=np.int64(4)).num_deals == 3


def test_matches_refuse_a_policy_with_no_legal_mass() -> None:
    game = load_game("kuhn_poker")
    with pytest.raises(InvalidPolicyError, match="not all zero"):
        head_to_head(game, [lambda s: {0: 0.0, 1: 0.0}, UniformRandomPolicy()], 2, seed=0)
    with pytest.raises(InvalidPolicyError, match="finite"):
        head_to_head(game, [lambda s: {0: float("nan"), 1: 1.0}, UniformRandomPolicy()], 2)
