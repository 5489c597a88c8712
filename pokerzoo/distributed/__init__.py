"""Ray workers behind ``--workers N`` / ``--ray-address ADDR``: evaluation, rollout and traversal
work of the same agents and evaluators, on more processes or machines.

Nothing here imports Ray until an executor is made, so ``import pokerzoo.distributed`` is free
and ``--workers 1`` (the default) never touches it. Agents and evaluators take a
``pokerzoo.parallel.Executor``; ``connect`` returns the Ray one:

* evaluation (``head_to_head``, ``run_tournament``, ``local_best_response``) is split into
  deal ranges, each deal played from its own stream: the same numbers to the chip for any
  number of workers;
* NFSP's rollout workers (``NFSP(..., workers=N, executor=...)``) step their own
  ``VectorPokerEnv`` with the latest weights and send transitions back each round, merged in
  worker order: reproducible for a fixed worker count;
* Deep CFR's traversal workers run shares of an iteration's traversals on the iteration's
  strategy table and return memory samples, merged in worker order;
* ``independent_runs`` runs any function over seeds (sampled environments, repeated runs).

A job whose worker dies is run again and a pool worker is rebuilt from its last state and its
call repeated: results are accepted once per job, so nothing is lost or counted twice, and
``executor.stats`` says how many were re-run.

A cluster's address is asked first (``connect(..., timeout=30)``, see
``pokerzoo.distributed.address``): an address that does not resolve, refuses or stays silent
is one line naming it within the timeout, not Ray's minutes of retries. Ray's own start-up
lines (the token it generated, "Started a local Ray instance") are not printed; its errors are.

>>> from pokerzoo.distributed import ray_install_hint
>>> ray_install_hint()
'pip install "pokerzoo[ray]"'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from pokerzoo.distributed.address import DEFAULT_TIMEOUT_S, check_timeout, parse_address
from pokerzoo.errors import ConfigError
from pokerzoo.parallel import Executor, InProcess, check_workers

if TYPE_CHECKING:
    from pokerzoo.distributed.ray_executor import RayExecutor

R = TypeVar("R")
S = TypeVar("S")


def ray_install_hint() -> str:
    """The install line of the optional Ray extra."""
    return 'pip install "pokerzoo[ray]"'


def require_ray() -> Any:
    """The ``ray`` module, or a ``ConfigError`` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(
            f"more than one worker or a Ray address needs Ray: {ray_install_hint()}"
        ) from None
    return ray


def connect(
    workers: int | None = None,
    address: str | None = None,
    *,
    max_retries: int = 3,
    num_cpus: int | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> RayExecutor:
    """A Ray executor: ``address`` joins a running cluster (``"auto"``, ``"ray://host:10001"``
    or ``host:6379``); without it a local Ray with ``num_cpus`` (default ``workers``) CPUs is
    started, unless this process already runs one (then that one is used). Ray's start-up
    lines are not printed (errors are).

    Args:
        workers: jobs run at once (default: the cluster's CPUs).
        address: a Ray cluster's address.
        max_retries: how often one job (or one pool call) is repeated after its worker dies.
        num_cpus: CPUs of a local Ray started here.
        timeout: seconds (default 30) for ``address`` to answer: an address that does not
            resolve, refuses or stays silent fails within it instead of Ray's minutes of
            retries (``pokerzoo.distributed.address``; ``"auto"`` is found by Ray itself).

    Raises:
        ConfigError: Ray is not installed, a bad argument, or a cluster that cannot be
            reached, naming the address and what to check.
    """
    # Every argument is checked before Ray starts (seconds) or is asked to join a cluster.
    if workers is not None:
        check_workers(workers)
    if num_cpus is not None:
        check_workers(num_cpus, "num_cpus")
    if address is not None:
        parse_address(address)
    check_timeout(timeout)
    from pokerzoo.distributed.ray_executor import RayExecutor

    return RayExecutor(workers, address, max_retries=max_retries, num_cpus=num_cpus,
                       timeout=timeout)


def executor_for(workers: int | None = None, address: str | None = None) -> Executor | None:
    """What ``--workers``/``--ray-address`` ask for: ``None`` (all in this process, no Ray
    import) for one worker and no address; else a Ray executor (with an address and no
    ``workers``: as many workers as the cluster has CPUs)."""
    if workers is not None:
        check_workers(workers)
    if address is None and (workers is None or workers == 1):
        return None
    return connect(workers, address)


def independent_runs(
    fn: Callable[[S, int], R],
    seeds: Sequence[int],
    shared: S = None,  # type: ignore[assignment]
    executor: Executor | None = None,
) -> list[R]:
    """``[fn(shared, seed) for seed in seeds]`` on the executor's workers (independent runs of
    any agent: seeds, sampled environments); results in the order of ``seeds``.

    ``fn`` must be importable by the workers (a module-level function), and each run must draw
    its randomness from its seed only, so that the results do not depend on the workers.

    Raises:
        ConfigError: ``fn`` not callable, ``seeds`` not a sequence of integers, or an
            ``executor`` that is not one.
    """
    if not callable(fn):
        raise ConfigError(f"independent_runs needs a function fn(shared, seed), got {fn!r}")
    if not isinstance(seeds, Sequence) or isinstance(seeds, str) or not all(
        isinstance(s, int | np.integer) and not isinstance(s, bool) for s in seeds
    ):
        raise ConfigError(f"seeds must be a sequence of integers, got {seeds!r}")
    if executor is not None and not callable(getattr(executor, "map", None)):
        raise ConfigError(f"executor must be a pokerzoo.parallel.Executor, got {executor!r}")
    executor = executor if executor is not None else InProcess()
    return executor.map(fn, shared, [int(s) for s in seeds])


__all__ = ["connect", "executor_for", "independent_runs", "ray_install_hint", "require_ray"]
