"""One local Ray per test module (2 CPUs, no dashboard); the module's own functions and classes
travel to the workers by value (the test modules are not importable there)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import ray  # in the test extra: a missing Ray fails the run instead of skipping these tests


@pytest.fixture(scope="module")
def ray_local(request: pytest.FixtureRequest) -> Iterator[None]:
    # "local": a Ray of our own, even where another test process runs a cluster.
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray.cloudpickle.register_pickle_by_value(request.module)
    try:
        yield
    finally:
        ray.cloudpickle.unregister_pickle_by_value(request.module)
        ray.shutdown()
