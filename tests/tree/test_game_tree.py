"""The compiled tree against OpenSpiel and against the game it was built from."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from pokerzoo import load_game
from pokerzoo.games import CHANCE, TERMINAL
from pokerzoo.games.leduc import LEDUC_VARIANTS
from pokerzoo.tree import TabularPolicy, build

OPENSPIEL_PAIRS = [
    ("kuhn_poker", {}, "kuhn_poker"),
    ("kuhn_poker", {"num_players": 3}, "kuhn_poker(players=3)"),
    ("leduc_holdem", {}, "leduc_poker"),
]


def openspiel_sizes(name: str) -> tuple[int, int]:
    game = pyspiel.load_game(name)
    histories, infosets = 0, set()
    stack = [game.new_initial_state()]
    while stack:
        s = stack.pop()
        histories += 1
        if s.is_terminal():
            continue
        if not s.is_chance_node():
            infosets.add(s.information_state_string())
        stack.extend(s.child(a) for a in s.legal_actions())
    return histories, len(infosets)


@pytest.mark.parametrize(("name", "params", "os_name"), OPENSPIEL_PAIRS)
def test_sizes_match_openspiel(name, params, os_name):
    tree = build(load_game(name, **params))
    assert (tree.num_nodes, tree.num_infosets) == openspiel_sizes(os_name)


def test_documented_variant_sizes():
    sizes = {
        variant: build(load_game("leduc_holdem", **params)).summary()["histories"]
        for variant, params in LEDUC_VARIANTS.items()
    }
    assert sizes == {
        "leduc4": 9637, "leduc5": 15577, "5leduc": 55361, "rlcard": 10717, "5leduc_rlcard": 62741,
    }


def test_tree_rows_agree_with_the_game():
    game = load_game("leduc_holdem")
    tree = build(game)
    assert np.all(np.diff(tree.depth) >= 0)
    assert np.all(tree.parent[1:] < np.arange(1, tree.num_nodes))
    rng = np.random.default_rng(0)
    for node in rng.choice(tree.num_nodes, 300, replace=False):
        state = tree.state(int(node))
        assert state.current_player() == tree.player[node]
        if tree.player[node] == TERMINAL:
            np.testing.assert_allclose(tree.utilities[node], state.returns())
        elif tree.player[node] == CHANCE:
            lo = tree.first_child[node]
            children = range(lo, lo + tree.num_children[node])
            assert sorted(tree.chance_prob[c] for c in children) == sorted(
                p for _, p in state.chance_outcomes()
            )
        else:
            iset = tree.infoset[node]
            assert tree.infoset_keys[iset] == state.information_state_key()
            assert list(np.flatnonzero(tree.infoset_mask[iset])) == state.legal_actions()
    for c in range(1, tree.num_nodes):
        if tree.player[tree.parent[c]] == CHANCE:
            continue
        assert tree.chance_prob[c] == 1.0


def test_chance_probabilities_sum_to_one_below_every_chance_node():
    tree = build(load_game("kuhn_poker", num_players=3))
    for node in np.flatnonzero(tree.player == CHANCE):
        lo = tree.first_child[node]
        assert tree.chance_prob[lo : lo + tree.num_children[node]].sum() == pytest.approx(1.0)


def test_tabular_policy_roundtrip_and_lookup(tmp_path):
    game = load_game("kuhn_poker")
    tree = build(game)
    rng = np.random.default_rng(1)
    policy = TabularPolicy.from_tree(tree, rng.random(tree.infoset_mask.shape))
    np.testing.assert_allclose(policy.probs.sum(axis=1), 1.0)
    path = tmp_path / "policy.npz"
    policy.save(path)
    loaded = TabularPolicy.load(path)
    np.testing.assert_array_equal(loaded.probs, policy.probs)
    assert loaded.keys == policy.keys and loaded.game_name == "kuhn_poker"
    state = tree.infoset_state(5)
    assert loaded.action_probabilities(state) == {
        a: pytest.approx(policy.probs[5, a]) for a in state.legal_actions()
    }
    assert not list(tmp_path.glob("*.tmp"))  # atomic write left no temporary file


def test_corrupt_policy_file_is_reported(tmp_path):
    path = tmp_path / "policy.npz"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ValueError, match="not a readable pokerzoo policy file"):
        TabularPolicy.load(path)
    with pytest.raises(FileNotFoundError):
        TabularPolicy.load(tmp_path / "missing.npz")


def test_information_state_tensors_are_each_infosets_tensor_kept_read_only() -> None:
    tree = build(load_game("leduc_holdem"))
    tensors = tree.information_state_tensors
    assert tensors.dtype == np.float32
    assert tensors.shape == (tree.num_infosets, *tree.game.information_state_shape)
    assert not tensors.flags.writeable
    assert tree.information_state_tensors is tensors  # computed once
    for i in (0, tree.num_infosets // 2, tree.num_infosets - 1):
        state = tree.infoset_state(i)
        np.testing.assert_array_equal(
            tensors[i], state.information_state_tensor(int(tree.infoset_player[i]))
        )
