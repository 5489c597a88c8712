"""Runs the NFSP-PLT paper grid in parallel processes (Ray where installed, else a process
pool) and writes its report; every (preset, seed) run writes its own file (``nfsp_paper``)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from nfsp_paper import (
    OPPONENTS,
    Protocol,
    load_opponents,
    load_records,
    opponent_path,
    run_seed,
    seed_path,
    train_opponent,
)
from nfsp_paper_report import report
from tqdm import tqdm

from pokerzoo.atomic import write_atomically

BENCH = str(Path(__file__).resolve().parent)


def _job(shared: tuple[list[tuple[str, int]], Protocol, str, str], index: int) -> str:
    """One (preset, seed) run, or an opponent's training (preset "opponent")."""
    tasks, protocol, out, opponents = shared
    kind, arg = tasks[index]
    if kind == "opponent":
        train_opponent(OPPONENTS[arg], Path(opponents))
        return f"opponent {OPPONENTS[arg]}"
    run_seed(kind, arg, protocol, load_opponents(Path(opponents)), Path(out))
    return f"{kind} seed {arg}"


def _executor(backend: str, workers: int) -> Any:
    """A pokerzoo Ray executor, or ``None`` (use a process pool) where Ray is missing."""
    if backend != "ray":
        return None
    try:
        import ray  # noqa: F401
    except ImportError:
        print("Ray is not installed: a process pool runs the grid", file=sys.stderr)
        return None
    # Ray's workers inherit this environment: they import the bench modules from here.
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [BENCH, *filter(None, [os.environ.get("PYTHONPATH")])])
    from pokerzoo.distributed import connect

    return connect(workers)


def _run(jobs: list[tuple[str, int]], shared: tuple, workers: int, backend: str) -> None:
    if not jobs:
        return
    shared = (jobs, *shared)
    executor = _executor(backend, workers)
    progress = tqdm(total=len(jobs), desc="NFSP paper grid", unit="run")
    if executor is not None:
        # Ray: submitted in small waves so that the progress bar moves (each run writes its
        # own file, so nothing is lost if the command is stopped between waves).
        for start in range(0, len(jobs), workers):
            wave = list(range(start, min(start + workers, len(jobs))))
            for name in executor.map(_job, shared, wave):
                progress.set_postfix_str(name)
                progress.update()
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for name in pool.map(_job, [shared] * len(jobs), range(len(jobs))):
                progress.set_postfix_str(name)
                progress.update()
    progress.close()


def run_grid(out: Path, presets: Sequence[str], seeds: Iterable[int], protocol: Protocol,
             workers: int, backend: str, opponents: Path) -> None:
    """Train the missing opponents, then every (preset, seed) run without a results file."""
    start = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    opponents.mkdir(parents=True, exist_ok=True)
    shared = (protocol, str(out), str(opponents))
    missing = [("opponent", i) for i, name in enumerate(OPPONENTS)
               if not opponent_path(opponents, name).exists()]
    _run(missing, shared, workers, backend)
    runs = [(p, s) for s in seeds for p in presets if not seed_path(out, p, s).exists()]
    print(f"{len(runs)} runs to do ({len(missing)} opponents trained first)", flush=True)
    _run(runs, shared, workers, backend)
    print(f"grid done in {time.perf_counter() - start:.0f} s; results in {out}/seeds")


def write_report(folder: Path, to: Path, note: str) -> None:
    """``to`` from the seed files under ``folder``; prints the docs rows."""
    records = load_records(folder)
    if not records:
        raise SystemExit(f"no seed records under {folder}/seeds")
    command = "python bench/reproduce_nfsp.py --paper --seeds 18 --workers 16 --out DIR"
    text, rows = report(records, command, note or "(where it ran: not stated)")
    to.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(to, text, what="NFSP paper-protocol report")
    print(text)
    print("Rows for docs/reproductions.md:\n" + "\n".join(rows))
