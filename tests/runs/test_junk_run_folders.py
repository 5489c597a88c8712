"""Damaged, foreign or booby-trapped run folders: each gives one line naming the problem (exit
code 2, no traceback), and nothing outside the run folder is touched."""

from __future__ import annotations

import io
import os
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

import evaluate
import play
import train
from pokerzoo.runs.cli import run_cli
from pokerzoo.runs.config import RunConfig
from pokerzoo.runs.run import train as train_run

JUNK_CONFIGS = {
    "bad encoding": b'{"agent": "cfr\xff", "game": "kuhn_poker"}',
    "a JSON list": b'["cfr", "kuhn_poker"]',
    "not JSON": b"agent = cfr",
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
    "game_params not a table": b'{"agent": "cfr", "game": "kuhn_poker", "game_params": [1]}',
    "agent_params not a table": b'{"agent": "cfr", "game": "kuhn_poker", "agent_params": "x"}',
    "no game": b'{"agent": "cfr"}',
    "game not a string": b'{"agent": "cfr", "game": 3}',
    "unknown game": b'{"agent": "cfr", "game": "chess"}',
    "bad game parameter": b'{"agent": "cfr", "game": "kuhn_poker", "game_params": {"x": 1}}',
    "negative seed": b'{"agent": "cfr", "game": "kuhn_poker", "seed": -5}',
    "empty": b"",
}


@pytest.fixture(scope="module")
def good_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("good") / "run"
    train_run(RunConfig(agent="cfr", game="kuhn_poker", iterations=4, eval_every=2,
                        out=str(out), tensorboard=False), progress=False)
    return out


def _cli(main, argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = run_cli(main, argv)
    return code, err.getvalue()


def _copy(run: Path, tmp_path: Path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(run, target)
    return target


@pytest.mark.parametrize("kind", sorted(JUNK_CONFIGS))
@pytest.mark.parametrize("script", ["evaluate", "play", "train"])
def test_a_junk_config_is_one_line(good_run: Path, tmp_path: Path, kind: str,
                                   script: str) -> None:
    run = _copy(good_run, tmp_path)
    (run / "config.json").write_bytes(JUNK_CONFIGS[kind])
    if script == "evaluate":
        code, err = _cli(evaluate.main, [str(run)])
    elif script == "play":
        code, err = _cli(play.main, [str(run), "--hands", "1"])
    else:
        code, err = _cli(train.main, ["--agent", "cfr", "--game", "kuhn_poker", "--iterations",
                                      "2", "--out", str(run), "--no-progress"])
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    # train.py reads a readable config of another run as exactly that.
    assert "config.json" in lines[0] or "holds a different run" in lines[0], err


def test_junk_metrics_with_plot_is_one_line(good_run: Path, tmp_path: Path) -> None:
    run = _copy(good_run, tmp_path)
    (run / "metrics.csv").write_bytes(b"iteration,seconds,exploitability\n1,x,\xff\n")
    code, err = _cli(evaluate.main, [str(run), "--plot", str(tmp_path / "c.png")])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "metrics.csv" in err, err


@pytest.mark.parametrize("name", ["config.json", "summary.json", "policy.npz",
                                  "checkpoint.pzc", "metrics.csv"])
def test_a_link_in_the_run_folder_is_never_followed(good_run: Path, tmp_path: Path,
                                                    name: str) -> None:
    run = _copy(good_run, tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    (run / name).unlink()
    os.symlink(outside, run / name)
    code, err = _cli(train.main, ["--agent", "cfr", "--game", "kuhn_poker", "--iterations",
                                  "6", "--eval-every", "2", "--out", str(run), "--no-progress",
                                  "--no-tensorboard"])
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert outside.read_text() == "keep me"
    assert (run / name).is_symlink()
