"""The heads-up push/fold game, solved exactly at any stack.

The small blind (0.5 bb) shoves all in or folds; facing the shove the big blind (1 bb) calls or
folds; both players start with ``stack`` big blinds *before posting* (antes, if any, come out
of the stack and are dead money). Payoffs to the small blind, per hand, in big blinds:

* SB folds: ``-(0.5 + ante)``; SB shoves and BB folds: ``+(1 + ante)``;
* both all in: ``2 * stack * equity - stack``, the exact all-in equity of the two combos
  (``preflop_equity``: every board counted).

Both players' strategies are per hand class (169): by the suit symmetry of the deal some
equilibrium treats the combos of a class alike, and the class game keeps every card-removal
effect exactly (payoffs are summed over the unblocked combo pairs of each pair of classes).

Solvers:

* ``solve_pushfold``: two small linear programs (each player's best guarantee; HiGHS through
  SciPy), the exact equilibrium, and its NashConv from exact best responses;
* ``cfr_pushfold``: CFR+ (alternating updates, linear averaging) on the same class game, for
  the check that a regret minimiser reaches the same values.

HoldemResources Calculator's published Nash push/fold chart is the anchor (its examples:
pusher T3s 7.7 bb, caller Q2o 5.6 bb): ``thresholds`` computes the same cells.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.public.spots.preflop_equity import COMBOS, NUM_COMBOS, EquityTable
from pokerzoo.public.spots.ranges import CLASS_NAMES, COMBO_CLASS


@dataclass(frozen=True)
class ClassGame:
    """The push/fold payoffs aggregated per pair of classes (independent of the stack)."""

    combos: np.ndarray
    """``[169]``: combos of each class (6, 4 or 12)."""
    pairs: np.ndarray
    """``[169, 169]``: unblocked combo pairs of each pair of classes (SB's class first)."""
    equity: np.ndarray
    """``[169, 169]``: the SB's all-in equity summed over those pairs."""


def class_game(table: EquityTable) -> ClassGame:
    """The class-level sums of ``table`` that every stack's game is built from."""
    owner = COMBO_CLASS.astype(np.int64)  # chart cell of each combo (CLASS_NAMES' order)
    equity = table.equity
    cards = np.zeros((NUM_COMBOS, 52), dtype=np.int64)
    cards[np.arange(NUM_COMBOS), COMBOS[:, 0]] = 1
    cards[np.arange(NUM_COMBOS), COMBOS[:, 1]] = 1
    live = (cards @ cards.T) == 0
    onehot = np.zeros((NUM_COMBOS, len(CLASS_NAMES)))
    onehot[np.arange(NUM_COMBOS), owner] = 1.0
    pairs = onehot.T @ live.astype(np.float64) @ onehot
    sums = onehot.T @ (equity * live) @ onehot
    return ClassGame(np.bincount(owner, minlength=len(CLASS_NAMES)), np.rint(pairs), sums)


@dataclass(frozen=True)
class PushFoldSolution:
    """An equilibrium of the push/fold game at one stack (big blinds, per hand)."""

    stack_bb: float
    ante_bb: float
    sb_push: np.ndarray
    """``[169]``: the frequency each class shoves (``ranges.CLASS_NAMES``: the 13 x 13 chart
    cells row by row, ``AA``, ``AKs``, ...)."""
    bb_call: np.ndarray
    """``[169]``: the frequency each class calls a shove."""
    game_value_bb: float
    """The small blind's expected winnings per hand."""
    nash_conv_bb: float
    """What the two exact best responses gain together (>= 0; 0 at an equilibrium)."""

    @property
    def exploitability_bb(self) -> float:
        """``nash_conv_bb / 2``."""
        return self.nash_conv_bb / 2.0

    def to_json(self) -> dict[str, object]:
        """``stack_bb``, ``sb_push``, ``bb_call`` (class name to frequency), ``game_value_bb``,
        ``exploitability_bb``."""
        return {
            "stack_bb": self.stack_bb, "ante_bb": self.ante_bb,
            "sb_push": {n: _clean(f) for n, f in zip(CLASS_NAMES, self.sb_push)},
            "bb_call": {n: _clean(f) for n, f in zip(CLASS_NAMES, self.bb_call)},
            "game_value_bb": self.game_value_bb, "exploitability_bb": self.exploitability_bb,
        }


def _clean(f: float) -> float:
    """A frequency rounded off the LP's last bits and kept in [0, 1]."""
    return float(min(1.0, max(0.0, round(float(f), 12))))


def check_stack(stack: float, ante: float = 0.0) -> None:
    """Refuse a stack that does not cover the big blind and the ante, in one line."""
    if not (isinstance(stack, int | float) and math.isfinite(stack)):
        raise ConfigError(f"the stack is a number of big blinds, got {stack!r}")
    if not (isinstance(ante, int | float) and 0 <= ante < 10):
        raise ConfigError(f"the ante is 0 or more big blinds (less than 10), got {ante!r}")
    if stack < 1 + ante or stack > 10_000:
        raise ConfigError(f"the stack must cover the big blind and the ante (>= {1 + ante} bb) "
                          f"and be at most 10,000 bb, got {stack}")


def _payoffs(game: ClassGame, stack: float, ante: float) -> tuple[float, np.ndarray, np.ndarray]:
    """``EV(x, y) = const + b @ x + x @ A @ y`` for push frequencies ``x`` and calls ``y``."""
    check_stack(stack, ante)
    deals = NUM_COMBOS * (NUM_COMBOS - 101)  # 1,326 x 1,225 ordered pairs of disjoint combos
    const = -(0.5 + ante)
    b = game.combos / NUM_COMBOS * (1.5 + 2 * ante)
    a = (2 * stack * game.equity - (stack + 1 + ante) * game.pairs) / deals
    return const, b, a


def values_of(game: ClassGame, stack: float, ante: float, push: np.ndarray,
              call: np.ndarray) -> tuple[float, float, float]:
    """``(value, sb_best, bb_best)``: the SB's value of the profile and of each best response
    (the SB's best against ``call``; the BB's best, as the SB's value, against ``push``)."""
    const, b, a = _payoffs(game, stack, ante)
    value = const + b @ push + push @ a @ call
    sb_best = const + np.maximum(0.0, b + a @ call).sum()
    bb_best = const + b @ push + np.minimum(0.0, a.T @ push).sum()
    return float(value), float(sb_best), float(bb_best)


def solve_pushfold(game: ClassGame, stack: float, ante: float = 0.0) -> PushFoldSolution:
    """The exact equilibrium at ``stack`` big blinds: each player's linear program."""
    from scipy.optimize import linprog

    const, b, a = _payoffs(game, stack, ante)
    n = len(b)
    eye = np.eye(n)
    # SB: max b.x + sum z, z <= 0, z <= A^T x, 0 <= x <= 1.
    sb = linprog(np.concatenate([-b, -np.ones(n)]), A_ub=np.hstack([-a.T, eye]),
                 b_ub=np.zeros(n), bounds=[(0, 1)] * n + [(None, 0)] * n, method="highs")
    # BB: min sum w, w >= 0, w >= b + A y, 0 <= y <= 1.
    bb = linprog(np.concatenate([np.zeros(n), np.ones(n)]), A_ub=np.hstack([a, -eye]),
                 b_ub=-b, bounds=[(0, 1)] * n + [(0, None)] * n, method="highs")
    if sb.status != 0 or bb.status != 0:  # pragma: no cover - HiGHS solves these always
        raise ConfigError(f"the push/fold LP at {stack} bb failed: {sb.message} {bb.message}")
    push, call = np.clip(sb.x[:n], 0, 1), np.clip(bb.x[:n], 0, 1)
    value, sb_best, bb_best = values_of(game, stack, ante, push, call)
    return PushFoldSolution(float(stack), float(ante), push, call, value,
                            max(0.0, sb_best - bb_best))


def cfr_pushfold(game: ClassGame, stack: float, ante: float = 0.0,
                 iterations: int = 20_000) -> PushFoldSolution:
    """CFR+ on the class game (alternating, regrets floored at 0, averages weighted by the
    iteration): a regret minimiser's answer, to compare with ``solve_pushfold``'s."""
    const, b, a = _payoffs(game, stack, ante)
    n = len(b)
    push_regret, call_regret = np.zeros((n, 2)), np.zeros((n, 2))
    push_sum, call_sum = np.zeros(n), np.zeros(n)
    # The BB's counterfactual weights: per class, the chance of its combos (its reach of the
    # decision is the SB's push weights, applied through A's columns).
    for t in range(1, iterations + 1):
        push = _matched(push_regret)
        call = _matched(call_regret)
        gain = b + a @ call  # SB's push minus fold, per class (chance-weighted)
        push_regret[:, 1] += gain * (1 - push)
        push_regret[:, 0] -= gain * push
        np.maximum(push_regret, 0, out=push_regret)
        push = _matched(push_regret)
        push_sum += t * push
        loss = a.T @ push  # SB's gain when BB calls rather than folds, per BB class
        call_regret[:, 1] += -loss * (1 - call)
        call_regret[:, 0] -= -loss * call
        np.maximum(call_regret, 0, out=call_regret)
        call_sum += t * _matched(call_regret)
    weight = iterations * (iterations + 1) / 2
    push, call = push_sum / weight, call_sum / weight
    value, sb_best, bb_best = values_of(game, stack, ante, push, call)
    return PushFoldSolution(float(stack), float(ante), push, call, value,
                            max(0.0, sb_best - bb_best))


def _matched(regret: np.ndarray) -> np.ndarray:
    """Regret matching: the frequency of action 1 (push / call)."""
    total = regret.sum(axis=1)
    return np.where(total > 0, regret[:, 1] / np.where(total > 0, total, 1.0), 0.5)


@dataclass(frozen=True)
class ThresholdTable:
    """Push/fold solved at every stack of ``stacks``: per class, the largest stack at which it
    is pushed (called) with frequency >= 0.5, and where the stacks it is played at have a gap.
    """

    stacks: np.ndarray
    solutions: list[PushFoldSolution]
    push_threshold_bb: dict[str, float | None]
    call_threshold_bb: dict[str, float | None]
    push_gaps: dict[str, list[tuple[float, float]]]
    """Classes pushed at some stacks below their threshold and not at others: the stretches
    (first and last stack) where they are *not* pushed, below the threshold."""
    call_gaps: dict[str, list[tuple[float, float]]]

    def to_json(self) -> dict[str, object]:
        """The thresholds, the gaps and each stack's frequencies."""
        return {
            "stacks_bb": [float(s) for s in self.stacks],
            "push_threshold_bb": self.push_threshold_bb,
            "call_threshold_bb": self.call_threshold_bb,
            "push_gaps_bb": {k: [list(g) for g in v] for k, v in self.push_gaps.items()},
            "call_gaps_bb": {k: [list(g) for g in v] for k, v in self.call_gaps.items()},
            "max_exploitability_bb": max(s.exploitability_bb for s in self.solutions),
            "per_stack": [s.to_json() for s in self.solutions],
        }


def parse_stacks(text: str) -> np.ndarray:
    """``"1:20:0.05"`` (first, last, step; both ends included) as the stacks to solve."""
    parts = text.split(":")
    try:
        first, last, step = (float(p) for p in parts)
    except ValueError:
        raise ConfigError(f"--stacks is FIRST:LAST:STEP in big blinds, e.g. 1:20:0.05, "
                          f"got {text!r}") from None
    if not (step > 0 and last >= first and (last - first) / step <= 100_000):
        raise ConfigError(f"--stacks {text}: the step must be positive, LAST >= FIRST and at "
                          "most 100,000 stacks")
    count = int(math.floor((last - first) / step + 1e-9)) + 1
    return np.round(first + step * np.arange(count), 10)


def thresholds(game: ClassGame, stacks: np.ndarray, ante: float = 0.0,
               progress: bool = True) -> ThresholdTable:
    """Solve every stack of ``stacks`` (ascending) and read the thresholds and gaps."""
    from tqdm import tqdm

    stacks = np.asarray(stacks, dtype=np.float64)
    if stacks.ndim != 1 or len(stacks) == 0 or (np.diff(stacks) <= 0).any():
        raise ConfigError("the stacks must be a non-empty ascending list")
    solutions = [solve_pushfold(game, float(s), ante)
                 for s in tqdm(stacks, disable=not progress, desc="push/fold", unit="stack")]
    pushed = np.array([s.sb_push for s in solutions]) >= 0.5
    called = np.array([s.bb_call for s in solutions]) >= 0.5
    push_t, push_g = _read(stacks, pushed)
    call_t, call_g = _read(stacks, called)
    return ThresholdTable(stacks, solutions, push_t, call_t, push_g, call_g)


def _read(stacks: np.ndarray, played: np.ndarray
          ) -> tuple[dict[str, float | None], dict[str, list[tuple[float, float]]]]:
    threshold: dict[str, float | None] = {}
    gaps: dict[str, list[tuple[float, float]]] = {}
    for c, name in enumerate(CLASS_NAMES):
        where = np.flatnonzero(played[:, c])
        if len(where) == 0:
            threshold[name] = None
            continue
        threshold[name] = round(float(stacks[where[-1]]), 4)
        holes = np.flatnonzero(~played[: where[-1] + 1, c])
        holes = holes[holes > where[0]]  # not played between two stacks where it is
        if len(holes):
            runs = np.split(holes, np.flatnonzero(np.diff(holes) > 1) + 1)
            gaps[name] = [(round(float(stacks[r[0]]), 4), round(float(stacks[r[-1]]), 4))
                          for r in runs]
    return threshold, gaps


def draw_threshold_chart(table: ThresholdTable, path: str | Path, ante: float = 0.0) -> Path:
    """The push and call thresholds as two 13 x 13 charts, each cell's number the largest
    stack (bb) at which the class is played (``-`` never; ``*`` where it has a gap below)."""
    from pokerzoo.public.spots.class_chart import draw_class_chart

    top = float(table.stacks[-1])
    panels, texts = [], []
    for title, found, gaps in (("small blind: push", table.push_threshold_bb, table.push_gaps),
                               ("big blind: call", table.call_threshold_bb, table.call_gaps)):
        grid = np.array([np.nan if found[n] is None else found[n] for n in CLASS_NAMES])
        text = np.array(["-" if found[n] is None else f"{found[n]:g}" + ("*" if n in gaps
                                                                          else "")
                         for n in CLASS_NAMES])
        panels.append((title, np.nan_to_num(grid, nan=0.0).reshape(13, 13)))
        texts.append(text.reshape(13, 13))
    return draw_class_chart(
        panels, path, f"Heads-up push/fold equilibrium, ante {ante:g} bb",
        note=f"stacks {table.stacks[0]:g} to {top:g} bb", what="push/fold chart", vmax=top,
        label="largest stack played (bb)", cell_text=texts,
        caption="each cell: the largest stack (bb, before posting) at which the class is "
                "played with frequency >= 0.5\n* not played at some smaller stacks")
