"""The face of parallel work that agents and evaluators accept: an ``Executor``.

Evaluators split their work by index (deal ranges, pairings, seeds) and learners by worker
(rollout or traversal workers); an ``Executor`` runs those pieces and gives the results back
*in job order*, whatever order they finished in, so a result never depends on how many workers
ran it or how fast each was. ``InProcess`` runs everything here, one piece after another (the
default, and the reference the distributed runs are tested against); the Ray executor of
``pokerzoo.distributed`` runs the same pieces on worker processes, restarting any that die.
This module imports nothing beyond numpy, so agents and evaluators depend on the face only
and Ray stays an optional import of ``pokerzoo.distributed``.

>>> ex = InProcess()
>>> ex.map(lambda shared, job: shared * job, 10, [1, 2, 3])
[10, 20, 30]
>>> split_range(0, 10, 3)
[(0, 4), (4, 7), (7, 10)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from pokerzoo.errors import ConfigError

S = TypeVar("S")
J = TypeVar("J")
R = TypeVar("R")


@dataclass
class ExecutorStats:
    """What an executor ran: the run's totals, so a report can say nothing was lost."""

    jobs: int = 0
    """Jobs (task-sized pieces) whose results were accepted, each exactly once."""
    retried: int = 0
    """Jobs run again because the worker running them died (their first result never
    arrived, so nothing was counted twice)."""
    calls: int = 0
    """Rounds of worker-pool calls accepted (one result per worker each)."""
    restarts: int = 0
    """Pool calls repeated on a restarted worker (restored to its last state) after the worker
    died: at least one per death (a call reaching the worker while it restarts counts again)."""

    def summary(self) -> str:
        """One line for a report."""
        parts = [f"{self.jobs} jobs"] if self.jobs or not self.calls else []
        if self.calls:
            parts.append(f"{self.calls} worker rounds")
        line = ", ".join(parts)
        if self.retried or self.restarts:
            line += (f"; {self.retried} jobs re-run and {self.restarts} worker calls repeated "
                     "after a worker died, every result counted once")
        return line


class WorkerPool(Protocol):
    """``n`` long-lived workers, each built by ``factory(index)``.

    Workers keep state between calls (an env with hands in flight); they offer
    ``state_dict()``/``load_state_dict(state)`` so that a worker that dies is rebuilt and
    restored to its state after its last accepted call, and that call is repeated.
    """

    @property
    def size(self) -> int:
        """Number of workers."""
        ...

    def call(self, method: str, args: Sequence[tuple[Any, ...]]) -> list[Any]:
        """``worker[i].method(*args[i])`` on every worker at once; results in worker order."""
        ...

    def submit(self, method: str, args: Sequence[tuple[Any, ...]]) -> Any:
        """Start ``call`` and return at once (one call in flight per pool); ``gather`` it."""
        ...

    def gather(self, handle: Any) -> list[Any]:
        """The results of a ``submit``, in worker order."""
        ...

    def state_dicts(self) -> list[Any]:
        """Each worker's state after its last accepted call (for checkpoints)."""
        ...

    def load_state_dicts(self, states: Sequence[Any]) -> None:
        """Restore every worker from ``state_dicts()``."""
        ...

    def close(self) -> None:
        """Release the workers."""
        ...


@runtime_checkable
class Executor(Protocol):
    """Runs jobs and worker pools; results always come back in job/worker order."""

    workers: int
    """How many pieces run at once (1: one after another)."""
    stats: ExecutorStats

    def map(self, fn: Callable[[S, J], R], shared: S, jobs: Sequence[J]) -> list[R]:
        """``[fn(shared, job) for job in jobs]``; ``shared`` is sent to each worker once."""
        ...

    def pool(self, factory: Callable[[int], Any], n: int) -> WorkerPool:
        """``n`` workers built by ``factory(index)`` (see ``WorkerPool``)."""
        ...


class InProcess:
    """An ``Executor`` that runs every job and worker here, in order.

    Args:
        workers: how many pieces work is split into (``workers=2`` runs the same split as a
            two-worker Ray executor, one piece after the other, so it gives the same numbers).
    """

    def __init__(self, workers: int = 1) -> None:
        self.workers = check_workers(workers)
        self.stats = ExecutorStats()

    def map(self, fn: Callable[[S, J], R], shared: S, jobs: Sequence[J]) -> list[R]:
        results = [fn(shared, job) for job in jobs]
        self.stats.jobs += len(results)
        return results

    def pool(self, factory: Callable[[int], Any], n: int) -> LocalPool:
        return LocalPool([factory(i) for i in range(check_workers(n))], self.stats)

    def __repr__(self) -> str:
        return f"InProcess(workers={self.workers})"


class LocalPool:
    """Workers held in this process (``InProcess.pool``)."""

    def __init__(self, workers: list[Any], stats: ExecutorStats) -> None:
        self.workers = workers
        self.stats = stats

    @property
    def size(self) -> int:
        return len(self.workers)

    def call(self, method: str, args: Sequence[tuple[Any, ...]]) -> list[Any]:
        check_pool_args(self.size, args)
        results = [getattr(w, method)(*a) for w, a in zip(self.workers, args)]
        self.stats.calls += 1
        return results

    def submit(self, method: str, args: Sequence[tuple[Any, ...]]) -> list[Any]:
        return self.call(method, args)  # here the work is done at once

    def gather(self, handle: list[Any]) -> list[Any]:
        return handle

    def state_dicts(self) -> list[Any]:
        return [w.state_dict() for w in self.workers]

    def load_state_dicts(self, states: Sequence[Any]) -> None:
        check_pool_args(self.size, states)
        for w, s in zip(self.workers, states):
            w.load_state_dict(s)

    def close(self) -> None:
        self.workers = []


def check_workers(workers: object, name: str = "workers") -> int:
    """``workers`` as an ``int`` >= 1; ``ConfigError`` otherwise."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"{name} must be an integer >= 1, got {workers!r}")
    return workers


def check_pool_args(size: int, args: Sequence[Any]) -> None:
    if len(args) != size:
        raise ConfigError(f"a pool of {size} workers needs {size} argument tuples, "
                          f"got {len(args)}")


def split_range(start: int, stop: int, parts: int) -> list[tuple[int, int]]:
    """``[start, stop)`` cut into at most ``parts`` contiguous, non-empty, nearly equal ranges."""
    n = stop - start
    parts = max(1, min(parts, n))
    cuts = [start + (n * k + parts - 1) // parts for k in range(parts + 1)]
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def deal_ranges(num_deals: int, executor: Executor | None, per_worker: int = 4) -> list[
        tuple[int, int]]:
    """How an evaluator cuts ``num_deals`` deals: one range in-process, else a few ranges per
    worker (enough to even out uneven hands, few enough that each task is worth sending)."""
    if executor is None or executor.workers == 1:
        return [(0, num_deals)]
    return split_range(0, num_deals, per_worker * executor.workers)


def run_map(
    executor: Executor | None, fn: Callable[[S, J], R], shared: S, jobs: Sequence[J]
) -> list[R]:
    """``executor.map`` or, without an executor, the plain loop here."""
    if executor is None:
        return [fn(shared, job) for job in jobs]
    return executor.map(fn, shared, jobs)
