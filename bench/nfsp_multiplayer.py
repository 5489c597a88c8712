"""The NFSP-PLT paper's Table 5: NFSP-PER and NFSP-PLT against Random on 3- and 6-player
no-limit hold'em ("3-NH", "6-NH"; Li et al., "NFSP-PLT: Solving Games with a Weighted
NFSP-PER-Based Method", Electronics 12(11):2396, 2023, doi 10.3390/electronics12112396).

The paper trains 50,000 hands with SGD (0.1 for the Q-network, 0.005 for the average
network) and plays 20,000 games against Random. Here, per (players, preset, seed), one cell:

* training: ``hands`` hands of our ``no_limit_holdem`` with ``num_players`` seats (its
  defaults otherwise: blinds 50/100, stacks of 100 big blinds, bets of half and one pot and
  all-in), the paper's SGD rates, and a gradient-norm clip (``--max-grad-norm``, 1.0 by
  default, the clip of Deep CFR, Brown et al. 2019): at the paper's rates without one, NFSP-PLT
  gives non-finite TD errors within the first ~2,000 hands on most seeds (each cell records
  the unclipped check, ``--unclipped-hands``);
* evaluation: the average policy in one seat and uniform Random in every other seat over
  ``final_hands`` hands, duplicate deals with the seats rotated (``versus_random``: each deal
  is played once per rotation, so the agent holds every seat's cards), in big blinds per hand
  (the paper's "bb/h") with the 95% half-width over deals.

A cell writes ``<out>/<n>nh_<preset>_seed<k>.json`` atomically and is skipped when present (the
grid resumes). ``--uct-probe SECONDS`` also times our NFSP-UCT (NFSP-PLT whose best response
is the adaptive UCT search, the Leduc opponent's settings) on 3-NH for that many CPU seconds,
the cost that keeps the paper's "vs NFSP-UCT" column out of reach here. Then ``summary.md``
and ``summary.json`` are written from every cell present: per (players, preset) the mean and
the 95% t interval over seeds.

    python bench/nfsp_multiplayer.py --players 3 6 --seeds 0 1 2 3 4 --hands 50000 \\
        --final-hands 20000 --uct-probe 120 --out bench/results/nfsp/multiplayer
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import code_version, library_versions, machine_line, provenance, provenance_line
from nfsp_paper import PAPER_PARAMS, UCT_PARAMS

from pokerzoo import load_game
from pokerzoo.agents.registry import make_agent
from pokerzoo.atomic import write_atomically
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.matches import versus_random

PRESETS = ("nfsp-per", "nfsp-plt")
PAPER_TABLE5 = {  # bb/h over 20,000 games: (vs Random, vs NFSP-UCT)
    (3, "nfsp-per"): (58.3802, 11.3967),
    (6, "nfsp-per"): (84.5855, 28.5454),
    (3, "nfsp-plt"): (61.3869, 11.7747),
    (6, "nfsp-plt"): (85.4392, 47.0840),
}
NUM_ENVS = 8
"""Hands played at once (the Leduc protocol's, ``nfsp_paper.Protocol.num_envs``)."""


def cell_path(out: Path, players: int, preset: str, seed: int) -> Path:
    """Where the cell (players, preset, seed) writes its record."""
    return out / f"{players}nh_{preset}_seed{seed}.json"


def unclipped_check(players: int, preset: str, seed: int, hands: int) -> dict[str, Any]:
    """Train ``hands`` hands at the paper's rates without a clip: whether the Q-learning stays
    finite, and the hand it stopped at if not."""
    game = load_game("no_limit_holdem", num_players=players)
    agent = make_agent(preset, game, seed=seed, num_envs=NUM_ENVS, **PAPER_PARAMS)
    try:
        agent.iterate(hands)
    except ConfigError as error:  # the prioritized buffer refuses non-finite TD errors
        return {"hands": hands, "diverged": True, "at_hand": agent.iteration, "error": str(error)}
    return {"hands": hands, "diverged": False, "at_hand": agent.iteration}


def run_cell(
    out: Path,
    players: int,
    preset: str,
    seed: int,
    hands: int,
    final_hands: int,
    max_grad_norm: float | None,
    unclipped_hands: int,
) -> dict[str, Any]:
    """Train and evaluate one cell; write and return its record (the file's, if present)."""
    path = cell_path(out, players, preset, seed)
    if path.exists():
        return dict(json.loads(path.read_text()))
    torch.set_num_threads(1)
    cpu = time.process_time()
    check = unclipped_check(players, preset, seed, unclipped_hands) if unclipped_hands else None
    game = load_game("no_limit_holdem", num_players=players)
    params = {**PAPER_PARAMS, "max_grad_norm": max_grad_norm}
    agent = make_agent(preset, game, seed=seed, num_envs=NUM_ENVS, **params)
    start = time.process_time()
    record: dict[str, Any] = {
        "players": players,
        "preset": preset,
        "seed": seed,
        "game": f"no_limit_holdem (num_players={players}, other parameters default)",
        "params": params,
        "num_envs": NUM_ENVS,
        "hands_asked": hands,
        "unclipped_check": check,
    }
    try:
        agent.iterate(hands)
    except ConfigError as error:
        record.update(diverged=True, hands=agent.iteration, error=str(error))
    else:
        record["train_cpu_seconds"] = time.process_time() - start
        result = versus_random(game, agent.policy(), final_hands, seed=seed + 1)
        record.update(
            diverged=False,
            hands=agent.iteration,
            final_hands=int(result["hands"]),
            bb_per_hand=result["bb_per_100"] / 100.0,
            ci_bb=result["ci95"] / 100.0,
        )
    record.update(
        cpu_seconds=time.process_time() - cpu,
        code_version=code_version(Path(__file__).resolve().parent),
        libraries=f"{library_versions()}, torch {torch.__version__}",
        machine=machine_line(),
    )
    out.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(record, indent=1), what="NFSP multiplayer cell")
    return record


