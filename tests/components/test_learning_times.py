"""NFSP-PLT learning times: bounds, monotonicity, the two normalisations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerzoo.components.learning_times import learning_times, sample_learning_times
from pokerzoo.components.prioritized import PrioritizedReplayBuffer

priorities = st.lists(st.floats(0.0, 1e3, allow_nan=False), min_size=1, max_size=64)


@settings(max_examples=200, deadline=None)
@given(priorities, st.integers(1, 5), st.integers(0, 10), st.sampled_from(["max", "sum"]))
def test_learning_times_within_bounds(p: list[float], n_min: int, extra: int, norm: str) -> None:
    n_max = n_min + extra
    lt = sample_learning_times(np.array(p), n_min, n_max, norm)
    assert lt.dtype == np.int64 and np.all((n_min <= lt) & (lt <= n_max))
    batch = learning_times(np.array(p), n_min, n_max, norm)
    assert isinstance(batch, int) and n_min <= batch <= n_max


@settings(max_examples=200, deadline=None)
@given(priorities, st.sampled_from(["max", "sum"]))
def test_learning_times_monotone_in_priority(p: list[float], norm: str) -> None:
    arr = np.array(p)
    order = np.argsort(arr, kind="stable")
    lt = sample_learning_times(arr, 1, 8, norm)
    assert np.all(np.diff(lt[order]) >= 0)
    # Raising every priority of a batch (against a fixed reference) never lowers its LT.
    ref = 2.0 * arr.max() + 1.0
    lo = learning_times(arr, 1, 8, max_priority=ref)
    hi = learning_times(arr * 1.5, 1, 8, max_priority=ref)
    assert hi >= lo


def test_max_normalisation_spans_the_range() -> None:
    p = np.array([0.05, 0.3, 0.5, 1.0, 2.0])
    # Against the buffer max 2: 0.025, 0.15, 0.25, 0.5, 1 times N_max = 8, rounded, clipped.
    assert sample_learning_times(p, 1, 8, max_priority=2.0).tolist() == [1, 1, 2, 4, 8]
    assert learning_times(np.array([2.0, 2.0]), 1, 8, max_priority=2.0) == 8
    assert learning_times(np.array([0.01, 0.02]), 1, 8, max_priority=2.0) == 1
    # Eq. (8): mean of 0.5 and 1.0 of the max is 0.75, times 8 is 6.
    assert learning_times(np.array([1.0, 2.0]), 1, 8, max_priority=2.0) == 6


def test_literal_sum_normalisation_collapses_to_n_min_on_a_real_buffer() -> None:
    """The reason for the default: with P(i) = p_i / sum p, a 30,000-item buffer gives
    mean P * N_max of about N_max / 30,000, so Eq. (8) always returns N_min."""
    rng = np.random.default_rng(0)
    buf = PrioritizedReplayBuffer(30_000, {"i": ((), np.int64)}, alpha=0.6, seed=1)
    buf.add({"i": np.arange(30_000)})
    buf.update_priorities(np.arange(30_000), rng.exponential(1.0, 30_000))
    sums, maxes = [], []
    for _ in range(20):
        s = buf.sample(128)
        sums.append(learning_times(s.priorities, 1, 10, "sum", total_priority=buf.total_priority))
        maxes.append(learning_times(s.priorities, 1, 10, "max", max_priority=buf.max_priority))
    assert set(sums) == {1}
    assert max(maxes) > 1 and min(maxes) >= 1
    # The buffer's helper passes its own maximum and total.
    s = buf.sample(128)
    assert buf.learning_times(s.priorities, 1, 10) == learning_times(
        s.priorities, 1, 10, max_priority=buf.max_priority
    )
    assert buf.learning_times(s.priorities, 1, 10, "sum") == 1


def test_all_zero_priorities_and_validation() -> None:
    assert learning_times(np.zeros(4), 2, 5) == 2
    with pytest.raises(ValueError, match="n_min"):
        learning_times(np.ones(2), 0, 3)
    with pytest.raises(ValueError, match="n_min"):
        learning_times(np.ones(2), 4, 3)
    with pytest.raises(ValueError, match="normalisation"):
        learning_times(np.ones(2), 1, 3, "mean")
    with pytest.raises(ValueError, match="non-negative"):
        learning_times(np.array([-1.0]), 1, 3)
    with pytest.raises(ValueError, match="at least one"):
        learning_times(np.array([]), 1, 3)
