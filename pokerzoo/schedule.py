"""The discount schedule of the CFR family: one place for the scalars of every iteration.

An iteration ``t`` (1-based) of any CFR variant pokerzoo runs updates a regret ``r`` and a
strategy sum ``s`` as

    r <- r x (positive if r > 0 else negative) + instantaneous regret   (floored at 0 if floor)
    s <- s x sum_discount + sum_weight x reach x strategy

and the variants differ only in those five scalars (``Discounts``). The public-state engine
and the tree CFR kernels both take them from here.
"""

from __future__ import annotations

from typing import NamedTuple

from pokerzoo.errors import ConfigError


class Discounts(NamedTuple):
    """The scalars of one iteration's regret and strategy-sum step."""

    positive: float
    """Factor on regrets above 0 before the iteration's regret is added."""
    negative: float
    """Factor on regrets at or below 0."""
    floor: bool
    """Whether regrets are floored at 0 after the step (regret matching+)."""
    sum_discount: float
    """Factor on the strategy sums before the iteration's strategy is added."""
    sum_weight: float
    """Weight of the iteration's reach-weighted strategy in the sums."""


NO_UPDATE = Discounts(1.0, 1.0, False, 1.0, 0.0)
"""The scalars of a pass that updates nothing (best responses, expected values)."""


def dcfr_discounts(t: int, alpha: float, beta: float, gamma: float) -> Discounts:
    """DCFR's scalars at iteration ``t`` (Brown and Sandholm, "Solving Imperfect-Information
    Games via Discounted Regret Minimization", AAAI 2019, arXiv:1809.04040): what was
    accumulated over iterations ``1 .. t - 1`` is discounted, positive regrets by
    ``s^alpha / (s^alpha + 1)``, negative ones by ``s^beta / (s^beta + 1)`` and the strategy
    sums by ``(s / t)^gamma``, with ``s = t - 1``."""
    s = float(t - 1)
    pos = s**alpha / (s**alpha + 1.0)
    neg = s**beta / (s**beta + 1.0)
    return Discounts(pos, neg, False, (s / t) ** gamma, 1.0)


def discounts(algorithm: str, t: int, alpha: float = 1.5, beta: float = 0.0,
              gamma: float = 2.0, restart_limit: int = 0) -> Discounts:
    """The scalars of iteration ``t`` (1-based) of ``algorithm``.

    >>> discounts("cfr+", 7)
    Discounts(positive=1.0, negative=1.0, floor=True, sum_discount=1.0, sum_weight=7.0)
    """
    if algorithm == "cfr+":
        return Discounts(1.0, 1.0, True, 1.0, float(t))
    if algorithm == "dcfr":
        return dcfr_discounts(t, alpha, beta, gamma)
    if algorithm == "postflop":
        i = t - 1  # postflop-solver counts iterations from 0
        s = float(max(i - 1, 0))
        pos = s**1.5 / (s**1.5 + 1.0)
        lower = 0 if i == 0 else 4 ** ((i.bit_length() - 1) // 2)
        if restart_limit:
            lower = min(lower, 4 ** ((restart_limit.bit_length() - 1) // 2))
        u = float(i - lower)
        return Discounts(pos, 0.5, False, (u / (u + 1.0)) ** 3, 1.0)
    if algorithm == "pcfr+":
        # Predictive CFR+ (Farina, Kroer and Sandholm, AAAI 2021, arXiv:2007.14358): CFR+'s
        # regrets, quadratic averaging (the paper's choice); its prediction is the engine's.
        return Discounts(1.0, 1.0, True, 1.0, float(t) ** 2)
    raise ConfigError(f"unknown CFR schedule {algorithm!r}; known: {', '.join(ALGORITHMS)}")


ALGORITHMS = ("cfr+", "dcfr", "postflop", "pcfr+")
"""The named CFR variants of the schedule."""


def predictive(algorithm: str) -> bool:
    """Whether ``algorithm``'s strategy is matched on the regrets plus a prediction (PCFR+:
    the last instantaneous regret)."""
    return algorithm == "pcfr+"
