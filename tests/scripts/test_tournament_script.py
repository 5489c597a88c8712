"""evaluate.py with several runs: one tournament table, a heatmap, JSON for machines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, f"{args} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def kuhn_runs(tmp_path_factory) -> list[str]:
    root = tmp_path_factory.mktemp("runs")
    folders = []
    for agent, iterations in (("cfr+", 200), ("xfp", 100), ("mccfr-es", 1000)):
        out = root / agent
        run("train.py", "--agent", agent, "--game", "kuhn_poker", "--iterations", str(iterations),
            "--out", str(out), "--no-progress", "--no-tensorboard")
        folders.append(str(out))
    return folders


@pytest.mark.slow
def test_three_runs_and_two_builtins_give_one_table(kuhn_runs, tmp_path):
    png = tmp_path / "tournament.png"
    data = json.loads(run("evaluate.py", *kuhn_runs, "--opponents", "random,always-call",
                          "--heatmap", str(png), "--json").stdout)
    table = data["tournament"]
    names = ["cfr+", "xfp", "mccfr-es", "random", "always-call"]
    assert table["names"] == names and table["method"] == "exact"
    mean, ci = np.array(table["mean_mbb"]), np.array(table["ci95_mbb"])
    np.testing.assert_allclose(mean, -mean.T, atol=1e-9)
    assert np.all(np.diag(mean) == 0) and np.all(ci == 0) and np.array_equal(ci, ci.T)
    assert mean[0].min() >= -1.0  # cfr+ is near an equilibrium: it loses to no one
    for label in ("cfr+", "xfp", "mccfr-es"):
        assert data[label]["exploitability_mbb_per_game"] > 0
        assert data[label]["vs"]["random"] > 0
        assert table["entrants"][label]["score"]["method"] == "exact"
    assert data["cfr+"]["exploitability"] < data["xfp"]["exploitability"]
    assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size > 10_000

    text = run("evaluate.py", *kuhn_runs, "--opponents", "random,always-call").stdout
    lines = text.strip().splitlines()
    assert lines[0].startswith("Tournament on kuhn_poker") and "mbb/g" in lines[0]
    assert len(lines) == 2 + len(names)  # title, column numbers, one row per entrant
    assert {line.split()[1] for line in lines[2:]} == set(names)


@pytest.mark.slow
def test_sampled_table_on_holdem(tmp_path):
    out = tmp_path / "nfsp_holdem"
    run("train.py", "--agent", "nfsp", "--game", "limit_holdem", "--episodes", "30",
        "--out", str(out), "--no-progress", "--no-tensorboard")
    data = json.loads(run("evaluate.py", str(out), "--opponents", "random,always-call",
                          "--hands", "60", "--lbr-deals", "1", "--json").stdout)
    table = data["tournament"]
    assert table["method"] == "sampled" and table["hands_per_pairing"] == 60
    mean, ci = np.array(table["mean_mbb"]), np.array(table["ci95_mbb"])
    assert np.array_equal(mean, -mean.T) and np.array_equal(ci, ci.T)
    assert np.all(ci[~np.eye(3, dtype=bool)] > 0)
    assert data["nfsp_holdem"]["lbr_hands"] == 2
    assert table["entrants"]["random"]["score"]["method"] == "lbr"
