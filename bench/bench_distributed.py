"""Distributed speed-ups: a hold'em tournament's hands/s and NFSP self-play episodes/s with one
worker (in this process, no Ray) and with 2 Ray workers, and Ray's overhead per task.

Wall-clock time (the workers' CPU time is in other processes), best of ``--repeat``; Ray is
started once and warmed up before anything is timed. The targets on a 2-core
machine: at least 1.7x with 2 workers for evaluation, 1.5x for self-play.

    python bench/bench_distributed.py                 # a few minutes
    python bench/bench_distributed.py --quick         # smaller sizes, for a smoke run

The table is printed and written to ``bench/results/distributed.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import table, wall_seconds

from pokerzoo import load_game
from pokerzoo.agents.nfsp.agent import NFSP
from pokerzoo.agents.nfsp.rollout import learner_weights, make_worker
from pokerzoo.distributed import connect
from pokerzoo.evaluation.opponents import make_opponent
from pokerzoo.evaluation.tournament import Entrant, run_tournament
from pokerzoo.policy import UniformRandomPolicy

RESULTS = Path(__file__).resolve().parent / "results" / "distributed.md"


def tournament_rate(executor, deals: int, repeat: int) -> float:
    """Hands per second of a 3-entrant limit hold'em tournament (3 pairings)."""
    game = load_game("limit_holdem")
    field = [Entrant(n, make_opponent(n, game)) for n in ("random", "always-call")]
    field.append(Entrant("uniform", UniformRandomPolicy()))
    seconds = wall_seconds(lambda: run_tournament(game, field, num_deals=deals, seed=0,
                                          executor=executor), repeat)
    return 3 * 2 * deals / seconds


def nfsp_rate(executor, workers: int, episodes: int, repeat: int, steps: int) -> float:
    """Episodes per second of NFSP learning on Kuhn (self-play and learning, end to end)."""
    game = load_game("kuhn_poker")

    def run() -> None:
        agent = NFSP(game, seed=0, workers=workers, executor=executor, rollout_steps=steps)
        agent.iterate(2_000)  # warm up: workers built, buffers past their minimum
        start = agent.iteration
        t = time.perf_counter()
        agent.iterate(episodes)
        times.append((agent.iteration - start) / (time.perf_counter() - t))
        close = getattr(agent, "close", None)
        if callable(close):
            close()

    times: list[float] = []
    for _ in range(repeat):
        run()
    return max(times)


def rollout_rate(executor, workers: int, rounds: int, repeat: int, steps: int) -> float:
    """Episodes per second of NFSP self-play alone (rollout workers playing rounds with fixed
    weights; nothing learned): the part rollout workers parallelise."""
    game = load_game("kuhn_poker")
    agent = NFSP(game, seed=0, rollout_steps=steps)
    config = agent.config
    weights = learner_weights(agent.learners)
    args = [(weights, config.rollout_steps, 0.06)] * workers
    if executor is None:
        worker = make_worker(game, config, 0, 0)

        def play() -> int:
            return sum(worker.run(weights, config.rollout_steps, 0.06)["episodes"]
                       for _ in range(rounds))
    else:
        pool = executor.pool(lambda i: make_worker(game, config, 0, i), workers)
        pool.call("run", args)  # warm up

        def play() -> int:
            return sum(sum(b["episodes"] for b in pool.call("run", args))
                       for _ in range(rounds))
    best = 0.0
    for _ in range(repeat):
        t = time.perf_counter()
        n = play()
        best = max(best, n / (time.perf_counter() - t))
    return best


def _noop(shared: object, job: int) -> int:
    return job


class _Idle:
    def ping(self) -> int:
        return 0

    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, state: dict) -> None:
        pass


def overheads(executor, n: int) -> tuple[float, float]:
    """Milliseconds per empty task (``map``) and per round of an empty pool call."""
    executor.map(_noop, None, list(range(10)))
    task = wall_seconds(lambda: executor.map(_noop, None, list(range(n))), 3) / n
    pool = executor.pool(lambda i: _Idle(), executor.workers)
    pool.call("ping", [()] * pool.size)
    rounds = max(1, n // 4)
    pings = [()] * pool.size
    call = wall_seconds(lambda: [pool.call("ping", pings) for _ in range(rounds)], 3) / rounds
    pool.close()
    return task * 1e3, call * 1e3


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--rollout-steps", default="8,32",
                   help="NFSP rollout_steps to measure, comma-separated (8: the default)")
    args = p.parse_args()
    deals = 150 if args.quick else 1_200
    episodes = 20_000 if args.quick else 150_000
    rounds = 10 if args.quick else 60
    ray_executor = connect(2)
    tournament_rate(ray_executor, 20, 1)  # warm the workers (imports, first tasks)

    rows = []
    t1 = tournament_rate(None, deals, args.repeat)
    t2 = tournament_rate(ray_executor, deals, args.repeat)
    rows.append(["tournament, limit hold'em (3 pairings)", "hands/s", t1, t2, t2 / t1, "1.7x"])
    n1 = nfsp_rate(None, 1, episodes, args.repeat, 8)  # one worker: rollout_steps unused
    for steps in (int(x) for x in args.rollout_steps.split(",")):
        r1 = rollout_rate(None, 1, rounds, args.repeat, steps)
        r2 = rollout_rate(ray_executor, 2, rounds, args.repeat, steps)
        rows.append([f"NFSP self-play rollouts, Kuhn, rollout_steps={steps}", "episodes/s",
                     r1, r2, r2 / r1, "1.5x"])
        n2 = nfsp_rate(ray_executor, 2, episodes, args.repeat, steps)
        rows.append([f"NFSP training (rollouts + learning), Kuhn, rollout_steps={steps}",
                     "episodes/s", n1, n2, n2 / n1, "-"])
    task_ms, call_ms = overheads(ray_executor, 200)
    load = os.getloadavg()[0]
    text = "\n".join([
        f"Machine: {os.cpu_count()} cores, load average {load:.1f} at the end (other "
        f"processes' share of the cores); wall-clock, best of {args.repeat}; "
        "1 worker runs in this process (no Ray), 2 workers are Ray processes.",
        "",
        table(["workload", "unit", "1 worker", "2 workers", "speed-up", "target"], rows),
        "",
        f"Ray overhead: {task_ms:.2f} ms per empty task, {call_ms:.2f} ms per round of an "
        "empty call on a 2-worker pool.",
    ])
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text + "\n")
    print(f"written to {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
