"""Public belief states of Leduc and their exact values (pokerzoo.agents.resolver.pbs*)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pokerzoo
from pokerzoo.agents.resolver.pbs import LeafStates, solver_reaches
from pokerzoo.agents.resolver.pbs_data import generate_dataset, load_dataset
from pokerzoo.errors import ConfigError
from pokerzoo.public.engine.tree import CHANCE
from pokerzoo.tree import build
from pokerzoo.tree.tabular_policy import TabularPolicy

LEDUC_VALUE = -0.085606  # player 0's equilibrium value (OpenSpiel)


@pytest.fixture(scope="module")
def states() -> LeafStates:
    return LeafStates(pokerzoo.load_game("leduc_holdem"), iterations=300)


def test_a_solve_from_the_root_gives_leducs_value(states: LeafStates) -> None:
    batch = states.solve_states(np.array([0]), np.ones((1, 6)), np.ones((1, 6)))
    tree = states.tree
    # Values are per pot against a normalised range: back to chips per dealt pair.
    mass = float(batch.range0[0] @ tree.compatible @ batch.range1[0])
    value = float(batch.range0[0] @ batch.value0[0]) * tree.pot[0] / mass
    assert value == pytest.approx(LEDUC_VALUE, abs=2e-3)
    assert 0 <= batch.gap[0] < 2e-3  # NashConv per pot after 300 DCFR iterations


def test_values_are_zero_sum_up_to_the_solves_gap(states: LeafStates) -> None:
    rng = np.random.default_rng(0)
    batch = states.solve_states(*states.random_states(40, rng))
    total = (batch.range0 * batch.value0).sum(1) + (batch.range1 * batch.value1).sum(1)
    mass = np.einsum("li,ij,lj->l", batch.range0, states.tree.compatible, batch.range1)
    # Best responses to each other's average: the sum is the subgame's NashConv (>= 0, small).
    assert np.all(total >= -1e-9)
    np.testing.assert_allclose(total / mass, batch.gap, atol=1e-12)
    assert batch.gap.max() < 5e-3


def test_random_states_are_normalised_ranges_at_round_ends(states: LeafStates) -> None:
    nodes, r0, r1 = states.random_states(500, np.random.default_rng(1))
    assert set(nodes.tolist()) <= set(np.flatnonzero(states.tree.kind == CHANCE).tolist())
    for r in (r0, r1):
        np.testing.assert_allclose(r.sum(1), 1.0)
        assert r.min() >= 0 and r.std(axis=1).mean() > 0.05  # not all uniform
    again = states.random_states(500, np.random.default_rng(1))
    np.testing.assert_array_equal(again[1], r0)


def test_states_from_play_follow_the_policys_reach(states: LeafStates) -> None:
    reach0, reach1 = states.policy_reach(TabularPolicy.uniform(build(states.game)))
    tree = states.tree
    node = int(np.flatnonzero(tree.kind == CHANCE)[0])  # call, call: one action each
    np.testing.assert_allclose(reach0[node], 0.5)
    np.testing.assert_allclose(reach1[node], 0.5)
    reaches = solver_reaches(states, snapshots=(1, 10))
    assert len(reaches) == 3
    nodes, r0, _ = states.policy_states(50, np.random.default_rng(2), reaches[-1], noise=0.0)
    first = reaches[-1][0][nodes[0]]
    np.testing.assert_allclose(r0[0], first / first.sum())


def test_datasets_resume_and_refuse_another_games_files(tmp_path: Path) -> None:
    game = pokerzoo.load_game("leduc_holdem")
    kw = dict(chunk=20, seed=3, iterations=50, progress=False)
    whole = generate_dataset(tmp_path / "a", game, 60, **kw)  # type: ignore[arg-type]
    assert len(whole) == 60
    (tmp_path / "a" / "pbs_00001.npz").unlink()  # an interrupted run
    resumed = generate_dataset(tmp_path / "a", game, 60, **kw)  # type: ignore[arg-type]
    np.testing.assert_array_equal(resumed.value0, whole.value0)
    np.testing.assert_array_equal(resumed.range1, whole.range1)
    other = pokerzoo.load_game("leduc_holdem", num_ranks=4)
    with pytest.raises(ConfigError, match="num_ranks"):
        load_dataset(tmp_path / "a", other)
    with pytest.raises(ConfigError, match="other settings"):
        generate_dataset(tmp_path / "a", game, 60, chunk=20, seed=4, iterations=50,
                         progress=False)


def test_a_game_without_rounds_is_refused() -> None:
    with pytest.raises(ConfigError, match="needs a game with rounds"):
        LeafStates(pokerzoo.load_game("kuhn_poker"))


@pytest.mark.slow
def test_targets_agree_with_the_engines_oracle_leaves(states: LeafStates) -> None:
    from pokerzoo.public.subgames.leaf_values import OracleLeaves

    nodes, r0, r1 = states.random_states(3, np.random.default_rng(5))
    batch = states.solve_states(nodes, r0, r1)
    oracle = OracleLeaves(states.game, iterations=2000, tolerance=1e-6, algorithm="dcfr")
    for k, node in enumerate(nodes.tolist()):
        v0, v1 = oracle.solve_leaf(node, r0[k], r1[k])
        pot = states.tree.pot[node]
        # A hand its player (almost) never holds here has a best-response value that depends
        # on play it never meets, so two solvers stopped at different small gaps (300
        # iterations here, 2,000 there) may disagree on it. Per-hand values need not be unique
        # across equilibria either: the hands the range holds agree to 1% of the pot, and the
        # range-weighted value (what a leaf's value is used for) to 0.2%.
        for own, ours, theirs in ((r0[k], batch.value0[k], v0), (r1[k], batch.value1[k], v1)):
            held = own / own.sum() >= 0.05
            np.testing.assert_allclose(ours[held], theirs[held] / pot, atol=1e-2)
            weights = own / own.sum()
            assert float(weights @ ours) == pytest.approx(float(weights @ theirs) / pot,
                                                          abs=2e-3)
