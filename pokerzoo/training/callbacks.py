"""Callbacks for ``Trainer``: exact evaluation, CSV/TensorBoard logging, atomic checkpoints."""

from __future__ import annotations

import csv
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pokerzoo.agents.base import Agent
from pokerzoo.atomic import check_target
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.scores import ExactScores
from pokerzoo.training.loop import Callback, Trainer
from pokerzoo.tree.game_tree import GameTree


class ExploitabilityCallback(Callback):
    """Every ``every`` units, score the agent's policy exactly on ``tree``.

    Scores ``agent.policy()``. Sets ``trainer.metrics["exploitability"]`` (NashConv / players,
    chips per game), ``["exploitability_mbb_per_game"]`` (the same in milli-big-blinds, with the
    game's ``chip_unit``), ``["nash_conv"]`` and ``["log10_nash_conv"]``.
    """

    def __init__(self, tree: GameTree, every: int) -> None:
        self.tree = tree
        self.every = every
        self._evaluated_at = -1

    def _evaluate(self, trainer: Trainer) -> None:
        self._evaluated_at = trainer.agent.iteration
        scores = ExactScores.of(self.tree, trainer.agent.policy())
        trainer.metrics["nash_conv"] = scores.nash_conv
        # The unknown-environment papers plot log10(NashConv in d*) against interactions.
        trainer.metrics["log10_nash_conv"] = scores.log10_nash_conv
        trainer.metrics["exploitability"] = scores.exploitability
        # In the game's chip unit (Game.chip_unit), exactly as evaluate.py reports it.
        trainer.metrics["exploitability_mbb_per_game"] = scores.exploitability_mbb_per_game

    def on_start(self, trainer: Trainer) -> None:
        if _evaluate_at_start(trainer):
            self._evaluate(trainer)

    def on_step(self, trainer: Trainer) -> None:
        self._evaluate(trainer)

    def on_end(self, trainer: Trainer) -> None:
        if self._evaluated_at != trainer.agent.iteration and not trainer.interrupted:
            self._evaluate(trainer)


def _evaluate_at_start(trainer: Trainer) -> bool:
    """Evaluate before the first unit: a fresh run's first point, and with a seconds budget
    also on resume, so the trainer knows what an evaluation costs before it has to fit the
    last one into the budget (the logger does not write that row twice)."""
    return trainer.agent.iteration == 0 or trainer.budget.seconds is not None


class MetricCallback(Callback):
    """Every ``every`` units, compute named metrics with ``fn(agent) -> {name: value}``."""

    def __init__(self, fn: Callable[[Agent], dict[str, float]], every: int) -> None:
        self.fn = fn
        self.every = every
        self._evaluated_at = -1

    def _evaluate(self, trainer: Trainer) -> None:
        self._evaluated_at = trainer.agent.iteration
        trainer.metrics.update(self.fn(trainer.agent))

    def on_start(self, trainer: Trainer) -> None:
        if _evaluate_at_start(trainer):
            self._evaluate(trainer)

    def on_step(self, trainer: Trainer) -> None:
        self._evaluate(trainer)

    def on_end(self, trainer: Trainer) -> None:
        if self._evaluated_at != trainer.agent.iteration and not trainer.interrupted:
            self._evaluate(trainer)


