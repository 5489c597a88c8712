"""The unknown-environment AEC envs: conformance, seeding, d* kept out of observations/infos."""

from __future__ import annotations

import functools
import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from pokerzoo import ConfigError
from pokerzoo.envs import make, unknown_kuhn_poker_v0, unknown_leduc_holdem_v0
from pokerzoo.envs.unknown_env import UnknownPokerEnv
from pokerzoo.evaluation.unknown import environment_of, true_model_of
from pokerzoo.games.unknown.model import EnvironmentModel
from pokerzoo.games.unknown.priors import Prior

pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
]

CASES = [
    (unknown_kuhn_poker_v0, {}),
    (unknown_kuhn_poker_v0, {"prior": "poker_payoffs", "seed": 3}),
    (unknown_leduc_holdem_v0, {"base": "leduc5", "seed": 1}),
    (
        unknown_leduc_holdem_v0,
        {"base": "leduc", "prior": {"name": "psrlcfr", "concentration": 0.3}},
    ),
]
IDS = [f"{m.__name__.rsplit('.', 1)[1]}-{i}" for i, (m, _) in enumerate(CASES)]


@pytest.mark.parametrize(("module", "params"), CASES, ids=IDS)
def test_api_and_seed(module, params: dict) -> None:
    api_test(module.env(**params), num_cycles=100)
    api_test(module.raw_env(**params), num_cycles=100)
    # Same env seed, same hands, in the same environment: built without a game seed, each env
    # draws its own d* (see test_an_env_without_a_seed_is_a_new_environment).
    seed_test(functools.partial(module.env, **{"seed": 0, **params}), num_cycles=100)


def test_an_env_without_a_seed_is_a_new_environment() -> None:
    a, b = unknown_kuhn_poker_v0.env(), make("unknown_kuhn_poker_v0")
    assert true_model_of(a) != true_model_of(b)
    # Its drawn seed is in its game's parameters, which rebuild the same d*.
    params = environment_of(a).params()
    assert params["seed"] >= 2**64
    assert true_model_of(unknown_kuhn_poker_v0.env(**params)) == true_model_of(a)
    assert true_model_of(pickle.loads(pickle.dumps(a))) == true_model_of(a)


def test_same_seed_same_d_star_through_make() -> None:
    a = make("unknown_leduc_holdem_v0", base="leduc4", seed=9)
    b = unknown_leduc_holdem_v0.env(base="leduc4", seed=9)
    c = make("unknown_leduc_holdem_v0", base="leduc4", seed=10)
    assert isinstance(a, UnknownPokerEnv)
    assert true_model_of(a) == true_model_of(b) != true_model_of(c)
    assert environment_of(a) == environment_of(b) != environment_of(c)


def test_unknown_options_fail_clearly() -> None:
    with pytest.raises(ConfigError, match="episode_info"):
        unknown_kuhn_poker_v0.env(episodes=True)
    with pytest.raises(ConfigError, match="raw_env always raises"):
        unknown_kuhn_poker_v0.raw_env(illegal_action="penalize")
    with pytest.raises(ConfigError, match="not an unknown-environment game"):
        UnknownPokerEnv("kuhn_poker")
    with pytest.raises(ConfigError, match="cannot deal"):
        UnknownPokerEnv(unknown_kuhn_poker_v0.env().game)


def _play(env, rng, hands: int, on_step) -> None:
    for _ in range(hands):
        env.reset()
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            on_step(env, agent, obs, reward, terminated or truncated, info)
            if terminated or truncated:
                env.step(None)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(rng.choice(legal)))


def _no_model_objects(value) -> None:
    """Walk a field recursively: only plain ints, floats, strings and containers of them."""
    if isinstance(value, dict):
        for v in value.values():
            _no_model_objects(v)
    elif isinstance(value, list | tuple):
        for v in value:
            _no_model_objects(v)
    else:
        assert not isinstance(value, EnvironmentModel | Prior | np.ndarray), value
        assert isinstance(value, int | float | str | bool | np.integer | np.floating), value


