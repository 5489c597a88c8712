"""Unknown-environment poker: tree sizes, and NashConv in d* of the uniform policy and of CFR
run on the posterior mean after random interaction episodes.

Run: ``python bench/bench_unknown.py [--seeds 5] [--cfr-iterations 2000]``.

For each game and each seed, d* is drawn from the PSRLCFR prior (``load_game(..., seed=s)``),
a posterior is fed with uniformly random interaction episodes (``InteractionRunner``), vanilla
CFR runs on the tree of the posterior mean, and its average policy is measured in d*. Values are
NashConv (the sum of both players' best-response gains, the papers' convention) in d*, mean and
standard deviation over the seeds. "CFR on d*" is the same CFR run on d* itself: the floor
that more interaction can reach with this solver budget.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from common import table

from pokerzoo import load_game
from pokerzoo.agents.cfr.full_width import CFR
from pokerzoo.components.posterior import Posterior
from pokerzoo.evaluation import nash_conv
from pokerzoo.evaluation.exact import uniform_policy_array
from pokerzoo.evaluation.unknown import InteractionRunner, true_model_tree
from pokerzoo.tree import build

GAMES = {
    "unknown Kuhn": ("unknown_kuhn_poker", {}),
    "unknown Leduc(4)": ("unknown_leduc_holdem", {"base": "leduc4"}),
    "unknown Leduc(5)": ("unknown_leduc_holdem", {"base": "leduc5"}),
}
EPISODES = (1_000, 20_000)


def measure(name: str, params: dict, seed: int, cfr_iterations: int) -> dict[str, float]:
    """One d*: NashConv in d* of uniform, of CFR on the posterior mean after each budget, and
    of CFR on d*; also the posterior mean's average TV distance to d*."""
    game = load_game(name, seed=seed, **params)
    true_tree = true_model_tree(game)  # the evaluator's tree of d* (build(game): prior mean)
    out = {"uniform": nash_conv(true_tree, uniform_policy_array(true_tree))}
    solver = CFR(game, tree=true_tree)
    solver.iterate(cfr_iterations)
    out["cfr_on_d*"] = nash_conv(true_tree, solver.average_policy())
    posterior = Posterior(game)
    runner = InteractionRunner(game, posterior, seed=1000 + seed)
    for budget in EPISODES:
        runner.run(None, budget - runner.episodes)
        mean = posterior.mean_model()
        solver = CFR(game, tree=build(game, model=mean))
        solver.iterate(cfr_iterations)
        out[f"cfr_{budget}"] = nash_conv(true_tree, solver.average_policy())
        out[f"tv_{budget}"] = mean.distance(game.true_model).mean()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="draws of d* per game")
    parser.add_argument("--cfr-iterations", type=int, default=2000)
    args = parser.parse_args()
    start = time.perf_counter()
    size_rows, value_rows = [], []
    for label, (name, params) in GAMES.items():
        summary = build(load_game(name, **params)).summary()
        size_rows.append(
            [
                label,
                summary["histories"],
                summary["terminals"],
                summary["chance_nodes"],
                summary["decision_nodes"],
                summary["infosets"],
            ]
        )
        runs = [measure(name, params, s, args.cfr_iterations) for s in range(args.seeds)]

        def cell(key: str, runs: list[dict[str, float]] = runs) -> str:
            values = np.array([r[key] for r in runs])
            return f"{values.mean():.3f} ± {values.std(ddof=1) if len(values) > 1 else 0:.3f}"

        value_rows.append(
            [
                label,
                cell("uniform"),
                *(cell(f"cfr_{b}") for b in EPISODES),
                cell("cfr_on_d*"),
                *(cell(f"tv_{b}") for b in EPISODES),
            ]
        )
    print(
        table(
            ["game", "histories", "terminals", "chance nodes", "decision nodes", "infosets"],
            size_rows,
        )
    )
    print()
    print(
        table(
            [
                "game",
                "uniform",
                *(f"CFR on mean, {b:,} ep." for b in EPISODES),
                "CFR on d*",
                *(f"TV(mean, d*), {b:,} ep." for b in EPISODES),
            ],
            value_rows,
        )
    )
    print(
        f"\nNashConv in d* (mean ± sd over {args.seeds} draws of d* from the PSRLCFR prior); "
        f"vanilla CFR, {args.cfr_iterations} iterations; uniformly random interaction policy. "
        f"{time.perf_counter() - start:.0f} s."
    )


if __name__ == "__main__":
    main()
