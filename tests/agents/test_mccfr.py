"""Monte Carlo CFR: convergence, reproducibility, checkpoints, agreement with OpenSpiel."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.agents.cfr.mccfr import MCCFRConfig, MCCFRSolver
from pokerzoo.agents.registry import make_agent
from pokerzoo.evaluation import exploitability
from pokerzoo.games import ConfigError
from pokerzoo.tree import TabularPolicy


def _expl(solver: MCCFRSolver) -> float:
    return exploitability(solver.tree, solver.average_policy())


@pytest.mark.parametrize("name", ["mccfr-os", "mccfr-es"])
@pytest.mark.parametrize(("game", "iterations", "factor"), [
    ("kuhn_poker", 20_000, 0.15), ("leduc_holdem", 20_000, 0.5),
])
def test_sampling_lowers_exploitability(name, game, iterations, factor):
    solver = make_agent(name, load_game(game), seed=3)
    start = exploitability(solver.tree, TabularPolicy.uniform(solver.tree))
    solver.iterate(iterations)
    assert _expl(solver) < factor * start


def test_vcfr_baseline_exploration_also_converges():
    solver = MCCFRSolver(load_game("kuhn_poker"), MCCFRConfig(exploration=0.1), seed=0)
    solver.iterate(20_000)
    assert _expl(solver) < 0.05


@pytest.mark.parametrize("sampling", ["outcome", "external"])
def test_same_seed_same_run_and_checkpoint_resumes_exactly(sampling, tmp_path):
    game = load_game("leduc_holdem")
    config = MCCFRConfig(sampling=sampling)
    a, b = MCCFRSolver(game, config, seed=7), MCCFRSolver(game, config, seed=7)
    a.iterate(500)
    b.iterate(200)
    b.save(tmp_path / "ckpt.pt")
    c = MCCFRSolver(game, config, seed=123)
    c.load(tmp_path / "ckpt.pt")
    b.iterate(300)
    c.iterate(300)
    np.testing.assert_array_equal(a.regrets, b.regrets)
    np.testing.assert_array_equal(a.regrets, c.regrets)
    np.testing.assert_array_equal(a.strategy_sum, c.strategy_sum)
    assert c.iteration == 500
    other = MCCFRSolver(game, config, seed=8)
    other.iterate(500)
    assert not np.array_equal(a.regrets, other.regrets)


def test_average_and_current_policies_are_distributions_over_legal_actions():
    solver = make_agent("mccfr-os", load_game("kuhn_poker"), seed=0)
    solver.iterate(100)
    for policy in (solver.average_policy(), solver.current_policy()):
        np.testing.assert_allclose(policy.probs.sum(axis=1), 1.0)
        assert np.all(policy.probs[~solver.tree.infoset_mask] == 0)


def test_config_is_validated():
    with pytest.raises(ConfigError, match="exploration"):
        MCCFRConfig(exploration=1.5)
    with pytest.raises(ConfigError, match="exploration > 0"):
        MCCFRConfig(exploration=0.0)
    with pytest.raises(ConfigError, match="sampling"):
        MCCFRConfig(sampling="chance")
    with pytest.raises(ConfigError, match="valid parameters are"):
        make_agent("mccfr-es", load_game("kuhn_poker"), epsilon=0.3)
    solver = make_agent("mccfr-os", load_game("kuhn_poker"), exploration=0.1)
    assert solver.config.exploration == 0.1


@pytest.mark.slow
@pytest.mark.parametrize("sampling", ["outcome", "external"])
def test_reduces_exploitability_at_openspiels_rate(sampling):
    """Statistically: OpenSpiel's sampler and ours end within the spread of seeds."""
    import pyspiel
    from open_spiel.python.algorithms import exploitability as os_expl
    from open_spiel.python.algorithms import external_sampling_mccfr, outcome_sampling_mccfr

    iterations = 3000
    game = pyspiel.load_game("kuhn_poker")
    cls = (outcome_sampling_mccfr.OutcomeSamplingSolver if sampling == "outcome"
           else external_sampling_mccfr.ExternalSamplingSolver)
    theirs = []
    for seed in range(3):
        np.random.seed(seed)  # noqa: NPY002  (OpenSpiel's samplers draw from the global state)
        solver = cls(game)
        for _ in range(iterations):
            solver.iteration()
        theirs.append(os_expl.exploitability(game, solver.average_policy()))
    ours = []
    for seed in range(8):
        solver = MCCFRSolver(load_game("kuhn_poker"), MCCFRConfig(sampling=sampling), seed=seed)
        solver.iterate(iterations)
        ours.append(_expl(solver))
    assert 0.5 * np.mean(theirs) < np.mean(ours) < 2.0 * np.mean(theirs)
