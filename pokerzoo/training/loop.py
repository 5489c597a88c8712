"""The loop ``train.py`` drives: any agent under a budget, with callbacks.

No agent writes its own loop, progress bar or checkpoint code: ``Trainer.run`` calls
``agent.iterate(chunk)`` until the budget is spent and lets callbacks evaluate, log and
checkpoint between chunks.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from tqdm.auto import tqdm

from pokerzoo.agents.base import Agent
from pokerzoo.games.base import ConfigError


@dataclass(frozen=True)
class Budget:
    """How much learning to do: a number of agent units, or wall-clock seconds (or both)."""

    units: int | None = None
    """Total agent units (iterations / episodes / rounds, whatever ``iterate`` counts)."""
    seconds: float | None = None
    """Wall-clock seconds for this run (a resumed run gets its own seconds)."""

    def __post_init__(self) -> None:
        if self.units is None and self.seconds is None:
            raise ConfigError("a budget needs units (iterations/episodes) or seconds")
        if self.units is not None and self.units < 0:
            raise ConfigError(f"budget units must be >= 0, got {self.units}")
        if self.seconds is not None and self.seconds <= 0:
            raise ConfigError(f"budget seconds must be > 0, got {self.seconds}")


class Callback:
    """Hooks called by ``Trainer``; ``every`` is in agent units (0: only at the end)."""

    every: int = 0

    def on_start(self, trainer: Trainer) -> None:
        """Before the first chunk."""

    def on_step(self, trainer: Trainer) -> None:
        """After a chunk that crossed a multiple of ``every``."""

    def on_end(self, trainer: Trainer) -> None:
        """After the budget is spent (also after an interrupt)."""


class Trainer:
    """Runs ``agent.iterate`` in chunks until ``budget`` is spent, calling callbacks.

    Args:
        agent: any ``Agent``.
        budget: units and/or seconds.
        callbacks: evaluation, logging, checkpoint callbacks.
        chunk: units per ``iterate`` call; defaults to the smallest callback period (so
            callbacks fire on time) capped at 1,000.
        progress: show a progress bar.
    """

    def __init__(
        self,
        agent: Agent,
        budget: Budget,
        callbacks: Sequence[Callback] = (),
        chunk: int | None = None,
        progress: bool = True,
    ) -> None:
        self.agent = agent
        self.budget = budget
        self.callbacks = list(callbacks)
        periods = [c.every for c in self.callbacks if c.every > 0]
        self.chunk = chunk or max(1, min(periods + [1000]))
        self.progress = progress
        self.start_time = 0.0
        self.elapsed = 0.0
        self.metrics: dict[str, float] = {}
        """The latest values callbacks computed (e.g. exploitability), read by loggers."""

    def _units_left(self) -> int | None:
        if self.budget.units is None:
            return None
        return max(0, self.budget.units - self.agent.iteration)

    def run(self) -> Agent:
        """Spend the budget; returns the agent. Callbacks' ``on_end`` runs even on Ctrl-C."""
        self.start_time = time.perf_counter()
        total = self.budget.units
        bar = tqdm(
            total=total if total is not None else None,
            initial=self.agent.iteration if total is not None else 0,
            disable=not self.progress,
            unit="it",
            dynamic_ncols=True,
        )
        for c in self.callbacks:
            c.on_start(self)
        try:
            while True:
                left = self._units_left()
                self.elapsed = time.perf_counter() - self.start_time
                if left == 0:
                    break
                if self.budget.seconds is not None and self.elapsed >= self.budget.seconds:
                    break
                step = self.chunk if left is None else min(self.chunk, left)
                # Land exactly on callback periods so evaluations happen at round numbers.
                before = self.agent.iteration
                periods = [c.every for c in self.callbacks if c.every > 0]
                if periods:
                    step = min([step] + [p - before % p for p in periods])
                self.agent.iterate(step)
                bar.update(self.agent.iteration - before)
                self.elapsed = time.perf_counter() - self.start_time
                for c in self.callbacks:
                    if c.every > 0 and self.agent.iteration // c.every > before // c.every:
                        c.on_step(self)
                if self.metrics:
                    bar.set_postfix({k: f"{v:.4g}" for k, v in self.metrics.items()}, refresh=False)
        finally:
            bar.close()
            self.elapsed = time.perf_counter() - self.start_time
            for c in self.callbacks:
                c.on_end(self)
        return self.agent
