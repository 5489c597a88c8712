"""One compiled pass over a policy table that finds its first row that is not a policy."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def first_invalid_row(probs: np.ndarray, mask: np.ndarray, atol: float) -> int:  # pragma: no cover
    """Index of the first row with a non-finite, negative or illegal entry, or whose legal
    entries do not sum to 1 within ``atol``; -1 when every row is a policy."""
    rows, cols = probs.shape
    for i in range(rows):
        total = 0.0
        for a in range(cols):
            p = probs[i, a]
            if not np.isfinite(p) or p < 0.0:
                return i
            if mask[i, a]:
                total += p
            elif p != 0.0:
                return i
        if not abs(total - 1.0) <= atol:
            return i
    return -1
