"""Reproduce the VCFR paper's experiment: NashConv in d* after 20,000 interactions.

Qiu et al., "Combining CFR with information gain to solve extensive games with unknown
environments" (Sec. 5, Fig. 3-4): VCFR, VDCFR, VFSP and the baselines (PSRLCFR, naive CFR and
DCFR, MCCFR-OS, FSP, random interaction) on unknown Kuhn, Leduc(4) and Leduc(5) with the
PSRLCFR prior (rewards +-1, p ~ U[0, 1]; chance Dirichlet(1, ..., 1)). Leduc(4)/(5) are our
documented definitions (``docs/leduc_variants.md``: at most 4 / 5 antes per player, unit
raises), not the papers' unpublished ones.

Each run (agent, game, sampled environment) plays 20,000 interaction episodes, measuring the
output policy's NashConv in the environment's true model at log-spaced points. Finished runs
are kept as JSON under ``--out`` (written atomically) and skipped on rerun, so the grid can be
stopped and resumed, and split over processes (``--jobs``) or machines. The summary prints a
Markdown table (mean and spread over environments, next to the paper's Leduc(5) numbers), the
wall-clock time per interaction round of each agent, and draws the curves as PNG (mean of
log10 NashConv with a shaded band from the lowest to the highest environment).

    python bench/reproduce_vcfr.py                        # the default grid, 2 processes
    python bench/reproduce_vcfr.py --games kuhn --envs 3  # a quick look
    python bench/reproduce_vcfr.py --summary-only         # tables and plots of what is done
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import table

GAMES = {
    "kuhn": ("unknown_kuhn_poker", None),
    "leduc4": ("unknown_leduc_holdem", "leduc4"),
    "leduc5": ("unknown_leduc_holdem", "leduc5"),
}
MAIN_AGENTS = ("vcfr", "psrlcfr", "naive-cfr", "naive-dcfr")
"""Run on at least ``--envs`` environments per game (the issue: 5)."""
OTHER_AGENTS = ("vdcfr", "vfsp", "random-interaction", "mccfr-os-unknown", "fsp-unknown")
"""Run on at least ``--envs-other`` environments (the issue: 3)."""
PAPER_LEDUC5_LOG10 = {
    "vcfr": -1.230, "psrlcfr": -0.980, "random-interaction": -0.632, "naive-cfr": -0.499,
    "mccfr-os-unknown": -0.163,
}
"""The paper's Leduc(5) log10(NashConv) after 20,000 rounds (its text, Sec. 5.3)."""
PAPER_LEDUC4_LOG10 = {"vcfr": -0.135, "psrlcfr": -0.864}
"""The paper's Leduc(4) sentence as printed (self-contradictory: -0.135 is called best)."""


def checkpoints(episodes: int) -> list[int]:
    """Log-spaced measuring points up to ``episodes`` (always including it)."""
    points = {int(round(x)) for x in np.geomspace(100, episodes, 12)} | {episodes}
    return sorted(p for p in points if 0 < p <= episodes)


def run_path(out: Path, game: str, agent: str, env: int) -> Path:
    return out / game / agent / f"env{env}.json"


def run_one(out: str, game: str, agent: str, env: int, episodes: int) -> dict[str, Any]:
    """One run: ``agent`` on environment ``env`` of ``game``; writes and returns its record."""
    import torch

    from pokerzoo import load_game
    from pokerzoo.agents.registry import make_agent
    from pokerzoo.evaluation.unknown import nash_conv_in_true_model

    torch.set_num_threads(1)  # one core per run; runs go in parallel processes
    name, base = GAMES[game]
    environment = load_game(name, base=base, seed=env) if base else load_game(name, seed=env)
    learner = make_agent(agent, environment, seed=env)
    points, curve = checkpoints(episodes), []
    start = time.perf_counter()
    learning = 0.0
    done = 0
    for point in points:
        tick = time.perf_counter()
        learner.iterate(point - done)
        learning += time.perf_counter() - tick
        done = point
        curve.append([point, nash_conv_in_true_model(environment, learner.policy())])
    counter = learner.view.sampler.counter.episodes  # type: ignore[attr-defined]
    record = {
        "game": game, "agent": agent, "env": env, "episodes": episodes,
        "counted_episodes": int(counter), "rounds": int(getattr(learner, "rounds", 0)),
        "curve": curve, "nash_conv": curve[-1][1], "learning_seconds": learning,
        "wall_seconds": time.perf_counter() - start,
    }
    path = run_path(Path(out), game, agent, env)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1))
    os.replace(tmp, path)  # atomic: a killed run leaves no half-written record
    return record


