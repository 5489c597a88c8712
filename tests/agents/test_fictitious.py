"""Fictitious play: XFP against OpenSpiel's XFPSolver, GXFP, BUFP(X), BUFP(EF)."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import fictitious_play

from pokerzoo import load_game
from pokerzoo.agents.fictitious import FP_PRESETS, FictitiousPlaySolver, FPConfig
from pokerzoo.agents.registry import make_agent
from pokerzoo.evaluation import exploitability
from pokerzoo.evaluation.perfect import total_exploitability
from pokerzoo.games import ConfigError
from pokerzoo.tree import TabularPolicy
from pokerzoo.tree.kernels.beliefs import choose


def _openspiel_key(key) -> str:
    player, card, actions = key
    return f"{card}" + "".join("pb"[a] for a in actions)


def _assert_matches_openspiel_xfp(config: FPConfig, iterations: int) -> None:
    theirs = fictitious_play.XFPSolver(pyspiel.load_game("kuhn_poker"))
    ours = FictitiousPlaySolver(load_game("kuhn_poker"), config)
    for _ in range(iterations):
        theirs.iteration()
        ours.iterate(1)
        tables = theirs.average_policy_tables()
        expected = np.array([
            [tables[k[0]][_openspiel_key(k)][a] for a in (0, 1)] for k in ours.tree.infoset_keys
        ])
        np.testing.assert_allclose(ours.probs, expected, atol=1e-12)


def test_xfp_follows_openspiels_xfpsolver_iteration_by_iteration():
    _assert_matches_openspiel_xfp(FP_PRESETS["xfp"], 120)


def test_bufp_x_is_xfp_with_beliefs():
    # With raw counterfactual weights and no tie tolerance BUFP(X) is XFP exactly; the
    # default (normalised beliefs) only differs where actions tie to rounding.
    exact = FPConfig(step="realization", normalise_beliefs=False, tie_tolerance=0.0)
    _assert_matches_openspiel_xfp(exact, 60)
    bufp = make_agent("bufp-x", load_game("kuhn_poker"))
    xfp = make_agent("xfp", load_game("kuhn_poker"))
    bufp.iterate(300)
    xfp.iterate(300)
    a, b = exploitability(bufp.tree, bufp.probs), exploitability(xfp.tree, xfp.probs)
    assert a == pytest.approx(b, rel=0.3)


def test_formula_reading_of_bufp_x_locks_in():
    # Eq. 9's formula (current strategy below) with the realization-weighted step never
    # updates rows its best decisions stop reaching: the documented reason for the default.
    solver = FictitiousPlaySolver(load_game("kuhn_poker"), FPConfig(continuation="current"))
    solver.iterate(500)
    assert exploitability(solver.tree, solver.probs) > 0.2


@pytest.mark.parametrize("name", ["xfp", "gxfp", "bufp-x", "bufp-ef"])
@pytest.mark.parametrize(("game", "iterations", "factor"), [
    ("kuhn_poker", 1000, 0.05), ("leduc_holdem", 300, 0.1),
])
def test_every_fictitious_solver_lowers_exploitability(name, game, iterations, factor):
    solver = make_agent(name, load_game(game))
    start = exploitability(solver.tree, TabularPolicy.uniform(solver.tree))
    solver.iterate(iterations // 10)
    early = exploitability(solver.tree, solver.average_policy())
    solver.iterate(iterations - iterations // 10)
    late = exploitability(solver.tree, solver.average_policy())
    assert late < early < start
    assert late < factor * start


def test_behavioural_step_plays_better_off_the_path_than_realization_step():
    # The paper's claim on Leduc: BUFP(EF) heads to a perfect equilibrium, XFP/BUFP(X) do not.
    game = load_game("leduc_holdem")
    totals = {}
    for name in ("xfp", "bufp-x", "bufp-ef", "gxfp"):
        solver = make_agent(name, game)
        solver.iterate(500)
        totals[name] = total_exploitability(solver.tree, solver.average_policy()).total
    assert totals["bufp-ef"] < 0.5 * min(totals["xfp"], totals["bufp-x"])
    assert totals["gxfp"] < 0.5 * min(totals["xfp"], totals["bufp-x"])


def test_behavioural_step_updates_rows_no_one_reaches():
    game = load_game("kuhn_poker")
    solver = FictitiousPlaySolver(game, FP_PRESETS["bufp-ef"])
    rows = np.array([solver.tree.infoset_id((0, c, (0, 1))) for c in range(3)])
    start = solver.probs.copy()
    start[:3] = [[1.0, 0.0]] * 3  # player 0 never bets: its check-bet sets stay reachable
    start[rows] = [[0.5, 0.5]] * 3
    solver = FictitiousPlaySolver(game, FP_PRESETS["bufp-ef"], initial=start)
    solver.iterate(1)
    # With a King facing a bet, calling is the best decision whatever the belief.
    king = solver.tree.infoset_id((0, 2, (0, 1)))
    assert solver.probs[king, 1] == pytest.approx(0.75)


def test_ties_and_belief_modes_are_parameters():
    q = np.array([[1.0, 1.0 - 1e-15, 0.0], [0.0, 2.0, 2.0]])
    mask = np.ones((2, 3), dtype=bool)
    out = np.zeros((2, 3))
    choose(q, mask, np.zeros(2, dtype=np.int32), -1, True, 1e-12, out)
    np.testing.assert_allclose(out, [[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])
    choose(q, mask, np.zeros(2, dtype=np.int32), -1, False, 0.0, out)
    np.testing.assert_allclose(out, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    solver = make_agent("bufp-ef", load_game("kuhn_poker"), ties="uniform", beliefs="uniform")
    solver.iterate(20)
    assert solver.config.ties == "uniform" and solver.config.beliefs == "uniform"
    with pytest.raises(ConfigError, match="continuation"):
        FPConfig(continuation="optimal")
    with pytest.raises(ConfigError, match="valid parameters are"):
        make_agent("gxfp", load_game("kuhn_poker"), stepsize=0.1)


def test_beliefs_are_distributions_over_each_information_set():
    solver = make_agent("bufp-ef", load_game("leduc_holdem"))
    solver.iterate(10)
    tree, belief = solver.tree, solver.beliefs()
    decision = tree.player >= 0
    sums = np.bincount(tree.infoset[decision], weights=belief[decision])
    np.testing.assert_allclose(sums, 1.0)


@pytest.mark.parametrize("name", ["xfp", "gxfp", "bufp-x", "bufp-ef"])
def test_checkpoint_resumes_exactly(name, tmp_path):
    game = load_game("kuhn_poker")
    straight, resumed = make_agent(name, game), make_agent(name, game)
    straight.iterate(40)
    resumed.iterate(15)
    resumed.save(tmp_path / "fp.pt")
    fresh = make_agent(name, game)
    fresh.load(tmp_path / "fp.pt")
    fresh.iterate(25)
    np.testing.assert_array_equal(straight.probs, fresh.probs)
    assert fresh.iteration == 40 and fresh.name == name
