"""Deep CFR's external-sampling traversals on HUNL: array rows against ``State`` objects.

The game is ``no_limit_holdem`` with its defaults, the Deep GXFP paper's abstraction (blinds
50/100, 100 big blinds deep; fold, check/call, half pot, pot, all-in). Both traversal
functions (``agents.deep.array_traversal.external_sampling_arrays`` and
``agents.deep.state_traversal.external_sampling_states``) run for player 0 under two
strategies: uniform over the legal actions, and what Deep CFR traverses with, regret matching
on freshly initialised advantage networks (``StateDeepCFR``'s default ``CardBettingNet``, one
per seat, one torch thread). Reported: decision and terminal nodes visited per CPU second
(``TraversalSamples.nodes``), best of ``--repeat``, and the ratio of the two.

    python bench/bench_deep_traversal.py            # about a minute of CPU
    python bench/bench_deep_traversal.py --traversals 4096 --state-traversals 512
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
from common import table

from pokerzoo import load_game
from pokerzoo.agents.deep.array_traversal import external_sampling_arrays
from pokerzoo.agents.deep.state_deep_cfr import StateDeepCFR
from pokerzoo.agents.deep.state_traversal import external_sampling_states

RESULTS = Path(__file__).resolve().parent / "results" / "deep"


def strategies(game):
    """The two strategies: uniform, and regret matching on fresh advantage networks."""
    agent = StateDeepCFR(game, seed=0, device="cpu")
    rng = np.random.default_rng(0)
    agent.advantage_nets = [agent._new_net(rng) for _ in range(game.num_players)]
    return {
        "uniform": lambda player, x, mask: mask / mask.sum(axis=1, keepdims=True),
        "network": agent.traversal_strategy().probabilities,
    }


def nodes_per_second(fn, game, strategy, traversals, frontier, repeat):
    """Best-of-``repeat`` nodes per CPU second, the nodes of that run and the share of its
    CPU time spent in ``strategy``."""
    inside = [0.0]

    def timed(player, x, mask):
        start = time.process_time()
        try:
            return strategy(player, x, mask)
        finally:
            inside[0] += time.process_time() - start

    best = (0.0, 0, 0.0)
    for r in range(repeat):
        inside[0] = 0.0
        start = time.process_time()
        samples = fn(game, timed, 0, traversals, np.random.default_rng(r), frontier=frontier)
        seconds = time.process_time() - start
        if samples.nodes / seconds > best[0]:
            best = (samples.nodes / seconds, samples.nodes, inside[0] / seconds)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traversals", type=int, default=2_048,
                        help="traversals per array run")
    parser.add_argument("--state-traversals", type=int, default=256,
                        help="traversals per state run")
    parser.add_argument("--frontiers", default="256,1024",
                        help="array frontiers (traversals advanced together) to measure")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--write", action="store_true",
                        help="write bench/results/deep/traversal.md")
    args = parser.parse_args()
    torch.set_num_threads(1)
    game = load_game("no_limit_holdem")
    frontiers = [int(f) for f in args.frontiers.split(",")]
    # Compile (or load) the kernels and warm torch before anything is timed.
    for strategy in strategies(game).values():
        external_sampling_arrays(game, strategy, 0, 4, np.random.default_rng(0))
    rows = []
    for name, strategy in strategies(game).items():
        states, nodes, share = nodes_per_second(external_sampling_states, game, strategy,
                                                args.state_traversals, 256, args.repeat)
        rows.append([name, "states", 256, args.state_traversals, nodes, states,
                     f"{share:.0%}", 1.0])
        for frontier in frontiers:
            arrays, nodes, share = nodes_per_second(external_sampling_arrays, game, strategy,
                                                    args.traversals, frontier, args.repeat)
            rows.append([name, "arrays", frontier, args.traversals, nodes, arrays,
                         f"{share:.0%}", arrays / states])
        print(table(HEADERS, rows[-1 - len(frontiers):]), flush=True)
    text = table(HEADERS, rows)
    print(text)
    if args.write:
        command = "python bench/bench_deep_traversal.py " + " ".join(sys.argv[1:])
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "traversal.md").write_text(REPORT.format(
            table=text, command=command.strip(), machine=machine(),
            date=time.strftime("%Y-%m-%d", time.gmtime())))


HEADERS = ["strategy", "backend", "frontier", "traversals", "nodes", "nodes / CPU s",
           "in strategy", "speed-up"]
REPORT = """# Deep CFR traversals on HUNL: array rows against states

External-sampling traversals of player 0 in `no_limit_holdem` (the Deep GXFP paper's
abstraction: blinds 50/100, 100 big blinds, fold / call / half pot / pot / all-in), as
`TraversalSamples` with the same distribution from both backends. *nodes*: decision and
terminal nodes visited in one run; *nodes / CPU s*: best of the runs; *in strategy*: the
share of that run's CPU time spent in the strategy calls; *speed-up*: over the state
traversals under the same strategy. *network*: regret matching on freshly initialised
advantage networks (`CardBettingNet`, width 64, one torch thread), what Deep CFR traverses
with; its network calls are the same work for both backends, so the speed-up is smaller.
On a machine shared with other jobs the rates of repeated runs vary by up to a third.
Run on {date}.

{table}

Machine: {machine}. Command:

    {command}
"""


def machine() -> str:
    return f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, " \
           f"torch {torch.__version__}, shared with other jobs (process time is measured)"


if __name__ == "__main__":
    main()
