"""Interaction views: learners play an unknown environment (samples of d*) but never read d*.

``game.interaction_view()`` is what ``train.py`` hands sample-based learners (NFSP): its states'
``chance_outcomes()`` and ``returns()`` answer from the believed model (the prior mean), while
``sample_chance_outcome`` and ``sample_returns`` draw from d* through an ``EnvironmentSampler``
that counts the draws and offers no way back to d*. Statistical checks use fixed seeds and
4-sigma bounds.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.agents.registry import make_agent
from pokerzoo.envs.unknown_env import UnknownPokerEnv
from pokerzoo.envs.vector import VectorPokerEnv
from pokerzoo.errors import ConfigError, EnvStateError, HiddenModelError
from pokerzoo.evaluation.exact import policy_array
from pokerzoo.evaluation.unknown import environment_of, true_model_of, true_model_tree
from pokerzoo.games.base import TERMINAL
from pokerzoo.games.unknown import (
    AgentGameView,
    EnvironmentModel,
    EnvironmentSampler,
    InteractionCounter,
    UnknownPokerGame,
)
from pokerzoo.tree import build
from pokerzoo.tree.tabular_policy import TabularPolicy
from tests.games.test_unknown_hidden_model import _assert_no_d_star


def _far_from_prior_seed() -> int:
    """A seed whose d* deals player 0's card far from the prior mean's uniform deal."""
    for seed in range(100):
        probs = [p for _, p in load_game("unknown_kuhn_poker", seed=seed).true_model
                 .chance_outcomes(())]
        if max(abs(p - 1 / 3) for p in probs) > 0.2:
            return seed
    raise AssertionError("no seed in range")


SEED = _far_from_prior_seed()


def _kuhn_always_paying_player_0() -> UnknownPokerGame:
    """Unknown Kuhn whose d* deals player 0 the king and pays player 0 +1 at every terminal:
    the prior mean (uniform deal, +-1 with even odds) is as far from it as can be."""
    game = load_game("unknown_kuhn_poker", seed=0)
    d = true_model_of(game)
    chance = np.array(d.chance_probs)
    chance[:3] = [0.0, 0.0, 1.0]  # the root's slots: player 0's card
    wins = (d.reward_values[:, :, 0] == 1.0).astype(np.float64)
    return game.with_model(EnvironmentModel(d.structure, chance, d.reward_values, wins))


def _within(mean: float, target: float, std: float, n: int) -> bool:
    return abs(mean - target) <= 4 * std / np.sqrt(n) + 1e-12


# ---------------------------------------------------------------------------------------------
# Samples follow d*, reads follow the belief
# ---------------------------------------------------------------------------------------------


def test_sampled_deals_follow_d_star_and_reads_follow_the_prior_mean() -> None:
    game = load_game("unknown_kuhn_poker", seed=SEED)
    view = game.interaction_view()
    assert isinstance(view, AgentGameView) and view.interactive
    d_star = true_model_of(game)
    root = view.new_initial_state()
    assert root.chance_outcomes() == game.prior_mean_model.chance_outcomes(())
    rng = np.random.default_rng(0)
    n = 20_000
    draws = np.array([root.sample_chance_outcome(rng) for _ in range(n)])
    for outcome, p in d_star.chance_outcomes(()):
        assert _within(float(np.mean(draws == outcome)), p, np.sqrt(p * (1 - p)), n)
    # ... and not the prior mean's uniform deal (the seed was picked for that).
    freq = np.bincount(draws, minlength=3) / n
    assert np.abs(freq - 1 / 3).max() > 0.15
    # The second deal too: conditional on player 0's card.
    state = root.child(int(draws[0]))
    history = tuple(state.history())
    second = np.array([state.sample_chance_outcome(rng) for _ in range(5000)])
    for outcome, p in d_star.chance_outcomes(history):
        assert _within(float(np.mean(second == outcome)), p, np.sqrt(p * (1 - p)), 5000)
    assert view.sampler.counter.chance_draws == n + 5000
    assert view.sampler.episodes == 0


def test_sampled_payoffs_have_d_star_means() -> None:
    game = load_game("unknown_kuhn_poker", seed=SEED)
    view = game.interaction_view()
    d_star = true_model_of(game)
    structure = d_star.structure
    rng = np.random.default_rng(1)
    n = 4000
    gaps = []
    for t, history in enumerate(structure.terminal_histories):
        state = view.new_initial_state()
        for a in history:
            state.apply_action(a)
        assert state.current_player() == TERMINAL
        # Reads: the believed model's expectation (zero under the PSRLCFR prior mean).
        assert state.returns() == list(game.prior_mean_model.expected_returns[t])
        paid = np.array([state.sample_returns(rng) for _ in range(n)])
        mean = float(paid[:, 0].mean())
        target = float(d_star.expected_returns[t, 0])
        std = float(np.sqrt(max(1.0 - target**2, 1e-12)))  # payoffs are +-1
        assert _within(mean, target, std, n), (t, mean, target)
        np.testing.assert_array_equal(paid[:, 1], -paid[:, 0])
        gaps.append(abs(target - game.prior_mean_model.expected_returns[t, 0]))
    assert max(gaps) > 0.3  # d*'s means are not the prior mean's
    assert view.sampler.episodes == n * structure.num_terminals
    assert view.sampler.counter.chance_draws == 0


def test_plain_views_simulate_their_belief_and_cannot_sample() -> None:
    game = _kuhn_always_paying_player_0()
    plain = game.agent_view()
    assert not plain.interactive
    with pytest.raises(HiddenModelError, match="interaction_view"):
        plain.sampler  # noqa: B018
    assert getattr(plain, "with_resampled_environment", None) is None
    rng = np.random.default_rng(2)
    deals = [plain.new_initial_state().sample_chance_outcome(rng) for _ in range(300)]
    assert set(deals) == {0, 1, 2}  # the prior mean deals every card; d* only the king
    interactive = game.interaction_view()
    assert {interactive.new_initial_state().sample_chance_outcome(rng) for _ in range(300)} == {2}


# ---------------------------------------------------------------------------------------------
# No public path to d*
# ---------------------------------------------------------------------------------------------


def test_nothing_public_on_an_interaction_view_reaches_d_star() -> None:
    game = load_game("unknown_leduc_holdem", base="leduc", seed=5)
    view = game.interaction_view()
    with pytest.raises(HiddenModelError):
        view.true_model  # noqa: B018
    assert not hasattr(view, "true_model")
    assert "seed" not in view.params() and "model_fingerprint" not in view.params()
    assert view.params()["interaction"] is True
    _assert_no_d_star(view, game)
    state = view.new_initial_state()
    state.apply_action(state.sample_chance_outcome(np.random.default_rng(0)))
    _assert_no_d_star(state, game)
    sampler = view.sampler
    assert isinstance(sampler, EnvironmentSampler)
    _assert_no_d_star(sampler, game)
    d_star = game.true_model
    for name in dir(sampler):
        if name.startswith("_"):
            continue
        value = getattr(sampler, name)
        if callable(value):
            continue
        assert not isinstance(value, EnvironmentModel | np.ndarray | UnknownPokerGame), name
    for text in (repr(view), repr(sampler), str(view.params())):
        assert game.model_fingerprint[:12] not in text and "seed" not in text
    with pytest.raises(HiddenModelError, match="pickle"):
        pickle.dumps(view)
    with pytest.raises(HiddenModelError, match="pickle"):
        pickle.dumps(sampler)
    assert copy.deepcopy(view) is view and copy.copy(sampler) is sampler
    # Trees, solvers and the states evaluators hand policies use the plain view (belief).
    tree = build(view)
    assert tree.game == view.agent_view() and not tree.game.interactive
    np.testing.assert_array_equal(
        tree.chance_prob, build(game, model=game.prior_mean_model).chance_prob
    )
    assert not tree.infoset_state(0).game.interactive
    with pytest.raises(HiddenModelError):
        true_model_of(view)
    assert d_star is game.true_model  # untouched


def test_views_compare_by_environment_sampler_and_counters_are_read_only() -> None:
    game = load_game("unknown_kuhn_poker", seed=1)
    a, b = game.interaction_view(), game.interaction_view()
    assert a == a and a != b and a != game.agent_view()  # separate samplers, separate counts
    assert a.agent_view() == game.agent_view() and hash(a.agent_view()) == hash(game.agent_view())
    counter = a.sampler.counter
    assert isinstance(counter, InteractionCounter)
    with pytest.raises(AttributeError):
        counter.episodes = 5  # type: ignore[misc]
    posterior_like = a.with_model(game.prior_mean_model, "given model")
    assert posterior_like.interactive and posterior_like.sampler is a.sampler
    shared = game.interaction_view(counter=counter)
    rng = np.random.default_rng(0)
    shared.new_initial_state().sample_chance_outcome(rng)
    assert counter.chance_draws == 1
    # A resampled interaction view: the prior draw of the environment game's resampling.
    resampled = a.with_resampled_environment(np.random.default_rng(9))
    twin = game.with_resampled_environment(np.random.default_rng(9))
    assert resampled.sampler.counter is counter and resampled.interactive
    draws = [resampled.new_initial_state().sample_chance_outcome(np.random.default_rng(s))
             for s in range(50)]
    expected = [twin.new_initial_state().sample_chance_outcome(np.random.default_rng(s))
                for s in range(50)]
    assert draws == expected
    state = a.new_initial_state()
    with pytest.raises(EnvStateError, match="not over"):
        a.sampler.sample_payoff(state, rng)
    with pytest.raises(ConfigError, match="Generator"):
        state.sample_chance_outcome(3)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="state"):
        a.sampler.sample_chance_outcome(load_game("kuhn_poker").new_initial_state(), rng)


# ---------------------------------------------------------------------------------------------
# Envs deal through the sampler
# ---------------------------------------------------------------------------------------------


def _uniform_value(game: UnknownPokerGame) -> float:
    return _value_of_player_0(game, np.full((true_model_tree(game).num_infosets, 2), 0.5))


@pytest.mark.slow
def test_vector_env_pays_d_star_means_and_counts_hands() -> None:
    # A d* where uniform play pays player 0 well away from the prior mean's 0.
    seed = next(s for s in range(100)
                if abs(_uniform_value(load_game("unknown_kuhn_poker", seed=s))) > 0.25)
    game = load_game("unknown_kuhn_poker", seed=seed)
    value = _uniform_value(game)
    prior_value = 0.0  # every terminal's prior-mean expectation is 0
    for source in (game, game.interaction_view()):
        venv = VectorPokerEnv(source, num_envs=64, seed=3)
        assert isinstance(venv.game, AgentGameView) and not venv.game.interactive
        _assert_no_d_star(venv.game, game)
        rng = np.random.default_rng(4)
        _, mask, _ = venv.reset()
        paid = []
        while len(paid) < 20_000:
            actions = rng.integers(0, 2, size=64)  # Kuhn: both actions always legal
            step = venv.step(actions)
            paid.extend(step.rewards[step.done, 0].tolist())
        assert venv.interactions is not None and venv.interactions.episodes == len(paid)
        mean = float(np.mean(paid))
        assert _within(mean, value, 1.0, len(paid)), (mean, value)
        # Hands in flight deal through the sampler, and read the belief.
        for state in venv.states[:4]:
            assert state.game.interactive
            root = state.game.new_initial_state()
            assert root.chance_outcomes() == game.prior_mean_model.chance_outcomes(())
    # A plain view simulates its belief: the prior mean pays 0 on average.
    venv = VectorPokerEnv(game.agent_view(), num_envs=64, seed=3)
    assert venv.interactions is None
    venv.reset()
    paid = []
    while len(paid) < 20_000:
        step = venv.step(rng.integers(0, 2, size=64))
        paid.extend(step.rewards[step.done, 0].tolist())
    assert _within(float(np.mean(paid)), prior_value, 1.0, len(paid))


def _value_of_player_0(game: UnknownPokerGame, probs: np.ndarray) -> float:
    """Player 0's expected payoff in d* when both seats follow ``probs`` (tree-aligned)."""
    tree = true_model_tree(game)
    reach = np.zeros(tree.num_nodes)
    reach[0] = 1.0
    for node in range(1, tree.num_nodes):  # parents come before children
        parent = int(tree.parent[node])
        if tree.player[parent] >= 0:
            edge = probs[tree.infoset[parent], tree.action[node]]
        else:
            edge = tree.chance_prob[node]
        reach[node] = reach[parent] * edge
    leaves = np.flatnonzero(tree.num_children == 0)
    return float((reach[leaves] * tree.utilities[leaves, 0]).sum())


