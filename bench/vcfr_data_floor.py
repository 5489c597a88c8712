"""The data floor of the unknown-environment papers' games: what
uniform random hands are worth when their posterior mean is solved to convergence.

For each game, reward reading (``reward_prior``: ``bernoulli``, today's default, or ``fixed``)
and environment (``seed``), uniform random hands are played in d* and fed to the agents'
Beta/Dirichlet posterior; the posterior mean is solved by CFR+ to NashConv 1e-4 there and the
solution scored in d* (``pokerzoo.evaluation.unknown.run_measures``' ``nash_conv_resolved``).
No learner that plays as many hands should be expected far below this number unless its hands
are better chosen than uniform ones; the paper's Leduc(5) numbers are 0.059 (VCFR), 0.105
(PSRLCFR), 0.233 (random interaction), 0.317 (naive CFR) at 20,000 hands.

Each cell gives the mean and the 95% Student-t interval over environments (the reproduction
report's convention) and the mean number of distinct terminals observed. Exact: numpy and
numba only, so a rerun prints the same digits.

    python bench/vcfr_data_floor.py --envs 10 --out bench/results/vcfr/data_floor.md
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import code_version, library_versions, machine_line

from pokerzoo import load_game
from pokerzoo.agents.cfr.full_width import CFRPlus
from pokerzoo.atomic import write_atomically
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


def interval(values: np.ndarray) -> str:
    """``mean [low, high]``: the 95% Student-t interval over environments."""
    mean = float(values.mean())
    if len(values) < 2:
        return f"{mean:.3f} (one environment)"
    half = float(stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values)))
    return f"{mean:.3f} [{mean - half:.3f}, {mean + half:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["leduc4", "leduc5"], choices=list(GAMES))
    parser.add_argument("--hands", type=int, nargs="+", default=[20_000, 40_000, 100_000])
    parser.add_argument("--envs", type=int, default=10, help="environments (seeds 0..envs-1)")
    parser.add_argument("--out", type=Path, help="also write the table to this Markdown file")
    args = parser.parse_args()
    if args.envs < 1 or not args.hands or min(args.hands) < 1:
        parser.error("--envs and every --hands must be at least 1")
    start = time.perf_counter()
    command = "python bench/vcfr_data_floor.py " + " ".join(sys.argv[1:])
    lines = [f"Command: `{command}`", "",
             f"Code {code_version(Path(__file__).resolve().parent)}; {library_versions()}; "
             f"{machine_line()}. Exact (numpy and numba only).", "",
             "NashConv in d* of the posterior mean (uniform random hands) solved by CFR+ to "
             "1e-4; mean [95% t interval] over environments (seeds 0..envs-1), the mean number "
             "of distinct terminals observed in brackets.", "",
             "| game | reward_prior | " + " | ".join(f"{n:,} hands" for n in args.hands) + " |",
             "|---|---|" + "---|" * len(args.hands)]
    jobs = [(name, reading) for name in args.games for reading in ("bernoulli", "fixed")]
    with tqdm(total=len(jobs) * args.envs, desc="environments", unit="env") as bar:
        for name, reading in jobs:
            runs = []
            for seed in range(args.envs):
                runs.append(floor(name, reading, seed, args.hands))
                bar.update()
            cells = []
            for k in range(len(args.hands)):
                values = np.array([r[k][0] for r in runs])
                seen = np.mean([r[k][1] for r in runs])
                cells.append(f"{interval(values)} ({seen:,.0f})")
            lines.append(f"| {name} | {reading} | " + " | ".join(cells) + " |")
    lines += ["", f"{time.perf_counter() - start:.0f} s wall."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        write_atomically(
            args.out,
            "# The data floor: uniform hands, posterior mean solved to convergence\n\n" + text,
            what="data floor table",
        )


if __name__ == "__main__":
    main()
