"""bench/reproduce_bufp.py --cfr sampled: the sampled CFRs stop at their target; RLCard's
observation-keyed chance-sampling CFR."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import bufp_sampled  # noqa: E402

from pokerzoo import load_game  # noqa: E402
from pokerzoo.agents.cfr.chance_sampling import (  # noqa: E402
    ChanceSamplingCFR,
    chance_index,
    observation_groups,
)
from pokerzoo.evaluation import exploitability  # noqa: E402
from pokerzoo.games.leduc import CALL, LEDUC_VARIANTS  # noqa: E402
from pokerzoo.tree import TabularPolicy, build  # noqa: E402


@pytest.fixture(scope="module")
def kuhn_tree():
    return build(load_game("kuhn_poker"))


@pytest.fixture(scope="module")
def leduc_tree():
    return build(load_game("leduc_holdem", **LEDUC_VARIANTS["rlcard"]))


@pytest.mark.parametrize("method", list(bufp_sampled.METHODS))
def test_sampled_cfr_stops_at_its_target(kuhn_tree, method: str) -> None:
    target = 60.0  # milli-antes per hand on Kuhn (ante 1: scale 1000)
    policy, trace = bufp_sampled.train_to_target(method, kuhn_tree, seed=0, target_mbh=target,
                                                 scale=1000.0, check_every=200, cap=200_000)
    values = [v for _, v in trace["trace"]]
    assert trace["reached"] and values[-1] <= target
    assert all(v > target for v in values[:-1])  # the first check under the target stops it
    assert trace["iterations"] == 200 * len(values)
    assert trace["exploitability_mbh"] == pytest.approx(
        1000.0 * exploitability(kuhn_tree, policy))


def test_sampled_cfr_stops_at_its_cap_when_the_target_is_out_of_reach(kuhn_tree) -> None:
    _, trace = bufp_sampled.train_to_target("cs-rlcard", kuhn_tree, seed=0, target_mbh=0.0,
                                            scale=1000.0, check_every=100, cap=300)
    assert not trace["reached"] and trace["iterations"] == 300 and len(trace["trace"]) == 3


def test_observation_keys_merge_histories_as_rlcard_does(leduc_tree) -> None:
    groups = observation_groups(leduc_tree)
    assert groups.max() + 1 < leduc_tree.num_infosets
    # Opening round two and facing a check there look alike to RLCard (same cards and chips,
    # no history, no seat): after call-check, the small blind opens, the big blind faces a check.
    keys = leduc_tree.infoset_keys
    opened = [i for i, k in enumerate(keys) if k[3] == (CALL, CALL) and k[4] == ()]
    checked = [i for i, k in enumerate(keys) if k[3] == (CALL, CALL) and k[4] == (CALL,)]
    assert opened and checked
    assert set(groups[opened]) & set(groups[checked])


def test_chance_index_counts_chance_ancestors(leduc_tree) -> None:
    index = chance_index(leduc_tree)
    node = int(np.flatnonzero(leduc_tree.player == -4)[-1])
    count, walk = 0, node
    while walk > 0:
        walk = int(leduc_tree.parent[walk])
        count += int(leduc_tree.player[walk] == -1)
    assert index[node] == count


def test_chance_sampling_cfr_is_seeded(leduc_tree) -> None:
    a = ChanceSamplingCFR(leduc_tree.game, seed=3, tree=leduc_tree)
    b = ChanceSamplingCFR(leduc_tree.game, seed=3, tree=leduc_tree)
    a.iterate(50)
    b.iterate(20)
    b.iterate(30)
    np.testing.assert_array_equal(a.regrets, b.regrets)
    np.testing.assert_array_equal(a.average_policy().probs, b.average_policy().probs)


def test_a_seed_record_is_written_once(kuhn_tree, tmp_path: Path) -> None:
    uniform = TabularPolicy.uniform(kuhn_tree)
    fixed = {"BUFP(EF)": uniform, "BUFP(X)": uniform}
    record = bufp_sampled.run_seed("mccfr-es", 0, kuhn_tree, fixed, 1.0, 200.0, tmp_path,
                                   check_every=100, cap=2_000)
    path = tmp_path / "mccfr-es_seed0.json"
    assert json.loads(path.read_text())["p1"] == pytest.approx(record["p1"])
    assert len(record["table1"]) == 3 and len(record["table2"][0]) == 3
    path.write_text(json.dumps({**record, "marker": 1}))
    again = bufp_sampled.run_seed("mccfr-es", 0, kuhn_tree, fixed, 1.0, 200.0, tmp_path)
    assert again["marker"] == 1


def test_corrected_percentages() -> None:
    assert bufp_sampled.CORRECTED["p1"] == pytest.approx(51.97, abs=0.01)
    assert bufp_sampled.CORRECTED["p2"] == pytest.approx(44.20, abs=0.01)
    assert bufp_sampled.CORRECTED["mean"] == pytest.approx(48.09, abs=0.01)
