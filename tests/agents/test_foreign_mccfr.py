"""External- and outcome-sampling MCCFR on AEC envs: the copy modes and their checks, exact
resume, the env-facing policy (their Leduc results are in test_foreign_leduc.py)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.classic import tictactoe_v3

import pokerzoo
from pokerzoo.agents.cfr.aec_mccfr import AECExternalMCCFR
from pokerzoo.agents.cfr.aec_outcome import AECOutcomeMCCFR
from pokerzoo.errors import CheckpointError, ConfigError


def kuhn():
    return pokerzoo.make("kuhn_poker_v0")


def test_copy_modes_are_checked_and_recorded():
    assert AECExternalMCCFR(kuhn).copies == "deepcopy"
    assert AECExternalMCCFR(kuhn, copies="replay").copies == "replay"
    assert AECExternalMCCFR(tictactoe_v3.env).copies == "replay"
    with pytest.raises(ConfigError, match="not copyable"):
        AECExternalMCCFR(tictactoe_v3.env, copies="deepcopy")
    with pytest.raises(ConfigError, match="copies must be"):
        AECExternalMCCFR(kuhn, copies="pickle")


def test_an_env_neither_copyable_nor_replayable_is_refused():
    class Unseeded(type(tictactoe_v3.env().unwrapped)):
        draws = iter(range(10**6))

        def reset(self, seed=None, options=None):
            super().reset(seed=seed, options=options)
            if next(self.draws) % 2:  # the seed does not decide who starts
                self.agent_selection = self.possible_agents[1]

    with pytest.raises(ConfigError, match="not replayable"):
        AECExternalMCCFR(Unseeded)


def test_continuous_actions_are_refused():
    class Continuous(type(tictactoe_v3.env().unwrapped)):
        def action_space(self, agent):
            return spaces.Box(-1.0, 1.0, (1,))

    with pytest.raises(ConfigError, match="continuous actions"):
        AECExternalMCCFR(Continuous)


@pytest.mark.parametrize("copies", ["deepcopy", "replay"])
def test_resumed_run_matches_the_uninterrupted_run(copies):
    a = AECExternalMCCFR(kuhn, seed=1, copies=copies)
    a.iterate(30)
    b = AECExternalMCCFR(kuhn, seed=7, copies=copies)
    b.load_state_dict(a.state_dict())
    a.iterate(30)
    b.iterate(30)
    sa, sb = a.state_dict(), b.state_dict()
    assert sa["keys"] == sb["keys"] and sa["iteration"] == sb["iteration"] == 60
    np.testing.assert_array_equal(sa["tables"], sb["tables"])
    with pytest.raises(CheckpointError, match="checkpoint is for env"):
        AECExternalMCCFR(tictactoe_v3.env).load_state_dict(sa)


def test_kuhn_average_strategy_plays_through_the_env():
    solver = AECExternalMCCFR(kuhn, seed=0)
    solver.iterate(300)
    env = kuhn()
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    probs = solver.act_probabilities(obs, {"agent": env.agent_selection})
    assert probs.shape == (2,) and probs.sum() == pytest.approx(1.0)
    with pytest.raises(ConfigError, match="name the acting agent"):
        solver.act_probabilities(obs, {})
    # The policy answers AECState-like states, as search and evaluators ask.
    from pokerzoo.wrappers.aec_learner_state import AECState

    state = AECState(env, solver.spec)
    answer = solver.policy().action_probabilities(state)
    assert set(answer) <= {0, 1} and sum(answer.values()) == pytest.approx(1.0)
    del info


def test_outcome_sampling_resumes_exactly_and_needs_exploration():
    a = AECOutcomeMCCFR(tictactoe_v3.env, seed=2)  # PettingZoo's env: no copy needed
    a.iterate(50)
    b = AECOutcomeMCCFR(tictactoe_v3.env, seed=9)
    b.load_state_dict(a.state_dict())
    a.iterate(50)
    b.iterate(50)
    sa, sb = a.state_dict(), b.state_dict()
    assert sa["keys"] == sb["keys"]
    np.testing.assert_array_equal(sa["tables"], sb["tables"])
    with pytest.raises(ConfigError, match="exploration"):
        AECOutcomeMCCFR(tictactoe_v3.env, exploration=0.0)