class MetricsLogger(Callback):
    """Appends ``trainer.metrics`` to ``metrics.csv`` and TensorBoard each time they change.

    Must come after the callbacks that compute metrics. A resumed run appends to the CSV: rows
    at iterations the file already holds are not written again (a run resumed from an earlier
    checkpoint re-lives them), and ``seconds`` goes on from the last row's (training seconds
    over every invocation, evaluations included).
    """

    def __init__(self, folder: str | os.PathLike, every: int, tensorboard: bool = True) -> None:
        self.folder = Path(folder)
        self.every = every
        self.path = self.folder / "metrics.csv"
        self.tensorboard = tensorboard
        self._writer: Any = None
        self._last_logged = -1
        self._seconds_before = 0.0
        self._columns: list[str] | None = None

    def on_start(self, trainer: Trainer) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        # Appending follows a link: only a new path or a regular file is written.
        check_target(self.path, "metrics log")
        if self.path.exists():
            with open(self.path, newline="") as fh:
                rows = list(csv.reader(fh))
            self._columns = rows[0] if rows else None
            last = dict(zip(self._columns or [], rows[-1])) if len(rows) > 1 else {}
            try:
                self._last_logged = int(float(last.get("iteration", -1)))
                self._seconds_before = float(last.get("seconds", 0.0))
            except ValueError:  # a damaged last row: log on, counting seconds afresh
                self._last_logged, self._seconds_before = -1, 0.0
        if self.tensorboard:
            self._writer = ScalarWriter(self.folder / "tensorboard")
        self._log(trainer)

    def _log(self, trainer: Trainer) -> None:
        if not trainer.metrics or trainer.agent.iteration <= self._last_logged:
            return
        self._last_logged = trainer.agent.iteration
        row = {"iteration": trainer.agent.iteration,
               "seconds": round(self._seconds_before + trainer.elapsed, 4)}
        row.update(trainer.metrics)
        if self._columns is None:
            self._columns = list(row)
            with open(self.path, "w", newline="") as fh:
                csv.writer(fh).writerow(self._columns)
        with open(self.path, "a", newline="") as fh:
            csv.writer(fh).writerow([row.get(c, "") for c in self._columns])
        if self._writer is not None:
            for name, value in trainer.metrics.items():
                self._writer.add_scalar(name, value, trainer.agent.iteration)

    def on_step(self, trainer: Trainer) -> None:
        self._log(trainer)

    def on_end(self, trainer: Trainer) -> None:
        self._log(trainer)
        if self._writer is not None:
            self._writer.close()


class ScalarWriter:
    """TensorBoard scalars written with the ``tensorboard`` package alone (no torch, so a
    tabular solver's run needs none): one event file in ``folder``, the same events
    ``torch.utils.tensorboard.SummaryWriter.add_scalar`` writes."""

    def __init__(self, folder: str | os.PathLike) -> None:
        # The tensorboard library writes its event file into the folder as given: a link
        # there would put it (and any later run's) wherever the link points.
        if os.path.islink(folder) or (os.path.lexists(folder) and not os.path.isdir(folder)):
            what = "a symbolic link" if os.path.islink(folder) else "not a folder"
            raise ConfigError(f"cannot write TensorBoard events to {str(folder)!r}: it is "
                              f"{what}; only a real folder (or a new path) is written into")
        from tensorboard.summary.writer.event_file_writer import EventFileWriter

        self._file = EventFileWriter(str(folder))

    def add_scalar(self, tag: str, value: float, step: int) -> None:
        from tensorboard.compat.proto.event_pb2 import Event
        from tensorboard.compat.proto.summary_pb2 import Summary

        summary = Summary(value=[Summary.Value(tag=tag, simple_value=float(value))])
        self._file.add_event(Event(wall_time=time.time(), step=int(step), summary=summary))

    def close(self) -> None:
        self._file.close()


class CheckpointCallback(Callback):
    """Saves the agent atomically every ``every`` units and at the end."""

    def __init__(self, path: str | os.PathLike, every: int) -> None:
        self.path = Path(path)
        self.every = every

    def on_step(self, trainer: Trainer) -> None:
        trainer.agent.save(self.path)

    def on_end(self, trainer: Trainer) -> None:
        trainer.agent.save(self.path)


def read_metrics(folder: str | os.PathLike) -> dict[str, list[float]]:
    """Columns of a run's ``metrics.csv`` as float lists (empty cells skipped per column)."""
    path = Path(folder) / "metrics.csv"
    if not path.exists():
        raise FileNotFoundError(f"no metrics.csv in {folder}")
    columns: dict[str, list[float]] = {}
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            for line, row in enumerate(csv.DictReader(fh), start=2):
                for key, value in row.items():
                    if key is None or value is None:
                        raise ConfigError(f"{path} is damaged: line {line} has "
                                          "another number of fields than its header")
                    if value != "":
                        columns.setdefault(key, []).append(_number(value, path, line, key))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is damaged: not UTF-8 text ({exc.reason})") from exc
    except csv.Error as exc:
        raise ConfigError(f"{path} is damaged: {exc}") from exc
    return columns


def _number(value: str, path: Path, line: int, key: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise ConfigError(f"{path} is damaged: line {line} has {value!r:.30} in column "
                          f"{key!r:.30}, not a number") from None