def test_unknown_env_from_an_interaction_view_plays_d_star_and_hides_it() -> None:
    game = _kuhn_always_paying_player_0()
    view = game.interaction_view()
    env = UnknownPokerEnv(view)
    assert not env.game.interactive
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.reset()
        assert env.game_state.history()[0] == 2  # d* deals player 0 the king
        rewards = {}
        for agent in env.agent_iter():
            obs, reward, done, truncated, info = env.last()
            if done or truncated:
                rewards[agent] = reward
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.interactions is view.sampler.counter and env.interactions.episodes == 30
    with pytest.raises(HiddenModelError, match="interaction view"):
        environment_of(env)
    _assert_no_d_star(env, game)
    with pytest.raises(ConfigError, match="plain agent's view"):
        UnknownPokerEnv(game.agent_view())
    # Resampling draws a new environment from the prior; counting carries on.
    env.reset(options={"resample_environment": True})
    assert env.interactions is view.sampler.counter
    # From the environment game: evaluators still reach d*, and the env counts its hands.
    env = UnknownPokerEnv(game)
    env.reset(seed=1)
    assert environment_of(env) is game and env.interactions.chance_draws == 2


# ---------------------------------------------------------------------------------------------
# NFSP learns from d*
# ---------------------------------------------------------------------------------------------


