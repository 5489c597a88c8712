"""CFR and CFR+ on the compiled tree against OpenSpiel's C++ solvers."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from pokerzoo import load_game
from pokerzoo.agents.base import CheckpointError
from pokerzoo.agents.cfr.full_width import CFR, CFRPlus, CFRSolver
from pokerzoo.agents.registry import make_agent
from pokerzoo.evaluation import exploitability, nash_conv
from pokerzoo.games import ConfigError


def openspiel_exploitability(solver_cls, game_name: str, iterations: int) -> float:
    game = pyspiel.load_game(game_name)
    solver = solver_cls(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    return pyspiel.exploitability(game, solver.average_policy())


@pytest.mark.parametrize(
    ("ours", "theirs"), [(CFR, "CFRSolver"), (CFRPlus, "CFRPlusSolver")]
)
def test_kuhn_after_1000_iterations_matches_openspiel(ours, theirs):
    solver = ours(load_game("kuhn_poker"))
    solver.iterate(1000)
    expected = openspiel_exploitability(getattr(pyspiel, theirs), "kuhn_poker", 1000)
    assert exploitability(solver.tree, solver.average_policy()) == pytest.approx(
        expected, abs=1e-6
    )


@pytest.mark.parametrize(
    ("ours", "theirs"), [(CFR, "CFRSolver"), (CFRPlus, "CFRPlusSolver")]
)
def test_leduc_after_50_iterations_matches_openspiel(ours, theirs):
    solver = ours(load_game("leduc_holdem"))
    solver.iterate(50)
    expected = openspiel_exploitability(getattr(pyspiel, theirs), "leduc_poker", 50)
    assert exploitability(solver.tree, solver.average_policy()) == pytest.approx(
        expected, abs=1e-9
    )


def test_three_player_kuhn_after_200_iterations_matches_openspiel():
    solver = CFR(load_game("kuhn_poker", num_players=3))
    solver.iterate(200)
    game = pyspiel.load_game("kuhn_poker(players=3)")
    theirs = pyspiel.CFRSolver(game)
    for _ in range(200):
        theirs.evaluate_and_update_policy()
    expected = pyspiel.nash_conv(game, theirs.average_policy())
    assert nash_conv(solver.tree, solver.average_policy()) == pytest.approx(expected, abs=1e-9)


def test_three_player_kuhn_and_simultaneous_updates_converge():
    solver = CFR(load_game("kuhn_poker", num_players=3))
    solver.iterate(300)
    assert exploitability(solver.tree, solver.average_policy()) < 0.01
    simultaneous = CFRSolver(load_game("kuhn_poker"), alternating_updates=False)
    simultaneous.iterate(1000)
    assert exploitability(simultaneous.tree, simultaneous.average_policy()) < 0.01


def test_iterate_in_chunks_equals_one_call():
    game = load_game("leduc_holdem")
    a, b = CFRPlus(game), CFRPlus(game)
    a.iterate(30)
    for _ in range(3):
        b.iterate(10)
    np.testing.assert_array_equal(a.strategy_sum, b.strategy_sum)
    np.testing.assert_array_equal(a.regrets, b.regrets)


def test_checkpoint_resume_continues_exactly(tmp_path):
    game = load_game("kuhn_poker")
    straight = CFRPlus(game)
    straight.iterate(40)
    first = CFRPlus(game)
    first.iterate(25)
    first.save(tmp_path / "ckpt.pt")
    resumed = CFRPlus(game)
    resumed.load(tmp_path / "ckpt.pt")
    assert resumed.iteration == 25
    resumed.iterate(15)
    np.testing.assert_array_equal(resumed.strategy_sum, straight.strategy_sum)
    (tmp_path / "bad.pt").write_bytes(b"definitely not a checkpoint")
    with pytest.raises(CheckpointError, match="corrupt"):
        resumed.load(tmp_path / "bad.pt")
    with pytest.raises(CheckpointError, match="holds a 'cfr\\+'"):
        CFR(game).load(tmp_path / "ckpt.pt")
    with pytest.raises(CheckpointError, match="does not fit"):
        CFRPlus(load_game("leduc_holdem")).load(tmp_path / "ckpt.pt")


def test_registry_errors_name_what_is_allowed():
    with pytest.raises(ConfigError, match="valid agents are"):
        make_agent("cfr++", load_game("kuhn_poker"))
    with pytest.raises(ConfigError, match="valid parameters are .*regret_matching_plus"):
        make_agent("cfr", load_game("kuhn_poker"), learning_rate=0.1)