def uct_probe(out: Path, seconds: float, players: int = 3) -> dict[str, Any]:
    """CPU seconds our NFSP-UCT needs per training hand on ``players``-seat no-limit (3-NH by
    default), measured for ``seconds``; written to ``<out>/nfsp_uct_probe.json`` once."""
    path = out / "nfsp_uct_probe.json"
    if path.exists():
        return dict(json.loads(path.read_text()))
    torch.set_num_threads(1)
    game = load_game("no_limit_holdem", num_players=players)
    agent = make_agent(
        "nfsp-plt",
        game,
        seed=0,
        num_envs=NUM_ENVS,
        **{**PAPER_PARAMS, **UCT_PARAMS, "max_grad_norm": 1.0},
    )
    start = time.process_time()
    while time.process_time() - start < seconds:
        agent.iterate(NUM_ENVS)
    spent = time.process_time() - start
    record = {
        "game": f"no_limit_holdem (num_players={players})",
        "params": {**UCT_PARAMS},
        "hands": agent.iteration,
        "cpu_seconds": spent,
        "cpu_seconds_per_hand": spent / max(agent.iteration, 1),
        "projected_cpu_hours_50000_hands": spent / max(agent.iteration, 1) * 50_000 / 3600,
        "code_version": code_version(Path(__file__).resolve().parent),
        "machine": machine_line(),
    }
    out.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(record, indent=1), what="NFSP-UCT probe")
    return record


def t_interval(values: list[float]) -> tuple[float, float]:
    """Mean and the 95% Student-t half-width over ``values`` (nan for one value)."""
    from scipy import stats

    x = np.asarray(values, dtype=float)
    if len(x) < 2:
        return float(x.mean()), float("nan")
    return float(x.mean()), float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))


