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


class FixedDraw:
    """A generator stand-in whose uniforms are all ``u`` (sample_rows only calls ``random``)."""

    def __init__(self, u: float) -> None:
        self.u = u

    def random(self, n: int) -> np.ndarray:
        return np.full(n, self.u)


def test_float32_weights_are_summed_in_float32_as_networks_give_them() -> None:
    # 0.1f + 0.2f rounds above the float64 sum of the same two numbers: a draw between the
    # two sums picks action 1 in float32 (NFSP's draws before sample_rows was shared) and
    # action 2 in float64.
    w = np.array([[0.1, 0.2, 0.7]], dtype=np.float32)
    in32, in64 = float(np.cumsum(w)[1]), float(np.cumsum(w.astype(np.float64))[1])
    assert in64 < in32
    u = (in32 + in64) / 2 / float(np.cumsum(w)[-1])
    assert sample_rows(w, FixedDraw(u)).tolist() == [1]  # type: ignore[arg-type]
    assert sample_rows(w.astype(np.float64), FixedDraw(u)).tolist() == [2]  # type: ignore[arg-type]


@pytest.mark.parametrize("row", [[np.nan, 1.0], [-0.5, 1.0], [0.0, 0.0], [np.inf, 1.0]])
def test_bad_rows_are_refused_naming_them(row: list[float]) -> None:
    weights = np.array([[0.5, 0.5], row])
    with pytest.raises(InvalidPolicyError, match="row 1 of the weights"):
        sample_rows(weights, np.random.default_rng(0))


def test_weights_only_off_the_mask_are_refused_naming_the_legal_actions() -> None:
    with pytest.raises(InvalidPolicyError, match=r"legal actions \[1\]"):
        sample_rows(np.array([[1.0, 0.0]]), np.random.default_rng(0), np.array([[0, 1]]))
