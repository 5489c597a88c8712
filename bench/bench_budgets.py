"""What each agent's default budget learns on Kuhn and Leduc: exploitability (mbb/g) at a few
points of the budget and when it first falls under a stated level.

    python bench/bench_budgets.py                 # every agent of the README's table
    python bench/bench_budgets.py cfr+ nfsp-plt   # some of them

Each run goes through ``pokerzoo.runs.run.train`` exactly as ``train.py`` does (default
budget, default hyperparameters, seed 0), evaluated 200 times over its budget; the table
the README shows is this script's output.
"""

from __future__ import annotations

import sys
import tempfile
import time

from pokerzoo.agents.registry import agent_spec
from pokerzoo.runs.config import RunConfig, default_budget
from pokerzoo.runs.run import train
from pokerzoo.training.callbacks import read_metrics

AGENTS = ["cfr", "cfr+", "lcfr", "dcfr", "mccfr-os", "mccfr-es", "xfp", "bufp-x", "nfsp",
          "nfsp-plt", "deep-cfr", "deep-gxfp"]
GAMES = ["kuhn_poker", "leduc_holdem"]
LEVELS = (100.0, 10.0, 1.0)
"""mbb/g levels whose first crossing is reported (a uniform random Kuhn player: 458 mbb/g,
Leduc: 2,374)."""


def measure(agent: str, game: str) -> dict:
    units = agent_spec(agent).units
    budget = default_budget(agent)
    key = "episodes" if units == "episodes" else "iterations"
    with tempfile.TemporaryDirectory() as out:
        config = RunConfig(agent=agent, game=game, out=out, tensorboard=False,
                           eval_every=max(1, budget // 200), **{key: budget})
        start = time.perf_counter()
        train(config, progress=False)
        seconds = time.perf_counter() - start
        metrics = read_metrics(out)
    points = dict(zip(metrics["iteration"], metrics["exploitability_mbb_per_game"]))
    # Self-play learners play whole batches of hands: the points may pass round numbers.
    final = points[max(points)]
    tenth = points[min(x for x in points if x >= budget // 10)]
    crossed = {level: next((int(x) for x, v in points.items() if v <= level), None)
               for level in LEVELS}
    return {"units": units, "budget": budget, "seconds": seconds, "final": final,
            "tenth": tenth, "crossed": crossed}


def main(agents: list[str]) -> None:
    print("| agent | game | default budget | mbb/g at 1/10 | mbb/g at budget | "
          + " | ".join(f"first <= {level:g} mbb/g" for level in LEVELS) + " | seconds |")
    print("|" + "---|" * (6 + len(LEVELS)))
    for agent in agents:
        for game in GAMES:
            r = measure(agent, game)
            crossed = [f"{v:,}" if v is not None else "-" for v in r["crossed"].values()]
            print(f"| `{agent}` | {game} | {r['budget']:,} {r['units']} | {r['tenth']:.4g} | "
                  f"{r['final']:.4g} | " + " | ".join(crossed) + f" | {r['seconds']:.0f} |",
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or AGENTS)