def summarise(out: Path, command: str) -> dict[str, Any]:
    """``summary.json`` and ``summary.md`` from every cell under ``out``."""
    cells = [json.loads(p.read_text()) for p in sorted(out.glob("*nh_*_seed*.json"))]
    groups: dict[str, Any] = {}
    for (players, preset), (paper_random, paper_uct) in PAPER_TABLE5.items():
        mine = [c for c in cells if c["players"] == players and c["preset"] == preset]
        if not mine:
            continue
        done = [c for c in mine if not c["diverged"]]
        checks = [c["unclipped_check"] for c in mine if c.get("unclipped_check")]
        values = [c["bb_per_hand"] for c in done]
        mean, half = t_interval(values) if values else (float("nan"), float("nan"))
        groups[f"{players}nh_{preset}"] = {
            "players": players,
            "preset": preset,
            "seeds": [c["seed"] for c in done],
            "diverged_seeds": [c["seed"] for c in mine if c["diverged"]],
            "hands": sorted({c["hands_asked"] for c in mine}),
            "final_hands": sorted({c["final_hands"] for c in done}),
            "bb_per_hand": values,
            "ci_bb_over_deals": [c["ci_bb"] for c in done],
            "mean": mean,
            "half_width": half,
            "unclipped_diverged": sum(c["diverged"] for c in checks),
            "unclipped_checked": len(checks),
            "unclipped_hands": sorted({c["hands"] for c in checks}),
            "paper_vs_random": paper_random,
            "paper_vs_nfsp_uct": paper_uct,
        }
    probe_path = out / "nfsp_uct_probe.json"
    summary = {
        "command": command,
        "groups": groups,
        "nfsp_uct_probe": json.loads(probe_path.read_text()) if probe_path.exists() else None,
        **provenance(cells),
    }
    write_atomically(out / "summary.json", json.dumps(summary, indent=1), what="summary")
    lines = [
        "# NFSP-PER and NFSP-PLT against Random on 3- and 6-player no-limit hold'em",
        "",
        f"Command: `{command}`",
        "",
        provenance_line(summary),
        "",
        "bb/h = big blinds per hand, the agent in one seat and Random in the others, duplicate "
        "deals with the seats rotated; mean and 95% t interval over seeds.",
        "",
        "| game | preset | hands trained | seeds | bb/h vs Random | per seed (95% over deals) "
        "| paper | unclipped: diverged / checked |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for g in groups.values():
        per_seed = ", ".join(
            f"{v:.2f} ± {h:.2f}" for v, h in zip(g["bb_per_hand"], g["ci_bb_over_deals"])
        )
        band = (
            "-"
            if not g["bb_per_hand"]
            else f"{g['mean']:.2f} (one seed)"
            if np.isnan(g["half_width"])
            else f"{g['mean']:.2f} [{g['mean'] - g['half_width']:.2f}, "
            f"{g['mean'] + g['half_width']:.2f}]"
        )
        lines.append(
            f"| {g['players']}-NH | {g['preset']} | {', '.join(f'{h:,}' for h in g['hands'])} "
            f"| {len(g['seeds'])} (diverged: {len(g['diverged_seeds'])}) | {band} | {per_seed} "
            f"| {g['paper_vs_random']} | {g['unclipped_diverged']} / {g['unclipped_checked']} |"
        )
    probe = summary["nfsp_uct_probe"]
    if probe:
        lines += [
            "",
            f"NFSP-UCT (adaptive-UCT best response, {probe['params']}) on 3-NH: "
            f"{probe['hands']} hands in {probe['cpu_seconds']:.0f} CPU s, "
            f"{probe['cpu_seconds_per_hand']:.2f} s a hand, so about "
            f"{probe['projected_cpu_hours_50000_hands']:.0f} CPU hours for 50,000 hands.",
        ]
    write_atomically(out / "summary.md", "\n".join(lines) + "\n", what="summary")
    return summary


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[3, 6])
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--hands", type=int, default=50_000, help="training hands per cell")
    parser.add_argument("--final-hands", type=int, default=20_000)
    parser.add_argument(
        "--max-grad-norm",
        type=float,
        default=1.0,
        help="gradient-norm clip of both networks (0: none, the paper's)",
    )
    parser.add_argument(
        "--unclipped-hands",
        type=int,
        default=3_000,
        help="hands of each cell's unclipped check (0: none)",
    )
    parser.add_argument(
        "--uct-probe",
        type=float,
        default=0.0,
        help="CPU seconds of the NFSP-UCT timing on 3-NH (0: none)",
    )
    parser.add_argument("--out", type=Path, default=Path("bench/results/nfsp/multiplayer"))
    args = parser.parse_args(argv)
    command = "python bench/nfsp_multiplayer.py " + shlex.join(
        sys.argv[1:] if argv is None else argv
    )
    clip = args.max_grad_norm or None
    for seed in args.seeds:  # seed-major: a stopped grid leaves every cell with equal seeds
        for players in args.players:
            for preset in args.presets.split(","):
                r = run_cell(
                    args.out,
                    players,
                    preset,
                    seed,
                    args.hands,
                    args.final_hands,
                    clip,
                    args.unclipped_hands,
                )
                what = (
                    "diverged"
                    if r["diverged"]
                    else f"{r['bb_per_hand']:+.2f} ± {r['ci_bb']:.2f} bb/h"
                )
                print(
                    f"{players}-NH {preset} seed {seed}: {what} ({r['cpu_seconds']:.0f} CPU s)",
                    flush=True,
                )
    if args.uct_probe > 0:
        p = uct_probe(args.out, args.uct_probe)
        print(f"NFSP-UCT on 3-NH: {p['cpu_seconds_per_hand']:.2f} CPU s a hand", flush=True)
    summarise(args.out, command)
    print((args.out / "summary.md").read_text())


if __name__ == "__main__":
    main()
