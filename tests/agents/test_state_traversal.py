"""State traversals of Deep CFR: samples equal the tree kernel's in distribution (Leduc, fixed
strategies), Deep CFR on them learns Kuhn and Leduc, and the network policy plays hold'em."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from pokerzoo import load_game  # noqa: E402
from pokerzoo.agents.deep.base import tree_fits  # noqa: E402
from pokerzoo.agents.deep.deep_cfr import DeepCFR, make_preset  # noqa: E402
from pokerzoo.agents.deep.state_deep_cfr import StateDeepCFR  # noqa: E402
from pokerzoo.agents.deep.state_policy import NetworkStatePolicy  # noqa: E402
from pokerzoo.agents.deep.state_traversal import external_sampling_states  # noqa: E402
from pokerzoo.agents.deep.traversal import TraversalSpec, traverse_share  # noqa: E402
from pokerzoo.components.networks import torch_threads  # noqa: E402
from pokerzoo.errors import ConfigError, InvalidPolicyError, TreeTooLargeError  # noqa: E402
from pokerzoo.evaluation import exploitability, head_to_head  # noqa: E402
from pokerzoo.evaluation.lbr import local_best_response  # noqa: E402
from pokerzoo.policy import UniformRandomPolicy  # noqa: E402
from pokerzoo.sampling import sample_rows  # noqa: E402
from pokerzoo.tree import build  # noqa: E402
from pokerzoo.tree.kernels.arrays import tree_arrays  # noqa: E402


@pytest.fixture(autouse=True)
def one_thread():
    with torch_threads(1):  # the small networks gain nothing from more on a shared machine
        yield


FAST = {"traversals": 20, "advantage_steps": 20, "policy_steps": 50, "batch_size": 128}


def _table_strategy(tree, sigma):
    """A strategy over tensors that reads a fixed table (tensors identify Leduc's infosets)."""
    rows = {}
    for i in range(tree.num_infosets):
        key = tree.infoset_state(i).information_state_tensor(int(tree.infoset_player[i]))
        rows[(int(tree.infoset_player[i]), key.tobytes())] = i
    assert len(rows) == tree.num_infosets

    def isets(player, x):
        return np.array([rows[(player, row.tobytes())] for row in x])

    return (lambda player, x, mask: sigma[isets(player, x)]), isets


def _stats(isets, values, n, num_isets):
    """Per (infoset, action): mean per traversal and variance of one traversal's contribution
    (an infoset is reached at most once per traversal, so rows are per-traversal values)."""
    total = np.zeros((num_isets, values.shape[1]))
    square = np.zeros_like(total)
    np.add.at(total, isets, values)
    np.add.at(square, isets, values**2)
    mean = total / n
    return mean, square / n - mean**2


@pytest.mark.slow
@pytest.mark.parametrize("player", [0, 1])
def test_state_samples_match_the_tree_kernel_in_distribution(player: int) -> None:
    game = load_game("leduc_holdem")
    tree = build(game)
    rng = np.random.default_rng(7)
    mask = tree.infoset_mask
    sigma = np.where(mask, rng.gamma(0.7, size=mask.shape), 0.0)
    sigma /= sigma.sum(axis=1, keepdims=True)
    strategy, isets = _table_strategy(tree, sigma)
    n, n_ref = 4_000, 300_000
    s = external_sampling_states(game, strategy, player, n, np.random.default_rng(1))
    ref = traverse_share(TraversalSpec(tree_arrays(tree), sigma, player), (n_ref, 2))
    r_iset, s_iset = isets(player, s.tensors), isets(1 - player, s.strategy_tensors)
    # Each row is what the kernel would write: legal mask, the table's strategy, regrets.
    np.testing.assert_array_equal(s.masks, mask[r_iset])
    np.testing.assert_allclose(s.sigma, sigma[r_iset])
    np.testing.assert_allclose(s.strategy_sigma, sigma[s_iset])
    assert s.num_traversals == n and len(s.root_values) == n
    regrets = s.regrets
    np.testing.assert_allclose((regrets * s.sigma).sum(axis=1), 0.0, atol=1e-9)
    # Expected regret per traversal and visits per traversal, each (infoset, action) a z-score.
    for got, want in (
        (_stats(r_iset, regrets, n, tree.num_infosets),
         _stats(ref[0], ref[1], n_ref, tree.num_infosets)),
        (_stats(r_iset, np.ones((len(r_iset), 1)), n, tree.num_infosets),
         _stats(ref[0], np.ones((len(ref[0]), 1)), n_ref, tree.num_infosets)),
        (_stats(s_iset, np.ones((len(s_iset), 1)), n, tree.num_infosets),
         _stats(ref[2], np.ones((len(ref[2]), 1)), n_ref, tree.num_infosets)),
    ):
        var = want[1] / n + want[1] / n_ref
        ok = var > 1e-9
        z = (got[0] - want[0])[ok] / np.sqrt(var[ok])
        assert ok.sum() > 100
        assert 0.75 < np.mean(z**2) < 1.3 and np.max(np.abs(z)) < 6.0


def test_state_traversals_back_up_exact_values_in_kuhn() -> None:
    # Traverser 0 uniform, the opponent always passes/folds: at the root decision betting wins
    # the ante (+1), passing goes to showdown (+-1), and the root value is their average.
    game = load_game("kuhn_poker")

    def strategy(player, x, mask):
        if player == 0:
            return mask / mask.sum(axis=1, keepdims=True)
        out = np.zeros(mask.shape)
        out[:, 0] = 1.0  # pass / fold
        return out

    s = external_sampling_states(game, strategy, 0, 3_000, np.random.default_rng(3), frontier=97)
    assert s.num_traversals == 3_000 and len(s.tensors) == 3_000  # one decision each
    np.testing.assert_array_equal(s.values[:, 1], 1.0)
    assert set(np.unique(s.values[:, 0])) == {-1.0, 1.0}
    np.testing.assert_allclose(s.root_values, s.values.mean(axis=1))
    np.testing.assert_allclose(s.regrets, (s.values - s.root_values[:, None]))
    # The opponent answers in both branches of every traversal.
    assert len(s.strategy_tensors) == 6_000 and abs(s.root_values.mean() - 0.5) < 0.05


def test_sample_rows_and_bad_strategies() -> None:
    probs = np.array([[0.0, 1.0, 0.0], [0.2, 0.0, 0.8]] * 5000)
    actions = sample_rows(probs, np.random.default_rng(0))
    assert np.all(actions[::2] == 1) and set(actions[1::2]) == {0, 2}
    assert abs(np.mean(actions[1::2] == 2) - 0.8) < 0.02
    game = load_game("kuhn_poker")
    with pytest.raises(InvalidPolicyError, match="seat 0"):
        external_sampling_states(game, lambda p, x, m: np.zeros(m.shape), 1, 2,
                                 np.random.default_rng(0))
    with pytest.raises(ConfigError, match="frontier"):
        external_sampling_states(game, lambda p, x, m: m * 1.0, 0, 2, np.random.default_rng(0),
                                 frontier=0)
    with pytest.raises(ConfigError, match="workers must be 1"):
        StateDeepCFR(game, workers=2)


def test_deep_cfr_picks_state_traversals_for_games_without_a_tree() -> None:
    assert tree_fits(load_game("leduc_holdem")) and not tree_fits(load_game("no_limit_holdem"))
    assert type(make_preset("deep-cfr", load_game("kuhn_poker"), device="cpu")) is DeepCFR
    agent = make_preset("deep-cfr", load_game("no_limit_holdem"), seed=0, device="cpu",
                        traversals=4, advantage_steps=2, policy_steps=2, batch_size=8,
                        advantage_memory=500, strategy_memory=500, width=16)
    assert type(agent) is StateDeepCFR and agent.tree is None
    # Built directly, the tree version refuses such a game, naming the version to use.
    with pytest.raises(TreeTooLargeError, match="StateDeepCFR .*make_agent"):
        DeepCFR(load_game("no_limit_holdem"), device="cpu")
    agent.iterate(1)
    assert all(len(m) > 0 for m in agent.advantage_memories) and len(agent.strategy_memory)
    policy = agent.policy()
    assert isinstance(policy, NetworkStatePolicy)
    # The evaluators play it: a match against random and a (tiny) local best response.
    match = head_to_head(agent.game, [policy, UniformRandomPolicy()], 2, seed=0)
    assert match.num_hands == 4
    lbr = local_best_response(agent.game, policy, 1, seed=0, wp_samples=2)
    assert np.isfinite(lbr.mean_chips)


def test_range_sweeps_answer_like_single_states() -> None:
    game = load_game("no_limit_holdem")
    net = StateDeepCFR(game, device="cpu", width=16)._new_net(np.random.default_rng(0))
    policy = NetworkStatePolicy(game, [net, net])
    state = game.new_initial_state()
    for card in (51, 47, 0, 5):
        state.apply_action(card)
    single = NetworkStatePolicy(game, [net, net])
    for hole in ([51, 47], [12, 30], [47, 51], [3, 9]):  # the second hand builds the table
        probe = state.clone()
        probe.replace_private_cards(0, hole)
        want = single.probabilities(0, probe.information_state_tensor(0)[None],
                                    probe.legal_actions_mask()[None])[0]
        got = policy.action_probabilities(probe)
        np.testing.assert_allclose([got[a] for a in probe.legal_actions()],
                                   want[probe.legal_actions()], rtol=1e-5, atol=1e-6)
    assert len(policy._ranges) == 1


@pytest.mark.slow
@pytest.mark.parametrize(("name", "iterations", "params", "floor", "target"), [
    # Kuhn: from 0.46 (uniform) to below 0.1; Leduc: from 2.37 to below half of that.
    ("kuhn_poker", 12, {"traversals": 100, "advantage_steps": 60, "batch_size": 128}, 0.4, 0.1),
    ("leduc_holdem", 4, {"traversals": 200, "advantage_steps": 80, "batch_size": 256}, 2.0,
     1.15),
])
def test_deep_cfr_on_state_traversals_lowers_exploitability(
    name: str, iterations: int, params: dict, floor: float, target: float
) -> None:
    game = load_game(name)
    agent = StateDeepCFR(game, seed=0 if name == "kuhn_poker" else 1, device="cpu",
                         policy_steps=300, **params)
    tree = build(game)
    before = exploitability(tree, agent.policy())
    agent.iterate(iterations)
    after = exploitability(tree, agent.policy())
    assert before > floor and after < target
    assert agent.nodes_touched > iterations * 2 * params["traversals"]


def test_resume_equals_an_uninterrupted_run(tmp_path) -> None:

    game = load_game("leduc_holdem")
    straight = StateDeepCFR(game, seed=4, device="cpu", **FAST)
    straight.iterate(3)
    first = StateDeepCFR(game, seed=4, device="cpu", **FAST)
    first.iterate(1)
    first.save(tmp_path / "deep.ckpt")
    resumed = StateDeepCFR(game, seed=99, device="cpu", **FAST)
    resumed.load(tmp_path / "deep.ckpt")
    resumed.iterate(2)
    for a, b in zip(straight.advantage_nets, resumed.advantage_nets, strict=True):
        for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
            assert torch.equal(pa, pb)
    tree = build(game)
    assert exploitability(tree, straight.policy()) == exploitability(tree, resumed.policy())
