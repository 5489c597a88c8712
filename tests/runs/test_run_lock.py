"""The run folder's writer lock: a second train.py on a folder being written is refused in one
line naming the first and changes nothing; a lock left by a dead process does not block."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.runs.lock import LOCK_FILE, hold_run_folder

ROOT = Path(__file__).resolve().parents[2]


def _train(out: Path, iterations: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "train.py", "--agent", "cfr", "--game", "kuhn_poker", "--iterations",
         str(iterations), "--out", str(out), "--no-progress", "--no-tensorboard"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_second_writer_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _train(out, 20).returncode == 0
    with hold_run_folder(out) as lock:  # this test process plays the first writer
        before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
        result = _train(out, 40)
        after = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
        assert lock.name in after
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert lines[0].startswith(f"error: run folder {out} is being written by another train.py")
    assert f"pid {os.getpid()} on host" in lines[0]
    assert after == before  # metrics.csv, checkpoint, summary: all as the first run left them


def test_a_dead_owner_does_not_block(tmp_path: Path) -> None:
    out = tmp_path / "run"
    # A process that took the lock and died (flock is released with it); its pid stays written.
    subprocess.run([sys.executable, "-c", "import os, sys; from pokerzoo.runs.lock import "
                    "hold_run_folder as h; c = h(sys.argv[1]); c.__enter__(); os._exit(0)",
                    str(out)], check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "pid" in (out / LOCK_FILE).read_text()
    with hold_run_folder(out) as path:
        assert f"pid {os.getpid()}" in path.read_text()


def test_two_holders_in_one_process_conflict_then_release(tmp_path: Path) -> None:
    with hold_run_folder(tmp_path), pytest.raises(ConfigError, match="being written by"):
        with hold_run_folder(tmp_path):
            pass
    with hold_run_folder(tmp_path):  # released at the end of the first block
        pass


def test_a_link_as_lock_file_is_refused_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("keep")
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / LOCK_FILE).symlink_to(target)
    with pytest.raises(ConfigError, match="is a symbolic link"):
        with hold_run_folder(folder):
            pass
    assert target.read_text() == "keep"
