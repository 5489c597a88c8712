"""The training loop's budget: units land on callback periods; a seconds budget is kept by
sizing each ``iterate`` call from the measured time per unit (a fake clock, no real timing)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from pokerzoo.agents.base import Agent
from pokerzoo.training.loop import Budget, Callback, Trainer


class FakeClock:
    """A clock that only moves when told to."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class TimedAgent(Agent):
    """Each unit takes ``unit_seconds`` of the fake clock; ``first_call_extra`` is a one-off
    cost of the first call (like a JIT compilation)."""

    name = "timed"

    def __init__(self, clock: FakeClock, unit_seconds: float, first_call_extra: float = 0.0):
        self.clock = clock
        self.unit_seconds = unit_seconds
        self.extra = first_call_extra
        self._iteration = 0

    def iterate(self, n: int = 1) -> None:
        self.clock.now += n * self.unit_seconds + self.extra
        self.extra = 0.0
        self._iteration += n

    def policy(self) -> Any:
        return None

    def state_dict(self) -> dict[str, Any]:
        return {"iteration": self._iteration}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self._iteration = int(state["iteration"])


class TimedCallback(Callback):
    """An evaluation that takes ``seconds`` of the fake clock each time it runs."""

    def __init__(self, clock: FakeClock, every: int, seconds: float) -> None:
        self.clock = clock
        self.every = every
        self.seconds = seconds
        self.steps: list[int] = []
        self.ended_at: float | None = None

    def on_step(self, trainer: Trainer) -> None:
        self.clock.now += self.seconds
        self.steps.append(trainer.agent.iteration)

    def on_end(self, trainer: Trainer) -> None:
        self.clock.now += self.seconds
        self.ended_at = self.clock.now


def trainer(unit_seconds: float, seconds: float, callbacks=(), extra: float = 0.0, **kw):
    clock = FakeClock()
    agent = TimedAgent(clock, unit_seconds, extra)
    made = [c(clock) for c in callbacks]
    t = Trainer(agent, Budget(seconds=seconds), made, progress=False, clock=clock, **kw)
    return t, clock, made


def test_units_budget_lands_on_callback_periods() -> None:
    clock = FakeClock()
    agent = TimedAgent(clock, 0.001)
    callback = TimedCallback(clock, every=30, seconds=0.0)
    t = Trainer(agent, Budget(units=100), [callback], chunk=25, progress=False, clock=clock)
    t.run()
    assert agent.iteration == 100
    assert t.steps == [25, 5, 25, 5, 25, 5, 10]
    assert callback.steps == [30, 60, 90]


def test_first_call_probes_then_calls_take_about_chunk_seconds() -> None:
    t, clock, _ = trainer(unit_seconds=0.001, seconds=10.0, chunk=100_000, chunk_seconds=0.5)
    t.run()
    assert t.steps[0] == 1
    assert t.steps[1] == 500  # 0.5 s at the measured 1 ms per unit
    assert all(step <= 500 for step in t.steps)
    assert 9.99 <= clock.now - t.setup_seconds <= 10.0  # the last call is sized to the time left


@pytest.mark.parametrize("unit_seconds", [0.3, 0.7, 1.3, 2.9])
def test_slow_units_end_within_one_unit_of_the_budget(unit_seconds: float) -> None:
    # NFSP with a UCT best response: a unit can take seconds; never start one past the budget.
    t, clock, _ = trainer(unit_seconds=unit_seconds, seconds=20.0, chunk=1000)
    t.run()
    assert 20.0 - unit_seconds <= clock.now - t.setup_seconds <= 20.0
    assert all(step == 1 for step in t.steps)  # longer than chunk_seconds: one unit a call


def test_a_slow_first_call_does_not_end_the_run() -> None:
    # The first call pays 3 s of compilation: the rate is measured again before stopping.
    t, clock, _ = trainer(unit_seconds=0.001, seconds=4.0, extra=3.0, chunk=100_000)
    t.run()
    assert t.agent.iteration > 500
    assert 3.99 <= clock.now - t.setup_seconds <= 4.0


