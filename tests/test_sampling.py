"""``pokerzoo.sampling.sample_rows``: one draw per row, one uniform per row, checked weights."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.errors import InvalidPolicyError
from pokerzoo.sampling import sample_rows


def test_draws_follow_the_weights_within_the_mask() -> None:
    rng = np.random.default_rng(0)
    weights = np.tile([0.5, 0.25, 0.25, 0.0], (20_000, 1))
    mask = np.tile([0, 1, 1, 1], (20_000, 1))
    draws = sample_rows(weights, rng, mask)
    assert draws.dtype == np.int64
    assert set(np.unique(draws)) == {1, 2}
    assert abs((draws == 1).mean() - 0.5) < 0.02


def test_one_uniform_per_row_whatever_the_weights() -> None:
    weights = np.random.default_rng(1).random((7, 5))
    for w in (weights, weights.astype(np.float32), (weights > 0.5).astype(np.int8) + 1):
        rng, twin = np.random.default_rng(3), np.random.default_rng(3)
        sample_rows(w, rng)
        twin.random(7)
        assert rng.random() == twin.random()


def test_float32_weights_are_summed_in_float32() -> None:
    # A draw between the float32 and float64 cumulative sums tells the precision apart.
    w = np.array([[0.1, 0.2, 0.7]], dtype=np.float32)
    cum32 = np.cumsum(w, axis=1)
    u = float(np.random.default_rng(5).random(1)[0])
    expected = int(np.minimum((cum32 <= u * cum32[:, -1:]).sum(), 2))
    assert sample_rows(w, np.random.default_rng(5)).tolist() == [expected]


@pytest.mark.parametrize("row", [[np.nan, 1.0], [-0.5, 1.0], [0.0, 0.0], [np.inf, 1.0]])
def test_bad_rows_are_refused_naming_them(row: list[float]) -> None:
    weights = np.array([[0.5, 0.5], row])
    with pytest.raises(InvalidPolicyError, match="row 1 of the weights"):
        sample_rows(weights, np.random.default_rng(0))


def test_weights_only_off_the_mask_are_refused_naming_the_legal_actions() -> None:
    with pytest.raises(InvalidPolicyError, match=r"legal actions \[1\]"):
        sample_rows(np.array([[1.0, 0.0]]), np.random.default_rng(0), np.array([[0, 1]]))
