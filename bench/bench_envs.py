"""Random-play decision steps per second: pokerzoo's envs next to PettingZoo's and rlcard's.

One run prints a table (all measured in the same process, one after another):

* our AEC ``leduc_holdem_v0`` and ``no_limit_holdem_v0`` through the full AEC API
  (``agent_iter``/``last``/``step``, masks and infos included);
* PettingZoo's ``leduc_holdem_v4`` and ``texas_holdem_no_limit_v6`` (rlcard-backed) through the
  same loop;
* raw rlcard ``leduc-holdem`` and ``no-limit-holdem`` (``step`` on legal actions);
* ``VectorPokerEnv`` on Leduc (decisions across all hands per second);
* the Gymnasium vector env ``gymnasium.make_vec("pokerzoo/LeducHoldem-v0", num_envs=1024)``
  (learner decisions per second; the opponent's moves run inside its steps), with next-step
  and with same-step autoreset;
* batched heads-up no-limit hold'em: ``VectorPokerEnv("no_limit_holdem")`` on its array backend
  (``HoldemArrays``) next to the ``State`` path (``backend="state"``), one thread each;
* the PettingZoo-classic compatible envs (``pokerzoo.integrations.pettingzoo_classic``:
  ``leduc_holdem_v4``, ``texas_holdem_v4``, ``texas_holdem_no_limit_v6``, the hold'em ones with
  pokerzoo's rules and with ``rules="rlcard"``) through the same AEC loop, each against
  PettingZoo's env of the same name (``texas_holdem_v4`` measured here too).

Every player picks uniformly among the legal actions with a seeded ``numpy`` Generator; only
decisions are counted (not the ``None`` steps of finished agents). Rates are given per second
of wall time and per second of this process's CPU time (the latter stays meaningful on a
machine shared with other jobs; targets are checked against it); each AEC row is the best of
three runs. Targets: AEC Leduc >= 30,000 and AEC no-limit >= 15,000 (and 10x PettingZoo's in
the "vs PZ" column), batched Leduc >= 500,000, batched heads-up no-limit >= 200,000
decisions/s and 20x its ``State`` path. The tests assert no speeds (a
shared CI machine makes them flaky); ``--check`` makes this script exit with status 1 when a
target is missed, for a quiet machine.

Usage: ``python bench/bench_envs.py [--seconds 3] [--num-envs 4096] [--check]``
"""

from __future__ import annotations

import argparse
import functools
import os
import time
from collections.abc import Callable

import numpy as np


