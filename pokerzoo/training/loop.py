"""The loop ``train.py`` drives: any agent under a budget, with callbacks.

No agent writes its own loop, progress bar or checkpoint code: ``Trainer.run`` calls
``agent.iterate(chunk)`` until the budget is spent and lets callbacks evaluate, log and
checkpoint between chunks.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

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

    With a seconds budget the loop sizes each ``iterate`` call by the time per unit it has
    measured so far (the first call is one unit), so that a call takes about
    ``chunk_seconds`` and the last one ends by the deadline: a call is started only when the
    units it asks for, the callbacks it would trigger and the final callbacks (``on_end``:
    the last evaluation and checkpoint) are expected to fit in the time left. A run thus stops
    within about one call's misestimate of its budget, even when one unit takes seconds (NFSP
    with the UCT best response).

    Args:
        agent: any ``Agent``.
        budget: units and/or seconds.
        callbacks: evaluation, logging, checkpoint callbacks.
        chunk: most units per ``iterate`` call; defaults to the smallest callback period (so
            callbacks fire on time) capped at 1,000.
        progress: show a progress bar.
        clock: seconds as a float (``time.perf_counter``; tests inject a fake one).
        chunk_seconds: with a seconds budget, the time one ``iterate`` call aims at (the clock
            is read between calls only).
        callback_share: with a seconds budget, the most of the time spent so far that
            callbacks (evaluations) may take: when they take more, every callback period is
            doubled (still round numbers). ``None`` keeps the periods as given (a run with an
            explicit evaluation period).
        started: the ``clock`` reading set-up counts from (``train`` passes the moment it
            started, so building the game, tree and agent is set-up); default: when ``run``
            starts.

    Set-up is counted apart from a seconds budget: the budget's clock starts when the first
    ``iterate`` call (the one-unit probe, a warm-up that compiles the agent's kernels) returns,
    so building, compiling and the evaluation at iteration 0 (``on_start``) are ``setup_seconds``
    and never eat the budget; the warm-up's unit is counted as done. With a units budget only,
    set-up is what came before ``run``. Slack: the loop reads the clock between calls only, so a
    run ends at most ``chunk_seconds`` (0.5 s) past its budget when units are shorter than that,
    plus one unit when a unit takes longer (the second probe), plus what the final evaluation
    takes beyond the latest measured round.
    """

    def __init__(
        self,
        agent: Agent,
        budget: Budget,
        callbacks: Sequence[Callback] = (),
        chunk: int | None = None,
        progress: bool = True,
        clock: Callable[[], float] = time.perf_counter,
        chunk_seconds: float = 0.5,
        callback_share: float | None = None,
        started: float | None = None,
    ) -> None:
        if chunk_seconds <= 0:
            raise ConfigError(f"chunk_seconds must be > 0, got {chunk_seconds}")
        self.agent = agent
        self.budget = budget
        self.callbacks = list(callbacks)
        periods = [c.every for c in self.callbacks if c.every > 0]
        self.chunk = chunk or max(1, min(periods + [1000]))
        self.progress = progress
        self.clock = clock
        self.chunk_seconds = chunk_seconds
        self.callback_share = callback_share
        self.callback_total = 0.0
        """Seconds spent in ``on_step`` rounds so far."""
        self.started = started
        self.start_time = 0.0
        self.setup_seconds = 0.0
        """Seconds before the budget's clock started (see the class docstring)."""
        self.setup_units = 0
        """Units done in set-up (the warm-up unit of a seconds budget)."""
        self.elapsed = 0.0
        self.metrics: dict[str, float] = {}
        """The latest values callbacks computed (e.g. exploitability), read by loggers."""
        self.seconds_per_unit: float | None = None
        """Measured duration of one unit in the latest ``iterate`` call (None before one)."""
        self.callback_seconds = 0.0
        """Measured duration of the latest ``on_step`` round of callbacks; the loop expects
        each further round, and ``on_end``, to take as long. Until one has run, the duration
        of ``on_start`` stands in (an evaluation at iteration 0, plus one-off costs such as
        compiling the evaluator): without it a run whose first evaluation comes at its end
        would not know what that evaluation costs and overrun its seconds."""
        self.start_callback_seconds = 0.0
        """Measured duration of ``on_start``."""
        self.steps: list[int] = []
        """Units asked of each ``iterate`` call, in order (what the sizing decided)."""
        self.interrupted = False
        """Whether the run was stopped by Ctrl-C: the first Ctrl-C (SIGINT) ends the run at
        the end of the current ``iterate`` call, so the agent is whole; callbacks then skip
        their final evaluation and only save what was learned. A second Ctrl-C raises
        ``KeyboardInterrupt`` at once, and no callback's ``on_end`` runs (the last periodic
        checkpoint stays as it was: an agent stopped inside ``iterate`` may be half-updated)."""

    def _units_left(self) -> int | None:
        if self.budget.units is None:
            return None
        return max(0, self.budget.units - self.agent.iteration)

    def _periods(self) -> list[int]:
        return [c.every for c in self.callbacks if c.every > 0]

    def next_step(self) -> int:
        """Units for the next ``iterate`` call; 0 when the budget is spent.

        Units: what is left of the unit budget, at most ``chunk``, and landing on the next
        callback period (evaluations happen at round numbers). Seconds: as many units as
        ``chunk_seconds`` and the time left (less the expected ``on_end``) allow at the
        measured rate, leaving out the callback round at a period boundary when it would
        not fit either; 0 when not even one unit fits (after a second measurement).
        """
        left = self._units_left()
        if left == 0:
            return 0
        step = self.chunk if left is None else min(self.chunk, left)
        before = self.agent.iteration
        to_boundary = [p - before % p for p in self._periods()]
        step = min([step, *to_boundary])
        if self.budget.seconds is None:
            return step
        if self.seconds_per_unit is None:
            return 1  # a probe: the first call measures the rate
        expected_round = self.callback_seconds or self.start_callback_seconds
        remaining = self.budget.seconds - self.elapsed - expected_round
        if remaining <= 0:
            return 0
        rate = max(self.seconds_per_unit, 1e-12)
        if remaining < rate:
            # The first call may have paid one-off costs (compilation, warm-up): measure
            # again before trusting its rate to end the run early.
            return 1 if len(self.steps) == 1 else 0
        step = min(step, max(1, int(min(remaining, self.chunk_seconds) / rate)))
        if step in to_boundary and step * rate + expected_round > remaining:
            # Reaching the boundary would run its callbacks past the deadline: stop short.
            step -= 1
        return step

    def _stretch_periods(self) -> None:
        share = self.callback_share
        if share is None or self.budget.seconds is None or self.elapsed <= 0:
            return
        if self.callback_total > share * self.elapsed:
            for c in self.callbacks:
                if c.every > 0:
                    c.every *= 2

    def run(self) -> Agent:
        """Spend the budget; returns the agent. Callbacks' ``on_end`` runs even on Ctrl-C (then
        with ``interrupted`` set), and the ``KeyboardInterrupt`` propagates."""
        self.start_time = self.clock()
        self.setup_seconds = 0.0 if self.started is None else self.start_time - self.started
        warm_up = self.budget.seconds is not None
        total = self.budget.units
        bar = tqdm(
            total=total if total is not None else None,
            initial=self.agent.iteration if total is not None else 0,
            disable=not self.progress,
            unit="it",
            dynamic_ncols=True,
        )
        restore = self._catch_sigint()
        try:
            before_start = self.clock()
            for c in self.callbacks:
                c.on_start(self)
            self.start_callback_seconds = self.clock() - before_start
            self.elapsed = self.clock() - self.start_time
            while True:
                step = 0 if self.interrupted else self.next_step()
                if step == 0:
                    break
                self.steps.append(step)
                before = self.agent.iteration
                started = self.clock()
                self.agent.iterate(step)
                done = self.agent.iteration - before
                took = self.clock() - started
                if done > 0:
                    self.seconds_per_unit = took / done
                bar.update(done)
                if warm_up:  # set-up ends with the warm-up call: the budget's clock starts now
                    warm_up = False
                    now = self.clock()
                    self.setup_seconds += now - self.start_time
                    self.setup_units = done
                    self.start_time = now
                self.elapsed = self.clock() - self.start_time
                fired = [
                    c for c in self.callbacks
                    if c.every > 0 and self.agent.iteration // c.every > before // c.every
                ]
                if fired:
                    started = self.clock()
                    for c in fired:
                        c.on_step(self)
                    self.callback_seconds = self.clock() - started
                    self.callback_total += self.callback_seconds
                    self.elapsed = self.clock() - self.start_time
                    self._stretch_periods()
                if self.metrics:
                    bar.set_postfix({k: f"{v:.4g}" for k, v in self.metrics.items()}, refresh=False)
            bar.close()
            self.elapsed = self.clock() - self.start_time
            for c in self.callbacks:
                c.on_end(self)
            # The run's time includes the final evaluation and checkpoint the budget covers.
            self.elapsed = self.clock() - self.start_time
        finally:
            bar.close()
            restore()
        return self.agent

    def timing(self) -> dict[str, Any]:
        """The run's counts for its summary: units done in all, seconds of the budgeted part
        (``seconds_this_run``) and of set-up, and the units done in set-up."""
        return {
            "iterations_done": self.agent.iteration,
            "seconds_this_run": round(self.elapsed, 3),
            # Building, compiling and the first evaluation: outside a seconds budget.
            "setup_seconds": round(self.setup_seconds, 3),
            "setup_units": self.setup_units,
        }

    def _catch_sigint(self) -> Callable[[], None]:
        """Make the first Ctrl-C a request to stop between ``iterate`` calls; returns the
        function that puts the previous handler back. Outside the main thread (where Python
        allows no handler) nothing changes."""
        if threading.current_thread() is not threading.main_thread():
            return lambda: None
        previous = signal.getsignal(signal.SIGINT)

        def request_stop(signum: int, frame: Any) -> None:
            if self.interrupted:
                raise KeyboardInterrupt  # a second Ctrl-C: stop now
            self.interrupted = True

        signal.signal(signal.SIGINT, request_stop)

        def restore() -> None:
            signal.signal(signal.SIGINT, previous)

        return restore
