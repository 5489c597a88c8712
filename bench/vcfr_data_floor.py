"""The data floor of the unknown-environment papers' games: what
uniform random hands are worth when their posterior mean is solved to convergence.

For each game, reward reading (``reward_prior``: ``bernoulli``, today's default, or ``fixed``)
and environment (``seed``), uniform random hands are played in d* and fed to the agents'
Beta/Dirichlet posterior; the posterior mean is solved by CFR+ to NashConv 1e-4 there and the
solution scored in d* (``pokerzoo.evaluation.unknown.run_measures``' ``nash_conv_resolved``).
No learner that plays as many hands should be expected far below this number unless its hands
are better chosen than uniform ones; the paper's Leduc(5) numbers are 0.059 (VCFR), 0.105
(PSRLCFR), 0.233 (random interaction), 0.317 (naive CFR) at 20,000 hands.

    python bench/vcfr_data_floor.py --envs 5 --out bench/results/vcfr/data_floor.md
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pokerzoo import load_game
from pokerzoo.agents.cfr.full_width import CFRPlus
from pokerzoo.components.posterior import Posterior
from pokerzoo.evaluation.unknown import InteractionRunner, run_measures, true_model_tree

GAMES = {"kuhn": ("unknown_kuhn_poker", {}),
         "leduc4": ("unknown_leduc_holdem", {"base": "leduc4"}),
         "leduc5": ("unknown_leduc_holdem", {"base": "leduc5"})}


def floor(name: str, reading: str, seed: int, hands: list[int]) -> list[tuple[float, int]]:
    """``(nash_conv_resolved, terminals_observed)`` after each of ``hands`` uniform hands."""
    game_name, params = GAMES[name]
    game = load_game(game_name, seed=seed, reward_prior=reading, **params)
    tree = true_model_tree(game)
    posterior = Posterior(game)
    runner = InteractionRunner(game, posterior, seed=seed)
    uniform = CFRPlus(game.agent_view()).average_policy()
    out, played = [], 0
    for n in hands:
        runner.run(None, n - played)
        played = n
        m = run_measures(game, uniform, posterior, CFRPlus, tree)
        out.append((float(m["nash_conv_resolved"]), int(m["terminals_observed"])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["leduc4", "leduc5"], choices=list(GAMES))
    parser.add_argument("--hands", type=int, nargs="+", default=[20_000, 40_000, 100_000])
    parser.add_argument("--envs", type=int, default=5, help="environments (seeds 0..envs-1)")
    parser.add_argument("--out", help="also write the table to this Markdown file")
    args = parser.parse_args()
    start = time.perf_counter()
    lines = [f"Command: `python bench/vcfr_data_floor.py --games {' '.join(args.games)} --hands "
             f"{' '.join(map(str, args.hands))} --envs {args.envs}`", "",
             "NashConv in d* of the posterior mean (uniform random hands) solved by CFR+ to "
             "1e-4; mean ± sd over environments (seeds 0..envs-1), terminals observed in "
             "brackets.", "",
             "| game | reward_prior | " + " | ".join(f"{n:,} hands" for n in args.hands) + " |",
             "|---|---|" + "---|" * len(args.hands)]
    for name in args.games:
        for reading in ("bernoulli", "fixed"):
            runs = [floor(name, reading, seed, args.hands) for seed in range(args.envs)]
            cells = []
            for k in range(len(args.hands)):
                values = np.array([r[k][0] for r in runs])
                seen = np.mean([r[k][1] for r in runs])
                sd = values.std(ddof=1) if len(values) > 1 else 0.0
                cells.append(f"{values.mean():.3f} ± {sd:.3f} ({seen:,.0f})")
            lines.append(f"| {name} | {reading} | " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    lines += ["", f"{time.perf_counter() - start:.0f} s on the shared 2-core machine."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write("# The data floor: uniform hands, posterior mean solved to convergence\n\n"
                         + text)


if __name__ == "__main__":
    main()
