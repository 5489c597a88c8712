"""The conjugate posterior: counts, mean and Thompson samples, convergence to d*, data pool."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.components.posterior import Posterior
from pokerzoo.evaluation.unknown import InteractionRunner
from pokerzoo.games.unknown.priors import PSRLCFRPrior


def test_posterior_mean_converges_to_d_star_on_kuhn() -> None:
    game = load_game("unknown_kuhn_poker", seed=0)
    posterior = Posterior(game)
    runner = InteractionRunner(game, posterior, seed=0)
    distances = [posterior.mean_model().distance(game.true_model).mean()]
    for total in (1_000, 10_000, 100_000):
        runner.run(None, total - runner.episodes)
        distances.append(posterior.mean_model().distance(game.true_model).mean())
    assert runner.episodes == posterior.num_episodes == 100_000
    assert all(a > b for a, b in zip(distances, distances[1:])), distances
    assert distances[-1] < 0.05
    # Every well-visited distribution is close too, not only the average (d* makes some deals
    # rare: their terminals are seen a few hundred times and stay further off).
    distance = posterior.mean_model().distance(game.true_model)
    visits = posterior.reward_counts.sum(axis=1)
    assert distance.chance.max() < 0.02
    assert distance.reward[visits >= 1000].max() < 0.05


def test_batch_update_equals_episode_by_episode_observation() -> None:
    game = load_game("unknown_leduc_holdem", base="leduc4", seed=1)
    batch = InteractionRunner(game, seed=3).run(None, 500)
    together, one_by_one = Posterior(game), Posterior(game)
    together.update(batch)
    starts = np.concatenate([[0], np.cumsum(batch.chance_counts)])
    for i in range(len(batch)):
        slots = batch.chance_slots[starts[i] : starts[i + 1]]
        t = int(batch.terminals[i])
        history = game.structure.terminal_histories[t]
        # The slots of an episode are exactly its chance edges, in order.
        assert [int(game.structure.outcome_actions[s]) for s in slots] == [
            history[len(game.structure.chance_histories[game.structure.slot_node[s]])]
            for s in slots
        ]
        one_by_one.observe(history, batch.rewards[i])
    np.testing.assert_array_equal(together.chance_counts, one_by_one.chance_counts)
    np.testing.assert_array_equal(together.reward_counts, one_by_one.reward_counts)
    # Two deals, plus the public card in hands that reach round 2.
    chance = game.structure.chance_index
    visited = [
        sum(h[:i] in chance for i in range(len(h)))
        for h in (game.structure.terminal_histories[t] for t in batch.terminals)
    ]
    np.testing.assert_array_equal(batch.chance_counts, visited)
    assert set(visited) == {2, 3} and together.chance_counts.sum() == sum(visited)


def test_mean_and_samples_without_and_with_data() -> None:
    game = load_game("unknown_kuhn_poker", seed=2)
    posterior = Posterior(game)
    assert posterior.mean_model() == game.prior.mean(game.structure)
    posterior.observe([0, 1, 0, 0], [-1.0, 1.0])
    posterior.observe([0, 1, 0, 0], [-1.0, 1.0])
    mean = posterior.mean_model()
    # Dirichlet(1,1,1) plus two deals of card 0: (3, 1, 1) / 5; Beta(1,1) plus two losses: 3/4.
    np.testing.assert_allclose(mean.chance_probs[:3], [0.6, 0.2, 0.2])
    t = game.structure.terminal_index[(0, 1, 0, 0)]
    assert mean.reward_probs[t, 0] == pytest.approx(0.75)
    rng = np.random.default_rng(0)
    samples = [posterior.sample_model(rng) for _ in range(4000)]
    np.testing.assert_allclose(
        np.mean([m.chance_probs for m in samples], axis=0), mean.chance_probs, atol=0.02
    )
    np.testing.assert_allclose(np.mean([m.reward_probs[t, 0] for m in samples]), 0.75, atol=0.02)
    assert len({m.chance_probs[0] for m in samples[:10]}) == 10  # samples, not the mean


def test_data_pool_and_checkpoints() -> None:
    game = load_game("unknown_kuhn_poker", seed=3)
    posterior = Posterior(game)
    runner = InteractionRunner(game, posterior, seed=0)
    batches = [runner.run(None, n) for n in (700, 900, 1)]
    terminals, rewards = posterior.data_pool()
    np.testing.assert_array_equal(terminals, np.concatenate([b.terminals for b in batches]))
    np.testing.assert_array_equal(rewards, np.concatenate([b.rewards for b in batches]))
    t = int(terminals[0])
    assert len(posterior.terminal_samples(t)) == int(np.sum(terminals == t))
    restored = Posterior(game)
    restored.load_state_dict(posterior.state_dict())
    assert restored.mean_model() == posterior.mean_model()
    assert restored.num_episodes == 1601
    np.testing.assert_array_equal(restored.data_pool()[1], rewards)


def test_rewards_outside_the_support_are_refused() -> None:
    game = load_game("unknown_kuhn_poker", seed=3)
    posterior = Posterior(game)
    with pytest.raises(ValueError, match="not a possible outcome"):
        posterior.observe([0, 1, 0, 0], [-2.0, 2.0])
    with pytest.raises(ValueError, match="not a terminal"):
        posterior.observe([0, 1, 0], [-1.0, 1.0])
    payoffs = Posterior(load_game("unknown_kuhn_poker", prior="poker_payoffs"))
    payoffs.observe([0, 1, 0, 0], [-1.0, 1.0])  # the base payoff of that showdown
    assert payoffs.num_episodes == 1


def test_posterior_with_its_own_prior_over_a_structure() -> None:
    game = load_game("unknown_kuhn_poker", seed=3)
    prior = PSRLCFRPrior(concentration=10.0)
    posterior = Posterior(game.structure, prior)
    np.testing.assert_allclose(posterior.mean_model().chance_probs[:3], 1 / 3)
    with pytest.raises(ValueError, match="needs a prior"):
        Posterior(game.structure)


def test_runner_with_one_policy_per_seat_and_with_resampled_environments() -> None:
    game = load_game("unknown_kuhn_poker", seed=4)
    runner = InteractionRunner(game, seed=0)
    tree = runner.tree
    always_bet = np.zeros(tree.infoset_mask.shape)
    always_bet[:, 1] = 1.0
    always_pass = np.zeros(tree.infoset_mask.shape)
    always_pass[:, 0] = 1.0
    batch = runner.run([always_bet, always_pass], 200)
    # Player 0 bets, player 1 folds: every hand ends after two betting actions.
    histories = {game.structure.terminal_histories[t][2:] for t in batch.terminals}
    assert histories == {(1, 0)}
    old_tree = runner.tree
    runner.game = game.with_resampled_environment(np.random.default_rng(1))
    assert runner.tree is not old_tree and runner.tree.game.true_model is runner.game.true_model
    assert not np.array_equal(runner.tree.utilities, old_tree.utilities)
    assert runner.run(None, 10).terminals.shape == (10,)
    assert runner.episodes == 210
