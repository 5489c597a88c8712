"""Unknown-environment games: immutable in fact, and d* out of every agent-facing object.

Agents get the env's ``env.game`` (an ``AgentGameView``), ``env.game_state`` and states of the
view; ``train.py`` hands a learner the same view. Evaluators read d* through
``pokerzoo.evaluation.unknown``. Full-width solvers solve the believed model (prior or posterior
mean) unless told ``oracle=True``.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.agents.cfr import CFRPlus
from pokerzoo.agents.cfr.mccfr import MCCFRSolver
from pokerzoo.agents.fictitious import FictitiousPlaySolver
from pokerzoo.components.posterior import Posterior
from pokerzoo.envs import unknown_kuhn_poker_v0, unknown_leduc_holdem_v0
from pokerzoo.envs.vector import VectorPokerEnv
from pokerzoo.errors import ConfigError, HiddenModelError
from pokerzoo.evaluation import exploitability, tabularize
from pokerzoo.evaluation.unknown import (
    InteractionRunner,
    environment_of,
    evaluation_tree,
    exploitability_in_true_model,
    nash_conv_in_true_model,
    true_model_of,
    true_model_tree,
)
from pokerzoo.games.unknown import AgentGameView, EnvironmentModel, UnknownPokerGame
from pokerzoo.tree import build

# ---------------------------------------------------------------------------------------------
# Immutable games
# ---------------------------------------------------------------------------------------------


def test_games_are_frozen() -> None:
    game = load_game("unknown_kuhn_poker", seed=1)
    for target in (game, game.agent_view()):
        with pytest.raises(dataclasses.FrozenInstanceError, match="immutable"):
            target._model = target.prior_mean_model
        with pytest.raises(dataclasses.FrozenInstanceError):
            target.prior = None
        with pytest.raises(dataclasses.FrozenInstanceError):
            del target.structure
    assert copy.copy(game) is game and copy.deepcopy(game) is game
    with pytest.raises(ConfigError, match="numpy.random.Generator"):
        game.with_resampled_environment(3)  # type: ignore[arg-type]
    assert not hasattr(game, "resample_environment")  # the mutating method is gone


def test_the_model_takes_part_in_equality_hash_and_params() -> None:
    game = load_game("unknown_leduc_holdem", base="leduc", seed=4)
    same = load_game("unknown_leduc_holdem", base="leduc", seed=4)
    assert game == same and hash(game) == hash(same) and game.params() == same.params()
    resampled = game.with_resampled_environment(np.random.default_rng(0))
    assert resampled.config == game.config  # same parameters, another model...
    assert resampled != game and hash(resampled) != hash(game)  # ...so another game
    assert resampled.params()["model_fingerprint"] != game.params()["model_fingerprint"]
    assert game.params()["model_fingerprint"] == game.model_fingerprint
    assert game.model_fingerprint == game.true_model.fingerprint
    assert len(game.model_fingerprint) == 64
    # The same model from another route has the same fingerprint (and makes an equal game).
    assert game.with_model(resampled.true_model) == resampled
    # Parameters rebuild the game, and refuse to rebuild a resampled one.
    assert load_game(game.name, **game.params()) == game
    with pytest.raises(ConfigError, match="resampled"):
        load_game(resampled.name, **resampled.params())
    with pytest.raises(ConfigError, match="model_fingerprint must be a string"):
        load_game(game.name, seed=4, model_fingerprint=7)
    # Pickling keeps the model.
    assert pickle.loads(pickle.dumps(resampled)) == resampled
    view = pickle.loads(pickle.dumps(game.agent_view()))
    assert view == game.agent_view() and isinstance(view, AgentGameView)


def test_deepcopy_and_resample_on_the_copy_leaves_the_original_env_alone() -> None:
    env = unknown_leduc_holdem_v0.env(base="leduc", seed=5)
    env.reset(seed=0)
    game = environment_of(env)
    model, key, params = true_model_of(env), hash(game), game.params()
    clone = copy.deepcopy(env)
    assert environment_of(clone) is game  # immutable games are shared, not copied
    clone.reset(options={"resample_environment": True})
    assert true_model_of(clone) != model
    # The original env, its game, the game's hash and params are untouched.
    assert environment_of(env) is game and true_model_of(env) is model
    assert hash(environment_of(env)) == key and environment_of(env).params() == params
    assert environment_of(clone).params()["model_fingerprint"] != params["model_fingerprint"]
    # And the original keeps dealing from its own d*: its episodes match a copy that never
    # resampled.
    twin = copy.deepcopy(env)
    for e in (env, twin):
        e.reset(seed=11)
    assert env.game_state.history() == twin.game_state.history()


# ---------------------------------------------------------------------------------------------
# No agent-facing object reaches d*
# ---------------------------------------------------------------------------------------------


def _reachable(root: object, depth: int = 6) -> list[object]:
    """Every object reachable from ``root`` through attributes and containers."""
    seen: dict[int, object] = {}
    frontier = [root]
    for _ in range(depth):
        nxt = []
        for obj in frontier:
            if id(obj) in seen or isinstance(obj, str | bytes | int | float | type):
                continue
            seen[id(obj)] = obj
            if isinstance(obj, dict):
                nxt.extend(obj.keys())
                nxt.extend(obj.values())
            elif isinstance(obj, list | tuple | set | frozenset):
                nxt.extend(obj)
            if hasattr(obj, "__dict__"):
                nxt.extend(vars(obj).values())
            for slot in getattr(type(obj), "__slots__", ()):
                if hasattr(obj, slot):
                    nxt.append(getattr(obj, slot))
        frontier = nxt
    return list(seen.values())


def _assert_no_d_star(root: object, game: UnknownPokerGame) -> None:
    d_star = game.true_model
    for obj in _reachable(root):
        assert not isinstance(obj, UnknownPokerGame), obj
        assert obj is not d_star
        if isinstance(obj, EnvironmentModel):
            assert obj != d_star
        if isinstance(obj, np.ndarray) and obj.dtype == np.float64:
            for array in (d_star.chance_probs, d_star.reward_probs, d_star.expected_returns):
                assert not (obj.shape == array.shape and np.array_equal(obj, array))
        if isinstance(obj, str):
            assert game.model_fingerprint not in obj


@pytest.mark.parametrize("module", [unknown_kuhn_poker_v0, unknown_leduc_holdem_v0])
def test_no_agent_facing_object_reaches_d_star(module) -> None:
    env = module.env(seed=2)
    env.reset(seed=0)
    game = environment_of(env)
    view = env.game
    assert isinstance(view, AgentGameView) and not hasattr(view, "true_model")
    with pytest.raises(HiddenModelError, match="true_model_of"):
        view.true_model  # noqa: B018
    # The view's seed-free parameters cannot rebuild d* either.
    assert "seed" not in view.params() and "model_fingerprint" not in view.params()
    _assert_no_d_star(view, game)
    # States of the view deal and pay with the believed model (the prior mean).
    state = view.new_initial_state()
    mean = game.prior_mean_model
    assert state.chance_outcomes() == mean.chance_outcomes(())
    assert state.chance_outcomes() != game.true_model.chance_outcomes(())
    _assert_no_d_star(state, game)
    # env.game_state, during and after a hand.
    rng = np.random.default_rng(0)
    for _ in range(10):
        env.reset()
        _assert_no_d_star(env.game_state, game)
        paid = {}
        for agent in env.agent_iter():
            obs, reward, done, truncated, info = env.last()
            if done or truncated:
                paid[agent] = reward
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        final = env.game_state
        assert final.is_terminal() and final.game is view
        assert final.returns() == [paid[a] for a in env.possible_agents]  # paid, not E_d*[r]
        _assert_no_d_star(final, game)
        t = final.terminal_index()
        assert final.clone().returns() == final.returns()
        # Without the paid record the state would report the *believed* expectation.
        assert list(mean.expected_returns[t]) != list(game.true_model.expected_returns[t])
    # Solvers and trees built from what the agent holds solve the prior mean.
    prior_tree = build(game, model=mean)
    for tree in (build(view), CFRPlus(view).tree, build(env.game_state.game)):
        assert tree.game is view
        np.testing.assert_array_equal(tree.chance_prob, prior_tree.chance_prob)
        np.testing.assert_array_equal(tree.utilities, prior_tree.utilities)
        _assert_no_d_star(tree, game)
    with pytest.raises(HiddenModelError):
        InteractionRunner(view)
    with pytest.raises(HiddenModelError):
        true_model_of(view)
    with pytest.raises(HiddenModelError):
        CFRPlus(view, oracle=True)


def test_evaluator_entry_points_reach_d_star() -> None:
    env = unknown_kuhn_poker_v0.env(seed=6)
    game = environment_of(env)
    assert game is env.unwrapped._environment and true_model_of(env) is game.true_model
    assert true_model_of(game) is game.true_model
    tree = true_model_tree(env)
    assert tree.game is game
    np.testing.assert_array_equal(evaluation_tree(game).utilities, tree.utilities)
    assert not np.array_equal(tree.utilities, build(game).utilities)  # build(game): prior mean
    solver = CFRPlus(env.game)
    solver.iterate(200)
    policy = solver.average_policy()
    value = exploitability(tree, policy)
    assert exploitability_in_true_model(env, policy) == pytest.approx(value)
    assert nash_conv_in_true_model(game, policy) == pytest.approx(2 * value)
    # Solving the prior mean is not solving d*.
    assert value > 10 * exploitability(build(env.game), policy)
    with pytest.raises(ConfigError, match="unknown-environment"):
        true_model_of(load_game("kuhn_poker"))
    # An evaluator asking a policy about states hands it the agent's view, not d*.
    seen = []

    def spy(state):
        seen.append(state)
        legal = state.legal_actions()
        return {a: 1 / len(legal) for a in legal}

    tabularize(tree, spy)
    assert seen and all(isinstance(s.game, AgentGameView) for s in seen)
    for s in seen[:5]:
        _assert_no_d_star(s, game)


def test_vector_env_deals_from_d_star_but_shows_the_view() -> None:
    game = load_game("unknown_kuhn_poker", seed=8)
    venv = VectorPokerEnv(game, num_envs=4, seed=0)
    assert isinstance(venv.game, AgentGameView)
    _assert_no_d_star(venv.game, game)
    view = venv.game
    venv.reset(resample_environment=True)
    # The backend's environment is rebound; the game passed in and the view are unchanged.
    assert venv._b.game != game and venv.game is view
    assert game.true_model == load_game("unknown_kuhn_poker", seed=8).true_model


# ---------------------------------------------------------------------------------------------
# Full-width solvers: believed model by default, d* only as an explicit oracle
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("solver", [CFRPlus, FictitiousPlaySolver, MCCFRSolver])
def test_solvers_solve_the_prior_mean_unless_told_oracle(solver, caplog) -> None:
    game = load_game("unknown_kuhn_poker", seed=3)
    with caplog.at_level("INFO", logger="pokerzoo.agents"):
        default = solver(game)
    assert default.solves == "the prior mean" and "solving the prior mean" in repr(default)
    assert "solves the prior mean" in caplog.text
    np.testing.assert_array_equal(
        default.tree.utilities, build(game, model=game.prior_mean_model).utilities
    )
    assert not default.config.oracle
    with pytest.warns(UserWarning, match="oracle"):
        oracle = solver(game, oracle=True)
    assert oracle.solves == "the true model d* (oracle)" and "oracle" in repr(oracle)
    np.testing.assert_array_equal(oracle.tree.utilities, true_model_tree(game).utilities)
    assert oracle.state_dict()["config"]["oracle"] is True
    with pytest.raises(ConfigError, match="no hidden model"):
        solver(load_game("kuhn_poker"), oracle=True)
    # Ordinary games say nothing about models.
    assert solver(load_game("kuhn_poker")).solves is None


def test_oracle_solves_d_star_and_the_posterior_mean_is_solved_when_given() -> None:
    game = load_game("unknown_kuhn_poker", seed=3)
    with pytest.warns(UserWarning):
        oracle = CFRPlus(game, oracle=True)
    oracle.iterate(500)
    assert exploitability_in_true_model(game, oracle.average_policy()) < 2e-3
    posterior = Posterior(game)
    InteractionRunner(game, posterior, seed=0).run(None, 20_000)
    learner = CFRPlus(posterior.mean_view(game))
    assert learner.solves == "the posterior mean"
    np.testing.assert_array_equal(
        learner.tree.utilities, build(game, model=posterior.mean_model()).utilities
    )
    learner.iterate(500)
    prior = CFRPlus(game)
    prior.iterate(500)
    # With 20k observed hands the posterior mean is much closer to d* than the prior mean.
    assert exploitability_in_true_model(game, learner.average_policy()) < 0.5 * (
        exploitability_in_true_model(game, prior.average_policy())
    )


def test_train_solves_the_prior_mean_and_scores_in_d_star(tmp_path) -> None:
    from pokerzoo.runs.config import RunConfig
    from pokerzoo.runs.run import train

    config = RunConfig(
        agent="cfr+", game="unknown_kuhn_poker", game_params={"seed": 2}, iterations=60,
        eval_every=60, out=str(tmp_path / "run"), tensorboard=False,
    )
    summary = train(config, progress=False)
    assert summary["solves"] == "the prior mean"
    game = load_game("unknown_kuhn_poker", seed=2)
    solver = CFRPlus(game.agent_view())
    solver.iterate(60)
    expected = exploitability_in_true_model(game, solver.average_policy())
    assert summary["exploitability"] == pytest.approx(expected)
    assert summary["exploitability"] != pytest.approx(
        exploitability(build(game), solver.average_policy())
    )
    # Asked for the oracle, the learner gets the environment game and solves d* (with a warning).
    oracle_config = dataclasses.replace(
        config, agent_params={"oracle": True}, out=str(tmp_path / "oracle")
    )
    with pytest.warns(UserWarning, match="oracle"):
        oracle = train(oracle_config, progress=False)
    assert oracle["solves"] == "the true model d* (oracle)"
    assert oracle["exploitability"] < 0.5 * summary["exploitability"]


def test_a_checkpoint_records_the_environment_model(tmp_path) -> None:
    """A solver's checkpoint on an environment game names its model: it loads into a solver on
    an equal game and refuses one whose environment was resampled."""
    from pokerzoo.errors import CheckpointError

    game = load_game("unknown_leduc_holdem", base={"num_ranks": 3, "raise_sizes": [2, 4]}, seed=1)
    solver = CFRPlus(game)
    solver.iterate(3)
    solver.save(tmp_path / "ck")
    same = CFRPlus(load_game(game.name, **game.params()))
    same.load(tmp_path / "ck")
    np.testing.assert_array_equal(same.regrets, solver.regrets)
    resampled = CFRPlus(game.with_resampled_environment(np.random.default_rng(0)))
    with pytest.raises(CheckpointError, match="model_fingerprint"):
        resampled.load(tmp_path / "ck")
