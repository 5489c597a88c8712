"""One draw per row of a matrix of weights: how every batched sampler in pokerzoo picks actions.

Self-play learners, traversals and batched opponents all hold ``[n, k]`` weights (a policy's
probabilities, a legal-action mask, a network's answer) and need one index per row. They share
this one routine so that they consume their ``numpy.random.Generator`` alike: exactly one
uniform per row, ``rng.random(n)``, whatever the weights.

>>> rng = np.random.default_rng(0)
>>> mask = np.array([[0, 1, 1], [1, 1, 0]], dtype=np.int8)
>>> sample_rows(mask.astype(float), rng, mask).tolist()
[2, 0]
"""

from __future__ import annotations

import numpy as np

from pokerzoo.errors import InvalidPolicyError


def sample_rows(
    weights: np.ndarray, rng: np.random.Generator, mask: np.ndarray | None = None
) -> np.ndarray:
    """One index per row of ``weights`` (``[n, k]``, rows need not sum to 1), drawn with
    probability proportional to the row's weights (restricted to ``mask > 0`` when given).

    Row i takes the first index whose cumulative weight exceeds ``u_i * total_i``, with one
    uniform ``u_i`` per row from ``rng``; an index of zero weight is never drawn. The sums are
    taken in the weights' own precision (a network's float32 probabilities in float32; integer
    or boolean weights, such as masks, in float64), so pass float64 weights for float64 sums.

    Returns:
        ``[n]`` int64 indices.

    Raises:
        InvalidPolicyError: a row with NaN, infinite or negative weights, or none on an
            allowed index.
    """
    w = np.asarray(weights)
    if not np.issubdtype(w.dtype, np.floating):
        w = w.astype(np.float64)
    if mask is not None:
        w = np.where(np.asarray(mask) > 0, w, 0.0)
    cum = np.cumsum(w, axis=1)
    total = cum[:, -1]
    bad = ~np.isfinite(total) | (total <= 0) | (w < 0).any(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        allowed = np.flatnonzero(np.asarray(mask)[i] > 0) if mask is not None else None
        where = f"the legal actions {allowed.tolist()}" if allowed is not None else "its entries"
        raise InvalidPolicyError(
            f"row {i} of the weights, {np.asarray(weights)[i].tolist()}, gives no valid weight to "
            f"{where}; weights must be finite, >= 0 and not all zero there"
        )
    draw = rng.random(len(w)) * total
    # Counting the cumulative weights <= the draw finds the first index past it. A uniform in
    # [0, 1) keeps the draw below the total except for subnormal totals, where rounding can
    # reach it: the clip keeps the index in range then.
    return np.minimum((cum <= draw[:, None]).sum(axis=1), w.shape[1] - 1).astype(np.int64)
