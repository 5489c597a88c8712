"""train.py and evaluate.py on unknown environments: runs on sampled environments, curves with
a spread, each run scored in its own d*."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from pokerzoo import load_game
from pokerzoo.evaluation.unknown import nash_conv_in_true_model
from pokerzoo.runs.folder import SavedRun

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> str:
    result = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"{args} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.mark.slow
def test_runs_on_sampled_environments_are_scored_in_their_own_d_star(tmp_path: Path) -> None:
    folders = []
    for env in (0, 1):
        folder = tmp_path / f"naive_env{env}"
        run("train.py", "--agent", "naive-cfr", "--game", "unknown_kuhn_poker", "--game-param",
            f"seed={env}", "--episodes", "600", "--out", str(folder), "--no-progress",
            "--no-tensorboard")
        folders.append(folder)
        with open(folder / "metrics.csv") as handle:
            rows = list(csv.DictReader(handle))
        assert rows[-1]["iteration"] == "600" and "log10_nash_conv" in rows[-1]
    plot = tmp_path / "curves.png"
    out = run("evaluate.py", *map(str, folders), "--plot", str(plot))
    assert plot.stat().st_size > 0
    assert "each is scored in its own" in out
    assert "naive-cfr: NashConv in d* over 2 environments" in out
    for env, folder in enumerate(folders):
        saved = SavedRun.open(folder)
        own = nash_conv_in_true_model(load_game("unknown_kuhn_poker", seed=env),
                                      saved.tabular_policy())
        assert f"(NashConv {own:.6g})" in out
