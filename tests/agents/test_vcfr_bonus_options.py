"""VCFR's bonus options: the BNN fitted on posterior draws, the eta
grid, the output solver, naive CFR on a sampled d_t, and the bonus quantiles runs log."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.agents.unknown_env.model_based import ModelBasedAgent, make_preset
from pokerzoo.errors import ConfigError
from pokerzoo.runs.config import RunConfig
from pokerzoo.runs.run import train


def _record_fits(agent: ModelBasedAgent) -> list[tuple[np.ndarray, np.ndarray]]:
    """Wrap the agent's BNN ``fit`` so that every (terminals, rewards) it trains on is kept."""
    calls: list[tuple[np.ndarray, np.ndarray]] = []
    fit = agent.reward_model.fit

    def recording(terminals: np.ndarray, rewards: np.ndarray, steps: int = 1) -> float:
        calls.append((np.array(terminals), np.array(rewards)))
        return fit(terminals, rewards, steps=steps)

    agent.reward_model.fit = recording
    return calls


def test_the_bnn_trains_on_one_posterior_draw_per_terminal_per_round() -> None:
    game = load_game("unknown_kuhn_poker", seed=2, reward_prior="fixed")
    agent = make_preset("vcfr", game, seed=0, bnn_data="posterior_draws")
    calls = _record_fits(agent)
    agent.iterate(400)  # 200 rounds
    terminals = agent.view.structure.num_terminals
    assert len(calls) == agent.rounds  # one fit per round, the first before any hand
    for seen, rewards in calls:
        np.testing.assert_array_equal(seen, np.arange(terminals))
        assert set(np.unique(rewards)) <= {-1.0, 1.0}
    draws = np.stack([r for _, r in calls[-100:]])  # [rounds, terminals]
    # Draws, not the data: they vary from round to round where the posterior is unsure...
    counts = agent.posterior.reward_counts.sum(axis=1)
    unseen = counts == 0
    if unseen.any():
        assert (draws[:, unseen].std(axis=0) > 0).all()
    # ... and follow the revealed reward where a fixed terminal was paid often.
    often = counts >= 20
    assert often.any()
    revealed = np.array([agent.posterior.terminal_samples(t)[0, 0] for t in np.flatnonzero(often)])
    agree = (draws[:, often] == revealed).mean()
    assert agree > 0.9


def test_the_default_bnn_trains_on_the_observed_pool() -> None:
    game = load_game("unknown_kuhn_poker", seed=2, reward_prior="fixed")
    agent = make_preset("vcfr", game, seed=0)
    calls = _record_fits(agent)
    agent.iterate(40)
    assert len(calls) == agent.rounds - 1  # the first round has no data yet
    terminals, rewards = agent.posterior.data_pool()
    # The last fit saw every hand but the last round's two.
    np.testing.assert_array_equal(calls[-1][0], terminals[:-2])
    np.testing.assert_array_equal(calls[-1][1], rewards[:-2, 0])


def test_eta_scales_the_bonus_and_nothing_else_at_the_first_round() -> None:
    game = load_game("unknown_kuhn_poker", seed=1)
    quantiles = {}
    for eta in (0.005, 0.05, 0.5):
        agent = make_preset("vcfr", game, seed=3, information_gain="beta", eta=eta)
        agent.iterate(2)
        quantiles[eta] = agent.bonus_quantiles()
    for eta in (0.05, 0.5):
        for key, value in quantiles[eta].items():
            scale = eta / 0.005 if key.startswith("bonus_") else 1.0
            assert value == pytest.approx(scale * quantiles[0.005][key], rel=1e-12)
    assert quantiles[0.005]["bonus_max"] > 0


def test_a_larger_eta_moves_the_interaction_strategy_and_not_the_plain_output() -> None:
    game = load_game("unknown_kuhn_poker", seed=1)
    small = make_preset("vcfr", game, seed=3, information_gain="beta", eta=0.005,
                        output="plain")
    large = make_preset("vcfr", game, seed=3, information_gain="beta", eta=0.5, output="plain")
    for agent in (small, large):
        # Three rounds. The first bonus is alike at every terminal (the prior's gain) and
        # shifts no regret, so both agents play the same hands and sample the same models
        # through round three; the second round's bonus differs between terminals, and with
        # it the regrets that the third round's strategy comes from.
        agent.iterate(6)
    gap = np.abs(small.normalised(small.solver.strategy_sum)
                 - large.normalised(large.solver.strategy_sum)).max()
    assert gap > 1e-3
    np.testing.assert_allclose(small.policy().probs, large.policy().probs, atol=1e-12)


def test_without_gain_vcfr_is_naive_cfr_on_a_sampled_model() -> None:
    game = load_game("unknown_kuhn_poker", seed=1)
    sampled = make_preset("vcfr", game, seed=3, information_gain="none")
    mean = make_preset("naive-cfr", game, seed=3)
    assert sampled.config.environment == "sample" and mean.config.environment == "mean"
    assert sampled.reward_model is None and sampled.bonus_quantiles() == {}
    sampled.iterate(200)
    mean.iterate(200)
    assert not np.allclose(sampled.policy().probs, mean.policy().probs)


def test_a_bad_bnn_data_is_refused() -> None:
    with pytest.raises(ConfigError, match="bnn_data"):
        make_preset("vcfr", load_game("unknown_kuhn_poker"), bnn_data="draws")


def test_a_vcfr_run_logs_its_bonus_quantiles(tmp_path: Path) -> None:
    out = tmp_path / "vcfr"
    params: dict[str, Any] = {"information_gain": "beta"}
    train(RunConfig(agent="vcfr", game="unknown_kuhn_poker", game_params={"seed": 2},
                    agent_params=params, rounds=40, eval_every=20, out=str(out),
                    tensorboard=False), progress=False)
    with open(out / "metrics.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["iteration"]) for r in rows] == [0, 20, 40, 60, 80]
    last = {k: float(v) for k, v in rows[-1].items()}
    assert 0 < last["gain_q50"] <= last["gain_q90"] <= last["gain_max"]
    assert 0 < last["bonus_q50"] <= last["bonus_max"]
