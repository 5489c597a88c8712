"""Timing and table helpers shared by the benchmarks."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence


def cpu_seconds(
    fn: Callable[[], object], repeat: int = 3, clock: Callable[[], float] = time.process_time
) -> float:
    """Best-of-``repeat`` CPU seconds of ``fn()`` (process time: robust to a busy machine)."""
    best = float("inf")
    for _ in range(repeat):
        start = clock()
        fn()
        best = min(best, clock() - start)
    return best


def wall_seconds(fn: Callable[[], object], repeat: int = 3) -> float:
    """Best-of-``repeat`` wall-clock seconds of ``fn()`` (for work done in other processes,
    which this process's CPU time does not see)."""
    return cpu_seconds(fn, repeat, clock=time.perf_counter)


def rate(fn: Callable[[int], object], units: int, repeat: int = 3) -> float:
    """Units per CPU second of ``fn(units)``, best of ``repeat``."""
    return units / max(cpu_seconds(lambda: fn(units), repeat), 1e-12)


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(cells[0], widths)) + " |"]
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in cells[1:]]
    return "\n".join(lines)


def _fmt(value: object) -> str:
    if isinstance(value, float):
        if value == 0 or 0.01 <= abs(value) < 1e6:
            return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"
        return f"{value:.3g}"
    return str(value)
