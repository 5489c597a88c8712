"""The end-of-run measures of unknown-environment learners: the output in d*, the
posterior mean re-solved by CFR+ and scored in d*, the output in its own posterior mean, and
the distinct terminals observed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pokerzoo import load_game
from pokerzoo.agents.cfr.full_width import CFRPlus
from pokerzoo.components.posterior import Posterior
from pokerzoo.evaluation.exact import nash_conv
from pokerzoo.evaluation.unknown import (
    RESOLVE_NASH_CONV,
    InteractionRunner,
    nash_conv_in_model,
    nash_conv_in_true_model,
    run_measures,
    terminals_observed,
    true_model_tree,
)
from pokerzoo.runs.config import RunConfig
from pokerzoo.runs.folder import SavedRun
from pokerzoo.runs.run import train
from pokerzoo.tree.game_tree import build

KEYS = ("nash_conv_output", "nash_conv_resolved", "nash_conv_in_own_mean", "terminals_observed")


def _posterior(game, hands: int) -> Posterior:
    posterior = Posterior(game)
    InteractionRunner(game, posterior, seed=0).run(None, hands)  # uniform random hands
    return posterior


def test_the_resolved_measure_is_a_cfr_plus_solve_of_the_posterior_mean() -> None:
    game = load_game("unknown_kuhn_poker", seed=4)
    posterior = _posterior(game, 200)
    cfr = CFRPlus(game.agent_view())
    cfr.iterate(3)  # an output far from any equilibrium
    measures = run_measures(game, cfr.average_policy(), posterior, CFRPlus)
    assert measures["resolve_nash_conv"] <= RESOLVE_NASH_CONV
    view = posterior.mean_view(game)
    solver = CFRPlus(view)
    solver.iterate(int(measures["resolve_iterations"]))
    assert measures["nash_conv_resolved"] == pytest.approx(
        nash_conv_in_true_model(game, solver.average_policy()), abs=1e-12)
    assert measures["nash_conv_output"] == pytest.approx(
        nash_conv_in_true_model(game, cfr.average_policy()), abs=1e-12)
    assert measures["nash_conv_in_own_mean"] == pytest.approx(
        nash_conv_in_model(game, cfr.average_policy(), posterior.mean_model()), abs=1e-12)
    assert measures["nash_conv_in_own_mean"] == pytest.approx(
        nash_conv(build(view), cfr.average_policy()), abs=1e-12)


def test_terminals_observed_counts_distinct_terminals() -> None:
    game = load_game("unknown_kuhn_poker", seed=4)
    assert terminals_observed(Posterior(game)) == 0
    posterior = _posterior(game, 1)
    assert terminals_observed(posterior) == 1
    assert terminals_observed(_posterior(game, 2000)) == game.structure.num_terminals


def test_more_data_resolves_closer_to_d_star() -> None:
    game = load_game("unknown_kuhn_poker", seed=4, reward_prior="fixed")
    tree = true_model_tree(game)
    policy = CFRPlus(game.agent_view()).average_policy()
    few = run_measures(game, policy, _posterior(game, 20), CFRPlus, tree)
    many = run_measures(game, policy, _posterior(game, 20_000), CFRPlus, tree)
    assert many["nash_conv_resolved"] < few["nash_conv_resolved"]
    assert many["nash_conv_resolved"] < 0.02


@pytest.mark.parametrize("agent", ["psrlcfr", "naive-cfr"])
def test_a_run_writes_the_measures(tmp_path: Path, agent: str) -> None:
    out = tmp_path / agent
    summary = train(RunConfig(agent=agent, game="unknown_kuhn_poker", game_params={"seed": 2},
                              episodes=30, out=str(out), tensorboard=False), progress=False)
    written = json.loads((out / "summary.json").read_text())
    for key in KEYS:
        assert written[key] == summary[key]
    game = load_game("unknown_kuhn_poker", seed=2)
    policy = SavedRun.open(out).tabular_policy()
    assert summary["nash_conv_output"] == pytest.approx(nash_conv_in_true_model(game, policy))
    assert 1 <= summary["terminals_observed"] <= 30


def test_solvers_of_the_prior_mean_get_no_measures(tmp_path: Path) -> None:
    summary = train(RunConfig(agent="cfr+", game="unknown_kuhn_poker", game_params={"seed": 2},
                              iterations=5, out=str(tmp_path / "cfr"), tensorboard=False),
                    progress=False)
    assert not set(KEYS) & set(summary)
