"""The CFR family's schedule: each variant's scalars per iteration, one at a time or as a table."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo import schedule
from pokerzoo.errors import ConfigError
from pokerzoo.schedule import ALGORITHMS, Discounts, custom_rule, discounts, schedule_table

# Every variant with its parameters left at the defaults, and a few with others.
CASES = [(name, {}) for name in ALGORITHMS] + [
    ("dcfr", {"alpha": 3.0, "beta": 0.5, "gamma": 1.0}),
    ("postflop", {"restart_limit": 5}),
    ("pcfr+", {"averaging_power": 1.5}),
]


def test_the_variants_are_named_once():
    assert ALGORITHMS == ("cfr", "cfr+", "linear", "dcfr", "postflop", "pcfr+")
    assert [name for name in ALGORITHMS if schedule.predictive(name)] == ["pcfr+"]


@pytest.mark.parametrize(("t", "expected"), [
    (1, Discounts(1.0, 1.0, False, 1.0, 1.0)),
    (9, Discounts(1.0, 1.0, False, 1.0, 1.0)),
])
def test_vanilla_cfr_discounts_nothing_and_weighs_iterations_alike(t, expected):
    assert discounts("cfr", t) == expected


def test_cfr_plus_floors_regrets_and_weighs_iteration_t_by_t():
    assert discounts("cfr+", 7) == Discounts(1.0, 1.0, True, 1.0, 7.0)


def test_linear_cfr_discounts_everything_by_t_minus_1_over_t():
    # Weighing iteration t by t, rescaled by the running total: (t - 1) / t for all three.
    assert discounts("linear", 5) == Discounts(0.8, 0.8, False, 0.8, 1.0)
    assert discounts("linear", 5) == discounts("dcfr", 5, alpha=1.0, beta=1.0, gamma=1.0)


def test_dcfr_discounts_what_iterations_before_t_accumulated():
    pos, neg, floor, sum_discount, sum_weight = discounts("dcfr", 5)  # s = 4
    assert pos == pytest.approx(8.0 / 9.0)  # 4^1.5 / (4^1.5 + 1)
    assert neg == 0.5  # 4^0 / (4^0 + 1)
    assert sum_discount == pytest.approx(0.64)  # (4 / 5)^2
    assert (floor, sum_weight) == (False, 1.0)


def test_postflop_preset_restarts_the_average_at_powers_of_4():
    restarts = [t for t in range(1, 300) if discounts("postflop", t).sum_discount == 0.0]
    assert restarts == [1, 2, 5, 17, 65, 257]
    assert {discounts("postflop", t).negative for t in range(1, 50)} == {0.5}


def test_pcfr_plus_is_cfr_plus_regrets_with_quadratic_averaging():
    assert discounts("pcfr+", 5) == Discounts(1.0, 1.0, True, 1.0, 25.0)
    assert discounts("pcfr+", 5, averaging_power=3.0).sum_weight == 125.0


@pytest.mark.parametrize(("name", "params"), CASES)
@pytest.mark.parametrize("first", [1, 37])
def test_the_table_holds_each_iterations_discounts_bit_for_bit(name, params, first):
    table = schedule_table(name, first, 300, **params)
    one_by_one = np.array([discounts(name, t, **params) for t in range(first, first + 300)],
                          dtype=np.float64)
    assert table.shape == (300, len(schedule.COLUMNS))
    assert table.dtype == np.float64
    assert np.array_equal(table.view(np.int64), one_by_one.view(np.int64))


def test_custom_rules_combine_the_switches_of_the_tree_agents():
    floored_dcfr = schedule.rule_table(custom_rule(floor=True, discount=(1.5, 0.0, 2.0)), 1, 50)
    dcfr = schedule_table("dcfr", 1, 50)
    assert np.array_equal(floored_dcfr[:, 2], np.ones(50))
    assert np.array_equal(np.delete(floored_dcfr, 2, axis=1), np.delete(dcfr, 2, axis=1))
    assert custom_rule(floor=True, averaging_power=1.0) == schedule.rule("cfr+")
    assert custom_rule(floor=False) == schedule.rule("cfr")


def test_an_empty_table_has_no_rows():
    assert schedule_table("dcfr", 4, 0).shape == (0, 5)


@pytest.mark.parametrize("call", [
    lambda: discounts("lcfr", 3),
    lambda: schedule.predictive("CFR+"),
    lambda: schedule_table("dcfr+", 1, 3),
])
def test_an_unknown_variant_is_one_line_naming_the_known_ones(call):
    with pytest.raises(ConfigError, match="unknown CFR schedule .*; known: cfr, cfr\\+, linear"):
        call()


@pytest.mark.parametrize(("first", "count", "what"), [
    (0, 3, "first must be an iteration >= 1"),
    (1.0, 3, "first must be an iteration >= 1"),
    (True, 3, "first must be an iteration >= 1"),
    (1, -1, "count must be an int >= 0"),
    (1, 2.5, "count must be an int >= 0"),
])
def test_a_bad_range_of_iterations_is_one_line(first, count, what):
    with pytest.raises(ConfigError, match=what):
        schedule_table("cfr+", first, count)
