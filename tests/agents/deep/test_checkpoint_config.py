"""Deep agents' checkpoints across config versions (a field added after a checkpoint was
written takes the value that describes what the code did then, so an older run resumes when
its behaviour is unchanged and is refused, naming the field, when it is not), and the run-only
``torch_threads``."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from pokerzoo import load_game
from pokerzoo.agents.deep.deep_cfr import DeepCFR
from pokerzoo.agents.deep.deep_gxfp import DeepGXFP
from pokerzoo.errors import CheckpointError, ConfigError

KUHN = load_game("kuhn_poker")
CFR_TINY: dict[str, Any] = {"traversals": 20, "advantage_steps": 5, "policy_steps": 5,
                            "batch_size": 16, "device": "cpu"}
GXFP_TINY: dict[str, Any] = {"traversals": 20, "utility_steps": 5, "strategy_steps": 5,
                             "device": "cpu"}


def without(state: dict[str, Any], *fields: str) -> dict[str, Any]:
    """``state`` as a checkpoint written before ``fields`` existed."""
    config = {k: v for k, v in state["config"].items() if k not in fields}
    return {**state, "config": config}


@pytest.mark.slow
def test_deep_cfr_resumes_a_checkpoint_older_than_its_new_fields() -> None:
    agent = DeepCFR(KUHN, seed=1, **CFR_TINY)
    agent.iterate(2)
    old = without(agent.state_dict(), "batch_mode", "lr_schedule")
    resumed = DeepCFR(KUHN, seed=1, **CFR_TINY)
    resumed.load_state_dict(old)  # the defaults are what the code did before
    resumed.iterate(1)
    agent.iterate(1)
    assert (resumed.policy().probs == agent.policy().probs).all()
    changed = DeepCFR(KUHN, seed=1, batch_mode="full_memory", **CFR_TINY)
    with pytest.raises(CheckpointError, match="batch_mode: checkpoint 'sample', agent "
                                              "'full_memory'"):
        changed.load_state_dict(old)


def test_deep_gxfp_refuses_an_older_checkpoint_whose_fits_would_change() -> None:
    agent = DeepGXFP(KUHN, seed=2, **GXFP_TINY)
    agent.iterate(1)
    old = without(agent.state_dict(), "utility_targets", "strategy_targets")
    # Before these fields, networks fitted mini-batches of samples; "auto" now folds on a tree.
    with pytest.raises(CheckpointError, match="utility_targets") as info:
        DeepGXFP(KUHN, seed=2, **GXFP_TINY).load_state_dict(old)
    assert "strategy_targets" in str(info.value)
    DeepGXFP(KUHN, seed=2, utility_targets="samples", strategy_targets="samples",
             **GXFP_TINY).load_state_dict(old)


def test_auto_targets_match_what_they_resolve_to() -> None:
    agent = DeepGXFP(KUHN, seed=3, **GXFP_TINY)
    state = agent.state_dict()
    # On a compiled tree "auto" folds: a checkpoint saying "means"/"frequencies" is the same run.
    explicit = {**state, "config": {**state["config"], "utility_targets": "means",
                                    "strategy_targets": "frequencies"}}
    DeepGXFP(KUHN, seed=3, **GXFP_TINY).load_state_dict(explicit)


@pytest.mark.parametrize(("agent_class", "params"), [(DeepCFR, CFR_TINY), (DeepGXFP, GXFP_TINY)])
@pytest.mark.parametrize(("threads", "expected"), [(1, 1), (0, 2)])
def test_training_runs_on_the_configured_torch_threads(agent_class: type, params: dict,
                                                        threads: int, expected: int) -> None:
    saved = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        agent = agent_class(KUHN, seed=4, torch_threads=threads, **params)
        seen: list[int] = []
        inner = agent._iterate_once

        def recording() -> None:
            seen.append(torch.get_num_threads())
            inner()

        agent._iterate_once = recording
        agent.iterate(2)
        assert seen == [expected, expected]
        assert torch.get_num_threads() == 2  # the caller's setting is restored
        other = agent_class(KUHN, seed=4, torch_threads=0 if threads else 1, **params)
        other.load_state_dict(agent.state_dict())  # a run-only field, like the device
    finally:
        torch.set_num_threads(saved)
    with pytest.raises(ConfigError, match="torch_threads"):
        agent_class(KUHN, torch_threads=-1, **params)
