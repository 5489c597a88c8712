"""Sampled chance outcomes and rewards of unknown-environment games follow d* (chi-square)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from pokerzoo import load_game
from pokerzoo.components.posterior import Posterior
from pokerzoo.envs import unknown_kuhn_poker_v0
from pokerzoo.evaluation.unknown import InteractionRunner, true_model_of
from pokerzoo.games.unknown.model import EnvironmentModel, EpisodeBatch


def chi_square_pvalue(
    model: EnvironmentModel, slot_counts: np.ndarray, reward_counts: np.ndarray
) -> tuple[float, int]:
    """P-value of the pooled chi-square test that the counts follow ``model``, and its dof.

    Each chance node and each terminal is one multinomial group; groups with an expected count
    under 5 in some cell are left out, as the chi-square approximation needs.
    """
    stat, dof = 0.0, 0
    offsets = model.structure.outcome_offsets
    groups = [
        (slot_counts[lo:hi], model.chance_probs[lo:hi]) for lo, hi in zip(offsets, offsets[1:])
    ]
    groups += list(zip(reward_counts, model.reward_probs))
    for observed, probs in groups:
        expected = observed.sum() * probs
        if len(probs) < 2 or (expected < 5).any():
            continue
        stat += float(((observed - expected) ** 2 / expected).sum())
        dof += len(probs) - 1
    return float(stats.chi2.sf(stat, dof)), dof


def counts(model: EnvironmentModel, batch: EpisodeBatch) -> tuple[np.ndarray, np.ndarray]:
    """Chance-edge counts and ``[terminal, reward outcome]`` counts of a batch (by bincount)."""
    slots = np.bincount(batch.chance_slots, minlength=model.structure.num_slots)
    values = model.reward_values[batch.terminals]
    k = np.all(values == batch.rewards[:, None, :], axis=2).argmax(axis=1)
    t, kk = model.reward_probs.shape
    rewards = np.bincount(batch.terminals * kk + k, minlength=t * kk).reshape(t, kk)
    return slots, rewards


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("unknown_kuhn_poker", {"seed": 11}),
        ("unknown_leduc_holdem", {"base": "leduc4", "seed": 11}),
        ("unknown_leduc_holdem", {"base": "leduc", "prior": "poker_payoffs", "seed": 2}),
    ],
)
def test_200k_sampled_episodes_match_d_star(name: str, params: dict) -> None:
    game = load_game(name, **params)
    batch = InteractionRunner(game, seed=0).run(None, 200_000)
    assert len(batch) == 200_000
    d_star = game.true_model
    p_value, dof = chi_square_pvalue(d_star, *counts(d_star, batch))
    assert dof >= 10
    assert p_value > 1e-3
    # The test has power: another draw from the prior is rejected outright.
    other = game.prior.sample(game.structure, np.random.default_rng(99))
    assert chi_square_pvalue(other, *counts(other, batch))[0] < 1e-12


def test_hands_played_through_game_states_match_d_star() -> None:
    game = load_game("unknown_kuhn_poker", seed=4)
    batch = InteractionRunner(game, seed=1, backend="states").run(None, 20_000)
    p_value, dof = chi_square_pvalue(game.true_model, *counts(game.true_model, batch))
    assert dof >= 20 and p_value > 1e-3


@pytest.mark.slow
def test_env_episodes_match_d_star_and_feed_the_posterior() -> None:
    """Hands dealt and paid by the AEC env itself, read back from the episode infos."""
    env = unknown_kuhn_poker_v0.env(seed=5)
    posterior = Posterior(env.game)
    rng = np.random.default_rng(0)
    env.reset(seed=123)
    for _ in range(30_000):
        for agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                if agent == "player_0":
                    assert posterior.observe_info(info)
                env.step(None)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[int(rng.random() * len(legal))]))
        env.reset()
    assert posterior.num_episodes == 30_000
    p_value, dof = chi_square_pvalue(
        true_model_of(env), posterior.chance_counts, posterior.reward_counts
    )
    assert dof >= 20 and p_value > 1e-3
