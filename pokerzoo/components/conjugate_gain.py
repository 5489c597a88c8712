"""Exact information gain of conjugate reward posteriors (Beta / Dirichlet), vectorised.

The PSRLCFR prior pays player 0 one of a few values (-1 or +1) at each terminal with unknown
probabilities, so the posterior of a terminal is a Dirichlet (a Beta for two values) and one
more observation of outcome ``k`` turns ``a`` into ``a + e_k``. Its information gain
``KL[Dir(a + e_k) || Dir(a)]`` is closed form:

    ln(a_0) - ln(a_k) + psi(a_k + 1) - psi(a_0 + 1),      a_0 = sum(a)

and its expectation over the posterior predictive (``P(k) = a_k / a_0``) is the mutual
information between the next reward and the terminal's reward distribution. The alternative to
the BNN's approximate gain (``pokerzoo.components.bnn``), exact for this prior.

>>> import numpy as np
>>> gains = beta_information_gain(np.array([1.0, 10.0]), np.array([1.0, 10.0]))
>>> bool(gains[0] > gains[1] > 0)   # more counts, less to learn
True
"""

from __future__ import annotations

import numpy as np
import torch

from pokerzoo.errors import ConfigError


def dirichlet_information_gain(params: np.ndarray, outcome: np.ndarray | None = None) -> np.ndarray:
    """``KL[Dir(a + e_outcome) || Dir(a)]`` per row of ``params`` (``[n, K]``, all > 0).

    Args:
        params: ``[n, K]`` Dirichlet parameters (prior plus counts).
        outcome: ``[n]`` observed outcome index per row; ``None`` for the expectation over the
            posterior predictive (the mutual information).

    Returns:
        ``[n]`` float64 gains in nats.
    """
    a = np.asarray(params, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] < 2:
        raise ConfigError(f"params must be a [n, K >= 2] array, got shape {a.shape}")
    if not (np.isfinite(a).all() and (a > 0).all()):
        raise ConfigError("Dirichlet parameters must be finite and > 0")
    at = torch.from_numpy(a)
    total = at.sum(1, keepdim=True)
    # Gain of each possible outcome k, [n, K].
    gain = (
        torch.log(total) - torch.log(at) + torch.special.digamma(at + 1)
        - torch.special.digamma(total + 1)
    )
    if outcome is None:
        return ((at / total) * gain).sum(1).numpy()
    k = np.asarray(outcome)
    if k.shape != (a.shape[0],) or not np.issubdtype(k.dtype, np.integer):
        raise ConfigError(f"outcome must be [n] integer indices, got {k.dtype} {k.shape}")
    if k.size and (k.min() < 0 or k.max() >= a.shape[1]):
        raise ConfigError(f"outcome indices must lie in 0..{a.shape[1] - 1}")
    return gain.gather(1, torch.from_numpy(k.astype(np.int64))[:, None])[:, 0].numpy()


def beta_information_gain(
    alpha: np.ndarray, beta: np.ndarray, outcome: np.ndarray | None = None
) -> np.ndarray:
    """``KL[Beta(after one observation) || Beta(alpha, beta)]`` per terminal.

    Args:
        alpha, beta: ``[n]`` Beta parameters (prior plus counts), > 0.
        outcome: ``[n]`` booleans or 0/1: 1 (True) is the outcome counted by ``alpha``, 0 the
            one counted by ``beta``; ``None`` for the expectation over the posterior
            predictive (the mutual information).

    Returns:
        ``[n]`` float64 gains in nats.
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    beta = np.asarray(beta, dtype=np.float64)
    if alpha.ndim != 1 or alpha.shape != beta.shape:
        raise ConfigError(f"alpha and beta must be [n] arrays, got {alpha.shape} and {beta.shape}")
    params = np.stack([alpha, beta], axis=1)
    if outcome is None:
        return dirichlet_information_gain(params)
    o = np.asarray(outcome)
    if o.shape != alpha.shape or not (o.dtype == bool or np.isin(o, (0, 1)).all()):
        raise ConfigError(f"outcome must be [n] booleans or 0/1, got {o.dtype} {o.shape}")
    return dirichlet_information_gain(params, np.where(o.astype(bool), 0, 1))
