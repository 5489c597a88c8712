"""Deep CFR's folded batches (one network row per distinct information set) give the
per-sample loss's gradient; the traversal kernel counts the nodes it touches."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from pokerzoo import load_game  # noqa: E402
from pokerzoo.agents.deep import kernels as K  # noqa: E402
from pokerzoo.agents.deep.deep_cfr import DeepCFR  # noqa: E402
from pokerzoo.tree.kernels.arrays import tree_arrays  # noqa: E402


def _grads(net: Any, loss: Any) -> list[Any]:
    return [g.clone() for g in torch.autograd.grad(loss, list(net.parameters()))]


@pytest.mark.parametrize("policy", [False, True])
def test_folded_batch_has_the_per_sample_gradient(policy: bool) -> None:
    agent = DeepCFR(load_game("leduc_holdem"), seed=3, traversals=40, advantage_steps=2,
                    policy_steps=2, batch_size=64, device="cpu", regret_scale=2.0)
    agent.iterate(3)  # samples of several iterations, so the weights t differ
    memory = agent.strategy_memory if policy else agent.advantage_memories[0]
    batch = memory.gather(np.random.default_rng(0).integers(0, len(memory), size=500))
    assert len(np.unique(batch.iset)) < len(batch.iset)  # repeats, so folding does fold
    net = agent._new_net(np.random.default_rng(1))

    def loss(x, mask, t, target):
        if policy:
            logp = torch.log_softmax(net.policy_logits(x, mask), dim=-1)
            per = -(target * logp.masked_fill(~mask, 0.0)).sum(-1)
        else:
            per = ((net.advantages(x, mask) - target / 2.0) ** 2).sum(-1)
        return (t * per).sum() / t.sum()

    iset = torch.as_tensor(batch.iset)
    per_sample = _grads(net, loss(agent._tensors[iset], agent._masks[iset],
                                  torch.as_tensor(batch.t), torch.as_tensor(batch.value)))
    folded = _grads(net, loss(*agent._folded_batch(batch)))
    for a, b in zip(per_sample, folded, strict=True):
        assert torch.allclose(a, b, rtol=1e-4, atol=1e-6)


def test_kernel_counts_the_nodes_it_touches() -> None:
    tree = DeepCFR(load_game("kuhn_poker"), seed=0, device="cpu").tree
    arrays = tree_arrays(tree)
    sigma = tree.infoset_mask / tree.infoset_mask.sum(axis=1, keepdims=True)
    n, a = tree.num_nodes, tree.num_actions
    width = max(a, int(tree.num_children.max()))
    bound = K.samples_bound(tree)
    work = (np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n),
            np.zeros(n, dtype=np.int64), np.zeros(width))
    out = (np.zeros(50 * bound, dtype=np.int64), np.zeros((50 * bound, a)),
           np.zeros(50 * bound, dtype=np.int64), np.zeros((50 * bound, a)))
    nodes = np.zeros(1, dtype=np.int64)
    done, _, _ = K.external_traversals(np.random.default_rng(0), arrays, sigma, 0, 1, bound,
                                       *work, *out, nodes)
    # One traversal of player 0: the deal, player 0's first decision with both its actions
    # explored, player 1's replies sampled: 6 to 9 nodes depending on the tree's deal nodes.
    assert done == 1 and 5 <= nodes[0] <= 9
    before = int(nodes[0])
    K.external_traversals(np.random.default_rng(0), arrays, sigma, 0, 1, bound, *work, *out,
                          nodes)
    assert nodes[0] == 2 * before  # same seed, same traversal: counts accumulate
