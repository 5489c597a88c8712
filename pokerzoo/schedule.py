"""The discount schedule of the CFR family: one place for the scalars of every iteration.

An iteration ``t`` (1-based) of any CFR variant pokerzoo runs updates a regret ``r`` and a
strategy sum ``s`` as

    r <- r x (positive if r > 0 else negative) + instantaneous regret   (floored at 0 if floor)
    s <- s x sum_discount + sum_weight x reach x strategy

and the variants differ only in those five scalars (``Discounts``), plus, for the predictive
ones (``predictive``), in the regrets the next strategy is matched on. The public-state engine
and the tree CFR kernels both take the scalars from here: one iteration at a time
(``discounts``) or a whole run's as a table (``schedule_table``) for compiled loops.

The variants (``ALGORITHMS``):

* ``"cfr"``: vanilla CFR (Zinkevich et al., "Regret Minimization in Games with Incomplete
  Information", NeurIPS 2007): nothing discounted, every iteration weighs 1 in the average.
* ``"cfr+"``: CFR+ (Tammelin, "Solving Large Imperfect Information Games Using CFR+",
  arXiv:1407.5042): regrets floored at 0, iteration ``t`` weighs ``t`` in the average.
* ``"linear"``: linear CFR (Brown and Sandholm, "Solving Imperfect-Information Games via
  Discounted Regret Minimization", AAAI 2019, arXiv:1809.04040): DCFR with
  alpha = beta = gamma = 1, i.e. iteration ``t``'s regret and strategy weigh ``t``.
* ``"dcfr"``: DCFR of the same paper, ``(alpha, beta, gamma)`` (1.5, 0, 2 by default).
* ``"postflop"``: postflop-solver's preset: DCFR (1.5, 0) on the regrets, the strategy
  sums discounted by ``(u / (u + 1))^3`` with ``u`` the iterations since the last power of 4
  (a restart of the average, capped at ``restart_limit``'s).
* ``"pcfr+"``: predictive CFR+ (Farina, Kroer and Sandholm, "Faster Game Solving via
  Predictive Blackwell Approachability: Connecting Regret Matching and Mirror Descent",
  AAAI 2021, arXiv:2007.14358): CFR+'s regrets, the next strategy matched on
  ``max(r + m, 0)`` with ``m`` the iteration's instantaneous regret (the prediction that the
  next one repeats it), iteration ``t`` weighing ``t^averaging_power`` in the average (2,
  quadratic averaging, is the paper's choice).

Each variant is a ``Rule``: a way the regret factors and a way the strategy-sum scalars follow
``t``. The tree CFR agents' configs combine those ways freely (``custom_rule``); the named
variants are fixed combinations of them (``rule``). The formulas live once, in ``_row``, which
runs compiled for tables and as plain Python for one iteration; both call the C library's
``pow``, so both give the same bits.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

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

ALGORITHMS = ("cfr", "cfr+", "linear", "dcfr", "postflop", "pcfr+")
"""The named CFR variants of the schedule (see the module's docstring)."""

PREDICTIVE = ("pcfr+",)
"""The variants whose next strategy is matched on the regrets plus a prediction."""

COLUMNS = Discounts._fields
"""The columns of ``schedule_table``'s rows (``floor`` as 0.0 / 1.0)."""

# How the regret factors follow t.
REGRETS_KEPT = 0
"""Regrets are never discounted (positive = negative = 1)."""
REGRETS_DCFR = 1
"""DCFR's ``s^alpha / (s^alpha + 1)`` and ``s^beta / (s^beta + 1)``, ``s = t - 1``."""
REGRETS_POSTFLOP = 2
"""postflop-solver's: DCFR's factors one iteration behind (it counts from 0)."""

# How the strategy-sum scalars follow t.
SUMS_POWER = 0
"""Nothing discounted; iteration t weighs ``t^power`` (0: uniform, 1: linear, 2: quadratic)."""
SUMS_DCFR = 1
"""DCFR's: the sums discounted by ``(s / t)^gamma``, iteration t weighing 1."""
SUMS_POSTFLOP = 2
"""postflop-solver's: discounted by ``(u / (u + 1))^3``, ``u`` the iterations since the last
power of 4 (at most ``restart_limit``'s), iteration t weighing 1."""


class Rule(NamedTuple):
    """How one CFR variant's ``Discounts`` follow the iteration count."""

    regrets: int
    """``REGRETS_KEPT``, ``REGRETS_DCFR`` or ``REGRETS_POSTFLOP``."""
    alpha: float
    """DCFR's exponent on positive regrets (``REGRETS_DCFR``)."""
    beta: float
    """DCFR's exponent on negative regrets (``REGRETS_DCFR``)."""
    floor: bool
    """Regret matching+: regrets floored at 0 after each step."""
    sums: int
    """``SUMS_POWER``, ``SUMS_DCFR`` or ``SUMS_POSTFLOP``."""
    gamma: float
    """DCFR's exponent of the strategy sums' discount (``SUMS_DCFR``)."""
    power: float
    """The power of t in iteration t's weight (``SUMS_POWER``)."""
    restart_limit: int
    """``SUMS_POSTFLOP``: the power of 4 at most this is the latest restart (0: none)."""


def predictive(algorithm: str) -> bool:
    """Whether ``algorithm``'s next strategy is matched on regrets plus a prediction.

    Raises:
        ConfigError: for a name not in ``ALGORITHMS``.
    """
    _check(algorithm)
    return algorithm in PREDICTIVE


def rule(algorithm: str, alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0,
         restart_limit: int = 0, averaging_power: float = 2.0) -> Rule:
    """The ``Rule`` of the named variant ``algorithm``.

    Args:
        algorithm: a name of ``ALGORITHMS``.
        alpha, beta, gamma: DCFR's exponents (``"dcfr"`` only).
        restart_limit: ``"postflop"`` only: the latest restart of the average is at most at
            this iteration's power of 4 (0: no limit).
        averaging_power: ``"pcfr+"`` only: iteration t weighs ``t^averaging_power``.

    Raises:
        ConfigError: for a name not in ``ALGORITHMS``.
    """
    _check(algorithm)
    if algorithm == "cfr":
        return custom_rule(floor=False)
    if algorithm == "cfr+":
        return custom_rule(floor=True, averaging_power=1.0)
    if algorithm == "linear":
        return custom_rule(floor=False, discount=(1.0, 1.0, 1.0))
    if algorithm == "dcfr":
        return custom_rule(floor=False, discount=(alpha, beta, gamma))
    if algorithm == "pcfr+":
        return custom_rule(floor=True, averaging_power=averaging_power)
    # DCFR (1.5, 0) on the regrets (beta = 0 halves negative regrets), gamma 3 on the sums.
    return Rule(REGRETS_POSTFLOP, 1.5, 0.0, False, SUMS_POSTFLOP, 3.0, 0.0, restart_limit)


def custom_rule(*, floor: bool, discount: tuple[float, float, float] | None = None,
                averaging_power: float = 0.0) -> Rule:
    """A ``Rule`` from the tree CFR agents' switches (any combination of them).

    Args:
        floor: regret matching+ (regrets floored at 0).
        discount: DCFR's ``(alpha, beta, gamma)`` on regrets and sums; ``None`` for none.
        averaging_power: without ``discount``, iteration t weighs ``t^averaging_power`` in the
            average (0: vanilla, 1: linear averaging, 2: quadratic).
    """
    if discount is None:
        return Rule(REGRETS_KEPT, 0.0, 0.0, floor, SUMS_POWER, 0.0, averaging_power, 0)
    alpha, beta, gamma = discount
    return Rule(REGRETS_DCFR, alpha, beta, floor, SUMS_DCFR, gamma, 0.0, 0)


def discounts(algorithm: str, t: int, alpha: float = 1.5, beta: float = 0.0,
              gamma: float = 2.0, restart_limit: int = 0,
              averaging_power: float = 2.0) -> Discounts:
    """The scalars of iteration ``t`` (1-based) of ``algorithm`` (arguments as ``rule``'s).

    >>> discounts("cfr+", 7)
    Discounts(positive=1.0, negative=1.0, floor=True, sum_discount=1.0, sum_weight=7.0)
    """
    return rule_discounts(rule(algorithm, alpha, beta, gamma, restart_limit, averaging_power), t)


def dcfr_discounts(t: int, alpha: float, beta: float, gamma: float) -> Discounts:
    """DCFR's scalars at iteration ``t``: what was accumulated over iterations ``1 .. t - 1``
    is discounted, positive regrets by ``s^alpha / (s^alpha + 1)``, negative ones by
    ``s^beta / (s^beta + 1)`` and the strategy sums by ``(s / t)^gamma``, with ``s = t - 1``."""
    return discounts("dcfr", t, alpha, beta, gamma)


def rule_discounts(variant: Rule, t: int) -> Discounts:
    """The scalars of iteration ``t`` (1-based) under ``variant``."""
    # Plain Python on purpose: one iteration is cheaper interpreted than through a compiled
    # call, and the same source compiled gives the same bits (both use the C library's pow).
    pos, neg, floor, sum_discount, sum_weight = _row.py_func(t, *variant)
    return Discounts(pos, neg, bool(floor), sum_discount, sum_weight)


def schedule_table(algorithm: str, first: int, count: int, alpha: float = 1.5,
                   beta: float = 0.0, gamma: float = 2.0, restart_limit: int = 0,
                   averaging_power: float = 2.0) -> np.ndarray:
    """``[count, 5]`` float64: row k holds ``discounts(algorithm, first + k, ...)`` (columns
    ``COLUMNS``, floor as 0.0 / 1.0), for compiled loops that run many iterations.

    Raises:
        ConfigError: for a name not in ``ALGORITHMS``, or ``first < 1`` or ``count < 0``.
    """
    return rule_table(rule(algorithm, alpha, beta, gamma, restart_limit, averaging_power),
                      first, count)


def rule_table(variant: Rule, first: int, count: int) -> np.ndarray:
    """``[count, 5]`` float64: the scalars of iterations ``first .. first + count - 1`` under
    ``variant`` (as ``schedule_table``).

    Raises:
        ConfigError: for ``first < 1`` or ``count < 0``.
    """
    if isinstance(first, bool) or not isinstance(first, (int, np.integer)) or first < 1:
        raise ConfigError(f"first must be an iteration >= 1 (they count from 1), not {first!r}")
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
        raise ConfigError(f"count must be an int >= 0, not {count!r}")
    out = np.empty((int(count), len(COLUMNS)), dtype=np.float64)
    _fill(out, int(first), *variant)
    return out


def _check(algorithm: str) -> None:
    if algorithm not in ALGORITHMS:
        raise ConfigError(f"unknown CFR schedule {algorithm!r}; known: {', '.join(ALGORITHMS)}")


@numba.njit(cache=True)
def _last_power_of_4(i):
    """The largest power of 4 that is at most ``i`` (0 for ``i = 0``)."""
    if i == 0:
        return 0
    p = 1
    while p * 4 <= i:
        p *= 4
    return p


@numba.njit(cache=True)
def _row(t, regrets, alpha, beta, floor, sums, gamma, power, restart_limit):
    """``(positive, negative, floor, sum_discount, sum_weight)`` of iteration ``t`` under the
    rule's fields (every formula of the schedule is here, once)."""
    pos = 1.0
    neg = 1.0
    if regrets != REGRETS_KEPT:
        # DCFR discounts at iteration t what iterations 1 .. t - 1 accumulated, by s = t - 1;
        # postflop-solver counts iterations from 0 and discounts by its count minus one.
        s = float(t - 1) if regrets == REGRETS_DCFR else float(max(t - 2, 0))
        pos = s**alpha / (s**alpha + 1.0)
        neg = s**beta / (s**beta + 1.0)
    sum_discount = 1.0
    sum_weight = 1.0
    if sums == SUMS_POWER:
        sum_weight = float(t) ** power
    else:
        # The sums are discounted by (u / (u + 1))^gamma: u = t - 1 for DCFR, postflop-solver's
        # iterations since the last restart of its average.
        u = float(t - 1)
        if sums == SUMS_POSTFLOP:
            lower = _last_power_of_4(t - 1)
            if restart_limit:
                lower = min(lower, _last_power_of_4(restart_limit))
            u = float(t - 1 - lower)
        sum_discount = (u / (u + 1.0)) ** gamma
    return pos, neg, floor, sum_discount, sum_weight


@numba.njit(cache=True)
def _fill(out, first, regrets, alpha, beta, floor, sums, gamma, power, restart_limit):
    """``out[k]``: the scalars of iteration ``first + k``."""
    for k in range(out.shape[0]):
        pos, neg, fl, sum_discount, sum_weight = _row(
            first + k, regrets, alpha, beta, floor, sums, gamma, power, restart_limit
        )
        out[k, 0] = pos
        out[k, 1] = neg
        out[k, 2] = 1.0 if fl else 0.0
        out[k, 3] = sum_discount
        out[k, 4] = sum_weight
