"""The sequence form gives the same values as the history tree it is derived from."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.evaluation import expected_values
from pokerzoo.games.leduc import LEDUC_VARIANTS
from pokerzoo.tree import TabularPolicy, build, sequence_form

GAMES = [
    ("kuhn_poker", {}),
    ("kuhn_poker", {"num_players": 3}),
    ("leduc_holdem", {}),
    ("leduc_holdem", LEDUC_VARIANTS["leduc4"]),
    ("leduc_holdem", LEDUC_VARIANTS["rlcard"]),
    ("kuhn_poker", {"num_players": 4}),
    ("unknown_kuhn_poker", {"seed": 3}),
]


def random_policy(tree, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    probs = rng.random(tree.infoset_mask.shape) * tree.infoset_mask
    # Some exact zeros, as regret matching produces.
    probs[rng.random(probs.shape) < 0.2] = 0.0
    probs[probs.sum(axis=1) == 0] = tree.infoset_mask[probs.sum(axis=1) == 0]
    return probs / probs.sum(axis=1, keepdims=True)


@pytest.mark.parametrize(("name", "params"), GAMES)
def test_expected_values_equal_the_history_sweep(name, params):
    tree = build(load_game(name, **params))
    form = sequence_form(tree)
    for seed in range(3):
        probs = random_policy(tree, seed)
        np.testing.assert_allclose(
            form.expected_values(probs), expected_values(tree, probs), atol=1e-12
        )


@pytest.mark.parametrize(("name", "params"), GAMES)
def test_sequences_and_infosets_are_consistent(name, params):
    tree = build(load_game(name, **params))
    form = sequence_form(tree)
    num_actions = tree.num_actions
    # Every infoset appears once, in its owner's block, after the infoset of its parent sequence.
    assert sorted(form.player_infosets.tolist()) == list(range(tree.num_infosets))
    for p in range(tree.num_players):
        block = form.infosets_of(p)
        assert np.all(tree.infoset_player[block] == p)
        position = {int(iset): k for k, iset in enumerate(block)}
        for iset in block:
            parent = form.parent_sequence[iset]
            if parent != form.empty:
                parent_iset, parent_action = divmod(int(parent), num_actions)
                assert tree.infoset_player[parent_iset] == p
                assert tree.infoset_mask[parent_iset, parent_action]
                assert position[parent_iset] < position[int(iset)]
    # Merged payoffs keep the total: sum of chance reach times utility over terminals.
    uniform = TabularPolicy.uniform(tree).probs
    assert form.payoff_coef.shape == (tree.num_players, len(form.payoff_sequences))
    np.testing.assert_allclose(
        form.expected_values(uniform), expected_values(tree, uniform), atol=1e-12
    )


def test_realization_plan_is_the_product_of_own_probabilities():
    tree = build(load_game("leduc_holdem"))
    form = sequence_form(tree)
    probs = random_policy(tree, 7)
    x = form.realization_plan(probs)
    assert x[form.empty] == 1.0
    # A child infoset's sequences sum to its parent sequence's weight (sequence-form constraint).
    for iset in range(tree.num_infosets):
        row = x[iset * tree.num_actions : (iset + 1) * tree.num_actions]
        assert row.sum() == pytest.approx(x[form.parent_sequence[iset]], abs=1e-12)
