"""Ctrl-C during ``train.py``: at most three lines, no traceback, and the run resumes (the
first SIGINT stops the loop between ``iterate`` calls, so the checkpoint holds a whole agent)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _default_sigint() -> None:
    # A child of a background job inherits SIGINT ignored; a terminal's Ctrl-C reaches a
    # process with the default disposition.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_ctrl_c_stops_in_one_line_and_the_run_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [sys.executable, "train.py", "--agent", "cfr", "--game", "leduc_holdem",
               "--iterations", "100000000", "--eval-every", "50", "--no-progress",
               "--no-tensorboard", "--out", str(out)]
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, preexec_fn=_default_sigint)
    deadline = time.monotonic() + 240
    while not (out / "checkpoint.pzc").exists():
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "no checkpoint within 240 s"
        time.sleep(0.2)
    child.send_signal(signal.SIGINT)
    stdout, stderr = child.communicate(timeout=240)
    assert child.returncode == 130, (stdout, stderr)
    lines = [line for line in (stdout + stderr).splitlines() if line.strip()]
    assert len(lines) <= 3, lines
    assert "Traceback" not in stdout + stderr
    assert "stopped by Ctrl-C" in stderr and "run the same command to resume" in stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] and summary["iterations_done"] > 0
    held = summary["iterations_done"]

    resumed = subprocess.run(
        [*command[:7], str(held + 20), *command[8:]], cwd=ROOT, capture_output=True, text=True,
        timeout=240,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "(resumed)" in resumed.stdout
    assert json.loads((out / "summary.json").read_text())["iterations_done"] == held + 20


@pytest.mark.slow
def test_a_spent_budget_says_what_the_folder_holds(tmp_path: Path) -> None:
    out = tmp_path / "run"
    base = [sys.executable, "train.py", "--agent", "cfr", "--game", "kuhn_poker",
            "--no-progress", "--no-tensorboard", "--out", str(out)]
    first = subprocess.run([*base, "--iterations", "30"], cwd=ROOT, capture_output=True,
                           text=True, timeout=240)
    assert first.returncode == 0, first.stderr
    second = subprocess.run([*base, "--iterations", "10"], cwd=ROOT, capture_output=True,
                            text=True, timeout=240)
    assert second.returncode == 0, second.stderr
    assert "already holds 30 iterations, the budget asks for 10: nothing to train" in second.stdout
    assert "exploitability:" in second.stdout  # and its result is printed


def test_abbreviated_flags_are_refused(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "train.py", "--iteration", "10", "--out",
                             str(tmp_path / "x")], cwd=ROOT, capture_output=True, text=True,
                            timeout=240)
    assert result.returncode == 2 and "unrecognized arguments: --iteration" in result.stderr
