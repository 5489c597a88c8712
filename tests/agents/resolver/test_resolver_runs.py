"""The resolver in the framework: train.py's runs (folder, resume, evaluate) and value-net
leaves trained as the run's units."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import pokerzoo
from pokerzoo.agents.registry import make_agent
from pokerzoo.agents.resolver.agent import Resolver
from pokerzoo.evaluation.exact import nash_conv
from pokerzoo.runs.config import RunConfig
from pokerzoo.runs.run import train
from pokerzoo.tree.tabular_policy import TabularPolicy


def test_a_run_folder_resumes_and_reloads(tmp_path: Path) -> None:
    out = tmp_path / "run"
    config = dict(agent="resolver", game="kuhn_poker", agent_params={"iterations": 200},
                  out=str(out), tensorboard=False)
    first = train(RunConfig(iterations=2, **config), progress=False)
    assert first["iterations_done"] == 2 and not first["resumed"]
    second = train(RunConfig(iterations=4, **config), progress=False)
    assert second["resumed"] and second["iterations_done"] == 4
    assert second["nash_conv"] < 0.02
    table = TabularPolicy.load(out / "policy.npz")
    agent = pokerzoo.load_agent(out)
    assert isinstance(agent, Resolver) and agent.iteration == 4
    np.testing.assert_array_equal(agent.policy().probs, table.probs)
    assert json.loads((out / "summary.json").read_text())["agent"] == "resolver"


def test_network_leaves_train_as_the_units_and_checkpoint(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    pytest.importorskip("torch")
    import torch

    torch.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the net's small batches: threads only contend on a busy machine
    request.addfinalizer(lambda: torch.set_num_threads(threads))
    leduc = pokerzoo.load_game("leduc_holdem")
    agent = make_agent("resolver", leduc, seed=0, leaves="network", iterations=5,
                       value_states=100, value_validation_states=30)
    agent.iterate(3)
    assert agent.iteration == 3 and agent._trainer.iteration == 3
    value = nash_conv(agent.tree, agent)
    assert np.isfinite(value) and value > 0
    agent.save(tmp_path / "agent.pzc")
    again = pokerzoo.load_agent(tmp_path / "agent.pzc")
    assert again.iteration == 3 and again.resolves == agent.resolves
    np.testing.assert_allclose(again.policy().probs, agent.policy().probs, atol=1e-12)
    again._process = again._new_process()  # forget the solves: the net alone must match
    np.testing.assert_allclose(again.strategy(1, 1), agent.strategy(1, 1), atol=1e-6)
