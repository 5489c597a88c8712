"""The Ray ``Executor``: jobs as Ray tasks, worker pools as Ray actors, both restarted on death.

Jobs are submitted ``workers`` at a time and their results stored by job index, so the
order they finish in never matters. A job whose worker process (or node) dies is submitted
again: its first run returned nothing, so nothing is counted twice. Pool workers are Ray actors
that Ray restarts after a death; each call returns the worker's state with its result, and a
call that dies is repeated on the restarted actor after restoring the state of the worker's
last accepted call, so the repeated call does exactly what the lost one would have done.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pokerzoo.distributed import require_ray
from pokerzoo.distributed.address import DEFAULT_TIMEOUT_S, check_timeout, probe_address
from pokerzoo.errors import ConfigError, PokerzooError, WorkerLostError
from pokerzoo.parallel import ExecutorStats, check_pool_args, check_workers

RESTART_WAIT_S = 120.0
"""How long a pool call waits for Ray to bring a dead worker back before giving up."""

S = TypeVar("S")
J = TypeVar("J")
R = TypeVar("R")


def _run_job(fn: Callable[[Any, Any], Any], shared: Any, job: Any) -> Any:
    return fn(shared, job)


class _PoolActor:
    """Holds one pool worker in a Ray actor process."""

    def __init__(self, factory: Callable[[int], Any], index: int) -> None:
        self.worker = factory(index)

    # Arguments come unpacked, so that Ray resolves the object references among them.
    def run(self, method: str, *args: Any) -> tuple[Any, Any]:
        result = getattr(self.worker, method)(*args)
        return result, self.worker.state_dict()

    def restore_and_run(self, state: Any, method: str, *args: Any) -> tuple[Any, Any]:
        if state is not None:
            self.worker.load_state_dict(state)
        return self.run(method, *args)

    def load_state_dict(self, state: Any) -> None:
        self.worker.load_state_dict(state)

    def pid(self) -> int:
        import os

        return os.getpid()


class RayExecutor:
    """Runs jobs and worker pools on Ray (``pokerzoo.distributed.connect`` builds it).

    Args:
        workers: jobs run at once (default: the cluster's CPUs).
        address: a Ray cluster's address; without it a local Ray is started (or the one this
            process already runs is used).
        max_retries: how often one job or pool call is repeated after its worker dies.
        num_cpus: CPUs of a local Ray started here (default ``workers``).
        timeout: seconds to wait for ``address`` to answer before giving up.
    """

    def __init__(
        self,
        workers: int | None = None,
        address: str | None = None,
        *,
        max_retries: int = 3,
        num_cpus: int | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        ray = require_ray()
        self._ray = ray
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        self.max_retries = max_retries
        timeout = check_timeout(timeout)
        if not ray.is_initialized():
            _init_ray(ray, address, num_cpus or workers, timeout)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = check_workers(workers) if workers is not None else max(1, cpus)
        self.stats = ExecutorStats()
        # Retries are ours (not Ray's), so that they are counted and capped in one place.
        self._task = ray.remote(num_cpus=1, max_retries=0)(_run_job)
        # Pool workers reserve no CPU (as Ray's actors by default): a reservation would be
        # held for the pool's life, and jobs (a training run's evaluation matches) waiting for
        # those CPUs would wait forever. SPREAD puts them on different nodes of a cluster.
        self._actor = ray.remote(num_cpus=0, max_restarts=-1, max_task_retries=0,
                                 scheduling_strategy="SPREAD")(_PoolActor)

    def __repr__(self) -> str:
        return f"RayExecutor(workers={self.workers})"

    # Jobs -------------------------------------------------------------------------------------

    def map(self, fn: Callable[[S, J], R], shared: S, jobs: Sequence[J]) -> list[R]:
        """``[fn(shared, job) for job in jobs]`` on Ray tasks, ``workers`` at a time."""
        ray = self._ray
        jobs = list(jobs)
        shared_ref = ray.put(shared)
        results: list[Any] = [None] * len(jobs)
        attempts = [0] * len(jobs)
        queue = list(range(len(jobs)))[::-1]
        pending: dict[Any, int] = {}
        while queue or pending:
            while queue and len(pending) < self.workers:
                i = queue.pop()
                pending[self._task.remote(fn, shared_ref, jobs[i])] = i
            done, _ = ray.wait(list(pending), num_returns=1)
            i = pending.pop(done[0])
            try:
                results[i] = ray.get(done[0])
            except self._lost_errors() as exc:
                attempts[i] += 1
                if attempts[i] > self.max_retries:
                    raise WorkerLostError(
                        f"job {i} lost its worker {attempts[i]} times ({type(exc).__name__}); "
                        f"max_retries is {self.max_retries}"
                    ) from exc
                self.stats.retried += 1
                queue.append(i)
            except ray.exceptions.RayTaskError as exc:
                raise _cause(exc) from None
        self.stats.jobs += len(jobs)
        return results

    def _lost_errors(self) -> tuple[type[BaseException], ...]:
        e = self._ray.exceptions
        # ActorUnavailableError: a call that reached an actor while Ray was restarting it.
        return (e.WorkerCrashedError, e.NodeDiedError, e.ObjectLostError, e.OwnerDiedError,
                e.RayActorError, e.ActorUnavailableError, e.LocalRayletDiedError)

    # Pools ------------------------------------------------------------------------------------

    def pool(self, factory: Callable[[int], Any], n: int) -> RayPool:
        """``n`` workers ``factory(index)``, each in its own Ray actor."""
        return RayPool(self, factory, check_workers(n))


@dataclass(frozen=True)
class _Submitted:
    method: str
    args: list[tuple[Any, ...]]
    refs: list[Any]


class RayPool:
    """Worker pool on Ray actors (``RayExecutor.pool``); see the module docstring."""

    def __init__(self, executor: RayExecutor, factory: Callable[[int], Any], n: int) -> None:
        self.executor = executor
        self.actors = [executor._actor.remote(factory, i) for i in range(n)]
        self.states: list[Any] = [None] * n

    @property
    def size(self) -> int:
        return len(self.actors)

    def call(self, method: str, args: Sequence[tuple[Any, ...]]) -> list[Any]:
        """``worker[i].method(*args[i])`` on every worker; results in worker order."""
        return self.gather(self.submit(method, args))

    def submit(self, method: str, args: Sequence[tuple[Any, ...]]) -> _Submitted:
        """Start a call on every worker; ``gather`` waits for it."""
        check_pool_args(self.size, args)
        ray = self.executor._ray
        # Arguments shared by every worker (the same object: a round's weights) are put in
        # the object store once.
        puts: dict[int, Any] = {}
        sent = []
        for a in args:
            sent.append(tuple(puts.setdefault(id(x), ray.put(x)) for x in a))
        refs = [w.run.remote(method, *x) for w, x in zip(self.actors, sent)]
        return _Submitted(method, sent, refs)

    def gather(self, handle: _Submitted) -> list[Any]:
        """The results of ``handle``; a worker that died is restarted, restored to its state
        after its last accepted call, and the call repeated."""
        ray, ex = self.executor._ray, self.executor
        results: list[Any] = [None] * self.size
        for i, ref in enumerate(handle.refs):
            attempts = waits = 0
            waited = 0.0
            while True:
                try:
                    results[i], self.states[i] = ray.get(ref)
                    break
                except ray.exceptions.ActorUnavailableError as exc:
                    # Ray is still restarting the actor (slow on a loaded machine): not another
                    # death, so wait and call again, up to RESTART_WAIT_S in all.
                    if waited > RESTART_WAIT_S:
                        raise WorkerLostError(
                            f"pool worker {i} was not back {RESTART_WAIT_S:.0f} s after it died "
                            f"during {handle.method}()"
                        ) from exc
                    if waits == 0 and attempts == 0:
                        ex.stats.restarts += 1  # the death showed first as unavailability
                    waits += 1
                    pause = min(0.1 * 2**waits, 2.0)
                    time.sleep(pause)
                    waited += pause
                    # Restoring first makes the repeat safe whether or not the call ran.
                    ref = self.actors[i].restore_and_run.remote(
                        self.states[i], handle.method, *handle.args[i]
                    )
                except ex._lost_errors() as exc:
                    attempts += 1
                    if attempts > ex.max_retries:
                        raise WorkerLostError(
                            f"pool worker {i} died {attempts} times during {handle.method}(); "
                            f"max_retries is {ex.max_retries}"
                        ) from exc
                    ex.stats.restarts += 1
                    # Ray restarts the actor (its constructor runs again).
                    ref = self.actors[i].restore_and_run.remote(
                        self.states[i], handle.method, *handle.args[i]
                    )
                except ray.exceptions.RayTaskError as exc:
                    raise _cause(exc) from None
        ex.stats.calls += 1
        return results

    def state_dicts(self) -> list[Any]:
        return list(self.states)

    def load_state_dicts(self, states: Sequence[Any]) -> None:
        check_pool_args(self.size, states)
        ray = self.executor._ray
        ray.get([a.load_state_dict.remote(s) for a, s in zip(self.actors, states)])
        self.states = list(states)

    def pids(self) -> list[int]:
        """The workers' process ids (tests kill them)."""
        return list(self.executor._ray.get([a.pid.remote() for a in self.actors]))

    def close(self) -> None:
        for actor in self.actors:
            self.executor._ray.kill(actor)
        self.actors = []


def _init_ray(ray: Any, address: str | None, num_cpus: int | None, timeout: float) -> None:
    """Join the cluster at ``address`` (checked to answer within ``timeout`` first), or start
    a local Ray of ``num_cpus`` CPUs.

    Ray's own start-up lines (the token it generated, "Started a local Ray instance") are
    silenced: the driver's "ray" logger shows errors only, and workers' output stays on the
    workers (``log_to_driver=False``); a job's error still reaches the caller as itself.
    """
    quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
    if address is None:
        # "local": start one here, never join a cluster found on this machine.
        ray.init(address="local", num_cpus=num_cpus, **quiet)
        return
    probe_address(address, timeout)
    try:
        ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        # Ray's own refusals (a malformed address, a cluster that answered but refused us).
        detail = str(exc).splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(f"cannot connect to the Ray cluster at {address!r}: {detail}") from None


def _cause(exc: Any) -> BaseException:
    """The error a job raised, as itself where it is one of ours (so the one-line CLI report
    reads as in-process), else Ray's error posing as its cause's type."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, PokerzooError):
        return cause
    return exc.as_instanceof_cause()
