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
