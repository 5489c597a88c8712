"""The batched torch form of the sweep (bench/bench_sweep_torch.py) computes what the numba
engine computes: from the same regrets and sums, the same ones after an iteration, and the
same game value of the same average strategy."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[3]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_sweep_torch",
                                                  ROOT / "bench" / "bench_sweep_torch.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bench = _bench()


@pytest.fixture(autouse=True)
def one_torch_thread():
    # torch's intra-op threads spin against each other on a busy 2-core machine
    before = bench.torch.get_num_threads()
    bench.torch.set_num_threads(1)
    yield
    bench.torch.set_num_threads(before)


@pytest.fixture(scope="module")
def trees():
    from pokerzoo.public.spots.holdem_spot import build_spot_tree

    return {name: build_spot_tree(spot) for name, spot in bench.small_spots()}


def test_spots_cover_isomorphism_and_runouts(trees):
    # chance children standing for isomorphic cards, and chance nodes right below chance nodes
    # (an all-in on the flop deals the turn and the river without betting)
    assert int(trees["turn"].iso_count.sum()) > 0 and int(trees["flop"].iso_count.sum()) > 0
    flop = trees["flop"]
    chance = flop.kind == 1
    assert bool(np.any(chance[1:] & chance[flop.parent[1:]]))


@pytest.mark.parametrize("name,algorithm", [("river", "cfr+"), ("turn", "cfr+"),
                                            ("turn", "postflop"), ("flop", "cfr+")])
def test_torch_sweep_matches_engine(trees, name, algorithm):
    result = bench.check(trees[name], iterations=3, algorithm=algorithm)
    # the engine stores regrets and sums in float32, the torch form here float64
    assert result["step_diff"] < 1e-6
    assert result["torch_value"] == pytest.approx(result["engine_value"], rel=1e-9, abs=1e-9)
