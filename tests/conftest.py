"""Settings for every test process.

Under ``pytest -n 2`` on a 2-core machine each worker's torch would start one thread per core,
and the other worker (often with a local Ray beside it) competes for the same cores: torch's
threads then wait on each other and a test of seconds took minutes (a Deep CFR checkpoint test:
5 s alone, 576 s in the parallel suite). One torch thread per xdist worker keeps them apart.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    import torch

    torch.set_num_threads(1)


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """Torch on one thread for the test (two spin against each other on a busy 2-core
    machine: the torch backend's equality tests ran 2.4x slower so), restored after."""
    import torch

    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(saved)


@pytest.fixture(scope="session")
def equity_cache_root(tmp_path_factory):
    """A ``POKERZOO_CACHE`` folder holding the exact preflop equity table, built once per test
    run (two minutes on two cores) in a folder the xdist workers share, a second worker
    waiting for the first's under a file lock."""
    import fcntl

    from pokerzoo.public.spots.preflop_equity import TABLE_VERSION, equity_table

    shared = tmp_path_factory.getbasetemp().parent  # the same for every xdist worker
    path = shared / "pokerzoo_cache" / "preflop" / f"equity_v{TABLE_VERSION}.npz"
    with open(shared / "preflop_equity.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            equity_table(progress=False, path=path)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return shared / "pokerzoo_cache"


@pytest.fixture(scope="session")
def equity_table_built(equity_cache_root):
    from pokerzoo.public.spots.preflop_equity import TABLE_VERSION, equity_table

    return equity_table(progress=False,
                        path=equity_cache_root / "preflop" / f"equity_v{TABLE_VERSION}.npz")


@pytest.fixture(scope="session")
def push_fold_game(equity_table_built):
    from pokerzoo.public.spots.pushfold import class_game

    return class_game(equity_table_built)