NFSP_FAST = {"num_envs": 32, "learn_every": 32, "batch_size": 64, "min_buffer_size": 128,
             "optimizer": "adam", "hidden_sizes": (16,)}


def test_nfsp_on_an_interaction_view_trains_from_d_star_samples() -> None:
    pytest.importorskip("torch")
    game = _kuhn_always_paying_player_0()
    view = game.interaction_view()
    agent = make_agent("nfsp", view, seed=0, **NFSP_FAST)
    paid: list[float] = []
    step = agent.env.step

    def recording(actions):
        result = step(actions)
        paid.extend(result.rewards[result.done, 0].tolist())
        return result

    agent.env.step = recording
    agent.iterate(600)
    # Every hand NFSP learned from was dealt and paid by d*: player 0 always won +1 (the
    # prior mean would pay +-1 with even odds and deal every card).
    assert len(paid) >= 600 and set(paid) == {1.0}
    assert view.sampler.episodes == len(paid)
    assert all(s.history()[0] == 2 for s in agent.env.states)
    assert agent.game is view and not agent.env.game.interactive
    # Its tree (for the tabular policy) is the plain view's: the believed model.
    assert not agent.tree.game.interactive
    _assert_no_d_star(agent.env.game, game)


def test_nfsp_uct_searches_the_belief_and_only_the_hands_sample_d_star() -> None:
    """The UCT best response simulates with ``chance_outcomes()``/``returns()`` (the believed
    model): the sampler sees exactly the env's deals (two per Kuhn hand) and payoffs."""
    pytest.importorskip("torch")
    view = load_game("unknown_kuhn_poker", seed=1).interaction_view()
    agent = make_agent("nfsp", view, seed=0, best_response="uct", uct_simulations=60,
                       uct_threshold=30, num_envs=4, eta=0.5, min_buffer_size=10**6)
    agent.iterate(40)
    counter = view.sampler.counter
    assert agent.selfplay.best_response.simulations > 0
    assert counter.chance_draws == 2 * (counter.episodes + 4)  # finished hands + 4 in flight


