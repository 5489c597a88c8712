"""A multi-node simulation on one machine: a head node and a worker node of one CPU each
(``ray.cluster_utils.Cluster``) run a tournament whose table equals the in-process one."""

from __future__ import annotations

import numpy as np
import pytest
import ray
from ray import cluster_utils

from pokerzoo import load_game
from pokerzoo.distributed import connect
from pokerzoo.evaluation.opponents import make_opponent
from pokerzoo.evaluation.tournament import Entrant, run_tournament


@pytest.fixture(scope="module")
def two_nodes():
    cluster = cluster_utils.Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    try:
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.mark.slow
def test_a_tournament_on_two_nodes_equals_the_in_process_one(two_nodes) -> None:
    game = load_game("limit_holdem")
    field = [Entrant(n, make_opponent(n, game)) for n in ("random", "always-call")]
    executor = connect(address=two_nodes.address)
    assert executor.workers == 2 and len(ray.nodes()) == 2
    spread = run_tournament(game, field, num_deals=40, seed=11, executor=executor)
    local = run_tournament(game, field, num_deals=40, seed=11)
    np.testing.assert_array_equal(spread.mean_mbb, local.mean_mbb)
    np.testing.assert_array_equal(spread.ci_mbb, local.ci_mbb)
    assert spread.hands_per_pairing == 80 and executor.stats.retried == 0
