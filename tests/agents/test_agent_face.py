"""One face per role: agents answer env turns through ``act_probabilities``/``act``,
policies answer ``action_probabilities(state)``, and every evaluator scores ``agent.policy()``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.agents.base import Agent
from pokerzoo.agents.cfr import CFRPlus
from pokerzoo.envs import make
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation import (
    exploitability,
    head_to_head,
    local_best_response,
    nash_conv,
    tabularize,
    total_exploitability,
    versus_random,
)
from pokerzoo.policy import StatePolicy, UniformRandomPolicy, as_state_policy
from pokerzoo.tree import TabularPolicy
from pokerzoo.wrappers import SingleAgentEnv


class UniformAgent(Agent):
    """A minimal non-tabular agent: its policy is a state policy, not a table."""

    name = "uniform-test"

    def __init__(self) -> None:
        self.env_turns = 0
        self._iteration = 0

    def iterate(self, n: int = 1) -> None:
        self._iteration += n

    def policy(self) -> UniformRandomPolicy:
        return UniformRandomPolicy()

    def act_probabilities(self, observation: Any, info: Mapping[str, Any] | None = None):
        self.env_turns += 1
        mask = np.asarray(observation["action_mask"], dtype=np.float64)
        return mask / mask.sum()

    def state_dict(self) -> dict[str, Any]:
        return {"iteration": self._iteration}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self._iteration = int(state["iteration"])


@pytest.fixture(scope="module")
def solver() -> CFRPlus:
    agent = CFRPlus(load_game("leduc_holdem"))
    agent.iterate(20)
    return agent


@pytest.mark.slow
def test_agents_are_not_state_policies_and_say_so(solver) -> None:
    assert not hasattr(solver, "action_probabilities")
    assert not isinstance(solver, StatePolicy)
    assert isinstance(solver.policy(), StatePolicy)
    assert isinstance(as_state_policy(solver), TabularPolicy)
    with pytest.raises(ConfigError, match=r"pass a policy answering action_probabilities\(state\)"):
        as_state_policy(object())


def test_exact_evaluators_score_the_agents_policy(solver) -> None:
    tree = solver.tree
    policy = solver.policy()
    assert exploitability(tree, solver) == exploitability(tree, policy)
    assert nash_conv(tree, solver) == nash_conv(tree, policy)
    assert total_exploitability(tree, solver).total == total_exploitability(tree, policy).total
    np.testing.assert_array_equal(tabularize(tree, solver).probs, policy.probs)
    uniform = UniformAgent()
    assert exploitability(tree, uniform) == pytest.approx(
        exploitability(tree, TabularPolicy.uniform(tree))
    )


def test_matches_and_lbr_play_the_agents_policy(solver) -> None:
    game = solver.game
    a = head_to_head(game, [solver, UniformRandomPolicy()], 30, seed=3)
    b = head_to_head(game, [solver.policy(), UniformRandomPolicy()], 30, seed=3)
    np.testing.assert_array_equal(a.mean_chips, b.mean_chips)
    assert versus_random(game, solver, 40, seed=1) == versus_random(game, solver.policy(), 40, 1)
    holdem = load_game("limit_holdem")
    agent = UniformAgent()
    with_agent = local_best_response(holdem, agent, 2, seed=5, wp_samples=2)
    with_policy = local_best_response(holdem, UniformRandomPolicy(), 2, seed=5, wp_samples=2)
    assert with_agent.mean_chips == with_policy.mean_chips
    assert agent.env_turns == 0  # evaluators never asked it for an env turn


def test_env_turns_go_through_act_probabilities(solver) -> None:
    env = make("leduc_holdem_v0")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    table = solver.policy()
    for _ in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        probs = solver.act_probabilities(obs, info)
        np.testing.assert_allclose(probs, table.row(info["info_state"]))
        assert np.all(probs[obs["action_mask"] == 0] == 0)
        action = solver.act(obs, info, rng=np.random.default_rng(7))
        assert action == solver.act(obs, info, rng=np.random.default_rng(7))
        assert obs["action_mask"][action] == 1
        env.step(solver.act(obs, info, rng=rng))
    with pytest.raises(ConfigError, match="info_state"):
        solver.act_probabilities(obs, None)


def test_an_agent_opponent_answers_through_act_probabilities() -> None:
    agent = UniformAgent()
    env = SingleAgentEnv("kuhn_poker_v0", opponent=agent, seat=0)
    env.reset(seed=0)
    for _ in range(20):
        _, _, over, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if over:
            env.reset()
    assert agent.env_turns > 0


def test_a_network_agent_is_scored_through_its_batched_table() -> None:
    from pokerzoo.agents.nfsp import NFSP
    from pokerzoo.tree import build

    game = load_game("kuhn_poker")
    agent = NFSP(game, seed=0, num_envs=8)
    agent.iterate(64)
    tree = build(game)
    table = agent.average_policy()
    np.testing.assert_allclose(tabularize(tree, agent).probs, table.probs)
    assert exploitability(tree, agent) == pytest.approx(exploitability(tree, table), abs=1e-9)
    # State by state (what the batched table replaces) gives the same numbers.
    by_state = tabularize(tree, lambda state: agent.policy().action_probabilities(state))
    np.testing.assert_allclose(by_state.probs, table.probs, atol=1e-6)
