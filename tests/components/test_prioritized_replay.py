"""Segment trees and prioritized replay: proportional sampling, exact weights, beta schedule."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy import stats

from pokerzoo.components.prioritized import (
    MinTree,
    PrioritizedReplayBuffer,
    SegmentTree,
    SumTree,
)

SPEC = {"i": ((), np.int64)}


def test_trees_match_brute_force_after_batched_updates() -> None:
    rng = np.random.default_rng(0)
    cap = 37  # not a power of two
    s, m, mx = SumTree(cap), MinTree(cap), SegmentTree(cap, "max")
    ref = np.zeros(cap)
    seen = np.zeros(cap, dtype=bool)
    for _ in range(50):
        idx = rng.integers(0, cap, size=rng.integers(1, 20))
        val = rng.random(len(idx)) * 10
        for t in (s, m, mx):
            t.update(idx, val)
        for i, v in zip(idx, val):  # sequential semantics: the last write wins
            ref[i] = v
        seen[idx] = True
        assert s.total() == pytest.approx(ref.sum())
        assert mx.total() == ref[seen].max()
        assert m.total() == ref[seen].min()  # unwritten leaves hold +inf, not 0
    np.testing.assert_allclose(s[:], ref)


def test_find_prefix_matches_cumsum_search() -> None:
    rng = np.random.default_rng(1)
    cap = 100
    tree = SumTree(cap)
    p = rng.random(cap) + 0.01
    tree.update(np.arange(cap), p)
    u = rng.random(5000) * p.sum()
    expected = np.searchsorted(np.cumsum(p), u, side="right")
    np.testing.assert_array_equal(tree.find_prefix(u), np.minimum(expected, cap - 1))
    # Targets at or past the total land on the last positive leaf.
    assert tree.find_prefix(np.array([p.sum(), 2 * p.sum()])).tolist() == [cap - 1, cap - 1]


def test_tree_validation() -> None:
    with pytest.raises(ValueError, match="op"):
        SegmentTree(4, "prod")
    with pytest.raises(IndexError):
        SumTree(4).update(np.array([4]), np.array([1.0]))
    with pytest.raises(TypeError, match="sum tree"):
        MinTree(4).find_prefix(np.array([0.0]))


@pytest.mark.parametrize("batch_size", [1, 32])
def test_sampling_frequencies_match_priorities(batch_size: int) -> None:
    buf = PrioritizedReplayBuffer(10, SPEC, alpha=1.0, eps=1e-9, seed=7)
    buf.add({"i": np.arange(10)})
    td = np.arange(1, 11, dtype=np.float64)  # priorities 1..10
    buf.update_priorities(np.arange(10), td)
    n_draws = 32_000
    draws = np.concatenate([buf.sample(batch_size).batch.i for _ in range(n_draws // batch_size)])
    counts = np.bincount(draws, minlength=10)
    expected = n_draws * td / td.sum()
    assert stats.chisquare(counts, expected).pvalue > 1e-3
    np.testing.assert_allclose(buf.probabilities(), td / td.sum())


def test_alpha_shapes_priorities_and_zero_alpha_is_uniform() -> None:
    buf = PrioritizedReplayBuffer(4, SPEC, alpha=0.5, eps=0.25, seed=0)
    buf.add({"i": np.arange(4)})
    buf.update_priorities(np.arange(4), np.array([-0.75, 3.75, 8.75, 0.0]))
    np.testing.assert_allclose(buf.priorities(), [1.0, 2.0, 3.0, 0.5])
    flat = PrioritizedReplayBuffer(4, SPEC, alpha=0.0, seed=0)
    flat.add({"i": np.arange(4)})
    flat.update_priorities(np.arange(4), np.array([0.0, 1.0, 100.0, 5.0]))
    np.testing.assert_allclose(flat.probabilities(), 0.25)


def test_importance_weights_and_beta_annealing_exact() -> None:
    """Priorities 1, 2, 4 (alpha 1, eps 0.5): P = 1/7, 2/7, 4/7 with N = 3, so
    (N P(i))^-beta / max_j (N P(j))^-beta = (p_i / 1)^-beta; beta goes 0.4, 0.55, ..., 1."""
    buf = PrioritizedReplayBuffer(8, SPEC, alpha=1.0, beta0=0.4, beta_steps=4, eps=0.5, seed=0)
    buf.add({"i": np.arange(3)})
    buf.update_priorities(np.arange(3), np.array([0.5, 1.5, 3.5]))
    assert buf.total_priority == 7.0 and buf.min_priority == 1.0 and buf.max_priority == 4.0
    n, prob = 3, np.array([1.0, 2.0, 4.0]) / 7.0
    for beta in [0.4, 0.55, 0.7, 0.85, 1.0, 1.0]:
        assert buf.beta == pytest.approx(beta)
        s = buf.sample(64)
        raw = (n * prob[s.indices]) ** -beta
        np.testing.assert_allclose(s.weights, raw / (n * prob.min()) ** -beta, rtol=1e-6)
        np.testing.assert_allclose(
            s.weights, np.array([1.0, 2.0, 4.0])[s.indices] ** -beta, rtol=1e-6
        )
        np.testing.assert_array_equal(s.priorities, 2.0**s.indices)
        assert s.batch.i.tolist() == s.indices.tolist()
    # An explicit beta neither uses nor advances the schedule.
    calls = buf.sample_calls
    np.testing.assert_allclose(buf.sample(8, beta=0.0).weights, 1.0)
    assert buf.sample_calls == calls


def test_new_items_enter_at_the_max_priority_seen() -> None:
    buf = PrioritizedReplayBuffer(4, SPEC, alpha=1.0, eps=1e-6, seed=0)
    buf.add({"i": np.arange(2)})
    np.testing.assert_allclose(buf.priorities(), 1.0)  # nothing seen yet: 1
    buf.update_priorities(np.array([0, 1]), np.array([5.0, 0.1]))
    buf.add({"i": np.array([2])})
    assert buf.priorities()[2] == pytest.approx(5.0 + 1e-6)
    # The ring overwrites slot 0 and its priority.
    buf.add({"i": np.arange(3, 5)})
    assert buf.gather(np.array([0])).i[0] == 4
    assert buf.priorities()[0] == pytest.approx(5.0 + 1e-6)
    with pytest.raises(ValueError, match="TD errors"):
        buf.update_priorities(np.array([0]), np.array([1.0, 2.0]))


def test_update_priorities_rejects_unstored_slots() -> None:
    buf = PrioritizedReplayBuffer(8, SPEC)
    buf.add({"i": np.arange(3)})
    with pytest.raises(ValueError, match="stored slots"):
        buf.update_priorities(np.array([5]), np.array([1.0]))
    with pytest.raises(ValueError, match="beta0"):
        PrioritizedReplayBuffer(8, SPEC, beta0=1.5)
    with pytest.raises(ValueError, match="eps"):
        PrioritizedReplayBuffer(8, SPEC, eps=0.0)


def test_state_dict_round_trip() -> None:
    kw = {"alpha": 0.6, "beta0": 0.4, "beta_steps": 10}
    buf = PrioritizedReplayBuffer(16, SPEC, seed=2, **kw)
    buf.add({"i": np.arange(20)})
    s = buf.sample(8)
    buf.update_priorities(s.indices, np.linspace(0, 3, 8))
    copy = PrioritizedReplayBuffer(16, SPEC, seed=99, **kw)
    copy.load_state_dict(pickle.loads(pickle.dumps(buf.state_dict())))
    np.testing.assert_array_equal(copy.priorities(), buf.priorities())
    assert copy.beta == buf.beta and copy.new_priority == buf.new_priority
    a, b = buf.sample(8), copy.sample(8)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.weights, b.weights)
    with pytest.raises(ValueError, match="alpha"):
        PrioritizedReplayBuffer(16, SPEC, alpha=0.7).load_state_dict(buf.state_dict())
