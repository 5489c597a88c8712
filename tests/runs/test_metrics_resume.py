"""A resumed run's ``metrics.csv`` goes on: no row written twice, ``seconds`` never restarts."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from pokerzoo.runs.config import RunConfig
from pokerzoo.runs.run import train


def _rows(folder: Path) -> list[dict[str, str]]:
    with open(folder / "metrics.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_resumed_runs_append_without_repeating(tmp_path: Path) -> None:
    base = {"agent": "cfr", "game": "kuhn_poker", "out": str(tmp_path / "run"),
            "eval_every": 10, "tensorboard": False}
    train(RunConfig.from_dict({**base, "iterations": 20}), progress=False)
    train(RunConfig.from_dict({**base, "iterations": 20}), progress=False)  # nothing to do
    train(RunConfig.from_dict({**base, "iterations": 35}), progress=False)
    rows = _rows(tmp_path / "run")
    iterations = [int(r["iteration"]) for r in rows]
    assert iterations == [0, 10, 20, 30, 35]
    seconds = [float(r["seconds"]) for r in rows]
    assert seconds == sorted(seconds) and seconds[-1] > 0


def test_a_seconds_budget_on_resume_logs_no_duplicate(tmp_path: Path) -> None:
    base = {"agent": "cfr", "game": "kuhn_poker", "out": str(tmp_path / "run"),
            "tensorboard": False}
    train(RunConfig.from_dict({**base, "iterations": 10, "eval_every": 5}), progress=False)
    # A seconds budget evaluates at the resume point to learn the cost; that row exists.
    train(RunConfig.from_dict({**base, "iterations": 10, "eval_every": 5, "seconds": 5.0}),
          progress=False)
    iterations = [int(r["iteration"]) for r in _rows(tmp_path / "run")]
    assert iterations == sorted(set(iterations))


def test_tensorboard_scalars_are_written_without_torch(tmp_path: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out = tmp_path / "tb"
    train(RunConfig(agent="cfr", game="kuhn_poker", iterations=20, eval_every=10, out=str(out)),
          progress=False)
    events = EventAccumulator(str(out / "tensorboard"))
    events.Reload()
    steps = [e.step for e in events.Scalars("exploitability")]
    assert steps == [0, 10, 20]
    rows = _rows(out)
    # TensorBoard keeps float32; the CSV the float64 value.
    assert [e.value for e in events.Scalars("exploitability")] == pytest.approx(
        [float(r["exploitability"]) for r in rows], rel=1e-6
    )


def test_run_files_share_one_mode(tmp_path: Path) -> None:
    # mkstemp's 0600 once left checkpoints and policies unlike the 0644 of the logs.
    import os
    import stat

    out = tmp_path / "modes"
    train(RunConfig(agent="cfr", game="kuhn_poker", iterations=4, eval_every=2, out=str(out)),
          progress=False)
    files = [p for p in out.rglob("*") if p.is_file()]
    modes = {p.name: stat.S_IMODE(os.stat(p).st_mode) for p in files}
    assert {"config.json", "summary.json", "policy.npz", "checkpoint.pzc",
            "metrics.csv"} <= set(modes)
    assert len(set(modes.values())) == 1, modes
