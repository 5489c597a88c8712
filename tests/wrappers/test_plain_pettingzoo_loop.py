"""Our trained agents in the standard PettingZoo AEC loop, unchanged:
``for agent in env.agent_iter(): obs, r, term, trunc, info = env.last(); action = None if term
or trunc else our_agent.act(obs, info); env.step(action)`` — on a foreign env (guarded by
``pokerzoo.wrappers.aec_guard.guard_env``, whose ``last()`` names the acting agent) and on ours."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from pokerzoo.agents.cfr import CFRPlus
from pokerzoo.agents.registry import make_env_agent as make_foreign_agent
from pokerzoo.envs import make
from pokerzoo.errors import ConfigError
from pokerzoo.games.registry import load_game
from pokerzoo.wrappers.aec_guard import guard_env

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))
from misbehaving_envs import GoodEnv


def _standard_loop(env, our_agent, seed: int = 0) -> dict[str, float]:
    env.reset(seed=seed)
    totals: dict[str, float] = {}
    for name in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[name] = totals.get(name, 0.0) + float(reward)
        action = None if terminated or truncated else our_agent.act(obs, info)
        env.step(action)
    return totals


@pytest.mark.parametrize("agent_name", ["nfsp", "mccfr-os"])
def test_a_trained_agent_plays_a_foreign_env_in_the_plain_loop(agent_name: str) -> None:
    agent = make_foreign_agent(agent_name, GoodEnv, seed=0, params={})
    agent.iterate(8)
    for seed in range(3):
        totals = _standard_loop(guard_env(GoodEnv(), "good_toy"), agent, seed)
        assert totals == {"a0": 1.0, "a1": -1.0}  # every hand played to its end


def test_without_the_guard_or_attach_the_agent_asks_to_name_the_acting_agent() -> None:
    agent = make_foreign_agent("nfsp", GoodEnv, seed=0, params={})
    with pytest.raises(ConfigError, match=r"name the acting agent: info\['agent'\]"):
        _standard_loop(GoodEnv(), agent)


def test_a_trained_agent_plays_our_env_in_the_plain_loop() -> None:
    solver = CFRPlus(load_game("kuhn_poker"))
    solver.iterate(50)
    solver.rng = np.random.default_rng(0)
    totals = _standard_loop(make("kuhn_poker_v0"), solver)
    assert set(totals) == {"player_0", "player_1"} and sum(totals.values()) == 0.0


@pytest.mark.parametrize("agent_name", ["nfsp", "mccfr-os"])
def test_an_attached_agent_plays_a_bare_foreign_env_in_the_plain_loop(agent_name: str) -> None:
    agent = make_foreign_agent(agent_name, GoodEnv, seed=0, params={})
    agent.iterate(8)
    for seed in range(3):
        env = GoodEnv()
        totals = _standard_loop(env, agent.attach(env), seed)
        assert totals == {"a0": 1.0, "a1": -1.0}


def test_attach_refuses_an_env_of_other_agents() -> None:
    agent = make_foreign_agent("nfsp", GoodEnv, seed=0, params={})
    with pytest.raises(ConfigError, match=r"possible_agents \['player_0', 'player_1'\] are not"):
        agent.attach(make("kuhn_poker_v0"))
    with pytest.raises(ConfigError, match="attach takes a PettingZoo AEC env, got int"):
        agent.attach(5)


def test_a_bad_seat_index_is_one_line() -> None:
    agent = make_foreign_agent("mccfr-os", GoodEnv, seed=0, params={})
    env = GoodEnv()
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    with pytest.raises(ConfigError, match=r"info\['player'\] must be a seat index in 0..1"):
        agent.act_probabilities(obs, {"player": 7})
    assert agent.act_probabilities(obs, {"player": np.int64(0)}).sum() == pytest.approx(1.0)


@pytest.mark.parametrize("agent_name", ["nfsp", "mccfr-os"])
@pytest.mark.parametrize(("mask", "fragment"), [
    (np.ones(3, dtype=np.int8), r"action_mask of shape \(3,\); the game has 2 actions"),
    (np.array(["1", "0"]), "action_mask of dtype <U1"),
    (np.array([0.5, 1.0]), "values other than 0 and 1"),
])
def test_a_foreign_agent_refuses_a_bad_mask_in_one_line(agent_name: str, mask: np.ndarray,
                                                         fragment: str) -> None:
    agent = make_foreign_agent(agent_name, GoodEnv, seed=0, params={})
    env = GoodEnv()
    env.reset(seed=0)
    obs = dict(env.observe(env.agent_selection), action_mask=mask)
    with pytest.raises(ConfigError, match=fragment):
        agent.act_probabilities(obs, {"agent": env.agent_selection})


def test_nfsp_on_our_game_refuses_a_mask_of_the_wrong_length() -> None:
    from pokerzoo.agents.registry import make_agent

    agent = make_agent("nfsp", load_game("kuhn_poker"), seed=0, num_envs=2)
    env = make("kuhn_poker_v0")
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    with pytest.raises(ConfigError, match=r"NFSP got an action_mask of shape \(5,\)"):
        agent.act_probabilities(dict(obs, action_mask=np.ones(5, dtype=np.int8)), info)
    assert agent.act_probabilities(obs, info).sum() == pytest.approx(1.0)
