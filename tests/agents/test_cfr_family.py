"""Every CFR-family preset and update schedule against OpenSpiel's implementation of it."""

from __future__ import annotations

import pyspiel
import pytest
from open_spiel.python.algorithms import cfr as cfr_py
from open_spiel.python.algorithms import discounted_cfr as dcfr_py
from open_spiel.python.algorithms import exploitability as os_exploitability

from pokerzoo import load_game
from pokerzoo.agents.cfr.full_width import CFR_PRESETS, CFRConfig, CFRSolver
from pokerzoo.agents.registry import make_agent
from pokerzoo.evaluation import exploitability
from pokerzoo.tree import TabularPolicy


def _theirs(solver, iterations: int) -> float:
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    return os_exploitability.exploitability(solver._game, solver.average_policy())


def _ours(config: CFRConfig, iterations: int, game: str = "kuhn_poker") -> float:
    solver = CFRSolver(load_game(game), config)
    solver.iterate(iterations)
    return exploitability(solver.tree, solver.average_policy())


@pytest.mark.parametrize(
    ("preset", "factory"),
    [("lcfr", dcfr_py.LCFRSolver), ("dcfr", dcfr_py.DCFRSolver)],
)
def test_discounted_presets_match_openspiel_python_after_1000_kuhn_iterations(preset, factory):
    # OpenSpiel discounts after adding iteration t's regret by t^a/(t^a+1); the kernel
    # discounts before adding it by (t-1)^a/((t-1)^a+1): the same recursion, and the positive
    # regrets (all regret matching sees) differ by one common factor, so the policies agree.
    expected = _theirs(factory(pyspiel.load_game("kuhn_poker")), 1000)
    assert _ours(CFR_PRESETS[preset], 1000) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    ("rm_plus", "linear"), [(False, False), (True, True)], ids=["cfr", "cfr+"]
)
def test_simultaneous_updates_match_openspiel_python(rm_plus, linear):
    game = pyspiel.load_game("kuhn_poker")
    theirs = cfr_py._CFRSolver(
        game, regret_matching_plus=rm_plus, alternating_updates=False, linear_averaging=linear
    )
    config = CFRConfig(
        alternating_updates=False, regret_matching_plus=rm_plus, linear_averaging=linear
    )
    assert _ours(config, 1000) == pytest.approx(_theirs(theirs, 1000), abs=1e-6)


def test_dcfr_discount_parameters_are_honoured():
    # (alpha, beta, gamma) = (1, 1, 1) is linear CFR; other values give other runs.
    lcfr = _ours(CFRConfig(discount=(1.0, 1.0, 1.0)), 200)
    assert lcfr == _ours(CFR_PRESETS["lcfr"], 200)
    assert lcfr != pytest.approx(_ours(CFRConfig(discount=(3.0, 0.5, 1.0)), 200), abs=1e-9)


@pytest.mark.parametrize("name", ["cfr", "cfr+", "lcfr", "dcfr"])
@pytest.mark.parametrize("alternating", [True, False])
def test_every_preset_lowers_leduc_exploitability(name, alternating):
    game = load_game("leduc_holdem")
    solver = make_agent(name, game, alternating_updates=alternating)
    start = exploitability(solver.tree, TabularPolicy.uniform(solver.tree))
    solver.iterate(30)
    after_30 = exploitability(solver.tree, solver.average_policy())
    solver.iterate(70)
    after_100 = exploitability(solver.tree, solver.average_policy())
    assert after_100 < after_30 < start
    assert after_100 < 0.15 * start
