"""OpenSpiel's universal_poker and the range solver on tiny river spots
(bench/subgame_openspiel.py): the same game written twice gives the same value for fixed
profiles, and both solvers' CFR+ reach the same game value."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

ROOT = Path(__file__).resolve().parents[3]


def _bench():
    spec = importlib.util.spec_from_file_location("subgame_openspiel",
                                                  ROOT / "bench" / "subgame_openspiel.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bench = _bench()


def _setup(spot, num_ranks):
    from pokerzoo.public.spots.holdem_spot import build_spot_tree

    tree = build_spot_tree(spot)
    game = bench.openspiel_game(spot, tree, num_ranks)
    return tree, game, bench.infosets(game, tree, subgame=num_ranks == 13)


@pytest.fixture(scope="module")
def hand_reach_spot():
    spot = bench.river_spot("QsJh2h7c3d", "AA,KK:0.5,QJs,72o:0.25", "AK,JJ,T9s:0.3,33")
    return _setup(spot, 13)


@pytest.fixture(scope="module")
def reduced_deck_spot():
    return _setup(bench.reduced_spot(4, "5s4h3c2h2d"), 4)


def test_hand_reach_index_is_openspiels():
    # GetHoleCardsReachIndex's own test values (universal_poker_test.cc), suits ordered s h d c
    from pokerzoo.games.holdem.cards import string_to_card as c

    assert bench.acpc_reach_index(c("2s"), c("2h")) == 0
    assert bench.acpc_reach_index(c("2d"), c("2s")) == 1
    assert bench.acpc_reach_index(c("2s"), c("Ac")) == 50
    assert bench.acpc_reach_index(c("2h"), c("2c")) == 52
    assert bench.acpc_reach_index(c("Ad"), c("Ac")) == 1325


@pytest.mark.parametrize("seed", [None, 0, 1])
@pytest.mark.parametrize("which", ["hand_reach_spot", "reduced_deck_spot"])
def test_fixed_profile_values_agree(request, which, seed):
    tree, game, table = request.getfixturevalue(which)
    # every information state of every hand is matched to a node
    assert len({(s.node, s.hand) for s in table}) == len(table)
    value = bench.fixed_value(tree, game, table, bench.profile(tree, seed))
    assert value.ours == pytest.approx(value.theirs, abs=1e-9)


def test_exploitability_agrees_with_openspiels(reduced_deck_spot):
    import numpy as np
    import pyspiel

    from pokerzoo.public.engine.solver import PublicSolver

    tree, game, table = reduced_deck_spot
    solver = PublicSolver(tree, algorithm="cfr+")
    solver.iterate(5)
    average = {int(n): solver.strategy(int(n)) for n in np.flatnonzero(tree.kind == 0)}
    theirs = pyspiel.exploitability(game, bench.openspiel_policy(table, average))
    assert solver.exploitability() == pytest.approx(theirs, abs=1e-9)


def test_cfr_plus_solves_reach_the_same_value(reduced_deck_spot):
    tree, game, _ = reduced_deck_spot
    race = bench.solve_race(tree, game, target_pct=3.0, check_every=5)
    pot = tree.starting_pot
    assert 100 * race.ours_expl / pot <= 3.0 and 100 * race.theirs_expl / pot <= 3.0
    assert race.theirs_iterations <= race.theirs_run
    # the same algorithm up to rounding noise: comparable iteration counts
    assert race.ours_iterations / 3 <= race.theirs_iterations <= 3 * race.ours_iterations
    # two profiles within e_a and e_b of equilibrium have values within 2 (e_a + e_b)
    bound = 2 * (race.ours_expl + race.theirs_expl)
    assert abs(race.ours_value - race.theirs_value) <= bound
