"""Deep GXFP: sampled action utilities, best decisions, masking, Kuhn convergence, resume."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from pokerzoo import load_game  # noqa: E402
from pokerzoo.agents.deep.deep_gxfp import (  # noqa: E402
    DEEP_GXFP_PRESETS,
    DeepGXFP,
    DeepGXFPConfig,
    UtilitySamples,
    fold_rows,
    make_preset,
)
from pokerzoo.agents.deep.traversal import tree_utility_samples  # noqa: E402
from pokerzoo.errors import CheckpointError, ConfigError  # noqa: E402
from pokerzoo.evaluation import exploitability  # noqa: E402
from pokerzoo.games.base import CHANCE, TERMINAL  # noqa: E402
from pokerzoo.tree import build  # noqa: E402
from pokerzoo.tree.kernels.arrays import tree_arrays  # noqa: E402

KUHN = load_game("kuhn_poker")


@pytest.fixture(autouse=True)
def one_thread():
    """One torch thread (the tiny networks gain nothing from more on a shared machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# Small budgets so each test stays well under a minute on a shared CPU.
FAST: dict[str, Any] = {"utility_steps": 20, "strategy_steps": 20, "device": "cpu"}


def expected_utilities(tree, sigma: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Per information set of p: the expected visits per traversal (the others' and chance's
    reach summed over its histories) and the reach-weighted mean value of each action when
    everyone plays ``sigma`` below (a plain walk over the small tree)."""
    n = tree.num_nodes
    reach = np.ones(n)
    for node in range(1, n):  # parents come before children
        parent = tree.parent[node]
        who = tree.player[parent]
        step = (tree.chance_prob[node] if who == CHANCE else 1.0 if who == p
                else sigma[tree.infoset[parent], tree.action[node]])
        reach[node] = reach[parent] * step
    value = np.zeros(n)
    for node in range(n - 1, -1, -1):
        kids = range(tree.first_child[node], tree.first_child[node] + tree.num_children[node])
        if tree.player[node] == TERMINAL:
            value[node] = tree.utilities[node, p]
        elif tree.player[node] == CHANCE:
            value[node] = sum(tree.chance_prob[c] * value[c] for c in kids)
        else:
            value[node] = sum(sigma[tree.infoset[node], tree.action[c]] * value[c] for c in kids)
    visits = np.zeros(tree.num_infosets)
    sums = np.zeros((tree.num_infosets, tree.num_actions))
    for decision in np.flatnonzero(tree.player == p):
        node, iset = int(decision), tree.infoset[decision]
        visits[iset] += reach[node]
        for c in range(tree.first_child[node], tree.first_child[node] + tree.num_children[node]):
            sums[iset, tree.action[c]] += reach[node] * value[c]
    return visits, sums / np.maximum(visits, 1e-300)[:, None]


@pytest.mark.parametrize("p", [0, 1])
def test_sampled_utilities_average_to_the_action_utilities(p: int) -> None:
    tree = build(KUHN)
    rng = np.random.default_rng(5)
    sigma = rng.dirichlet([1.0, 1.0], size=tree.num_infosets)
    traversals = 40_000
    iset, utility = tree_utility_samples(tree_arrays(tree), sigma, p, traversals,
                                         np.random.default_rng(0))
    assert np.all(tree.infoset_player[iset] == p)
    visits, exact = expected_utilities(tree, sigma, p)
    counts = np.bincount(iset, minlength=tree.num_infosets)
    np.testing.assert_allclose(counts / traversals, visits, atol=0.01)
    means = np.zeros_like(exact)
    np.add.at(means, iset, utility)
    seen = counts > 0
    means[seen] /= counts[seen, None]
    np.testing.assert_allclose(means[seen], exact[seen], atol=0.05)
    # Workers cut the same traversals into shares: reproducible for a fixed number.
    a = tree_utility_samples(tree_arrays(tree), sigma, p, 100, np.random.default_rng(1), 3)
    b = tree_utility_samples(tree_arrays(tree), sigma, p, 100, np.random.default_rng(1), 3)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_illegal_actions_are_masked_everywhere() -> None:
    # Leduc has illegal actions (no raise after the cap, no fold without a bet to call).
    agent = DeepGXFP(load_game("leduc_holdem"), seed=0, traversals=20, utility_steps=3,
                     strategy_steps=3, batch_size=64, width=16, device="cpu")
    x, mask, utility = agent.sample_utilities(0, 20)
    assert (~mask).any() and np.all(utility[~mask] == 0)
    agent.iterate(1)
    legal = agent.tree.infoset_mask.astype(bool)
    for policy in (agent.policy(), agent.current_policy()):
        assert np.all(policy.probs[~legal] == 0)
        np.testing.assert_allclose(policy.probs.sum(axis=1), 1.0)
    best = agent._best(0, x, mask)
    assert np.all(mask[np.arange(len(best)), best])
    with torch.no_grad():
        predicted = agent.utility_nets[0].advantages(torch.as_tensor(x), torch.as_tensor(mask))
    assert torch.all(predicted[~torch.as_tensor(mask)] == 0)


def test_best_decisions_and_the_strategy_table() -> None:
    agent = DeepGXFP(KUHN, seed=2, **FAST)
    uniform = agent.policy().probs
    np.testing.assert_array_equal(agent.current_policy().probs, uniform)
    agent.iterate(2)
    # The current policy is each player's argmax of predicted utilities: pure rows.
    current = agent.current_policy().probs
    assert set(np.unique(current)) <= {0.0, 1.0}
    # The strategy network learned those decisions (cross-entropy on one-hot targets) and is
    # what the traversals read.
    np.testing.assert_allclose(agent.policy().probs, agent._sigma, atol=1e-6)
    assert not np.allclose(agent.policy().probs, uniform)
    assert len(agent.strategy_memory) > 0 and agent.utility_memories == []


@pytest.mark.slow
def test_deep_gxfp_solves_kuhn() -> None:
    agent = DeepGXFP(KUHN, seed=0, **FAST)
    before = exploitability(agent.tree, agent.policy())
    agent.iterate(25)
    after = exploitability(agent.tree, agent.policy())
    assert before > 0.4 and after < 0.05


class Recording(DeepGXFP):
    """Keeps the samples of its last update."""

    def sample_utilities(self, player: int, traversals: int) -> UtilitySamples:
        self.last = super().sample_utilities(player, traversals)
        return self.last


def test_folding_keeps_the_losses() -> None:
    agent = DeepGXFP(KUHN, seed=3, **FAST)
    x, mask, utility = agent.sample_utilities(0, 300)
    fx, fmask, total, mean = fold_rows(x, mask, np.ones(len(x)), utility)
    assert len(fx) == 6 and total.sum() == len(x)  # player 0's six information sets
    net = agent.utility_nets[0]
    with torch.no_grad():
        rows = net.advantages(torch.as_tensor(x), torch.as_tensor(mask)).numpy()
        sets = net.advantages(torch.as_tensor(fx), torch.as_tensor(fmask)).numpy()
    # Squared error over the samples = the means' squared error weighted by the counts plus
    # the samples' spread about their means, whatever the network predicts.
    inverse = (x[:, None, :] == fx[None]).all(axis=-1).argmax(axis=1)
    spread = ((utility - mean[inverse]) ** 2).sum()
    np.testing.assert_allclose(((rows - utility) ** 2).sum(),
                               (total[:, None] * (sets - mean) ** 2).sum() + spread, rtol=1e-4)


@pytest.mark.slow
def test_folded_targets_are_reproduced_and_samples_stay_available() -> None:
    # The paper's 100 steps per training; folded, each step sees every information set.
    agent = Recording(KUHN, seed=1, device="cpu", traversals=300)
    assert agent._folds(agent.config.utility_targets)  # "auto" on a compiled tree
    agent.iterate(8)
    x, mask, utility = agent.last  # player 1's samples of the last iteration
    fx, fmask, _, mean = fold_rows(x, mask, np.ones(len(x)), utility)
    with torch.no_grad():
        fitted = agent.utility_nets[1].advantages(torch.as_tensor(fx), torch.as_tensor(fmask))
    np.testing.assert_allclose(fitted.numpy(), np.where(fmask, mean, 0), atol=0.02)
    kept = agent.strategy_memory.gather(np.arange(len(agent.strategy_memory)))
    sx, smask, _, frequency = fold_rows(kept["x"], kept["mask"], np.ones(len(kept["x"])),
                                        np.eye(2)[kept["action"]])
    assert len(sx) == 12
    np.testing.assert_allclose(agent.strategy_probs(sx, smask), frequency, atol=0.01)
    # The mini-batches of single samples remain an option (and are what "auto" picks
    # without a tree).
    old = DeepGXFP(KUHN, seed=1, utility_targets="samples", strategy_targets="samples",
                   **{**FAST, "traversals": 50, "utility_steps": 3, "strategy_steps": 3})
    assert not old._folds(old.config.utility_targets)
    old.iterate(1)
    assert old.iteration == 1


@pytest.mark.parametrize("params", [
    {}, {"utility_scope": "reservoir", "from_scratch": True},
    {"utility_targets": "samples", "strategy_targets": "samples"},
])
def test_resume_equals_an_uninterrupted_run(tmp_path, params) -> None:
    params = {**FAST, "traversals": 30, "utility_steps": 5, "strategy_steps": 5,
              "batch_size": 64, **params}
    straight = DeepGXFP(KUHN, seed=4, **params)
    straight.iterate(4)
    first = DeepGXFP(KUHN, seed=4, **params)
    first.iterate(2)
    snapshot = first.state_dict()
    first.save(tmp_path / "gxfp.ckpt")
    np.testing.assert_array_equal(first.state_dict()["sigma"], snapshot["sigma"])
    resumed = DeepGXFP(KUHN, seed=99, **params)
    resumed.load(tmp_path / "gxfp.ckpt")
    resumed.iterate(2)
    assert resumed.iteration == straight.iteration == 4
    nets = [*straight.utility_nets, straight.strategy_net]
    for a, b in zip(nets, [*resumed.utility_nets, resumed.strategy_net], strict=True):
        for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
            assert torch.equal(pa, pb)
    np.testing.assert_array_equal(straight.policy().probs, resumed.policy().probs)
    np.testing.assert_array_equal(straight.current_policy().probs,
                                  resumed.current_policy().probs)
    assert len(straight.strategy_memory) == len(resumed.strategy_memory)


def test_bad_configs_and_checkpoints_are_refused(tmp_path) -> None:
    with pytest.raises(ConfigError, match="traversals must be >= 1"):
        DeepGXFPConfig(traversals=0)
    with pytest.raises(ConfigError, match="utility_scope"):
        DeepGXFPConfig(utility_scope="everything")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="best_decisions must be one of"):
        DeepGXFPConfig(best_decisions="all")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="utility_targets must be one of"):
        DeepGXFPConfig(utility_targets="medians")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="strategy_targets"):
        DeepGXFPConfig.from_params(strategy_targets="means")
    with pytest.raises(ConfigError, match="strategy_weighting"):
        DeepGXFPConfig.from_params(strategy_weighting="exponential")
    with pytest.raises(ConfigError, match="learning_rate must be > 0"):
        DeepGXFPConfig(learning_rate=0.0)
    with pytest.raises(ConfigError, match="did you mean 'traversals'"):
        DeepGXFPConfig.from_params(travesals=5)
    with pytest.raises(ConfigError, match="Deep GXFP preset"):
        make_preset("deep-gxfp-fast", KUHN)
    with pytest.raises(ConfigError, match="workers"):
        DeepGXFP(KUHN, workers=0, **FAST)
    agent = DeepGXFP(KUHN, **FAST)
    with pytest.raises(ConfigError, match="whole number"):
        agent.iterate(1.5)  # type: ignore[arg-type]
    agent.save(tmp_path / "a.ckpt")
    with pytest.raises(CheckpointError, match="differs"):
        DeepGXFP(KUHN, width=32, utility_steps=20, strategy_steps=20).load(tmp_path / "a.ckpt")
    with pytest.raises(CheckpointError, match="game"):
        DeepGXFP(load_game("leduc_holdem"), **FAST).load(tmp_path / "a.ckpt")
    paper = DEEP_GXFP_PRESETS["deep-gxfp"]
    assert (paper.traversals, paper.utility_steps, paper.learning_rate) == (1_000, 100, 1e-3)


def test_traversal_workers_are_reproducible() -> None:
    # In-process shares: each from its own seed drawn from the agent's generator.
    params = {**FAST, "traversals": 40, "utility_steps": 3, "strategy_steps": 3,
              "batch_size": 64}
    a, b = (DeepGXFP(KUHN, seed=3, workers=2, **params) for _ in range(2))
    for agent in (a, b):
        agent.iterate(2)
    np.testing.assert_array_equal(a.policy().probs, b.policy().probs)
    assert len(a.strategy_memory) == len(b.strategy_memory) > 0
