"""``train.py --env`` on each of a family of misbehaving factories and envs
(``misbehaving_envs.FAMILY``): one line naming what is wrong, exit status 2, no traceback, no
summary written. The scripts' own entry (``run_cli(main)``) is called in process; one of them
runs as a real subprocess too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import train
from pokerzoo.runs.cli import run_cli

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import misbehaving_envs  # noqa: E402

ARGS = ["--episodes", "8", "--eval-hands", "4", "--no-progress", "--no-tensorboard",
        "--max-hand-steps", "50"]


def _train(factory: str, out: Path, *extra: str) -> int:
    return run_cli(train.main, ["--env", f"misbehaving_envs:{factory}", "--out", str(out),
                                *ARGS, *extra])


def test_the_well_behaved_base_trains(tmp_path, capsys) -> None:
    assert _train("good", tmp_path / "run") == 0
    assert (tmp_path / "run" / "summary.json").is_file()


def test_the_family_is_large() -> None:
    assert len(misbehaving_envs.FAMILY) >= 26


@pytest.mark.parametrize(("factory", "fragment"), sorted(misbehaving_envs.FAMILY.items()))
def test_each_misbehaving_env_is_one_line(factory: str, fragment: str, tmp_path, capsys) -> None:
    out = tmp_path / "run"
    assert _train(factory, out) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert fragment in lines[0]
    assert lines[0].endswith("(run with --debug for the traceback)")
    assert not (out / "summary.json").exists()


def test_debug_shows_the_factory_s_own_traceback(tmp_path) -> None:
    with pytest.raises(Exception) as info:
        _train("raises", tmp_path / "run", "--debug")
    assert isinstance(info.value.__cause__, RuntimeError)  # the factory's error, chained


def test_the_script_itself_says_one_line(tmp_path) -> None:
    result = subprocess.run(
        [sys.executable, "train.py", "--env", "misbehaving_envs:nan_reward", "--out",
         str(tmp_path / "run"), *ARGS],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE)])},
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith("error: the env misbehaving_envs:")
    assert "Traceback" not in result.stderr
