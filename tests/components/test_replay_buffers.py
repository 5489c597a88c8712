"""Uniform replay and reservoir buffers: storage order, uniformity, validation, checkpoints."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy import stats

from pokerzoo.components.replay import Batch, ReplayBuffer, ReservoirBuffer, transition_fields

SPEC = {"x": ((2,), np.float32), "a": ((), np.int64)}


def _items(start: int, n: int) -> dict[str, np.ndarray]:
    a = np.arange(start, start + n)
    return {"x": np.stack([a, -a], axis=1).astype(np.float32), "a": a}


def test_ring_buffer_keeps_the_newest_items_in_order() -> None:
    buf = ReplayBuffer(5, SPEC, seed=0)
    buf.add(_items(0, 3))
    buf.add({"x": np.array([3.0, -3.0]), "a": np.int64(3)})  # a single item
    buf.add_batch(_items(4, 4))
    assert len(buf) == 5
    stored = buf.gather(np.arange(5))
    # Slots wrap: items 5, 6, 7 overwrote 0, 1, 2.
    assert stored.a.tolist() == [5, 6, 7, 3, 4]
    np.testing.assert_array_equal(stored.x[:, 1], -stored.a)


def test_oversized_batch_keeps_its_last_capacity_rows() -> None:
    buf = ReplayBuffer(4, SPEC, seed=0)
    buf.add(_items(0, 10))
    assert sorted(buf.gather(np.arange(4)).a.tolist()) == [6, 7, 8, 9]


def test_uniform_sampling_is_uniform_and_seeded() -> None:
    buf = ReplayBuffer(8, SPEC, seed=3)
    buf.add(_items(0, 8))
    draws = np.concatenate([buf.sample(64).a for _ in range(200)])
    counts = np.bincount(draws, minlength=8)
    assert stats.chisquare(counts).pvalue > 1e-3
    again = ReplayBuffer(8, SPEC, seed=3)
    again.add(_items(0, 8))
    np.testing.assert_array_equal(again.sample(64).a, draws[:64])


def test_sample_without_replacement_is_distinct() -> None:
    buf = ReplayBuffer(10, SPEC, seed=1)
    buf.add(_items(0, 10))
    assert len(set(buf.sample(10, replace=False).a.tolist())) == 10
    with pytest.raises(ValueError, match="distinct"):
        buf.sample(11, replace=False)


def test_batch_is_a_typed_immutable_mapping() -> None:
    buf = ReplayBuffer(4, transition_fields(3, 2), seed=0)
    n = 3
    buf.add(
        {
            "obs": np.ones((n, 3)),
            "mask": np.ones((n, 2)),
            "action": np.zeros(n),
            "reward": np.arange(n),
            "next_obs": np.zeros((n, 3)),
            "next_mask": np.ones((n, 2)),
            "done": np.ones(n),
        }
    )
    b = buf.sample(6)
    assert isinstance(b, Batch) and b.size == 6
    assert b.obs.dtype == np.float32 and b.mask.dtype == np.int8 and b.action.dtype == np.int64
    assert b["next_obs"].shape == (6, 3) and set(b) == set(transition_fields(3, 2))
    with pytest.raises(AttributeError):
        b.obs = None  # type: ignore[misc]
    with pytest.raises(AttributeError, match="no field"):
        _ = b.missing


def test_validation_errors_are_clear() -> None:
    with pytest.raises(ValueError, match="capacity"):
        ReplayBuffer(0, SPEC)
    with pytest.raises(ValueError, match="shape, dtype"):
        ReplayBuffer(3, {"x": "float32"})
    buf = ReplayBuffer(3, SPEC)
    with pytest.raises(KeyError, match="missing \\['a'\\]"):
        buf.add({"x": np.zeros((1, 2))})
    with pytest.raises(ValueError, match="item shape"):
        buf.add({"x": np.zeros((2, 3)), "a": np.zeros(2)})
    with pytest.raises(ValueError, match="rows"):
        buf.add({"x": np.zeros((2, 2)), "a": np.zeros(3)})
    with pytest.raises(ValueError, match="leading batch axis"):
        buf.add_batch({"x": np.zeros(2), "a": np.int64(0)})
    with pytest.raises(ValueError, match="empty"):
        buf.sample(1)


def test_reservoir_fills_then_keeps_capacity_items() -> None:
    res = ReservoirBuffer(5, SPEC, seed=0)
    res.add(_items(0, 3))
    assert len(res) == 3 and res.seen == 3
    res.add(_items(3, 100))
    assert len(res) == 5 and res.seen == 103
    kept = res.gather(np.arange(5)).a
    assert len(set(kept.tolist())) == 5 and kept.max() < 103


@pytest.mark.parametrize("chunk", [1, 7, 250])
def test_reservoir_is_a_uniform_sample_of_the_stream(chunk: int) -> None:
    """Every stream position ends in the reservoir with probability capacity / stream length,
    whether items arrive one at a time or in vectorised batches."""
    capacity, stream, trials = 10, 50, 3000 if chunk > 1 else 600
    rng = np.random.default_rng(11)
    counts = np.zeros(stream, dtype=np.int64)
    for _ in range(trials):
        res = ReservoirBuffer(capacity, {"t": ((), np.int64)}, seed=rng)
        for s in range(0, stream, chunk):
            res.add_batch({"t": np.arange(s, min(stream, s + chunk))})
        counts[res.gather(np.arange(capacity)).t] += 1
    assert counts.sum() == trials * capacity
    assert stats.chisquare(counts).pvalue > 1e-3


@pytest.mark.parametrize("cls", [ReplayBuffer, ReservoirBuffer])
def test_state_dict_round_trip_continues_identically(cls: type) -> None:
    buf = cls(6, SPEC, seed=5)
    buf.add(_items(0, 9))
    state = pickle.loads(pickle.dumps(buf.state_dict()))
    copy = cls(6, SPEC, seed=123)
    copy.load_state_dict(state)
    assert len(copy) == len(buf)
    np.testing.assert_array_equal(copy.gather(np.arange(6)).x, buf.gather(np.arange(6)).x)
    for b in (buf, copy):
        b.add(_items(9, 20))
    np.testing.assert_array_equal(copy.sample(16).a, buf.sample(16).a)


def test_load_state_dict_rejects_a_different_buffer() -> None:
    state = ReplayBuffer(6, SPEC).state_dict()
    with pytest.raises(ValueError, match="capacity"):
        ReplayBuffer(7, SPEC).load_state_dict(state)
    with pytest.raises(ValueError, match="reservoir"):
        ReservoirBuffer(6, SPEC).load_state_dict(state)
    with pytest.raises(ValueError, match="field spec"):
        ReplayBuffer(6, {"x": ((3,), np.float32), "a": ((), np.int64)}).load_state_dict(state)
