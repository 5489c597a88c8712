"""The unknown-environment baselines MCCFR-OS and FSP: accounting, learning, resume, config."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.agents.unknown_env import fsp, mccfr_os
from pokerzoo.agents.unknown_env.base import UnknownEnvAgent
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.unknown import nash_conv_in_true_model
from pokerzoo.tree.tabular_policy import TabularPolicy

Factory = Callable[..., UnknownEnvAgent]
FACTORIES: dict[str, Factory] = {"mccfr-os": mccfr_os.make_agent, "fsp": fsp.make_agent}


@pytest.fixture(params=sorted(FACTORIES))
def make(request: pytest.FixtureRequest) -> Factory:
    return FACTORIES[request.param]


def test_budgets_are_consumed_exactly_across_odd_splits(make: Factory) -> None:
    agent = make(load_game("unknown_kuhn_poker", seed=2), seed=2)
    played = 0
    for n in (1, 3, 0, 5, 2, 7):
        agent.iterate(n)
        played += n
        assert agent.episodes == played
        assert agent.view.sampler.counter.episodes == played
    assert agent.rounds == played  # one hand per round
    assert agent.posterior.num_episodes == played


def test_split_budget_gives_the_same_run(make: Factory) -> None:
    whole = make(load_game("unknown_kuhn_poker", seed=4), seed=1)
    whole.iterate(301)
    split = make(load_game("unknown_kuhn_poker", seed=4), seed=1)
    for n in (1, 100, 37, 163):
        split.iterate(n)
    np.testing.assert_array_equal(whole.output_policy_array(), split.output_policy_array())


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_lowers_nash_conv_in_the_true_model(make: Factory, seed: int) -> None:
    game = load_game("unknown_kuhn_poker", seed=seed)
    agent = make(game, seed=seed)
    uniform = nash_conv_in_true_model(game, TabularPolicy.from_tree(agent.tree,
                                                                    agent.uniform_profile()))
    agent.iterate(20_000)
    learned = nash_conv_in_true_model(game, agent.policy())
    assert learned < 0.3 * uniform
    assert learned < 0.15


@pytest.mark.parametrize("k", [0, 1, 250, 999])
def test_resume_from_a_checkpoint_is_identical(make: Factory, k: int) -> None:
    total = 1000
    uninterrupted = make(load_game("unknown_kuhn_poker", seed=3), seed=5)
    uninterrupted.iterate(total)
    first = make(load_game("unknown_kuhn_poker", seed=3), seed=5)
    first.iterate(k)
    state = first.state_dict()
    first.iterate(7)  # the saved state must not share arrays with the running agent
    resumed = make(load_game("unknown_kuhn_poker", seed=3), seed=5)
    resumed.load_state_dict(state)
    resumed.iterate(total - k)
    np.testing.assert_array_equal(resumed.output_policy_array(),
                                  uninterrupted.output_policy_array())
    assert resumed.episodes == total


def test_fsp_resume_with_a_full_reservoir_and_window() -> None:
    params = {"sl_memory": 50, "rl_memory": 64, "refit_every": 3, "eta": 0.5}
    uninterrupted = fsp.make_agent(load_game("unknown_kuhn_poker", seed=3), seed=5, **params)
    uninterrupted.iterate(600)
    first = fsp.make_agent(load_game("unknown_kuhn_poker", seed=3), seed=5, **params)
    first.iterate(333)
    resumed = fsp.make_agent(load_game("unknown_kuhn_poker", seed=3), seed=5, **params)
    resumed.load_state_dict(first.state_dict())
    resumed.iterate(267)
    np.testing.assert_array_equal(resumed.q, uninterrupted.q)
    np.testing.assert_array_equal(resumed.output_policy_array(),
                                  uninterrupted.output_policy_array())
    # A full reservoir still holds exactly sl_memory pairs per player.
    assert sum(m.counts.sum() for m in resumed._sl) == 2 * 50


def test_fsp_fitted_q_solves_the_memory_mdp() -> None:
    """Kuhn, player 0 with the jack: pass (infoset 0) then, facing a bet (infoset 9), fold
    (-1) or call (-2, -2, 0 paid): Q(9, call) = -4/3, Q(9, fold) = -1, so Q(0, pass) = -1
    once the default sweeps (the longest chain of decisions, 2) have run; one sweep from 0
    does not see past the first decision."""
    for sweeps, expected in [(0, -1.0), (1, 0.0)]:
        agent = fsp.make_agent(load_game("unknown_kuhn_poker", seed=0), q_sweeps=sweeps)
        jack = agent.tree.infoset_id((0, 0, ()))
        facing_bet = agent.tree.infoset_id((0, 0, (0, 1)))
        s = np.array([jack, facing_bet, facing_bet, facing_bet, facing_bet])
        a = np.array([0, 0, 1, 1, 1])
        following = np.array([facing_bet, -1, -1, -1, -1])
        r = np.array([0.0, -1.0, -2.0, -2.0, 0.0])
        agent._remember(0, s, a, following, r)
        agent.fit_q()
        assert agent.q[facing_bet, 0] == pytest.approx(-1.0)
        assert agent.q[facing_bet, 1] == pytest.approx(-4.0 / 3.0)
        assert agent.q[jack, 0] == pytest.approx(expected)
        assert agent.best_response()[facing_bet] == 0


def test_the_output_policy_is_a_distribution(make: Factory) -> None:
    agent = make(load_game("unknown_kuhn_poker", seed=1), seed=1)
    agent.iterate(200)
    probs = agent.normalised(agent.output_policy_array())
    mask = agent.tree.infoset_mask
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    assert (probs[~mask] == 0).all()


@pytest.mark.parametrize(
    ("factory", "params", "field"),
    [
        (mccfr_os.make_agent, {"epsilon": 0.0}, "epsilon"),
        (mccfr_os.make_agent, {"epsilon": 1.5}, "epsilon"),
        (mccfr_os.make_agent, {"epsilon": True}, "epsilon"),
        (mccfr_os.make_agent, {"epsilom": 0.1}, "epsilom"),
        (fsp.make_agent, {"eta": 0.0}, "eta"),
        (fsp.make_agent, {"br_exploration": -0.1}, "br_exploration"),
        (fsp.make_agent, {"refit_every": 0}, "refit_every"),
        (fsp.make_agent, {"q_sweeps": -1}, "q_sweeps"),
        (fsp.make_agent, {"rl_memory": 2.5}, "rl_memory"),
        (fsp.make_agent, {"sl_memory": 0}, "sl_memory"),
        (fsp.make_agent, {"episodes_per_round": 0}, "episodes_per_round"),
    ],
)
def test_bad_config_raises_config_error(factory: Factory, params: dict[str, Any],
                                        field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        factory(load_game("unknown_kuhn_poker", seed=0), **params)


def test_direct_config_validation_names_the_allowed_values() -> None:
    with pytest.raises(ConfigError, match=r"epsilon must be a number in \(0, 1\]"):
        mccfr_os.MCCFROSConfig(epsilon=0)
    with pytest.raises(ConfigError, match=r"eta must be a number in \(0, 1\]"):
        fsp.FSPConfig(eta=2)


def test_a_checkpoint_of_another_config_is_refused(make: Factory) -> None:
    from pokerzoo.errors import CheckpointError

    agent = make(load_game("unknown_kuhn_poker", seed=0), seed=0)
    agent.iterate(10)
    other = (mccfr_os.make_agent(load_game("unknown_kuhn_poker", seed=0), epsilon=0.2)
             if isinstance(agent, mccfr_os.MCCFROS)
             else fsp.make_agent(load_game("unknown_kuhn_poker", seed=0), eta=0.2))
    with pytest.raises(CheckpointError):
        other.load_state_dict(agent.state_dict())
