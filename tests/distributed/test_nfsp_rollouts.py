"""NFSP with rollout workers: the same agent with more workers. Ray's rollouts equal the
in-process ones of the same worker count, a run is reproducible and resumable, a worker killed
between rounds is rebuilt from its hands in flight, and Kuhn learns as well as without workers."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest
import torch

from pokerzoo import load_game
from pokerzoo.agents.nfsp.agent import NFSP
from pokerzoo.distributed import connect
from pokerzoo.errors import CheckpointError, ConfigError
from pokerzoo.evaluation import exploitability
from pokerzoo.parallel import InProcess

pytestmark = pytest.mark.usefixtures("ray_local")
KUHN = load_game("kuhn_poker")
FAST = {"num_envs": 64, "rollout_steps": 4}


def same_networks(a: NFSP, b: NFSP) -> None:
    assert a.iteration == b.iteration
    for la, lb in zip(a.learners, b.learners):
        for x, y in zip(la.avg.parameters(), lb.avg.parameters()):
            torch.testing.assert_close(x, y, rtol=0, atol=0)


@pytest.mark.slow
def test_ray_rollouts_equal_in_process_rollouts_and_resume_exactly(tmp_path: Path) -> None:
    local = NFSP(KUHN, seed=3, workers=2, **FAST)
    local.iterate(3000)
    ray_agent = NFSP(KUHN, seed=3, workers=2, executor=connect(2), **FAST)
    ray_agent.iterate(1000)
    ray_agent.save(tmp_path / "ckpt.pzc")  # a round in flight: gathered, not learned from
    ray_agent.iterate(2000)
    same_networks(ray_agent, local)
    ray_agent.close()
    resumed = NFSP(KUHN, seed=3, workers=2, executor=connect(2), **FAST)
    resumed.load(tmp_path / "ckpt.pzc")
    resumed.iterate(2000)
    same_networks(resumed, local)
    resumed.close()
    with pytest.raises(CheckpointError, match="workers=2"):
        NFSP(KUHN, seed=3, **FAST).load(tmp_path / "ckpt.pzc")


@pytest.mark.slow
def test_a_rollout_worker_killed_between_rounds_is_rebuilt_from_its_state() -> None:
    executor = connect(2)
    agent = NFSP(KUHN, seed=4, workers=2, executor=executor, **FAST)
    local = NFSP(KUHN, seed=4, workers=2, **FAST)
    agent.iterate(1000)
    local.iterate(1000)
    restarts = executor.stats.restarts
    os.kill(agent._pool.pids()[1], signal.SIGKILL)  # type: ignore[union-attr]
    agent.iterate(1000)
    local.iterate(1000)
    assert executor.stats.restarts >= restarts + 1
    same_networks(agent, local)
    agent.close()


@pytest.mark.slow
def test_kuhn_reaches_the_same_exploitability_band_with_two_rollout_workers() -> None:
    params = {"optimizer": "adam", "rl_learning_rate": 1e-3, "sl_learning_rate": 1e-3}
    alone = NFSP(KUHN, seed=0, **params)
    alone.iterate(60_000)
    spread = NFSP(KUHN, seed=0, workers=2, executor=connect(2), **params)
    spread.iterate(60_000)
    spread.close()
    e_alone = exploitability(alone.tree, alone.average_policy())
    e_spread = exploitability(spread.tree, spread.average_policy())
    # Both learn well below the random player's 0.458 and land in the same band.
    assert e_alone < 0.2 and e_spread < 0.2, (e_alone, e_spread)
    assert abs(e_alone - e_spread) < 0.08, (e_alone, e_spread)


def test_workers_refuse_the_uct_best_response_and_bad_counts() -> None:
    with pytest.raises(ConfigError, match="UCT"):
        NFSP(KUHN, workers=2, best_response="uct")
    with pytest.raises(ConfigError, match="workers"):
        NFSP(KUHN, workers=0)
    # One worker: the in-process path, no pool.
    agent = NFSP(KUHN, seed=0, **FAST)
    agent.iterate(100)
    assert agent._pool is None and isinstance(agent.executor, InProcess)
    assert np.isfinite(exploitability(agent.tree, agent.average_policy()))


@pytest.mark.slow
def test_deep_cfr_traversal_workers_are_reproducible_and_equal_in_process() -> None:
    from pokerzoo.agents.deep.deep_cfr import DeepCFR

    params = {"traversals": 40, "advantage_steps": 20, "policy_steps": 50}
    spread = DeepCFR(KUHN, seed=1, workers=2, executor=connect(2), **params)
    local = DeepCFR(KUHN, seed=1, workers=2, **params)
    for agent in (spread, local):
        agent.iterate(2)
    np.testing.assert_array_equal(spread.current_policy().probs, local.current_policy().probs)
    assert len(spread.strategy_memory) == len(local.strategy_memory) > 0
    alone = DeepCFR(KUHN, seed=1, **params)
    alone.iterate(2)
    # One worker is the in-process path: other draws of the same traversals (the samples per
    # traversal vary with the sampled paths).
    a, b = len(alone.advantage_memories[0]), len(local.advantage_memories[0])
    assert 0.5 < a / b < 2.0
