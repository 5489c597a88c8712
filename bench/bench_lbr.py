"""LBR deals per second: the original per-pair implementation (``reference=True``) next to the
batched and compiled one, on the same deals, with 1 and 2 workers.

Policies: the uniform player on limit and no-limit hold'em (default sizes), and a Deep CFR
network policy on no-limit hold'em at $1/$2 with 200 stacks and bets of 0.5, 0.75 and 1 pot
(trained here for one iteration of a few traversals, so the bench needs no run folder; LBR's
cost does not depend on how well the network plays). Every row also checks that both
implementations won the same chips on every deal. Two workers run on a local Ray executor;
wall-clock seconds, numba compiled and the workers started before the clock starts.

Usage::

    python bench/bench_lbr.py                 # writes bench/results/lbr_speed.md
    python bench/bench_lbr.py --deals 10 --no-ray
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

import numpy as np
import torch
from common import code_version, library_versions, table

from pokerzoo import load_game
from pokerzoo.atomic import write_atomically
from pokerzoo.evaluation.lbr import LBRSpec, lbr_deals
from pokerzoo.parallel import Executor, InProcess, deal_ranges, run_map
from pokerzoo.policy import UniformRandomPolicy, as_state_policy

ROOT = Path(__file__).resolve().parent.parent


def deep_cfr_policy(game: object) -> object:
    """A Deep CFR strategy network after one short iteration."""
    from pokerzoo.agents.deep.state_deep_cfr import StateDeepCFR

    torch.set_num_threads(1)
    agent = StateDeepCFR(game, seed=0, traversals=8, advantage_steps=4, policy_steps=4,
                         device="cpu")
    agent.iterate(1)
    return agent.policy()


def timed(spec: LBRSpec, deals: int, executor: Executor) -> tuple[float, np.ndarray]:
    start = time.perf_counter()
    parts = run_map(executor, lbr_deals, spec, deal_ranges(deals, executor))
    return time.perf_counter() - start, np.concatenate(parts)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--deals", type=int, default=24, help="deals per measurement")
    p.add_argument("--wp-samples", type=int, default=24)
    p.add_argument("--no-ray", action="store_true", help="1 worker only")
    p.add_argument("--out", type=Path, default=ROOT / "bench/results/lbr_speed.md")
    args = p.parse_args()

    nlhe_12 = load_game("no_limit_holdem", small_blind=1, big_blind=2, stacks=200,
                        bet_fractions=(0.5, 0.75, 1.0))
    cases = [
        ("uniform", "limit_holdem", load_game("limit_holdem"), UniformRandomPolicy()),
        ("uniform", "no_limit_holdem", load_game("no_limit_holdem"), UniformRandomPolicy()),
        ("Deep CFR (1 iteration)", "no_limit_holdem $1/$2, 200, 0.5/0.75/1", nlhe_12,
         deep_cfr_policy(nlhe_12)),
    ]
    executors: list[tuple[int, Executor]] = [(1, InProcess())]
    if not args.no_ray:
        from pokerzoo.distributed.ray_executor import RayExecutor

        executors.append((2, RayExecutor(workers=2, num_cpus=2)))
    rows = []
    for label, game_name, game, policy in cases:
        spec = LBRSpec(game, as_state_policy(policy), tuple(range(2, game.num_distinct_actions)),
                       args.wp_samples, entropy=2026)
        lbr_deals(spec, (0, 1))  # compile the kernels first
        ref = LBRSpec(spec.game, spec.policy, spec.bet_actions, spec.wp_samples, spec.entropy,
                      reference=True)
        for workers, executor in executors:
            timed(spec, 2 * workers, executor)  # start the workers and load their kernels
            t_old, old = timed(ref, args.deals, executor)
            t_new, new = timed(spec, args.deals, executor)
            same = int(np.all(old == new, axis=1).sum())
            rows.append([label, game_name, workers, args.deals / t_old, args.deals / t_new,
                         t_old / t_new, f"{same}/{args.deals}"])
            print(rows[-1], flush=True)
    text = "\n".join([
        "# LBR deals per second: per-pair reference vs batched and compiled", "",
        f"`python bench/bench_lbr.py --deals {args.deals} --wp-samples {args.wp_samples}`"
        " (wall clock; a deal is two hands, LBR in each seat).", "",
        f"- code: {code_version(ROOT)}",
        f"- libraries: {library_versions()}, torch {torch.__version__}",
        f"- machine: {platform.machine()}, {platform.processor() or 'cpu'}, "
        f"2 cores shared with other jobs",
        "",
        table(["policy", "game", "workers", "deals/s before", "deals/s after", "speed-up",
               "same winnings"], rows),
        "",
    ])
    write_atomically(args.out, text)
    print(text)


if __name__ == "__main__":
    main()