class Clock:
    """Wall and CPU time of this process since construction (CPU time shows the speed the code
    would have on an idle core when other jobs share the machine)."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def elapsed(self) -> float:
        return time.perf_counter() - self.wall

    def rates(self, count: float) -> tuple[float, float]:
        return count / self.elapsed(), count / (time.process_time() - self.cpu)


def aec_rate(
    make_env: Callable[[], object], seconds: float, seed: int = 0, repeats: int = 3
) -> tuple[float, float]:
    """Decisions/s of random legal play through the AEC loop: the best (by CPU rate) of
    ``repeats`` runs of ``seconds / repeats`` each, so that a burst of other jobs on a shared
    machine drags no row down more than another."""
    env = make_env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    best = (0.0, 0.0)
    for _ in range(repeats):
        decisions = 0
        clock = Clock()
        while clock.elapsed() < seconds / repeats:
            env.reset()
            for _agent in env.agent_iter():
                obs, reward, terminated, truncated, info = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[int(rng.random() * len(legal))]))
                decisions += 1
        rates = clock.rates(decisions)
        best = max(best, rates, key=lambda r: r[1])
    return best


def rlcard_rate(name: str, seconds: float, seed: int = 0) -> tuple[float, float]:
    """Decisions/s of random legal play on a raw rlcard env."""
    import rlcard

    env = rlcard.make(name, config={"seed": seed})
    rng = np.random.default_rng(seed)
    decisions = 0
    clock = Clock()
    while clock.elapsed() < seconds:
        state, player = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            action = legal[int(rng.random() * len(legal))]
            state, player = env.step(action)
            decisions += 1
    return clock.rates(decisions)


def vector_rate(game: str, num_envs: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """Decisions/s (summed over hands) of random legal play in ``VectorPokerEnv``."""
    from pokerzoo.envs import VectorPokerEnv

    venv = VectorPokerEnv(game, num_envs=num_envs, seed=seed)
    _, mask, _ = venv.reset()
    rng = np.random.default_rng(seed)
    steps = 0
    clock = Clock()
    while clock.elapsed() < seconds:
        mask = venv.step((rng.random(mask.shape) * mask).argmax(axis=1)).mask
        steps += 1
    return clock.rates(steps * num_envs)


def holdem_vector_rates(
    num_envs: int, seconds: float, seed: int = 0
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Decisions/s of batched heads-up no-limit hold'em on one thread: ``(arrays, state)``, the
    array backend and the ``State`` path on the same game and batch."""
    import sys

    import numba

    from pokerzoo.envs import VectorPokerEnv

    numba.set_num_threads(1)
    if "torch" in sys.modules:  # nothing here uses torch; pin it in case an import started it
        sys.modules["torch"].set_num_threads(1)
    rates = []
    for backend in ("arrays", "state"):
        venv = VectorPokerEnv("no_limit_holdem", num_envs=num_envs, seed=seed, backend=backend)
        _, mask, _ = venv.reset()
        rng = np.random.default_rng(seed)
        mask = venv.step((rng.random(mask.shape) * mask).argmax(axis=1)).mask  # compiles
        steps = 0
        clock = Clock()
        while clock.elapsed() < seconds:
            mask = venv.step((rng.random(mask.shape) * mask).argmax(axis=1)).mask
            steps += 1
        rates.append(clock.rates(steps * num_envs))
    return rates[0], rates[1]


def gym_vector_rate(
    gym_id: str, num_envs: int, seconds: float, seed: int = 0, autoreset_mode: str = "NextStep"
) -> tuple[float, float]:
    """Learner decisions/s (sub-envs x steps) of ``gymnasium.make_vec(gym_id)``: masked random
    learner actions against the random opponent, whose moves run inside each step (with
    next-step autoreset, steps that only reset a finished hand count too)."""
    import gymnasium

    import pokerzoo  # noqa: F401  (registers the ids)

    envs = gymnasium.make_vec(gym_id, num_envs=num_envs, autoreset_mode=autoreset_mode)
    _, infos = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    clock = Clock()
    while clock.elapsed() < seconds:
        mask = infos["action_mask"]
        infos = envs.step((rng.random(mask.shape) * mask).argmax(axis=1))[4]
        steps += 1
    return clock.rates(steps * num_envs)


