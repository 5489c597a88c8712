"""NFSP checkpoints change nothing: runs that checkpoint (in memory or through a file, with any
period) learn exactly what the run that never checkpoints learns, for NFSP, NFSP-PER, NFSP-PLT
and the adaptive-UCT best response."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from pokerzoo import load_game
from pokerzoo.agents.nfsp.agent import NFSP
from pokerzoo.agents.registry import make_agent
from pokerzoo.errors import CheckpointError
from pokerzoo.evaluation import exploitability
from pokerzoo.tree import build

KUHN = load_game("kuhn_poker")
TREE = build(KUHN)

# Tiny and quick to learn: updates start after a few dozen hands.
SMALL = {
    "num_envs": 8,
    "hidden_sizes": (16,),
    "learn_every": 8,
    "batch_size": 16,
    "min_buffer_size": 32,
    "rl_buffer_size": 4000,
    "sl_buffer_size": 4000,
    "optimizer": "adam",
    "rl_learning_rate": 0.01,
    "sl_learning_rate": 0.02,
    "eta": 0.3,
    "target_update_every": 5,
}
UCT = {**SMALL, "num_envs": 4, "best_response": "uct", "uct_simulations": 16,
       "uct_threshold": 8, "uct_test_every": 4, "uct_min_test_visits": 2}

CASES = {
    "nfsp": ("nfsp", SMALL),
    "nfsp-per": ("nfsp-per", SMALL),
    "nfsp-plt": ("nfsp-plt", SMALL),
    "nfsp-plt-uct": ("nfsp-plt", UCT),
}


@pytest.fixture(autouse=True)
def one_torch_thread():
    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(saved)


def weights(agent: NFSP) -> list[torch.Tensor]:
    return [t for lrn in agent.learners
            for net in (lrn.q, lrn.q_target, lrn.avg) for t in net.state_dict().values()]


def metrics(agent: NFSP) -> dict:
    """What a training run reports, plus every counter that steers learning (floats as repr,
    so that a NaN loss before the first update compares equal)."""
    out: dict = {"iteration": agent.iteration, "epsilon": repr(agent.epsilon),
                 "exploitability": repr(exploitability(TREE, agent.average_policy()))}
    for i, lrn in enumerate(agent.learners):
        out[f"learner{i}"] = (lrn.rl_updates, lrn.sl_updates, lrn.gradient_steps, lrn.pending,
                              lrn.last_learning_times, repr(lrn.rl_loss), repr(lrn.sl_loss),
                              len(lrn.rl_buffer), lrn.sl_buffer.seen)
    uct = agent.selfplay.best_response
    if uct is not None:
        out["uct"] = (uct.searches, uct.simulations, uct.stopped_early)
    return out


def run(case: str, calls: int, chunk: int, period: int | None, how: str, tmp_path=None):
    """``calls`` calls of ``iterate(chunk)``; every ``period`` calls a checkpoint: ``"peek"``
    takes ``state_dict()`` and goes on; ``"memory"`` and ``"file"`` continue in a fresh agent
    (another seed, so everything must come from the checkpoint)."""
    preset, params = CASES[case]
    agent = make_agent(preset, KUHN, seed=11, **params)
    trace = []
    for call in range(1, calls + 1):
        agent.iterate(chunk)
        trace.append(metrics(agent))
        if period is None or call % period:
            continue
        if how == "peek":
            agent.state_dict()
            continue
        fresh = make_agent(preset, KUHN, seed=12345, **params)
        if how == "memory":
            fresh.load_state_dict(agent.state_dict())
        else:
            path = tmp_path / f"{case}-{call}.pzc"
            agent.save(path)
            fresh.load(path)
        agent = fresh
    return agent, trace


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_checkpoint_period_does_not_change_the_run(case, tmp_path):
    calls, chunk = (5, 25) if case.endswith("uct") else (6, 30)
    base, base_trace = run(case, calls, chunk, None, "peek")
    assert all(lrn.rl_updates > 0 and lrn.sl_updates > 0 for lrn in base.learners)
    for period, how in [(1, "peek"), (2, "memory"), (3, "file")]:
        agent, trace = run(case, calls, chunk, period, how, tmp_path)
        assert trace == base_trace, (period, how)
        for x, y in zip(weights(base), weights(agent)):
            assert torch.equal(x, y), (period, how)


def test_state_dict_has_no_side_effects_and_is_a_copy():
    agent = make_agent("nfsp-per", KUHN, seed=0, **SMALL)
    agent.iterate(200)
    first = agent.state_dict()
    kept = copy.deepcopy(first)
    agent.iterate(200)  # learning goes on in place; the state taken before must not follow
    _assert_same(first, kept)
    assert first["started"] and first["env"]["hands"]["cards"].shape == (SMALL["num_envs"], 2)


def test_a_loaded_agent_resumes_the_hands_in_flight():
    agent = make_agent("nfsp", KUHN, seed=0, **SMALL)
    agent.iterate(100)
    fresh = make_agent("nfsp", KUHN, seed=1, **SMALL)
    fresh.load_state_dict(agent.state_dict())
    np.testing.assert_array_equal(fresh.env.deals(), agent.env.deals())
    for name in ("last_obs", "last_action", "has_last", "reward", "best_mode"):
        np.testing.assert_array_equal(getattr(fresh.selfplay, name), getattr(agent.selfplay, name))


def test_a_state_of_another_config_is_refused():
    agent = make_agent("nfsp-per", KUHN, seed=0, **SMALL)
    other = make_agent("nfsp-plt", KUHN, seed=0, **SMALL)
    with pytest.raises(CheckpointError, match="config"):
        other.load_state_dict(agent.state_dict())


def _assert_same(a, b) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _assert_same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    elif isinstance(a, torch.Tensor):
        assert torch.equal(a, b)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b)
    else:
        assert a == b