@pytest.mark.parametrize("module", [unknown_kuhn_poker_v0, unknown_leduc_holdem_v0])
def test_observations_and_infos_hold_nothing_of_d_star(module) -> None:
    """Every field is a function of the hand played (base game's observations), never of d*."""
    env = module.env(seed=4)
    base_state = env.game.base_game.new_initial_state
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    support = {-1.0, 1.0}
    seen = {"episode": 0, "steps": 0}

    def check(env, agent, obs, reward, done, info) -> None:
        seen["steps"] += 1
        seat = env.possible_agents.index(agent)
        assert set(obs) == {"observation", "action_mask"}
        # Replay the hand in the *base* game: same observation, same info-state key.
        history = env.game_state.history()
        replay = base_state()
        for a in history:
            replay.apply_action(a)
        np.testing.assert_array_equal(obs["observation"], replay.information_state_tensor(seat))
        assert info["info_state"] == replay.information_state_key(seat)
        allowed = {"info_state", "legal_actions", "episode"}
        assert set(info) <= allowed, set(info) - allowed
        _no_model_objects(info)
        if "legal_actions" in info:
            assert info["legal_actions"] == replay.legal_actions()
        if done:
            episode = info["episode"]
            assert set(episode) == {"history", "returns"}
            assert episode["history"] == history and replay.is_terminal()
            # Rewards paid are samples from r*'s support, never its expectation.
            assert set(episode["returns"]) <= support and reward in support
            assert sum(episode["returns"]) == 0.0
            seen["episode"] += 1

    _play(env, rng, 300, check)
    assert seen["episode"] == 2 * 300  # both agents are told at the end of every hand
    for value in vars(env).values():
        # The env holds the game (and so d*) but exposes no copy of the model elsewhere.
        assert not isinstance(value, EnvironmentModel)


def test_episode_info_can_be_switched_off_and_illegal_hands_report_nothing() -> None:
    env = unknown_kuhn_poker_v0.env(seed=1, episode_info=False)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    infos = []
    _play(env, rng, 20, lambda e, a, o, r, done, info: infos.append(info) if done else None)
    assert len(infos) == 40 and all("episode" not in i for i in infos)
    env = unknown_leduc_holdem_v0.env(seed=1, illegal_reward=-5.0)
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["action_mask"][0] == 0  # fold: nothing to answer
    env.step(0)
    assert all(env.terminations.values())
    assert all("episode" not in info for info in env.infos.values())
    assert env.infos[env.agent_selection]["illegal_action"] is True


def test_resample_environment_on_reset() -> None:
    env = unknown_leduc_holdem_v0.env(base="leduc", seed=2)
    env.reset(seed=0)
    view = env.game
    first = true_model_of(env)
    env.reset()
    assert true_model_of(env) is first
    env.reset(options={"resample_environment": True})
    second = true_model_of(env)
    assert second != first
    # The agent's view does not depend on d*: it stays the same object.
    assert env.game is view
    # Seeded resampling is reproducible.
    other = unknown_leduc_holdem_v0.env(base="leduc", seed=2)
    other.reset(seed=0)
    other.reset()
    other.reset(options={"resample_environment": True})
    assert true_model_of(other) == second


def test_env_pickles_with_its_model() -> None:
    env = unknown_kuhn_poker_v0.env(seed=6, episode_info=False)
    env.reset(seed=0)
    clone = pickle.loads(pickle.dumps(env))
    assert true_model_of(clone) == true_model_of(env) and clone.episode_info is False
    # A resampled environment pickles as the environment it plays in now.
    env.reset(options={"resample_environment": True})
    clone = pickle.loads(pickle.dumps(env))
    assert environment_of(clone) == environment_of(env)
    assert true_model_of(clone) == true_model_of(env)



def test_render_shows_paid_rewards_not_the_hidden_expectation():
    """At the end of a hand the table shows what was paid, never d*'s expected payoff."""
    from pokerzoo.envs import unknown_kuhn_poker_v0

    env = unknown_kuhn_poker_v0.env(render_mode="ansi", seed=3)
    differed = 0
    for seed in range(20):
        env.reset(seed=seed)
        paid = {}
        for agent in env.agent_iter():
            _, reward, done, _, _ = env.last()
            if done:
                paid[agent] = reward
            env.step(None if done else 1)  # bet / call: always a showdown
        rows = {line.split()[0]: line.split()[-1] for line in env.render().splitlines()
                if line.startswith("player_")}
        assert rows == {a: f"{paid[a]:+g}" for a in env.possible_agents}
        # The agent-facing state reports what was paid, never d*'s expectation.
        assert env.game_state.returns() == [paid[a] for a in env.possible_agents]
        expected = environment_of(env).true_model.expected_returns[
            env.game_state.terminal_index()
        ].tolist()
        differed += expected != [paid[a] for a in env.possible_agents]
    assert differed > 0  # the hidden expectation differs from what was paid
