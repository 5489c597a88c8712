"""bench/nfsp_multiplayer.py and bench/nfsp_uct_ablation.py: Table 5's cells and Table 6's
settings (tiny budgets)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import nfsp_multiplayer as mp  # noqa: E402
import nfsp_uct_ablation as ablation  # noqa: E402


def test_a_tiny_cell_writes_its_record_once_and_the_summary_counts_it(tmp_path: Path) -> None:
    record = mp.run_cell(
        tmp_path, 3, "nfsp-per", 0, hands=40, final_hands=30, max_grad_norm=1.0, unclipped_hands=0
    )
    path = mp.cell_path(tmp_path, 3, "nfsp-per", 0)
    assert path.exists() and not record["diverged"]
    assert record["params"]["max_grad_norm"] == 1.0
    assert record["final_hands"] == 30  # 10 deals, each played in the 3 rotations
    path.write_text(json.dumps({**record, "bb_per_hand": 123.0}))
    again = mp.run_cell(
        tmp_path, 3, "nfsp-per", 0, hands=40, final_hands=30, max_grad_norm=1.0, unclipped_hands=0
    )
    assert again["bb_per_hand"] == 123.0  # the file's record: the cell is not rerun
    summary = mp.summarise(tmp_path, "command")
    group = summary["groups"]["3nh_nfsp-per"]
    assert group["seeds"] == [0] and group["bb_per_hand"] == [123.0]
    assert math.isnan(group["half_width"])  # one seed: no interval over seeds
    assert "3-NH | nfsp-per" in (tmp_path / "summary.md").read_text()


def test_the_interval_over_seeds_is_students_t() -> None:
    mean, half = mp.t_interval([1.0, 2.0, 3.0])
    assert mean == 2.0
    assert abs(half - 4.302652729911275 / math.sqrt(3)) < 1e-9


def test_wilson_interval_holds_the_share_and_stays_in_0_1() -> None:
    low, high = ablation.wilson(10, 10)
    assert 0.6 < low < 1.0 and abs(high - 1.0) < 1e-12
    low, high = ablation.wilson(5, 10)
    assert low < 0.5 < high and abs((0.5 - low) - (high - 0.5)) < 1e-12


def test_a_tiny_ablation_agrees_with_its_reference_by_definition(tmp_path: Path) -> None:
    out = tmp_path / "uct.json"
    ablation.main(
        ["--train-hands", "50", "--positions", "3", "--simulations", "60", "--out", str(out)]
    )
    record = json.loads(out.read_text())
    rows = {r["setting"]: r for r in record["rows"]}
    assert rows["UCT_60"]["agreement"] == 1.0
    assert len(rows) == 2 + len(ablation.ABLATION)
    assert all(0.0 <= r["agreement"] <= 1.0 for r in rows.values())
    assert all(r["simulations_per_search"] <= 60 for r in rows.values())
    assert "our reading" in record["reading"]