def test_evaluations_and_the_final_one_fit_in_the_budget() -> None:
    # 1.5 s evaluations every 1,000 units of 1 ms: the loop stops short of a boundary whose
    # evaluation would overrun, leaving time for the final evaluation.
    t, clock, (evaluation,) = trainer(
        unit_seconds=0.001, seconds=5.0, extra=0.0, chunk=1000,
        callbacks=[lambda c: TimedCallback(c, every=1000, seconds=1.5)],
    )
    t.run()
    assert evaluation.steps == [1000]
    assert evaluation.ended_at is not None
    assert evaluation.ended_at - t.setup_seconds <= 5.0 + 1e-9
    # The run's time includes the final evaluation (set-up is counted apart).
    assert t.elapsed == pytest.approx(evaluation.ended_at - t.setup_seconds)
    assert t.agent.iteration < 2000


def test_costly_evaluations_stretch_their_period_under_a_seconds_budget() -> None:
    # Evaluations of 1 s every 1,000 units of 0.1 ms would take 90% of the budget; with a
    # share of 25% the period doubles (round numbers) until they take at most that.
    t, clock, (evaluation,) = trainer(
        unit_seconds=0.0001, seconds=60.0, chunk=1000, callback_share=0.25,
        callbacks=[lambda c: TimedCallback(c, every=1000, seconds=1.0)],
    )
    t.run()
    assert evaluation.steps[:4] == [1000, 2000, 4000, 8000]
    assert all(step % 1000 == 0 for step in evaluation.steps)
    assert t.callback_total <= 0.25 * t.elapsed + 1.0  # within one evaluation of the share
    assert clock.now - t.setup_seconds <= 60.0 + 1e-9


def test_on_start_costs_are_not_expected_again() -> None:
    # A 3 s on_start (compiling the evaluator) must not be reserved for on_end: a 3 s budget
    # still trains.
    class Compiling(TimedCallback):
        def on_start(self, trainer: Trainer) -> None:
            self.clock.now += 3.0

    t, clock, _ = trainer(
        unit_seconds=0.001, seconds=3.0, chunk=1000,
        callbacks=[lambda c: Compiling(c, every=100_000, seconds=0.0)],
    )
    t.run()
    assert t.agent.iteration >= 1


def test_chunk_seconds_must_be_positive() -> None:
    from pokerzoo.errors import ConfigError

    with pytest.raises(ConfigError, match="chunk_seconds"):
        trainer(unit_seconds=0.1, seconds=1.0, chunk_seconds=0.0)


def test_a_final_evaluation_never_measured_before_still_fits() -> None:
    # A run whose only evaluations are its first (on_start) and its last (on_end): the loop
    # learns the cost from the first and keeps room for the last (once --seconds 60 ran
    # 104 s when the final evaluation was not counted).
    class Evaluation(TimedCallback):
        def on_start(self, trainer: Trainer) -> None:
            self.clock.now += self.seconds

    t, clock, (evaluation,) = trainer(
        unit_seconds=0.001, seconds=10.0, chunk=1000,
        callbacks=[lambda c: Evaluation(c, every=10**9, seconds=2.0)],
    )
    t.run()
    assert evaluation.steps == []
    assert evaluation.ended_at is not None
    assert 9.0 <= evaluation.ended_at - t.setup_seconds <= 10.0 + 1e-9
    assert t.elapsed == pytest.approx(evaluation.ended_at - t.setup_seconds)


def test_set_up_is_counted_apart_from_the_seconds_budget() -> None:
    # A cold start: 90 s of building before run(), then a first call that compiles for 8 s.
    clock = FakeClock()
    agent = TimedAgent(clock, 0.001, first_call_extra=8.0)
    clock.now = 90.0
    t = Trainer(agent, Budget(seconds=5.0), [], progress=False, clock=clock, started=0.0)
    t.run()
    assert t.setup_seconds == pytest.approx(98.001) and t.setup_units == 1
    assert 4.5 <= t.elapsed <= 5.0 + t.chunk_seconds  # the documented slack
    assert agent.iteration > 4000  # trained for the budget, not stopped by the set-up


def test_a_seconds_budget_never_overruns_by_more_than_the_slack() -> None:
    for unit in (0.0001, 0.003, 0.2, 0.49):
        clock = FakeClock()
        agent = TimedAgent(clock, unit, first_call_extra=3.0)
        t = Trainer(agent, Budget(seconds=2.0), [], progress=False, clock=clock)
        t.run()
        assert t.elapsed <= 2.0 + t.chunk_seconds, unit
