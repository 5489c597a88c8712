"""NFSP-PLT's learning times (Li et al. 2023, Eq. 7-8): more gradient steps on valuable batches.

Eq. (7) gives a sampled experience ``e_i`` the learning times
``LT(e_i) = clip(round(p(e_i) * N_max), N_min, N_max)`` and Eq. (8) gives a batch of ``k`` the
mean ``LT(e) = clip(round(mean_i p(e_i) * N_max), N_min, N_max)``.

**Why the default normalises by the maximum.** In the paper ``p(e_i)`` is the sampling
probability of Eq. (5), ``p_i / sum_k p_k``. Over a buffer of ``N`` items those average
``1 / N`` (and a prioritized batch's mean is of the same order), so ``p(e_i) * N_max`` is about
``N_max / N``, far below 1 for any real buffer (30,000 items in the paper): every batch clips
to ``N_min`` and the rule never does anything. Dividing priorities by the buffer's *largest*
priority instead maps them into ``(0, 1]``, so the most surprising experiences get ``N_max``
steps, unremarkable ones ``N_min``, and LT spans the whole ``[N_min, N_max]`` as the paper
intends. ``normalisation="sum"`` keeps the literal form for comparison.

>>> learning_times(np.array([1.0, 3.0]), 1, 4, max_priority=4.0)  # mean 0.5 of the max
2
>>> sample_learning_times(np.array([0.5, 2.0, 4.0]), 1, 4).tolist()
[1, 2, 4]
"""

from __future__ import annotations

import numpy as np

from pokerzoo.errors import ConfigError

NORMALISATIONS = ("max", "sum")


def _check(n_min: int, n_max: int, normalisation: str) -> None:
    if int(n_min) != n_min or int(n_max) != n_max or not 1 <= n_min <= n_max:
        raise ConfigError(f"need integers 1 <= n_min <= n_max, got n_min={n_min}, n_max={n_max}")
    if normalisation not in NORMALISATIONS:
        raise ConfigError(f"normalisation must be one of {NORMALISATIONS}, got {normalisation!r}")


def _normalised(
    priorities: np.ndarray,
    normalisation: str,
    max_priority: float | None,
    total_priority: float | None,
) -> np.ndarray:
    p = np.asarray(priorities, dtype=np.float64)
    if p.size == 0:
        raise ConfigError("learning times need at least one priority")
    if np.any(p < 0) or not np.all(np.isfinite(p)):
        raise ConfigError("priorities must be finite and non-negative")
    if normalisation == "max":
        ref = float(p.max()) if max_priority is None else float(max_priority)
    else:
        ref = float(p.sum()) if total_priority is None else float(total_priority)
    if ref <= 0.0:
        # All priorities zero: nothing is more valuable than anything else.
        return np.zeros_like(p)
    return p / ref


def _clip_round(x: np.ndarray, n_min: int, n_max: int) -> np.ndarray:
    # "clip limits the learning times after rounding": round half up, then clip.
    return np.clip(np.floor(x * n_max + 0.5), n_min, n_max).astype(np.int64)


def sample_learning_times(
    priorities: np.ndarray,
    n_min: int,
    n_max: int,
    normalisation: str = "max",
    *,
    max_priority: float | None = None,
    total_priority: float | None = None,
) -> np.ndarray:
    """Eq. (7): learning times of each experience, non-decreasing in its priority.

    Args:
        priorities: priorities ``p_i = (|delta_i| + eps)^alpha`` (not yet normalised).
        n_min: ``N_LTmin``, the fewest learning times (>= 1).
        n_max: ``N_LTmax``, the most learning times.
        normalisation: ``"max"`` divides by ``max_priority`` (see the module docstring),
            ``"sum"`` by ``total_priority`` (the paper's sampling probability).
        max_priority: the buffer's largest priority; defaults to the largest given.
        total_priority: the buffer's total priority; defaults to the sum of those given
            (exact when ``priorities`` is the whole buffer).

    Returns:
        An int64 array of learning times in ``[n_min, n_max]``.
    """
    _check(n_min, n_max, normalisation)
    return _clip_round(
        _normalised(priorities, normalisation, max_priority, total_priority), n_min, n_max
    )


def learning_times(
    priorities: np.ndarray,
    n_min: int,
    n_max: int,
    normalisation: str = "max",
    *,
    max_priority: float | None = None,
    total_priority: float | None = None,
) -> int:
    """Eq. (8): the learning times of a sampled batch, from its mean normalised priority.

    Arguments as for ``sample_learning_times``. For the faithful rule pass the buffer's own
    ``max_priority`` (``PrioritizedReplayBuffer.max_priority``); without it the batch's largest
    priority stands in, which makes LT relative to the batch rather than the buffer. With
    ``normalisation="sum"`` pass ``total_priority`` (``PrioritizedReplayBuffer.total_priority``)
    for the paper's literal Eq. (8).

    Returns:
        The number of gradient steps for this batch, an int in ``[n_min, n_max]``.
    """
    _check(n_min, n_max, normalisation)
    mean = _normalised(priorities, normalisation, max_priority, total_priority).mean()
    return int(_clip_round(np.asarray(mean), n_min, n_max))
