"""The cold start's parallel compile: the signatures a tiny spot predicts are the ones a real
solve compiles, the kernels are restored after the look, and the compile is skipped where it
gains nothing (a river spot, one core, a warm cache)."""

from __future__ import annotations

import pytest

from pokerzoo.public.engine import sweep_kernel, warm_start
from pokerzoo.public.spots.holdem_spot import HoldemSpot, solve_spot

FLOP = HoldemSpot(board="QsJh2h", starting_pot=180, effective_stack=910,
                  oop_range="AA,KK,AKs,T9s", ip_range="QQ,JJ,AQs,65s",
                  flop_sizes="50%", turn_sizes="50%", river_sizes="50%")


def test_the_predicted_signatures_are_the_ones_a_solve_compiles() -> None:
    found = warm_start.kernel_signatures(FLOP, threads=2)
    assert set(found) == set(warm_start.KERNELS)  # a flop on 2 threads calls all three
    for name in warm_start.KERNELS:  # the recorders are gone: the kernels are numba's again
        assert hasattr(getattr(sweep_kernel, name), "overloads")
    solve_spot(FLOP, exploitability_pct=None, max_iterations=2, check_every=2, threads=2)
    for name, signature in found.items():
        assert signature in getattr(sweep_kernel, name).overloads, name
    assert warm_start.missing_signatures(FLOP, threads=2) == []


def test_nothing_is_compiled_where_it_gains_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("looked for the signatures")

    monkeypatch.setattr(warm_start, "missing_signatures", fail)
    river = HoldemSpot(board="QsJh2h7c3d", starting_pot=100, effective_stack=100,
                       oop_range="AA,KK", ip_range="QQ,JJ", river_sizes="50%")
    assert warm_start.compile_kernels_for(river, threads=2) == 0  # one kernel: no gain
    assert warm_start.compile_kernels_for(FLOP, workers=1, threads=2) == 0  # one core
    monkeypatch.setattr(warm_start, "_index", lambda name: {"an entry": 0})
    assert warm_start.compile_kernels_for(FLOP, threads=2) == 0  # every kernel cached


def test_a_cold_cache_compiles_in_parallel_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Told that nothing is cached, the kernels are compiled in two spawned processes (which
    # find them on disk, so the test stays short); all three are reported compiled.
    monkeypatch.setattr(warm_start, "_index", lambda name: {})
    monkeypatch.setattr(warm_start, "_cached", lambda name, signature: False)
    assert warm_start.compile_kernels_for(FLOP, workers=2, progress=False, threads=2) == 3
