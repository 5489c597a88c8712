"""Hold'em terminal kernels against dense H x H computations on random ranges."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.games.holdem.cards import evaluate_7
from pokerzoo.public.engine.holdem_terminal import (
    RIVER_WEIGHT,
    TURN_WEIGHT,
    board_mask,
    chance_reach,
    chance_weight,
    fold_reach,
    hand_strengths,
    same_combo_index,
    showdown_sums,
    showdown_values,
    strength_order,
)
from pokerzoo.public.spots.ranges import COMBO_CARDS


def _setup(seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    board = rng.choice(52, 5, replace=False)
    hands = [COMBO_CARDS[np.sort(rng.choice(1326, n, replace=False))].astype(np.int64)
             for n in (300, 420)]
    reach = [rng.random(len(h)) * (rng.random(len(h)) < 0.8) for h in hands]
    return board, hands[0], hands[1], reach[0], reach[1]


def _dense(hands: np.ndarray, opp: np.ndarray, board: np.ndarray) -> tuple[np.ndarray, ...]:
    """Compatibility and strength comparison matrices, from the evaluator hand by hand."""
    b = set(board.tolist())

    def rank(h: np.ndarray) -> int:
        return evaluate_7(int(h[0]), int(h[1]), *map(int, board))

    ok = np.array([[len({*h, *o}) == 4 and not ({*h, *o} & b) for o in opp.tolist()]
                   for h in hands.tolist()])
    rh = np.array([rank(h) for h in hands])
    ro = np.array([rank(o) for o in opp])
    return ok, rh[:, None] < ro[None, :], rh[:, None] > ro[None, :]  # smaller rank is stronger


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fold_and_showdown_equal_dense(seed: int) -> None:
    board, h0, h1, r0, r1 = _setup(seed)
    mask = board_mask(board)
    ok, wins, loses = _dense(h0, h1, board)
    same = same_combo_index(h0, h1)
    out = np.empty(len(h0))
    fold_reach(h0, same, h1, r1, mask, out)
    np.testing.assert_allclose(out, ok @ r1, rtol=0, atol=1e-9)
    s0, s1 = hand_strengths(h0, list(board)), hand_strengths(h1, list(board))
    o0, o1 = strength_order(s0), strength_order(s1)
    win, lose = np.empty(len(h0)), np.empty(len(h0))
    showdown_sums(h0, o0, s0, h1, o1, s1, r1, win, lose)
    np.testing.assert_allclose(win, (ok & wins) @ r1, rtol=0, atol=1e-9)
    np.testing.assert_allclose(lose, (ok & loses) @ r1, rtol=0, atol=1e-9)
    showdown_values(h0, same, o0, s0, h1, o1, s1, r1, mask, 3.0, -2.0, 0.5, out)
    ties = ok & ~wins & ~loses
    expect = (ok & wins) @ r1 * 3.0 - (ok & loses) @ r1 * 2.0 + ties @ r1 * 0.5
    np.testing.assert_allclose(out, expect, rtol=0, atol=1e-9)


def test_same_combo_term() -> None:
    h = np.array([[0, 1], [2, 3]], dtype=np.int64)
    o = np.array([[1, 0], [4, 5]], dtype=np.int64)
    same = same_combo_index(h, o)
    assert same.tolist() == [0, -1]
    out = np.empty(2)
    fold_reach(h, same, o, np.array([1.0, 2.0]), board_mask([]), out)
    assert out.tolist() == [2.0, 3.0]


def test_chance() -> None:
    h = np.array([[0, 1], [2, 3], [1, 5]], dtype=np.int64)
    out = np.empty(3)
    chance_reach(h, np.array([1.0, 2.0, 3.0]), 1, out)
    assert out.tolist() == [0.0, 2.0, 0.0]
    assert chance_weight(3) == TURN_WEIGHT == 1 / 45 and chance_weight(4) == RIVER_WEIGHT == 1 / 44
    with pytest.raises(ConfigError):
        chance_weight(5)
