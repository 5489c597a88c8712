"""Deep CFR's ``batch_mode="full_memory"``: the memory folded once per training gives the
gradient of the per-sample loss over the whole memory, and training on it learns."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from pokerzoo import load_game  # noqa: E402
from pokerzoo.agents.deep.deep_cfr import DeepCFR, DeepCFRConfig  # noqa: E402
from pokerzoo.errors import ConfigError  # noqa: E402
from pokerzoo.evaluation import nash_conv  # noqa: E402


@pytest.mark.parametrize("policy", [False, True])
def test_full_memory_fold_has_the_whole_memory_per_sample_gradient(policy: bool) -> None:
    agent = DeepCFR(load_game("leduc_holdem"), seed=5, traversals=30, advantage_steps=2,
                    policy_steps=2, device="cpu", regret_scale=3.0, batch_mode="full_memory")
    agent.iterate(3)  # three iterations: the weights t differ between samples
    memory = agent.strategy_memory if policy else agent.advantage_memories[1]
    everything = memory.gather(np.arange(len(memory)))
    x, mask, t, target = agent._whole_memory(memory)
    assert len(x) == len(np.unique(everything.iset)) < len(memory)  # one row per infoset
    net = agent._new_net(np.random.default_rng(2))
    iset, params = torch.as_tensor(everything.iset), list(net.parameters())
    per_sample = torch.autograd.grad(agent._loss(
        net, agent._tensors[iset], agent._masks[iset], torch.as_tensor(everything.t),
        torch.as_tensor(everything.value), policy), params)
    folded = torch.autograd.grad(agent._loss(net, x, mask, t, target, policy), params)
    for a, b in zip(per_sample, folded, strict=True):
        assert torch.allclose(a, b, rtol=1e-4, atol=1e-6)


# The linear decay takes a larger first step (as the leduc-fast preset does).
@pytest.mark.slow
@pytest.mark.parametrize(("schedule", "lr"), [("constant", 1e-3), ("linear", 2e-3)])
def test_full_memory_deep_cfr_learns_kuhn(schedule: str, lr: float) -> None:
    agent = DeepCFR(load_game("kuhn_poker"), seed=0, traversals=200, advantage_steps=40,
                    policy_steps=200, device="cpu", batch_mode="full_memory",
                    lr_schedule=schedule, learning_rate=lr)
    agent.iterate(15)
    # Uniform play is 0.917 exploitable; Kuhn Deep CFR of this size gets below 0.1.
    assert nash_conv(agent.tree, agent.policy()) < 0.1


def test_batch_mode_and_lr_schedule_are_checked() -> None:
    with pytest.raises(ConfigError, match="batch_mode"):
        DeepCFRConfig.from_params(batch_mode="full")
    with pytest.raises(ConfigError, match="lr_schedule"):
        DeepCFRConfig.from_params(lr_schedule="cosine")
    # The papers' mini-batches at a constant learning rate by default.
    assert (DeepCFRConfig().batch_mode, DeepCFRConfig().lr_schedule) == ("sample", "constant")


def test_full_memory_is_refused_where_samples_are_states() -> None:
    from pokerzoo.agents.deep.state_deep_cfr import StateDeepCFR

    agent = StateDeepCFR(load_game("kuhn_poker"), seed=0, device="cpu", traversals=2,
                         advantage_steps=1, batch_mode="full_memory")
    with pytest.raises(ConfigError, match="full_memory"):
        agent.iterate(1)
