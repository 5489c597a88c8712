"""Smoke tests of train.py and evaluate.py as a user runs them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pokerzoo.checkpoint import CHECKPOINT_FILE, read_checkpoint

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    if check and result.returncode != 0:
        raise AssertionError(f"{args} failed:\n{result.stdout}\n{result.stderr}")
    return result


@pytest.mark.slow
def test_train_then_evaluate_with_plot_and_json(tmp_path):
    out = tmp_path / "cfr_leduc"
    result = run("train.py", "--agent", "cfr", "--game", "leduc_holdem", "--iterations", "200",
                 "--eval-every", "50", "--out", str(out), "--no-progress", "--no-tensorboard")
    assert "exploitability" in result.stdout
    metrics = (out / "metrics.csv").read_text().splitlines()
    assert metrics[0].startswith("iteration,seconds,nash_conv,log10_nash_conv,exploitability")
    assert [line.split(",")[0] for line in metrics[1:]] == ["0", "50", "100", "150", "200"]
    assert (out / "policy.npz").exists() and (out / CHECKPOINT_FILE).exists()

    other = tmp_path / "cfrplus_leduc"
    run("train.py", "--agent", "cfr+", "--iterations", "100", "--out", str(other),
        "--no-progress", "--no-tensorboard")
    png = tmp_path / "curves.png"
    result = run("evaluate.py", str(out), str(other), "--json", "--plot", str(png))
    data = json.loads(result.stdout)
    assert data["cfr_leduc"]["exploitability"] > data["cfrplus_leduc"]["exploitability"] > 0
    assert data["cfr_leduc"]["vs"]["cfrplus_leduc"] == pytest.approx(
        -data["cfrplus_leduc"]["vs"]["cfr_leduc"]
    )
    assert png.stat().st_size > 10_000
    text = run("evaluate.py", str(out)).stdout
    assert "mbb/g" in text


@pytest.mark.slow
def test_config_file_and_resume(tmp_path):
    config = tmp_path / "run.toml"
    config.write_text(
        f'agent = "cfr+"\ngame = "kuhn_poker"\niterations = 100\nout = "{tmp_path / "k"}"\n'
        "tensorboard = false\n[game_params]\nnum_players = 3\n"
    )
    first = run("train.py", "--config", str(config), "--no-progress")
    assert "100 iterations" in first.stdout and "resumed" not in first.stdout
    second = run("train.py", "--config", str(config), "--iterations", "250", "--no-progress")
    assert "250 iterations" in second.stdout and "(resumed)" in second.stdout
    summary = json.loads((tmp_path / "k" / "summary.json").read_text())
    assert summary["iterations_done"] == 250


@pytest.mark.slow
def test_killed_run_resumes_from_its_last_checkpoint(tmp_path):
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "train.py", "--agent", "cfr", "--game", "leduc_holdem",
         "--iterations", "100000000", "--checkpoint-every", "200", "--eval-every", "200",
         "--out", str(out), "--no-progress", "--no-tensorboard"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 120
        while not (out / CHECKPOINT_FILE).exists() and time.time() < deadline:
            time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert (out / CHECKPOINT_FILE).exists()
    done = read_checkpoint(out / CHECKPOINT_FILE)[1]["iteration"]
    assert done > 0 and done % 200 == 0
    target = done + 400
    result = run("train.py", "--agent", "cfr", "--game", "leduc_holdem", "--iterations",
                 str(target), "--checkpoint-every", "200", "--eval-every", "200", "--out",
                 str(out), "--no-progress", "--no-tensorboard")
    assert "(resumed)" in result.stdout
    assert f"{target} iterations" in result.stdout
    assert read_checkpoint(out / CHECKPOINT_FILE)[1]["iteration"] == target
    # A kill in the middle of a write may leave a temporary file; the resumed run removes it.
    assert not list(out.glob("*.tmp"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["train.py", "--agent", "nope"], "unknown agent 'nope'"),
        (["train.py", "--game", "chess"], "unknown game 'chess'"),
        (["train.py", "--game-param", "ranks=3"], "valid parameters are"),
        (["train.py", "--agent", "cfr", "--episodes", "10"], "counts iterations"),
        (["train.py", "--config", "/nonexistent.toml"], "does not exist"),
        (["evaluate.py", "/nonexistent/run"], "does not exist"),
    ],
)
def test_bad_input_gives_a_clear_error(args, message, tmp_path):
    result = run(*args, "--out", str(tmp_path / "x"), check=False) if args[0] == "train.py" \
        else run(*args, check=False)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_corrupt_run_folder_is_reported(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "config.json").write_text("{not json")
    result = run("evaluate.py", str(folder), check=False)
    assert result.returncode == 2 and "corrupt" in result.stderr


@pytest.mark.slow
def test_evaluate_perfect_equilibrium_measures(tmp_path):
    for agent in ("cfr", "bufp-ef"):
        run("train.py", "--agent", agent, "--game", "kuhn_poker", "--iterations", "200",
            "--out", str(tmp_path / agent), "--no-progress", "--no-tensorboard")
    result = run("evaluate.py", str(tmp_path / "cfr"), str(tmp_path / "bufp-ef"),
                 "--total-exploitability", "--forced", "0:bet", "--json")
    data = json.loads(result.stdout)
    for label in ("cfr", "bufp-ef"):
        assert data[label]["total_exploitability_mbb"] > 0
        assert len(data[label]["total_exploitability_per_player_mbb"]) == 2
        assert set(data[label]["forced_first_seat_mbb"]) == {"cfr", "bufp-ef"}
    text = run("evaluate.py", str(tmp_path / "cfr"), "--forced", "0:bet").stdout
    assert "0:bet forced" in text
    bad = run("evaluate.py", str(tmp_path / "cfr"), "--forced", "0:shove", check=False)
    assert bad.returncode == 2 and "actions are" in bad.stderr
