"""bench/reproduce_vcfr.py and its cells (VCFR): rounds, resumable cells, labelled
tables and the paired comparison."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import reproduce_vcfr as reproduce  # noqa: E402
import vcfr_runs  # noqa: E402


def test_a_rounds_budget_plays_two_hands_per_round(tmp_path: Path) -> None:
    record = vcfr_runs.run_cell(str(tmp_path), "kuhn", "psrlcfr", 0, reward_prior="fixed",
                                rounds=60, measure_at=(50,))
    assert record is not None
    assert record["episodes"] == record["counted_episodes"] == 120
    assert record["rounds"] == 60 and record["budget"] == "rounds"
    assert set(record["measures"]) == {"50", "120"}
    assert record["curve"][-1][0] == 120
    saved = json.loads(vcfr_runs.cell_path(tmp_path, "kuhn", "psrlcfr", 0).read_text())
    assert saved["nash_conv"] == record["nash_conv"]


def test_a_cell_stopped_at_its_deadline_resumes_to_the_same_record(tmp_path: Path) -> None:
    kwargs = dict(reward_prior="fixed", rounds=80, measure_at=(100,), chunk=30)
    whole = vcfr_runs.run_cell(str(tmp_path / "a"), "kuhn", "vcfr", 1, **kwargs)
    out = str(tmp_path / "b")
    # A deadline already past: the first chunk is never started, nothing is saved.
    assert vcfr_runs.run_cell(out, "kuhn", "vcfr", 1, deadline=time.time() - 1, **kwargs) is None
    # Stop after a few chunks (the deadline falls inside the run), then go on; each piece
    # gets longer, so a slow machine gets there too.
    pieces = 0
    record = None
    while record is None:
        pieces += 1
        record = vcfr_runs.run_cell(out, "kuhn", "vcfr", 1,
                                    deadline=time.time() + 0.5 * pieces, **kwargs)
        if record is None:  # a cell under way is no finished record
            assert vcfr_runs.load_records(Path(out)) == []
    assert whole is not None
    for key in ("curve", "measures", "diagnostics", "counted_episodes", "rounds"):
        assert record[key] == whole[key], key
    cell = vcfr_runs.cell_path(Path(out), "kuhn", "vcfr", 1)
    assert not cell.with_suffix(".pzc").exists()  # the saved agent goes once finished
    assert record["resumed"] == (pieces > 1)


def _record(variant: str, env: int, resolved: float) -> dict:
    return {"game": "leduc5", "agent": variant, "variant": variant, "env": env,
            "reward_prior": "fixed", "budget": "rounds", "episodes": 40, "rounds": 20,
            "curve": [[20, 0.5], [40, 0.4]], "nash_conv": 0.4, "learning_seconds": 1.0,
            "measures": {"40": {"nash_conv_resolved": resolved, "nash_conv_in_own_mean": 0.1,
                                "terminals_observed": 10}},
            "diagnostics": []}


def test_the_summary_names_the_reading_and_pairs_vcfr_with_random(tmp_path: Path) -> None:
    vcfr = [0.10, 0.12, 0.11, 0.13]
    random = [0.20, 0.21, 0.25, 0.22]
    for env, (a, b) in enumerate(zip(vcfr, random, strict=True)):
        for variant, value in (("vcfr", a), ("random-interaction", b)):
            path = vcfr_runs.cell_path(tmp_path, "leduc5", variant, env)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(_record(variant, env, value)))
    text = reproduce.summarise(tmp_path)
    assert "reward_prior=fixed, 20 rounds (40 hands)" in text
    assert (tmp_path / "summary.md").read_text().count("reward_prior=fixed") >= 2
    mean, low, high = vcfr_runs.paired_difference(np.array(vcfr), np.array(random))
    assert mean == pytest.approx(np.mean(vcfr) - np.mean(random))
    assert low < mean < high < 0
    assert f"{mean:+.4f}" in text and "VCFR's data better" in text


def test_the_grid_runs_the_paired_agents_on_more_environments() -> None:
    jobs = reproduce.grid(["leduc5"], 2, 2, ["vcfr", "psrlcfr", "random-interaction"],
                          paired_envs=4)
    envs = {agent: sorted(e for _, a, e in jobs if a == agent)
            for agent in ("vcfr", "psrlcfr", "random-interaction")}
    assert envs == {"vcfr": [0, 1, 2, 3], "psrlcfr": [0, 1], "random-interaction": [0, 1, 2, 3]}


def test_provenance_names_the_machines_and_only_the_cells_still_under_way(tmp_path: Path) -> None:
    cells = tmp_path / "leduc5"
    for variant, env, files in (("vcfr", 0, {"json": {"machine": "host (16 cores)"}}),
                                ("vcfr", 1, {"partial.json": {"done": 4_527}}),
                                ("psrlcfr", 0, {"json": {"machine": "host (16 cores)"},
                                                "partial.json": {"done": 11_806}})):
        (cells / variant).mkdir(parents=True, exist_ok=True)
        for suffix, body in files.items():
            record = {"game": "leduc5", "agent": variant, "env": env, **body}
            (cells / variant / f"env{env}.{suffix}").write_text(json.dumps(record))
    ran, unfinished = vcfr_runs.provenance(tmp_path)
    assert "host (16 cores): 2 cells" in ran
    # The psrlcfr partial sits beside a finished record: a stale save, not a cell under way.
    assert "vcfr env1 (saved at 4,527 hands)" in unfinished and "psrlcfr" not in unfinished
    ran, unfinished = vcfr_runs.provenance(tmp_path, ("psrlcfr",))
    assert "1 cells" in ran and unfinished.endswith("none.")
