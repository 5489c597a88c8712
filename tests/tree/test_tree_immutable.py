"""Compiled trees are immutable in fact: read-only arrays, frozen fields, cached derived data."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.agents.cfr import CFRPlus
from pokerzoo.agents.fictitious import FictitiousPlaySolver
from pokerzoo.evaluation import exploitability
from pokerzoo.evaluation.perfect import infoset_sizes
from pokerzoo.tree import build

ARRAYS = [
    "parent", "depth", "player", "infoset", "action", "chance_prob", "utilities", "first_child",
    "num_children", "depth_offsets", "infoset_player", "infoset_mask", "infoset_node",
    "infoset_depth",
]


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_holdem", "unknown_kuhn_poker"])
def test_every_tree_array_is_read_only(name: str) -> None:
    tree = build(load_game(name))
    for field in ARRAYS:
        array = getattr(tree, field)
        assert not array.flags.writeable, field
        with pytest.raises(ValueError, match="read-only"):
            array[0] = array[0]
    sf = tree.sequence_form
    for field in ("parent_sequence", "player_infosets", "payoff_sequences", "payoff_coef"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(sf, field)[...] = 0
    with pytest.raises(ValueError, match="read-only"):
        tree.infoset_sizes[0] = 5.0


def test_tree_fields_cannot_be_reassigned_and_derived_data_is_cached() -> None:
    tree = build(load_game("kuhn_poker"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        tree.utilities = np.zeros_like(tree.utilities)  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        tree._infoset_sizes = np.ones(tree.num_infosets)  # type: ignore[attr-defined]
    # Cached properties: built once, then the same object.
    assert tree.sequence_form is tree.sequence_form
    assert tree.infoset_sizes is tree.infoset_sizes is infoset_sizes(tree)
    decision = tree.infoset[tree.player >= 0]
    np.testing.assert_array_equal(tree.infoset_sizes, np.bincount(decision))
    # Replacing a field gives a new tree with its own (frozen) arrays; the old one is intact.
    other = dataclasses.replace(tree, utilities=tree.utilities * 2)
    assert not other.utilities.flags.writeable
    assert np.array_equal(other.utilities, 2 * tree.utilities)


def test_trees_of_one_unknown_base_share_structure_arrays_safely() -> None:
    game = load_game("unknown_kuhn_poker", seed=0)
    other = game.with_resampled_environment(np.random.default_rng(1))
    a, b = build(game, model=game.true_model), build(other, model=other.true_model)
    assert np.shares_memory(a.parent, b.parent)  # one walk per base game
    assert not np.array_equal(a.utilities, b.utilities)
    with pytest.raises(ValueError, match="read-only"):
        b.parent[1] = 0


@pytest.mark.parametrize("solver", [CFRPlus, FictitiousPlaySolver])
def test_solvers_leave_the_tree_unchanged(solver) -> None:
    tree = build(load_game("leduc_holdem"))
    before = {field: getattr(tree, field).copy() for field in ARRAYS}
    agent = solver(tree.game, tree=tree)
    agent.iterate(5)
    assert exploitability(tree, agent.average_policy()) > 0
    for field in ARRAYS:
        np.testing.assert_array_equal(getattr(tree, field), before[field])
