"""Timing and table helpers shared by the benchmarks."""

from __future__ import annotations

import platform
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path


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


def code_version(checkout: Path) -> str:
    """The git commit of a checkout (short, ``+changes`` when its work tree differs), or
    ``unknown`` outside git."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(checkout), *args], capture_output=True,
                              text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD")
    if not commit:
        return "unknown"
    return commit + (" +changes" if git("status", "--porcelain", "--untracked-files=no")
                     else "")


def library_versions() -> str:
    """Python, numpy and numba versions, one line."""
    import numba
    import numpy

    return (f"Python {platform.python_version()}, numpy {numpy.__version__}, "
            f"numba {numba.__version__}")


def machine_name() -> str:
    """The CPU's name and its core count, one line (the same on every run of a machine)."""
    import os

    name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name}, {os.cpu_count()} cores"


def machine_line() -> str:
    """``machine_name`` and the load average now, one line."""
    import os

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{machine_name()}, load average {load:.1f}"


def provenance(cells: Sequence[dict[str, object]]) -> dict[str, list[str]]:
    """The code versions, machines (without their load) and library lines of a grid's cells,
    each sorted and without repeats: what its summary records."""
    return {
        "code_versions": sorted({str(c["code_version"]) for c in cells}),
        "machines": sorted({str(c["machine"]).rsplit(", load", 1)[0] for c in cells}),
        "libraries": sorted({str(c["libraries"]) for c in cells}),
    }


def provenance_line(summary: dict[str, list[str]]) -> str:
    """``provenance``'s fields as one Markdown line for a summary."""
    return (
        "Code "
        + ", ".join(summary["code_versions"])
        + "; "
        + "; ".join(summary["libraries"])
        + "; "
        + "; ".join(summary["machines"])
        + ". Draws (torch training)."
    )
