"""Every CFR-family preset and update schedule against OpenSpiel's implementation of it."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr as cfr_py
from open_spiel.python.algorithms import discounted_cfr as dcfr_py
from open_spiel.python.algorithms import exploitability as os_exploitability

from pokerzoo import load_game
from pokerzoo.agents.cfr.full_width import CFR_PRESETS, CFRConfig, CFRSolver
from pokerzoo.agents.registry import make_agent
from pokerzoo.errors import ConfigError
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


@pytest.mark.parametrize("name", ["cfr", "cfr+", "lcfr", "dcfr", "pcfr+"])
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


def _exploitability(name: str, game: str, iterations: int, current: bool = False) -> float:
    solver = make_agent(name, load_game(game))
    solver.iterate(iterations)
    policy = solver.current_policy() if current else solver.average_policy()
    return exploitability(solver.tree, policy)


def test_pcfr_plus_solves_kuhn_far_faster_than_cfr_plus():
    # Kuhn is one of the games where predictive CFR+ wins by orders of magnitude (Farina,
    # Kroer and Sandholm 2021): here 2.5e-5 against CFR+'s 1.2e-3 after 100 iterations.
    pcfr_plus = _exploitability("pcfr+", "kuhn_poker", 100)
    assert pcfr_plus < 1e-4
    assert pcfr_plus < 0.1 * _exploitability("cfr+", "kuhn_poker", 100)


def test_pcfr_plus_current_strategy_converges_on_kuhn():
    # The predictions steady the iterates themselves, which plain regret matching+ does not.
    assert _exploitability("pcfr+", "kuhn_poker", 500, current=True) < 1e-9
    assert _exploitability("cfr+", "kuhn_poker", 500, current=True) > 1e-3


def test_pcfr_plus_reduces_leduc_exploitability_to_known_levels():
    # Measured: 0.44 after 10 iterations (CFR+: 0.61), 0.018 after 100, 9.7e-4 after 500.
    assert _exploitability("pcfr+", "leduc_holdem", 10) < _exploitability("cfr+", "leduc_holdem",
                                                                          10)
    assert _exploitability("pcfr+", "leduc_holdem", 100) < 0.025
    assert _exploitability("pcfr+", "leduc_holdem", 500) < 1.5e-3


def test_pcfr_plus_differs_from_cfr_plus_with_quadratic_averaging_only_by_the_prediction():
    game = load_game("leduc_holdem")
    predictive = CFRSolver(game, CFR_PRESETS["pcfr+"], alternating_updates=False)
    plain = CFRSolver(game, CFR_PRESETS["pcfr+"], alternating_updates=False, predictive=False)
    predictive.iterate(1)
    plain.iterate(1)
    # Simultaneous updates: the first iteration plays uniformly in both, so regrets and sums
    # agree; the next strategies do not.
    np.testing.assert_array_equal(predictive.regrets, plain.regrets)
    np.testing.assert_array_equal(predictive.strategy_sum, plain.strategy_sum)
    assert not np.allclose(predictive.sigma, plain.sigma)


def test_pcfr_plus_resumes_exactly_from_a_checkpoint(tmp_path):
    # No prediction outlives an iteration: the saved strategy carries it.
    game = load_game("leduc_holdem")
    straight = make_agent("pcfr+", game)
    straight.iterate(30)
    first = make_agent("pcfr+", game)
    first.iterate(12)
    first.save(tmp_path / "pcfr.pt")
    resumed = make_agent("pcfr+", game)
    resumed.load(tmp_path / "pcfr.pt")
    resumed.iterate(18)
    np.testing.assert_array_equal(resumed.regrets, straight.regrets)
    np.testing.assert_array_equal(resumed.strategy_sum, straight.strategy_sum)
    np.testing.assert_array_equal(resumed.sigma, straight.sigma)


def test_the_averaging_power_weighs_only_the_average():
    game = load_game("leduc_holdem")
    quadratic = make_agent("pcfr+", game)
    linear = make_agent("pcfr+", game, averaging_power=1.0)
    quadratic.iterate(20)
    linear.iterate(20)
    np.testing.assert_array_equal(quadratic.regrets, linear.regrets)
    np.testing.assert_array_equal(quadratic.sigma, linear.sigma)
    assert not np.allclose(quadratic.strategy_sum / quadratic.strategy_sum.sum(),
                           linear.strategy_sum / linear.strategy_sum.sum())


@pytest.mark.parametrize(("params", "what"), [
    ({"averaging_power": 2.0}, "averaging_power=2.0 weights the average only with linear"),
    ({"linear_averaging": True, "averaging_power": -1.0}, "averaging_power must be >= 0"),
])
def test_a_bad_averaging_power_is_one_line(params, what):
    with pytest.raises(ConfigError, match=what):
        CFRConfig(**params)
