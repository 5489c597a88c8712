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
    finish,
    load_opponents,
    load_records,
    opponent_path,
    run_hunl_seed,
    run_seed,
    seed_path,
    train_opponent,
)
from nfsp_paper_report import report
from tqdm import tqdm

from pokerzoo.atomic import write_atomically
from pokerzoo.errors import ConfigError

BENCH = str(Path(__file__).resolve().parent)


def _job(shared: tuple[list[tuple[str, int]], Protocol, str, str], index: int) -> str:
    """One (preset, seed) run, or an opponent's training (preset "opponent")."""
    tasks, protocol, out, opponents = shared
    kind, arg = tasks[index]
    start = time.perf_counter()
    if kind == "opponent":
        train_opponent(OPPONENTS[arg], Path(opponents), protocol.opponent_hands)
        name = f"opponent {OPPONENTS[arg]}"
    elif kind.startswith("hunl:"):
        name = f"HUNL {kind[5:]} seed {arg}"
        try:
            run_hunl_seed(kind[5:], arg, protocol.hands, protocol.final_hands, Path(out))
        except ConfigError as error:
            # At the paper's SGD 0.1 a HUNL run can diverge (non-finite TD errors, which the
            # prioritized buffer refuses); the grid goes on and the report counts the seeds
            # that finished.
            print(f"failed: {name}: {error}", flush=True)
            return name
    else:
        run_seed(kind, arg, protocol, load_opponents(Path(opponents)), Path(out))
        name = f"{kind} seed {arg}"
    print(f"done: {name} ({time.perf_counter() - start:.0f} s)", flush=True)
    return name


def _executor(backend: str, workers: int) -> Any:
    """A pokerzoo Ray executor, or ``None`` (use a process pool) where Ray is missing."""
    if backend != "ray":
        return None
    try:
        import ray
    except ImportError:
        print("Ray is not installed: a process pool runs the grid", file=sys.stderr)
        return None
    # Ray's workers inherit this environment: they import the bench modules from here.
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [BENCH, *filter(None, [os.environ.get("PYTHONPATH")])])
    from pokerzoo.distributed import connect

    try:
        return connect(workers)
    except Exception as exc:
        print(f"Ray did not start ({exc}); a process pool runs the grid", file=sys.stderr)
        ray.shutdown()
        return None


def _run(jobs: list[tuple[str, int]], shared: tuple, workers: int, backend: str) -> None:
    if not jobs:
        return
    shared = (jobs, *shared)
    executor = _executor(backend, workers)
    progress = tqdm(total=len(jobs), desc="NFSP paper grid", unit="run")
    if executor is not None:
        # All jobs at once, so that a long one (an opponent) does not hold up a wave; each
        # job prints its line from its worker (Ray forwards it), the bar moves at the end.
        for name in executor.map(_job, shared, list(range(len(jobs)))):
            progress.set_postfix_str(name)
            progress.update()
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for name in pool.map(_job, [shared] * len(jobs), range(len(jobs))):
                progress.set_postfix_str(name)
                progress.update()
    progress.close()


def run_grid(out: Path, presets: Sequence[str], seeds: Iterable[int], protocol: Protocol,
             workers: int, backend: str, opponents: Path, hunl_seeds: int = 0) -> None:
    """Train the missing opponents, then every (preset, seed) run without a results file;
    ``hunl_seeds`` > 0 adds that many HUNL runs per preset (first: they are the longest)."""
    start = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    opponents.mkdir(parents=True, exist_ok=True)
    shared = (protocol, str(out), str(opponents))
    # A missing opponent trains in the same pool, first (the longest job); runs that finish
    # before it play it afterwards from their saved policies (``finish``).
    runs: list[tuple[str, int]] = [("opponent", i) for i, name in enumerate(OPPONENTS)
                                   if not opponent_path(opponents, name).exists()
                                   and protocol.opponent_hands > 0]
    runs += [(f"hunl:{p}", s) for s in range(hunl_seeds) for p in presets
             if not (out / "hunl" / f"{p}_seed{s}.json").exists()]
    runs += [(p, s) for s in seeds for p in presets if not seed_path(out, p, s).exists()]
    print(f"{len(runs)} jobs to do", flush=True)
    _run(runs, shared, workers, backend)
    added = finish(out, load_opponents(opponents))
    if added:
        print(f"{added} final matches against opponents trained beside the runs", flush=True)
    print(f"grid done in {time.perf_counter() - start:.0f} s; results in {out}/seeds")


def write_report(folder: Path, to: Path, note: str, opponents: Path) -> None:
    """``to`` from the seed files under ``folder``; prints the docs rows."""
    finish(folder, load_opponents(opponents))
    records = load_records(folder)
    if not records:
        raise SystemExit(f"no seed records under {folder}/seeds")
    command = "python bench/reproduce_nfsp.py --paper --seeds 18 --workers 16 --out DIR"
    text, rows = report(records, command, note or "(where it ran: not stated)",
                        load_records(folder, "hunl"), str(to))
    to.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(to, text, what="NFSP paper-protocol report")
    print(text)
    print("Rows for docs/reproductions.md:\n" + "\n".join(rows))
