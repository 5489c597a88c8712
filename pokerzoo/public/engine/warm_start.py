"""A first solve's compiling spread over the cores: the range solver's kernels compiled in
parallel processes into numba's disk cache.

The solver's three sweeps (``sweep_kernel.sweep_cached``, ``sweep_tasks_cached``,
``sweep_tasks_rivers``) are large compiled functions: on a cold cache a flop spot compiles all
three, one after the other, for about 130 CPU-seconds (45 s each on this project's 2-core CI
machine) before its first iteration. They are cached on disk (``cache=True``), so a process
that compiles one saves it for every later process. ``compile_kernels_for(spot, ...)`` finds
the signatures a spot's solve will call, by one iteration and one best response of a tiny spot
of the same street and solver options with the kernels replaced by recorders (nothing is
solved; the recorded argument types are what numba compiles for), keeps those missing from
the disk cache, and compiles them in one process each (``spawn``), at most one per core. The
solve then loads them from the cache. A signature the tiny spot does not predict is compiled
in the solve as before: the work is only moved, never the results changed.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from multiprocessing import get_context
from typing import Any

import numpy as np

from pokerzoo.errors import PokerzooError

__all__ = ["KERNELS", "compile_kernels_for", "kernel_signatures", "missing_signatures"]

KERNELS = ("sweep_cached", "sweep_tasks_cached", "sweep_tasks_rivers")
"""The sweeps of ``pokerzoo.public.engine.sweep_kernel`` compiled apart (the large ones)."""

# ``sweep_cached`` returns the traverser's values, shaped as the values row of its record group
# (``sweep_kernel.Record``), the argument at this position.
_RECORD_ARG = 6


class _Recorded(Exception):
    pass


@contextmanager
def _recording(captured: dict[str, tuple[Any, ...]]) -> Iterator[None]:
    """The kernels of ``sweep_kernel`` replaced by recorders of their argument types."""
    import numba
    from numba.core.typing.typeof import Purpose

    from pokerzoo.public.engine import sweep_kernel

    real = {name: getattr(sweep_kernel, name) for name in KERNELS}

    def recorder(name: str) -> Callable[..., Any]:
        def record(*args: Any) -> Any:
            if name not in captured:
                captured[name] = tuple(numba.typeof(a, Purpose.argument) for a in args)
            return np.zeros_like(args[_RECORD_ARG].value) if name == "sweep_cached" else None

        return record

    for name in KERNELS:
        setattr(sweep_kernel, name, recorder(name))
    try:
        yield
    finally:
        for name, kernel in real.items():
            setattr(sweep_kernel, name, kernel)


def _tiny_spot(spot: Any) -> Any:
    """A spot of the same street as ``spot``, two hands a side and one bet size a street."""
    from pokerzoo.public.spots.holdem_spot import HoldemSpot

    kept = {"board": spot.board, "starting_pot": spot.starting_pot,
            "effective_stack": spot.effective_stack, "suit_isomorphism": spot.suit_isomorphism}
    board = {spot.board[i:i + 2] for i in range(0, len(spot.board), 2)}
    hands = [h for h in ("AhAd", "KhKd", "QcQd", "JcJd", "ThTd", "9c9d", "8h8d", "7c7d",
                         "6h6d", "5c5d") if not {h[:2], h[2:]} & board]
    return HoldemSpot(**kept, oop_range=",".join(hands[:2]), ip_range=",".join(hands[2:4]),
                      flop_sizes="50%", turn_sizes="50%", river_sizes="50%")


def kernel_signatures(spot: Any, **solver_options: Any) -> dict[str, tuple[Any, ...]]:
    """The argument types each large kernel is called with when ``spot`` is solved with
    ``solver_options`` (``PublicSolver``'s), found on a tiny spot of the same street."""
    from pokerzoo.public.engine.solver import PublicSolver
    from pokerzoo.public.spots.holdem_spot import build_spot_tree

    options = {k: v for k, v in solver_options.items() if k not in ("locks", "max_memory_bytes")}
    tree = build_spot_tree(_tiny_spot(spot))
    solver = PublicSolver(tree, **options)
    captured: dict[str, tuple[Any, ...]] = {}
    with _recording(captured):
        solver.iterate(1)
        solver.best_response_values()
    return captured


def _index(name: str) -> dict[Any, Any] | None:
    """Numba's on-disk cache index of kernel ``name`` (``None`` where it cannot be read)."""
    from pokerzoo.public.engine import sweep_kernel

    try:  # numba's cache API is not public: if it changes, the solve compiles (only slower)
        return dict(getattr(sweep_kernel, name)._cache._cache_file._load_index())
    except Exception:  # any failure here only means "not known to be cached"
        return None


def _cached(name: str, signature: tuple[Any, ...]) -> bool:
    """Whether ``signature`` of kernel ``name`` is compiled in this process or on disk."""
    from pokerzoo.public.engine import sweep_kernel

    dispatcher = getattr(sweep_kernel, name)
    if signature in dispatcher.overloads:
        return True
    index = _index(name)
    try:
        key = dispatcher._cache._index_key(signature, dispatcher.targetctx.codegen())
    except Exception:  # as in _index
        return False
    return index is not None and key in index


def missing_signatures(spot: Any, **solver_options: Any) -> list[tuple[str, tuple[Any, ...]]]:
    """The kernels (name, signature) a solve of ``spot`` would compile: not yet cached."""
    found = kernel_signatures(spot, **solver_options)
    return [(name, sig) for name, sig in found.items() if not _cached(name, sig)]


def _compile_one(name: str, signature: tuple[Any, ...]) -> str:
    from pokerzoo.public.engine import sweep_kernel

    getattr(sweep_kernel, name).compile(signature)  # cache=True: saved to the disk cache
    return name


def compile_kernels_for(spot: Any, workers: int | None = None, progress: bool = True,
                        **solver_options: Any) -> int:
    """Compile, in parallel processes, the large kernels a solve of ``spot`` would compile
    one after the other; returns how many were compiled (0 on a warm cache).

    Args:
        spot: the ``HoldemSpot`` to be solved.
        workers: processes at most (default: the cores this process may use).
        progress: a tqdm bar over the kernels.
        solver_options: the ``PublicSolver`` options of the solve (threads, storage, ...).
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if len(spot.board) >= 10 or min(workers or cores or 1, len(KERNELS)) < 2:
        return 0  # a river spot calls one of the kernels; one core gains nothing either
    if all(_index(name) for name in KERNELS):
        return 0  # every kernel has compiled before: no tiny solve to look for the rest
    try:
        with warnings.catch_warnings():  # the tiny spot's notes are the real spot's to give
            warnings.simplefilter("ignore")
            missing = missing_signatures(spot, **solver_options)
    except PokerzooError:
        return 0  # a spot the tiny copy cannot mirror: its solve compiles as it always did
    count = min(len(missing), workers or cores or 1)
    if count < 2:
        return 0  # one kernel or one core: compiling in the solve itself costs the same
    from tqdm.auto import tqdm

    with ProcessPoolExecutor(count, mp_context=get_context("spawn")) as pool, tqdm(
            total=len(missing), unit="kernel", disable=not progress,
            desc=f"compiling the solver on {count} cores (first run only)") as bar:
        for future in as_completed([pool.submit(_compile_one, n, s) for n, s in missing]):
            future.result()
            bar.update(1)
    return len(missing)

