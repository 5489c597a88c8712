"""bench/nfsp_hunl_curves.py: Fig. 2b's cells on heads-up no-limit (tiny budgets)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import nfsp_hunl_curves as hc  # noqa: E402

from pokerzoo.errors import ConfigError  # noqa: E402


def test_a_tiny_cell_has_a_point_per_interval_and_is_not_rerun(tmp_path: Path) -> None:
    record = hc.run_cell(
        tmp_path, "nfsp-per", 0, hands=40, eval_every=20, eval_hands=20, final_hands=30
    )
    path = hc.cell_path(tmp_path, "nfsp-per", 0)
    assert path.exists() and not record["diverged"]
    assert [p["mark"] for p in record["curve"]] == [20, 40]
    assert all(p["hands"] >= p["mark"] for p in record["curve"])  # 8 hands at a time
    assert all(p["match_hands"] == 20 for p in record["curve"])  # 10 deals, both seatings
    assert record["final"]["match_hands"] == 30 - 30 % 2
    assert record["params"]["max_grad_norm"] is None  # the paper's: no clip
    assert record["game"] == "no_limit_holdem (defaults)"
    path.write_text(json.dumps({**record, "final": {**record["final"], "bb": 123.0}}))
    again = hc.run_cell(
        tmp_path, "nfsp-per", 0, hands=40, eval_every=20, eval_hands=20, final_hands=30
    )
    assert again["final"]["bb"] == 123.0  # the file's record: the cell is not rerun


def test_a_divergence_keeps_the_points_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = hc.make_agent

    def diverging(*args: Any, **kwargs: Any) -> Any:
        agent = real(*args, **kwargs)
        train = agent.iterate

        def iterate(n: int = 1) -> None:
            if agent.iteration >= 20:
                raise ConfigError("non-finite TD error")
            train(n)

        agent.iterate = iterate
        return agent

    monkeypatch.setattr(hc, "make_agent", diverging)
    record = hc.run_cell(
        tmp_path, "nfsp-plt", 3, hands=60, eval_every=20, eval_hands=10, final_hands=10
    )
    assert record["diverged"] and record["final"] is None
    assert record["stopped"]["at_hand"] == record["curve"][-1]["hands"] >= 20
    assert [p["mark"] for p in record["curve"]] == [20]
    assert "non-finite" in record["stopped"]["error"]


def _cell(preset: str, seed: int, points: list[float], final: float | None) -> dict[str, Any]:
    curve = [
        {"mark": 10 * (k + 1), "hands": 10 * (k + 1), "bb": v, "ci_bb": 0.1, "match_hands": 10}
        for k, v in enumerate(points)
    ]
    return {
        "preset": preset,
        "seed": seed,
        "hands_asked": 50,
        "eval_every": 10,
        "eval_hands": 10,
        "diverged": final is None,
        "stopped": {"at_hand": 10 * len(points)} if final is None else None,
        "curve": curve,
        "hands": 10 * len(points),
        "final": None if final is None else {"bb": final, "ci_bb": 0.1, "match_hands": 20},
        "cpu_seconds": 1.0,
        "code_version": "abc",
        "libraries": "lib",
        "machine": "m, load 1",
    }


def test_the_summary_bands_are_over_the_seeds_that_reached_each_point(tmp_path: Path) -> None:
    cells = [
        _cell("nfsp-per", 0, [0.0, 1.0, 2.0, 3.0, 4.0], 4.0),
        _cell("nfsp-per", 1, [0.0, 1.0, 2.0, 3.0, 6.0], 6.0),
        _cell("nfsp-per", 2, [0.0, 1.0, 2.0, 3.0, 8.0], 8.0),
        _cell("nfsp-plt", 0, [1.0, 1.0, 1.0, 1.0, 1.0], 1.0),
        _cell("nfsp-plt", 1, [1.0, 2.0, 3.0, 4.0, 3.0], 3.0),
        _cell("nfsp-plt", 2, [5.0, 5.0], None),  # diverged after 20 hands
    ]
    for c in cells:
        hc.cell_path(tmp_path, c["preset"], c["seed"]).write_text(json.dumps(c))
    s = hc.summarise(tmp_path, "command")
    per, plt = s["presets"]["nfsp-per"], s["presets"]["nfsp-plt"]
    assert [p["seeds"] for p in plt["curve"]] == [3, 3, 2, 2, 2]
    mean, half = hc.t_interval([4.0, 6.0, 8.0])
    assert per["final"]["mean"] == per["curve"][-1]["mean"] == mean == 6.0
    assert per["final"]["half_width"] == pytest.approx(half)
    assert plt["final"]["seeds"] == [0, 1] and plt["diverged"] == [{"seed": 2, "at_hand": 20}]
    assert per["late"]["values"] == [4.0, 6.0, 8.0]  # only the last point is past 40 of 50
    assert plt["late"]["seeds"] == [0, 1]
    late = s["differences"]["nfsp-plt - nfsp-per"]["late"]
    assert late["diff"] == pytest.approx(2.0 - 6.0)
    assert late["low"] < late["diff"] < late["high"]
    assert not math.isnan(plt["curve"][-1]["half_width"])  # two seeds reached it
    text = (tmp_path / "summary.md").read_text()
    assert "seed 2 at 20" in text and "| nfsp-plt - nfsp-per |" in text


def test_an_unknown_preset_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown preset 'dqn'"):
        hc.main(["--presets", "dqn", "--out", str(tmp_path)])


def test_the_report_reads_the_summary_and_judges_plt_minus_per(tmp_path: Path) -> None:
    import reproduce

    out = tmp_path / reproduce.NFSP_CURVES
    out.mkdir(parents=True)
    for seed, (per, plt) in enumerate([(1.0, 3.0), (1.5, 3.5), (2.0, 4.0)]):
        for preset, v in (("nfsp-per", per), ("nfsp-plt", plt)):
            cell = _cell(preset, seed, [0.0, 0.0, 0.0, 0.0, v], v)
            hc.cell_path(out, preset, seed).write_text(json.dumps(cell))
    hc.summarise(out, "command")
    summary = reproduce.nfsp_curves_summary(tmp_path)
    assert summary is not None
    assert summary["differences"]["nfsp-plt - nfsp-per"]["late"]["sign"] == "resolved +"
    rows = reproduce.nfsp_fig2b_rows(summary, "numbers.json")
    assert [r.verdict for r in rows] == ["reproduced", "not measured"]
    assert "PLT - PER +2.00" in rows[0].ours