def test_nfsp_rewards_in_the_environment_match_d_star_value_of_its_policy() -> None:
    """Loosely: NFSP's average policy, trained on samples of d* and then played in the
    environment through an interaction view, is paid d*'s value of that policy."""
    pytest.importorskip("torch")
    game = load_game("unknown_kuhn_poker", seed=SEED)
    agent = make_agent("nfsp", game.interaction_view(), seed=1, **NFSP_FAST)
    agent.iterate(1000)
    probs = policy_array(true_model_tree(game), agent.average_policy())
    value = _value_of_player_0(game, probs)
    venv = VectorPokerEnv(game.interaction_view(), num_envs=64, seed=0)
    obs, mask, player = venv.reset()
    rng = np.random.default_rng(0)
    paid: list[float] = []
    while len(paid) < 8000:
        p = np.zeros(mask.shape)
        for seat in range(2):
            rows = player == seat
            if rows.any():
                p[rows] = agent.average_probs(seat, obs[rows], mask[rows])
        actions = (rng.random(64)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
        result = venv.step(np.minimum(actions, 1))
        obs, mask, player = result.obs, result.mask, result.player
        paid.extend(result.rewards[result.done, 0].tolist())
    assert _within(float(np.mean(paid)), value, 1.0, len(paid))


# ---------------------------------------------------------------------------------------------
# train.py
# ---------------------------------------------------------------------------------------------


def test_train_gives_nfsp_the_interaction_view_and_scores_in_d_star(tmp_path) -> None:
    pytest.importorskip("torch")
    from pokerzoo.evaluation.unknown import exploitability_in_true_model
    from pokerzoo.runs.config import RunConfig
    from pokerzoo.runs.run import train

    config = RunConfig(
        agent="nfsp", game="unknown_kuhn_poker", game_params={"seed": 2}, episodes=400,
        eval_every=400, agent_params=dict(NFSP_FAST), out=str(tmp_path / "run"),
        tensorboard=False,
    )
    summary = train(config, progress=False)
    assert summary["interactions_this_run"] >= 400
    assert "solves" not in summary
    game = load_game("unknown_kuhn_poker", seed=2)
    policy = TabularPolicy.load(tmp_path / "run" / "policy.npz")
    assert summary["exploitability"] == pytest.approx(exploitability_in_true_model(game, policy))
    # Resuming rebuilds the agent on an interaction view and loads its checkpoint.
    resumed = train(dataclasses.replace(config, episodes=800), progress=False)
    assert resumed["resumed"] and resumed["interactions_this_run"] > 0
