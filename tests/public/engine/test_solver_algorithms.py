"""The public engine runs every CFR variant of the schedule by name."""

from __future__ import annotations

import pytest

from pokerzoo import schedule
from pokerzoo.agents.registry import make_agent
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation import exploitability
from pokerzoo.games import load_game
from pokerzoo.public.engine.small_games import public_game_tree
from pokerzoo.public.engine.solver import ALGORITHMS, PublicSolver, SolverConfig, discounts


def test_the_solver_takes_the_schedules_names():
    assert ALGORITHMS == schedule.ALGORITHMS
    for name in schedule.ALGORITHMS:
        assert SolverConfig(algorithm=name).algorithm == name
    with pytest.raises(ConfigError, match="algorithm must be one of .*'linear'.*not 'lcfr'"):
        SolverConfig(algorithm="lcfr")


def test_the_solvers_discounts_are_the_schedules():
    config = SolverConfig(algorithm="dcfr", alpha=2.0, beta=0.25, gamma=3.0)
    for t in (1, 2, 9, 100):
        assert discounts(config, t) == schedule.discounts("dcfr", t, 2.0, 0.25, 3.0)


@pytest.mark.parametrize(("public", "tree"), [("cfr", "cfr"), ("linear", "lcfr")])
@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_holdem"])
def test_vanilla_and_linear_cfr_solve_as_the_tree_engine_does(public, tree, game):
    # The same algorithm on both engines (alternating updates, reach-weighted averages); the
    # public engine keeps its regrets and sums in 32 bits, hence the tolerance.
    solver = PublicSolver(public_game_tree(load_game(game)).tree, algorithm=public)
    solver.iterate(50)
    agent = make_agent(tree, load_game(game))
    agent.iterate(50)
    expected = exploitability(agent.tree, agent.average_policy())
    assert solver.exploitability() == pytest.approx(expected, rel=1e-3)