def classic_rows(
    seconds: float, pz_leduc: tuple[float, float], pz_nolimit: tuple[float, float]
) -> list[tuple[str, tuple[float, float], int | None, tuple[float, float]]]:
    """Table rows of the PettingZoo-classic compatible envs, each against PettingZoo's env of
    the same name (none without pettingzoo[classic])."""
    try:
        from pettingzoo.classic import texas_holdem_v4 as pz_texas

        from pokerzoo.integrations.pettingzoo_classic import (
            leduc_holdem_v4,
            texas_holdem_no_limit_v6,
            texas_holdem_v4,
        )
    except ImportError:
        return []
    pz_limit = aec_rate(pz_texas.env, seconds)
    rows = [("PettingZoo texas_holdem_v4", pz_limit, None, pz_limit)]
    for name, module, base in [
        ("leduc_holdem_v4", leduc_holdem_v4, pz_leduc),
        ("texas_holdem_v4", texas_holdem_v4, pz_limit),
        ("texas_holdem_no_limit_v6", texas_holdem_no_limit_v6, pz_nolimit),
    ]:
        rows.append((f"pokerzoo classic {name}", aec_rate(module.env, seconds), None, base))
        if name != "leduc_holdem_v4":
            rlcard_rules = functools.partial(module.env, rules="rlcard")
            label = f"pokerzoo classic {name} rules='rlcard'"
            rows.append((label, aec_rate(rlcard_rules, seconds), None, base))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--num-envs", type=int, default=4096, help="hands in the batched env")
    parser.add_argument(
        "--check", action="store_true", help="exit with status 1 if a CPU-time target is missed"
    )
    args = parser.parse_args()

    from pokerzoo.envs import leduc_holdem_v0, no_limit_holdem_v0

    s = args.seconds
    load = os.getloadavg()[0]
    nan = (float("nan"), float("nan"))
    try:  # PettingZoo's poker envs need rlcard and pygame (pettingzoo[classic])
        from pettingzoo.classic import leduc_holdem_v4, texas_holdem_no_limit_v6

        pz_leduc = aec_rate(leduc_holdem_v4.env, s)
        pz_nolimit = aec_rate(texas_holdem_no_limit_v6.env, s)
    except ImportError as exc:
        print(f"PettingZoo classic envs unavailable ({exc}); install pettingzoo[classic]")
        pz_leduc = pz_nolimit = nan
    try:
        rl_leduc, rl_nolimit = rlcard_rate("leduc-holdem", s), rlcard_rate("no-limit-holdem", s)
    except ImportError:
        rl_leduc = rl_nolimit = nan
    hu_arrays, hu_state = holdem_vector_rates(args.num_envs, s)
    rows = [
        ("pokerzoo AEC leduc_holdem_v0", aec_rate(leduc_holdem_v0.env, s), 30_000, pz_leduc),
        (
            "pokerzoo AEC no_limit_holdem_v0",
            aec_rate(no_limit_holdem_v0.env, s),
            15_000,
            pz_nolimit,
        ),
        ("PettingZoo leduc_holdem_v4", pz_leduc, None, pz_leduc),
        ("PettingZoo texas_holdem_no_limit_v6", pz_nolimit, None, pz_nolimit),
        ("rlcard leduc-holdem (raw)", rl_leduc, None, pz_leduc),
        ("rlcard no-limit-holdem (raw)", rl_nolimit, None, pz_nolimit),
        (
            f"pokerzoo VectorPokerEnv leduc x{args.num_envs}",
            vector_rate("leduc_holdem", args.num_envs, s),
            500_000,
            pz_leduc,
        ),
        (
            "gymnasium.make_vec LeducHoldem-v0 x1024",
            gym_vector_rate("pokerzoo/LeducHoldem-v0", 1024, s),
            None,
            pz_leduc,
        ),
        (
            "gymnasium.make_vec LeducHoldem-v0 x1024 same-step",
            gym_vector_rate("pokerzoo/LeducHoldem-v0", 1024, s, autoreset_mode="SameStep"),
            None,
            pz_leduc,
        ),
        (f"pokerzoo VectorPokerEnv no-limit HU x{args.num_envs} State", hu_state, None,
         pz_nolimit),
        (f"pokerzoo VectorPokerEnv no-limit HU x{args.num_envs} arrays", hu_arrays, 200_000,
         pz_nolimit),
    ]
    rows += classic_rows(s, pz_leduc, pz_nolimit)
    width = max(len(r[0]) for r in rows)
    print(f"load average before the run: {load:.1f} on {os.cpu_count()} cores")
    head = f"{'env':<{width}}  {'wall dec/s':>11}  {'CPU dec/s':>11}  {'vs PZ (CPU)':>11}  target"
    print(head)
    missed = []
    for name, (wall, cpu), target, base in rows:
        goal = "" if target is None else f"{target:,}" + (" ok" if cpu >= target else " MISS")
        print(f"{name:<{width}}  {wall:>11,.0f}  {cpu:>11,.0f}  {cpu / base[1]:>10.1f}x  {goal}")
        if target is not None and not cpu >= target:
            missed.append(name)
    speedup = hu_arrays[1] / hu_state[1]
    print(f"batched no-limit HU: arrays {speedup:.1f}x the State path (CPU), target 20x")
    if not speedup >= 20:
        missed.append("batched no-limit HU vs State")
    if args.check and missed:
        raise SystemExit(f"targets missed: {', '.join(missed)}")


if __name__ == "__main__":
    main()