def grid(games: list[str], envs: int, envs_other: int, agents: list[str]) -> list[tuple]:
    """Every (game, agent, env) asked for, main agents' environments first."""
    jobs = []
    for game in games:
        for env in range(max(envs, envs_other)):
            for agent in agents:
                limit = envs if agent in MAIN_AGENTS else envs_other
                if env < limit:
                    jobs.append((game, agent, env))
    return jobs


def load_records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(out.glob("*/*/env*.json"))]


def summarise(out: Path) -> str:
    """The tables of what is finished, and one PNG per game."""
    records = load_records(out)
    if not records:
        return "no finished runs yet"
    lines = []
    for game in GAMES:
        mine = [r for r in records if r["game"] == game]
        if not mine:
            continue
        rows = []
        paper = PAPER_LEDUC5_LOG10 if game == "leduc5" else (
            PAPER_LEDUC4_LOG10 if game == "leduc4" else {})
        for agent in sorted({r["agent"] for r in mine}, key=_agent_order):
            runs = [r for r in mine if r["agent"] == agent]
            conv = np.array([r["nash_conv"] for r in runs])
            logs = np.log10(np.maximum(conv, 1e-12))
            per_round = np.mean([r["learning_seconds"] / max(r["rounds"], 1) for r in runs])
            whole = np.mean([r["learning_seconds"] for r in runs])
            ref = paper.get(agent)
            rows.append([
                agent, len(runs), f"{conv.mean():.4f} ± {conv.std():.4f}",
                f"{logs.mean():.3f} ({logs.min():.2f} .. {logs.max():.2f})",
                "-" if ref is None else f"{ref:.3f} ({10 ** ref:.3f})",
                f"{per_round * 1000:.2f}", f"{whole:.0f}",
            ])
        lines.append(f"### {game}: NashConv in d* after {mine[0]['episodes']:,} interactions\n")
        lines.append(table(
            ["agent", "envs", "NashConv mean ± sd", "log10 mean (min .. max)",
             "paper log10 (NashConv)", "ms / round", "s / run"], rows,
        ))
        lines.append("")
        plot(mine, out / f"{game}.png", game)
    return "\n".join(lines)


def _agent_order(agent: str) -> int:
    order = (*MAIN_AGENTS, *OTHER_AGENTS)
    return order.index(agent) if agent in order else len(order)


def plot(records: list[dict[str, Any]], path: Path, game: str) -> None:
    """Geometric-mean NashConv per agent with a band over environments (min to max)."""
    import matplotlib.pyplot as plt

    from pokerzoo.runs.reports import draw_spread

    groups: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    for agent in sorted({r["agent"] for r in records}, key=_agent_order):
        for r in records:
            if r["agent"] == agent:
                curve = np.asarray(r["curve"])
                groups.setdefault(agent, []).append((curve[:, 0], curve[:, 1]))
    fig = draw_spread(groups, "NashConv in d* (geometric mean; band: min-max over "
                      "environments)", "interaction episodes")
    fig.axes[0].set_title(f"unknown {game}, PSRLCFR prior")
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="kuhn,leduc4,leduc5")
    parser.add_argument("--agents", default=",".join((*MAIN_AGENTS, *OTHER_AGENTS)))
    parser.add_argument("--envs", type=int, default=5, help="environments for the main agents")
    parser.add_argument("--envs-other", type=int, default=3, help="environments for the rest")
    parser.add_argument("--episodes", type=int, default=20_000)
    parser.add_argument("--jobs", type=int, default=2, help="parallel processes")
    parser.add_argument("--out", default="bench/results/vcfr")
    parser.add_argument("--summary-only", action="store_true")
    args = parser.parse_args()
    out = Path(args.out)
    if not args.summary_only:
        todo = [
            job for job in grid(args.games.split(","), args.envs, args.envs_other,
                                args.agents.split(","))
            if not run_path(out, *job).exists()
        ]
        print(f"{len(todo)} runs to do (finished runs under {out} are kept)", flush=True)
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = {
                pool.submit(run_one, str(out), game, agent, env, args.episodes): (game, agent, env)
                for game, agent, env in todo
            }
            for future in as_completed(futures):
                game, agent, env = futures[future]
                try:
                    r = future.result()
                except Exception as exc:  # one failed run must not stop the grid
                    print(f"FAILED {game} {agent} env{env}: {type(exc).__name__}: {exc}",
                          flush=True)
                    continue
                print(f"{game} {agent} env{env}: NashConv {r['nash_conv']:.4f} "
                      f"(log10 {math.log10(max(r['nash_conv'], 1e-12)):.3f}) in "
                      f"{r['learning_seconds']:.0f} s", flush=True)
    print(summarise(out))


if __name__ == "__main__":
    main()
