"""Heads-up push/fold: the exact equilibrium (two LPs) and CFR+ agree to 1e-6 bb at 10 bb, the
published HoldemResources cells are reproduced, and bad stacks are one line."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.public.spots.pushfold import (
    cfr_pushfold,
    parse_stacks,
    solve_pushfold,
    thresholds,
    values_of,
)
from pokerzoo.public.spots.ranges import CLASS_NAMES

pytestmark = pytest.mark.slow  # every test needs the exact equity table (two minutes to build)


def test_lp_and_cfr_agree_at_ten_big_blinds(push_fold_game):
    exact = solve_pushfold(push_fold_game, 10.0)
    assert exact.exploitability_bb < 1e-9
    cfr = cfr_pushfold(push_fold_game, 10.0, iterations=20_000)
    assert cfr.exploitability_bb < 1e-6
    assert cfr.game_value_bb == pytest.approx(exact.game_value_bb, abs=1e-6)
    # Pure almost everywhere: the two solutions play the same classes.
    assert np.abs(cfr.sb_push - exact.sb_push).max() < 0.05
    assert np.abs(cfr.bb_call - exact.bb_call).max() < 0.05
    js = exact.to_json()
    assert js["sb_push"]["AA"] == 1.0 and js["sb_push"]["72o"] == 0.0
    assert set(js) >= {"stack_bb", "sb_push", "bb_call", "game_value_bb", "exploitability_bb"}


def test_best_responses_bracket_the_value(push_fold_game):
    # Against a profile that is not an equilibrium each side's best response gains.
    push = np.full(len(CLASS_NAMES), 0.5)
    call = np.full(len(CLASS_NAMES), 0.5)
    value, sb_best, bb_best = values_of(push_fold_game, 10.0, 0.0, push, call)
    assert bb_best < value < sb_best


def test_holdem_resources_published_cells(push_fold_game):
    table = thresholds(push_fold_game, parse_stacks("5:8:0.05"), progress=False)
    # HoldemResources Calculator's worked examples: pusher T3s 7.7 bb, caller Q2o 5.6 bb.
    assert table.push_threshold_bb["T3s"] == pytest.approx(7.7, abs=0.1)
    assert table.call_threshold_bb["Q2o"] == pytest.approx(5.6, abs=0.1)
    assert table.push_threshold_bb["AA"] == 8.0  # pushed at every stack of the range
    assert table.call_threshold_bb["72o"] is None or table.call_threshold_bb["72o"] < 5.0
    assert max(s.exploitability_bb for s in table.solutions) < 1e-6


def test_an_ante_pushes_wider(push_fold_game):
    plain = solve_pushfold(push_fold_game, 10.0)
    ante = solve_pushfold(push_fold_game, 10.0, ante=0.125)
    assert ante.sb_push.sum() > plain.sb_push.sum()


@pytest.mark.parametrize("stack, ante, message", [
    (0.5, 0.0, "must cover"), (float("nan"), 0.0, "number"), (10.0, -1.0, "ante"),
])
def test_bad_stacks_are_one_line(push_fold_game, stack, ante, message):
    with pytest.raises(ConfigError, match=message):
        solve_pushfold(push_fold_game, stack, ante)


def test_stack_ranges():
    assert parse_stacks("1:2:0.25").tolist() == [1.0, 1.25, 1.5, 1.75, 2.0]
    assert len(parse_stacks("1:20:0.05")) == 381
    for bad in ("1:2", "a:b:c", "2:1:0.1", "1:2:0"):
        with pytest.raises(ConfigError, match="stacks"):
            parse_stacks(bad)
