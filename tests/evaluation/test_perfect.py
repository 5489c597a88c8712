"""Total exploitability and forced-deviation tables."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.evaluation import expected_values, exploitability
from pokerzoo.evaluation.perfect import (
    force_first_action,
    forced_deviation_values,
    node_beliefs,
    report,
    total_exploitability,
)
from pokerzoo.games.leduc import CALL, FOLD, RAISE
from pokerzoo.tree import TabularPolicy, build


@pytest.fixture(scope="module")
def kuhn():
    return build(load_game("kuhn_poker"))


def kuhn_equilibrium(tree, alpha: float = 1 / 3) -> np.ndarray:
    """Kuhn's equilibrium family; alpha = 1/3 reaches every information set of both players
    (player 0 bets Kings always and Jacks 1/3), so it is subgame perfect."""
    bet = {
        (0, 0, ()): alpha, (0, 1, ()): 0.0, (0, 2, ()): 3 * alpha,
        (0, 0, (0, 1)): 0.0, (0, 1, (0, 1)): alpha + 1 / 3, (0, 2, (0, 1)): 1.0,
        (1, 0, (1,)): 0.0, (1, 1, (1,)): 1 / 3, (1, 2, (1,)): 1.0,
        (1, 0, (0,)): 1 / 3, (1, 1, (0,)): 0.0, (1, 2, (0,)): 1.0,
    }
    return np.array([[1 - bet[k], bet[k]] for k in tree.infoset_keys])


def test_subgame_perfect_profile_has_zero_total_exploitability(kuhn):
    profile = kuhn_equilibrium(kuhn)
    assert exploitability(kuhn, profile) == pytest.approx(0.0, abs=1e-12)
    total = total_exploitability(kuhn, profile)
    assert abs(total.total) < 1e-9
    assert np.all(np.abs(total.gains) < 1e-9)


def test_dominated_play_off_the_path_is_caught(kuhn):
    # Player 0 never checks a King, so folding it to a bet after checking is off the path:
    # exploitability cannot see it, total exploitability does. Belief there: player 1 bets
    # after a check only with the Jack (1/3), so calling wins 2 and folding loses 1: gain 3.
    profile = kuhn_equilibrium(kuhn)
    profile[kuhn.infoset_id((0, 2, (0, 1)))] = [1.0, 0.0]
    assert exploitability(kuhn, profile) == pytest.approx(0.0, abs=1e-12)
    total = total_exploitability(kuhn, profile)
    assert total.total == pytest.approx(3.0)
    np.testing.assert_allclose(total.per_player, [3.0, 0.0], atol=1e-12)
    assert total.mean_per_infoset == pytest.approx(3.0 / 12)


def test_uniform_policy_and_bookkeeping(kuhn):
    total = total_exploitability(kuhn, TabularPolicy.uniform(kuhn))
    assert total.total > 0
    assert np.all(total.gains >= -1e-12)
    assert total.per_player.sum() == pytest.approx(total.total)


def test_beliefs_uniform_where_no_one_reaches(kuhn):
    profile = kuhn_equilibrium(kuhn, alpha=0.0)  # player 0 never bets first
    for mode in ("bayes", "uniform"):
        belief = node_beliefs(kuhn, profile, mode)
        for card in range(3):
            rows = np.flatnonzero(kuhn.infoset == kuhn.infoset_id((1, card, (1,))))
            np.testing.assert_allclose(belief[rows], 0.5)
    # With player 0 never betting, player 1 facing a bet with the Queen: calling wins 2
    # against the Jack and loses 2 against the King (0 under the uniform belief), folding
    # loses 1; calling only 1/3 of the time gains 2/3 over the policy.
    gains = total_exploitability(kuhn, profile).gains
    assert gains[kuhn.infoset_id((1, 1, (1,)))] == pytest.approx(2 / 3)


def test_forced_deviation_table(kuhn):
    eq = kuhn_equilibrium(kuhn)
    uniform = TabularPolicy.uniform(kuhn).probs
    table = forced_deviation_values(kuhn, {"eq": eq, "uniform": uniform})
    assert table.values.shape == (2, 2, 2)
    np.testing.assert_allclose(table.matrix(0), -table.matrix(1))
    assert table.matrix(0)[0, 0] == pytest.approx(-1000 / 18)
    mixed = np.where((kuhn.infoset_player == 0)[:, None], eq, uniform)
    assert table.matrix(0)[0, 1] == pytest.approx(1000 * expected_values(kuhn, mixed)[0])
    forced = force_first_action(kuhn, 1)  # player 0 must bet first
    assert sorted(forced) == [kuhn.infoset_id((0, c, ())) for c in range(3)]
    always_bet = eq.copy()
    always_bet[sorted(forced)] = [0.0, 1.0]
    by_key = {kuhn.infoset_keys[i]: a for i, a in forced.items()}
    forced_table = forced_deviation_values(kuhn, [eq], by_key)
    assert forced_table.matrix(0)[0, 0] == pytest.approx(
        1000 * expected_values(kuhn, always_bet)[0]
    )
    assert "P1 avg" in forced_table.format(0, "title")


def test_forced_call_in_leduc():
    tree = build(load_game("leduc_holdem"))
    forced = force_first_action(tree, CALL)
    assert len(forced) == 6  # one first decision per private card
    with pytest.raises(ValueError, match="illegal"):
        force_first_action(tree, FOLD)
    policy = TabularPolicy.uniform(tree)
    text = report(tree, {"uniform": policy}, {k: RAISE for k in forced})
    assert "uniform" in text and "forced" in text


def test_bayes_beliefs_carry_an_unreached_sets_belief_down():
    tree = build(load_game("leduc_holdem"))
    rng = np.random.default_rng(0)
    probs = np.where(tree.infoset_mask, rng.random(tree.infoset_mask.shape) + 0.1, 0.0)
    probs /= probs.sum(axis=1, keepdims=True)
    first = [i for i in force_first_action(tree, CALL)]
    probs[first] = 0.0
    probs[first, CALL] = 1.0  # player 0 never raises first: player 1 never faces that raise
    bayes, uniform = node_beliefs(tree, probs, "bayes"), node_beliefs(tree, probs, "uniform")
    decision = tree.player >= 0
    for belief in (bayes, uniform):
        sums = np.bincount(tree.infoset[decision], weights=belief[decision])
        np.testing.assert_allclose(sums, 1.0)
    # Below the unreached sets, player 0's later (card-dependent) play informs "bayes" only.
    differs = decision & ~np.isclose(bayes, uniform)
    assert differs.any()
    assert np.all(tree.player[differs] == 1)
