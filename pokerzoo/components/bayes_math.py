"""Closed forms behind ``pokerzoo.components.bnn``: ReLU moments and KLs of sigma steps.

For a factorised Gaussian weight ``N(mu, sigma^2)``, ``sigma = softplus(rho)``, VIME's Newton
step on ``rho`` (``-step * g_rho / H_rho`` with ``H_rho = 2 slope^2 / sigma^2``,
``slope = sigmoid(rho)``) is ``-step * sigma^3 * y / (2 slope)`` when the gradient with
respect to sigma is ``g_sigma = sigma * y``. ``sigma_kl`` is the KL of that change in closed
form; ``sigma_kl_series`` its power series in ``y`` (orders 2..4), whose order 2 is VIME's
second-order form.

>>> import torch
>>> rho = torch.tensor([0.0, -2.0], dtype=torch.float64)
>>> y = torch.tensor([0.5, -1.0], dtype=torch.float64)
>>> exact = sigma_kl(rho, y, step=0.1)
>>> series = sum(c * y**k for k, c in enumerate(sigma_kl_series(rho, 0.1), start=2))
>>> bool(torch.allclose(exact, series, rtol=1e-5))
True
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def inverse_softplus(y: float) -> float:
    """The ``rho`` with ``softplus(rho) = y`` (``y > 0``)."""
    return y + math.log(-math.expm1(-y))


def relu_moments(m: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """``E[relu(a)]``, ``E[relu(a)^2]``, ``Phi(m/sd)``, ``phi(m/sd)``, ``sd`` of ``a ~ N(m, v)``."""
    sd = v.sqrt()
    alpha = m / sd
    cdf = 0.5 * (1.0 + torch.erf(alpha * (1.0 / math.sqrt(2.0))))
    pdf = torch.exp(-0.5 * alpha * alpha) * (1.0 / math.sqrt(2.0 * math.pi))
    eh = m * cdf + sd * pdf
    eh2 = (m * m + v) * cdf + m * sd * pdf
    return eh, eh2, cdf, pdf, sd


def sigma_kl(rho: torch.Tensor, y: torch.Tensor, step: float) -> torch.Tensor:
    """Elementwise ``KL[N(., sigma'^2) || N(., sigma^2)]`` after the Newton step (float64)."""
    rho = rho.double()
    sigma = F.softplus(rho)
    slope = torch.sigmoid(rho)
    new = F.softplus(rho - step * y.double() * sigma.pow(3) / (2 * slope))
    w = new / sigma - 1
    # KL = w^2/2 + (w - log1p(w)); the bracket loses every digit for tiny w: use its series.
    small = w.abs() < 1e-2
    series = w.square() * (0.5 - w * (1 / 3 - w * (0.25 - w * 0.2)))
    return 0.5 * w.square() + torch.where(small, series, w - torch.log1p(w))


def sigma_kl_series(rho: torch.Tensor, step: float) -> list[torch.Tensor]:
    """Coefficients ``c_k`` (k = 2, 3, 4; float64, shaped like ``rho``): KL ~ sum c_k y^k.

    With ``w = sigma'/sigma - 1`` the KL is ``w^2 - w^3/3 + w^4/4 - ...`` and
    ``w = A1 d + A2 d^2 + A3 d^3 + ...`` for a step ``d = kappa * y`` on rho
    (``kappa = -step * sigma^3 / (2 slope)``), ``A_k`` softplus's Taylor coefficients over
    sigma. The truncation is ~``w^3`` relative: 1e-6 while ``|w| <= 0.01``.
    """
    rho = rho.double()
    sigma, p = F.softplus(rho), torch.sigmoid(rho)
    a1, a2, a3 = p / sigma, p * (1 - p) / (2 * sigma), p * (1 - p) * (1 - 2 * p) / (6 * sigma)
    kappa = -step * sigma.pow(3) / (2 * p)
    orders = (
        a1.square(),
        2 * a1 * a2 - a1.pow(3) / 3,
        a2.square() + 2 * a1 * a3 - a1.square() * a2 + a1.pow(4) / 4,
    )
    return [c * kappa.pow(k) for k, c in enumerate(orders, start=2)]


_CHUNK_ELEMENTS = 1 << 21
"""Per-sample first-layer tensors of exact ``"one_step"`` KLs are built this many at a time."""
_SERIES_LIMIT = 1e-2
"""Largest relative sigma change for which ``"one_step"`` uses its order-4 series."""

Params = tuple[torch.Tensor, ...]
"""One vector per layer part of a ``d -> h -> 1`` net: ``W1 [d, h]``, ``b1 [h]``, ``W2 [h]``,
``b2 [1]``."""


def vime_information_gain(
    x2: torch.Tensor,
    r: torch.Tensor,
    mu: Params,
    sigma: Params,
    rho: Params,
    moments: Params,
    likelihood_sd: float,
    step: float,
    method: str,
) -> torch.Tensor:
    """``[n]`` VIME information gain (float64) of each (input, reward) pair, batched.

    Args:
        x2: ``[n, d]`` squared inputs.
        r: ``[n]`` rewards.
        mu, sigma, rho: the posterior's parameters, per layer part.
        moments: ``BayesianRewardModel._moments``'s output for the inputs (hidden ReLU
            moments, ``Phi``, ``phi``, pre-activation sd, output mean and variance).
        likelihood_sd: the Gaussian likelihood's standard deviation.
        step: VIME's Newton step size.
        method: ``"one_step"`` (closed-form KL after the step) or ``"second_order"``.
    """
    eh, eh2, cdf, pdf, sd, mean, _ = moments
    # Per-sample loss l = ((r - mean)^2 + var) / (2 s^2): dl/dmean = a, dl/dvar = b.
    a = ((mean - r) / likelihood_sd**2)[:, None]
    b = 0.5 / likelihood_sd**2
    w2m2, w2s2 = mu[2].square(), sigma[2].square()
    # Output layer's mean-gradients (the KL's mu and sigma terms are separable).
    g_w2_mu = a * eh + (2 * b) * mu[2] * (eh2 - eh.square())
    # Back to the hidden pre-activation's mean (delta) and variance (gamma).
    d_eh = a * mu[2] - (2 * b) * eh * w2m2
    d_eh2 = b * (w2m2 + w2s2)
    delta = d_eh * cdf + 2 * d_eh2 * eh
    gamma = d_eh * pdf / (2 * sd) + d_eh2 * cdf
    # KL of a mean shift -step*sigma^2*g: 0.5*step^2*sigma^2*g^2, exactly (quadratic in mu).
    # First layer: g_mu[i, j] = x_i * delta_j, and sum_i x_i^2 sigma_ij^2 plus the bias's
    # sigma_j^2 is the pre-activation variance v1 = sd^2.
    mu_term = (
        (delta.square() * sd.square()).sum(1)
        + g_w2_mu.square() @ w2s2
        + sigma[3].square() * a[:, 0].square()
    )
    # The rho step is kappa * y with y = g_sigma / sigma per sample: 2 x_i^2 gamma_j in the
    # first layer, 2 gamma_j for its bias, 2 b E[h_j^2] for W2, 2 b for b2.
    y_b1, y_w2 = 2 * gamma, (2 * b) * eh2
    kl = 0.5 * step**2 * mu_term.double()
    # The sigma KL as a power series in y: order 2 is the second-order form; orders 2..4 (a
    # few matmuls) are exact to ~1e-6 relative while |sigma'/sigma - 1| <= _SERIES_LIMIT,
    # which `bound` (step sigma^2 |y| / 2 per weight, maximised) guarantees; "one_step"
    # computes the other rows in closed form.
    orders = 1 if method == "second_order" else 3
    series = [
        [c.float() for c in cs] for cs in zip(*(sigma_kl_series(part, step) for part in rho))
    ]
    x2k, y1k, y2k = x2, y_b1, y_w2
    for k, c in enumerate(series[:orders], start=2):
        x2k, y1k, y2k = x2k * x2, y1k * y_b1, y2k * y_w2
        kl += ((y1k * torch.addmm(c[1], x2k, c[0])).sum(1) + y2k @ c[2] + (2 * b) ** k * c[3])
    if method == "second_order":
        return kl
    bound = step * torch.stack([
        x2.amax(1) * (gamma.abs() * sigma[0].square().amax(0)).amax(1),
        (gamma.abs() * sigma[1].square()).amax(1),
        (b * eh2 * w2s2).amax(1),
        (b * sigma[3].square()).expand(len(r)),
    ]).amax(0)
    rows = (bound > _SERIES_LIMIT).nonzero()[:, 0]
    if len(rows):
        y_b2 = torch.full((len(rows), 1), 2 * b)
        kl[rows] = 0.5 * step**2 * mu_term[rows].double()
        for part, y in zip(rho[1:], (y_b1[rows], y_w2[rows], y_b2)):
            kl[rows] += sigma_kl(part, y, step).sum(-1)
        # First layer: y[n, i, j] = x_i^2 * y_b1_j, a bounded number of rows at a time.
        chunk = max(1, _CHUNK_ELEMENTS // rho[0].numel())
        for start in range(0, len(rows), chunk):
            part_rows = rows[start : start + chunk]
            y = x2[part_rows, :, None] * y_b1[part_rows, None, :]
            kl[part_rows] += sigma_kl(rho[0], y, step).flatten(1).sum(1)
    return kl
