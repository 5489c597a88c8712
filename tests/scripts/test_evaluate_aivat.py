"""evaluate.py --aivat: raw and AIVAT-corrected pairings with the JSON keys, the exact value on
a tree game, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, ok: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    if ok:
        assert result.returncode == 0, f"{args} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def leduc_runs(tmp_path_factory) -> list[str]:
    root = tmp_path_factory.mktemp("runs")
    folders = []
    for agent, iterations in (("cfr+", 100), ("cfr", 10)):
        out = root / agent
        run("train.py", "--agent", agent, "--game", "leduc_holdem", "--iterations",
            str(iterations), "--out", str(out), "--no-progress", "--no-tensorboard")
        folders.append(str(out))
    return folders


def test_versus_and_random_with_the_json_keys(leduc_runs):
    first, second = leduc_runs
    data = json.loads(run("evaluate.py", first, "--versus", second, "--opponents", "random",
                          "--aivat", "--hands", "1000", "--json").stdout)
    assert [p["opponent"] for p in data["pairings"]] == ["cfr", "random"]
    for pairing in data["pairings"]:
        assert pairing["units"] == "chips per hand"
        assert pairing["deals"] == 500
        # The correction shrinks the interval and it still covers the tree's exact value.
        assert pairing["aivat_ci95"] < pairing["raw_ci95"]
        assert pairing["variance_ratio"] > 2
        assert abs(pairing["aivat_mean"] - pairing["exact_value"]) <= pairing["aivat_ci95"]
    assert data["raw_mean"] == data["pairings"][0]["raw_mean"]


def test_profile_values_score_every_hand_exactly(leduc_runs):
    first, _ = leduc_runs
    data = json.loads(run("evaluate.py", first, "--opponents", "random", "--aivat",
                          "--aivat-values", "profile", "--hands", "40", "--json").stdout)
    assert data["aivat_mean"] == pytest.approx(data["exact_value"], abs=1e-9)
    assert data["variance_ratio"] is None
    text = run("evaluate.py", first, "--opponents", "random", "--aivat", "--aivat-outside",
               "--hands", "200").stdout
    assert "vs random (100 deals): raw" in text and "variance ratio" in text


@pytest.mark.parametrize("args, message", [
    (["--versus", "X"], "go with --aivat"),
    (["--aivat", "--opponents", "none"], "needs an opponent"),
    (["--aivat", "--aivat-values", "check-down"], "heads-up hold'em"),
])
def test_bad_input_is_one_line(leduc_runs, args, message):
    result = run("evaluate.py", leduc_runs[0], *args, ok=False)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_hand_log_is_scored_with_the_other_players_as_outsiders(leduc_runs, tmp_path):
    first, _ = leduc_runs
    log = tmp_path / "hands.txt"
    run("evaluate.py", first, "--opponents", "random", "--hands", "400", "--hand-history",
        str(log))
    data = json.loads(run("evaluate.py", first, "--aivat", "--aivat-log", str(log),
                          "--log-name", "cfr+", "--json").stdout)
    assert data["hands"] == 400 and data["known"] == ["cfr+"]
    hero, bot = data["players"]["cfr+"], data["players"]["random"]
    assert hero["raw_mean"] == pytest.approx(-bot["raw_mean"])
    assert hero["aivat_ci95"] < hero["raw_ci95"]
    bad = run("evaluate.py", first, "--aivat", "--aivat-log", str(log), "--log-name", "nobody",
              ok=False)
    assert bad.returncode == 2 and "play no logged hand" in bad.stderr
