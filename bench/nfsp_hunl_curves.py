"""The NFSP-PLT paper's Fig. 2b: winnings against Random during training on heads-up no-limit
hold'em (Li et al., "NFSP-PLT: Solving Games with a Weighted NFSP-PER-Based Method",
Electronics 12(11):2396, 2023, doi 10.3390/electronics12112396).

The paper trains 50,000 hands with SGD (0.1 for the Q-network, 0.005 for the average network)
and evaluates against random agents every 1,000 hands over 10,000 games. Here, per (preset,
seed), one cell:

* training: ``hands`` hands of our ``no_limit_holdem`` (its defaults: two seats, blinds 50/100,
  stacks of 100 big blinds, bets of half and one pot and all-in) with the paper's SGD rates and
  no gradient clip, 8 hands at a time, as ``nfsp_paper.run_hunl_seed`` trains; when the
  prioritized buffer refuses a non-finite TD error (``ConfigError``) the cell records the hand
  training stopped at and keeps the points before it;
* a point every ``eval_every`` hands: the average policy against uniform Random over
  ``eval_hands`` duplicate hands (``versus_random``: each deal played in both seatings, seeded
  per point), in big blinds per hand with its 95% half-width over deals;
* at the end, a ``final_hands`` match against Random (Tables 3-4's 20,000 games).

A cell writes ``<out>/<preset>_seed<k>.json`` atomically and is skipped when present (the grid
resumes). Then ``summary.json`` and ``summary.md`` from every cell present: per preset the mean
curve with its 95% t band over seeds, the final bb/h with its 95% t interval, the late-stage
differences (Welch 95%), and what NFSP-UCT would cost: it is not trained here, and
``--uct-probe SECONDS`` times our heads-up NFSP-UCT (``nfsp_multiplayer.uct_probe``).

    python bench/nfsp_hunl_curves.py --presets nfsp-per,nfsp-plt,nfsp --seeds 0 1 2 3 4 \\
        --hands 50000 --eval-every 2500 --eval-hands 10000 --final-hands 20000 \\
        --uct-probe 60 --out bench/results/nfsp/hunl_curves
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import code_version, library_versions, machine_line, provenance, provenance_line
from nfsp_multiplayer import t_interval, uct_probe
from nfsp_paper import PAPER_PARAMS
from reproduce import welch
from tqdm import tqdm

from pokerzoo import load_game
from pokerzoo.agents.registry import make_agent
from pokerzoo.atomic import write_atomically
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.matches import versus_random

PRESETS = ("nfsp-per", "nfsp-plt", "nfsp")
NUM_ENVS = 8
"""Hands played at once (``run_hunl_seed``'s)."""
LATE_SHARE = 0.2
"""The "late stage of training": the points in the last fifth of the training hands."""
PAIRS = (("nfsp-plt", "nfsp-per"), ("nfsp-plt", "nfsp"), ("nfsp-per", "nfsp"))


def cell_path(out: Path, preset: str, seed: int) -> Path:
    """Where the cell (preset, seed) writes its record."""
    return out / f"{preset}_seed{seed}.json"


def point_seed(seed: int, hands: int) -> int:
    """The deals' seed of the point after ``hands`` training hands (distinct per point)."""
    return 1_000_003 * (seed + 1) + hands


def _match(game: Any, agent: Any, hands: int, seed: int) -> dict[str, float]:
    result = versus_random(game, agent.policy(), hands, seed=seed)
    return {
        "bb": result["bb_per_100"] / 100.0,
        "ci_bb": result["ci95"] / 100.0,
        "match_hands": int(result["hands"]),
    }


def run_cell(
    out: Path,
    preset: str,
    seed: int,
    hands: int,
    eval_every: int,
    eval_hands: int,
    final_hands: int,
    game_params: dict[str, Any] | None = None,
    version: str | None = None,
) -> dict[str, Any]:
    """Train ``preset`` with ``seed`` on no-limit hold'em (``game_params`` passed on: the
    defaults, heads-up, unless given), evaluating as Fig. 2b does; write and return the record
    (the file's, if present). ``version``: the code version to record (default: the checkout's
    now; a long run passes the one it started from, the code it imported)."""
    path = cell_path(out, preset, seed)
    if path.exists():
        return dict(json.loads(path.read_text()))
    torch.set_num_threads(1)
    params = dict(game_params or {})
    game = load_game("no_limit_holdem", **params)
    cpu = time.process_time()
    agent = make_agent(preset, game, seed=seed, num_envs=NUM_ENVS, **PAPER_PARAMS)
    curve: list[dict[str, Any]] = []
    train_cpu, stopped = 0.0, None
    marks = range(eval_every, hands + 1, eval_every)
    for mark in tqdm(marks, desc=f"{preset} seed {seed}", unit="point", leave=False):
        start = time.process_time()
        try:
            agent.iterate(max(0, mark - agent.iteration))
        except ConfigError as error:  # the prioritized buffer refuses non-finite TD errors
            stopped = {"at_hand": agent.iteration, "error": str(error)}
            break
        finally:
            train_cpu += time.process_time() - start
        point = _match(game, agent, eval_hands, point_seed(seed, mark))
        curve.append({"mark": mark, "hands": agent.iteration, **point})
    record: dict[str, Any] = {
        "preset": preset,
        "seed": seed,
        "game": "no_limit_holdem ("
        + (", ".join(f"{k}={v}" for k, v in params.items()) or "defaults")
        + ")",
        "params": {**PAPER_PARAMS, "max_grad_norm": None},
        "num_envs": NUM_ENVS,
        "hands_asked": hands,
        "eval_every": eval_every,
        "eval_hands": eval_hands,
        "diverged": stopped is not None,
        "stopped": stopped,
        "hands": agent.iteration,
        "curve": curve,
        "final": None if stopped else _match(game, agent, final_hands, seed + 1),
        "train_cpu_seconds": train_cpu,
        "cpu_seconds": time.process_time() - cpu,
        "code_version": version or code_version(Path(__file__).resolve().parent),
        "libraries": f"{library_versions()}, torch {torch.__version__}",
        "machine": machine_line(),
    }
    out.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(record, indent=1), what="HUNL curve cell")
    return record


def late_mean(record: dict[str, Any], hands: int) -> float | None:
    """A cell's mean bb/h over its points in the last ``LATE_SHARE`` of ``hands`` (None when
    it has none: it diverged before)."""
    late = [p["bb"] for p in record["curve"] if p["mark"] > (1 - LATE_SHARE) * hands]
    return float(np.mean(late)) if late else None


def _interval(values: list[float]) -> dict[str, Any]:
    mean, half = t_interval(values) if values else (math.nan, math.nan)
    return {"values": values, "mean": mean, "half_width": half}


def summarise(out: Path, command: str, probe: dict[str, Any] | None = None) -> dict[str, Any]:
    """``summary.json`` and ``summary.md`` from every cell under ``out``."""
    cells = [json.loads(p.read_text()) for p in sorted(out.glob("*_seed*.json"))]
    presets: dict[str, Any] = {}
    for preset in PRESETS:
        mine = sorted((c for c in cells if c["preset"] == preset), key=lambda c: c["seed"])
        if not mine:
            continue
        hands = max(c["hands_asked"] for c in mine)
        marks = sorted({p["mark"] for c in mine for p in c["curve"]})
        curve = []
        for mark in marks:  # a point's band is over the seeds that reached it
            ys = [p["bb"] for c in mine for p in c["curve"] if p["mark"] == mark]
            curve.append({"hands": mark, "seeds": len(ys), **_interval(ys)})
        done = [c for c in mine if not c["diverged"]]
        late = [(c["seed"], late_mean(c, hands)) for c in mine]
        presets[preset] = {
            "seeds": [c["seed"] for c in mine],
            "diverged": [
                {"seed": c["seed"], "at_hand": c["stopped"]["at_hand"]}
                for c in mine
                if c["diverged"]
            ],
            "hands": hands,
            "eval_every": sorted({c["eval_every"] for c in mine}),
            "eval_hands": sorted({c["eval_hands"] for c in mine}),
            "final_hands": sorted({c["final"]["match_hands"] for c in done}),
            "curve": curve,
            "final": {
                **_interval([c["final"]["bb"] for c in done]),
                "seeds": [c["seed"] for c in done],
                "ci_over_deals": [c["final"]["ci_bb"] for c in done],
            },
            "late": {
                **_interval([v for _, v in late if v is not None]),
                "seeds": [s for s, v in late if v is not None],
            },
            "cpu_seconds": [c["cpu_seconds"] for c in mine],
        }
    differences = {}
    for a, b in PAIRS:
        if a in presets and b in presets:
            entry = {}
            for what in ("late", "final"):
                x, y = presets[a][what]["values"], presets[b][what]["values"]
                if x and y:
                    diff, low, high = welch(x, y)
                    entry[what] = {"diff": diff, "low": low, "high": high}
            differences[f"{a} - {b}"] = entry
    summary = {
        "command": command,
        "late_stage": f"points after {1 - LATE_SHARE:.0%} of the training hands",
        "presets": presets,
        "differences": differences,
        "nfsp_uct_probe": probe,
        **provenance(cells),
    }
    write_atomically(out / "summary.json", json.dumps(summary, indent=1), what="summary")
    write_atomically(out / "summary.md", _markdown(summary), what="summary")
    return summary


def _band(g: dict[str, Any]) -> str:
    if not g["values"]:
        return "-"
    if math.isnan(g["half_width"]):
        return f"{g['mean']:+.2f} (one seed)"
    return (
        f"{g['mean']:+.2f} [{g['mean'] - g['half_width']:+.2f}, {g['mean'] + g['half_width']:+.2f}]"
    )


def _markdown(summary: dict[str, Any]) -> str:
    lines = [
        "# NFSP presets against Random during training on heads-up no-limit (Fig. 2b)",
        "",
        f"Command: `{summary['command']}`",
        "",
        provenance_line(summary),
        "",
        "bb/h = big blinds per hand against uniform Random, duplicate deals (both seatings); "
        f"mean and 95% t interval over seeds. Late stage: {summary['late_stage']}, each "
        "seed's mean over them.",
        "",
        "| preset | hands | seeds (diverged at hand) | final bb/h | late-stage bb/h |",
        "|---|---|---|---|---|",
    ]
    for preset, g in summary["presets"].items():
        div = ", ".join(f"seed {d['seed']} at {d['at_hand']:,}" for d in g["diverged"])
        lines.append(
            f"| {preset} | {g['hands']:,} | {len(g['seeds'])} ({div or 'none'}) "
            f"| {_band(g['final'])} | {_band(g['late'])} |"
        )
    lines += ["", "| difference | late stage (Welch 95%) | final (Welch 95%) |", "|---|---|---|"]
    for name, d in summary["differences"].items():
        cells = [
            "-"
            if w not in d
            else f"{d[w]['diff']:+.2f} (one seed)"
            if math.isnan(d[w]["low"])
            else f"{d[w]['diff']:+.2f} [{d[w]['low']:+.2f}, {d[w]['high']:+.2f}]"
            for w in ("late", "final")
        ]
        lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
    lines += ["", "Curves (mean [95% band] over the seeds that reached the point):", ""]
    names = list(summary["presets"])
    lines += ["| hands | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    marks = sorted({p["hands"] for g in summary["presets"].values() for p in g["curve"]})
    for mark in marks:
        row = []
        for g in summary["presets"].values():
            p = next((q for q in g["curve"] if q["hands"] == mark), None)
            row.append("-" if p is None else _band(p) + (f" ({p['seeds']})"))
        lines.append(f"| {mark:,} | " + " | ".join(row) + " |")
    probe = summary["nfsp_uct_probe"]
    if probe:
        lines += [
            "",
            f"NFSP-UCT, not trained here (adaptive-UCT best response, {probe['params']}), on "
            f"{probe['game']}: {probe['hands']} hands in {probe['cpu_seconds']:.0f} CPU s, "
            f"{probe['cpu_seconds_per_hand']:.2f} s a hand, so about "
            f"{probe['projected_cpu_hours_50000_hands']:.0f} CPU hours for 50,000 hands.",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="nfsp-per,nfsp-plt")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--hands", type=int, default=50_000, help="training hands per cell")
    parser.add_argument("--eval-every", type=int, default=1_000)
    parser.add_argument("--eval-hands", type=int, default=10_000)
    parser.add_argument("--final-hands", type=int, default=20_000)
    parser.add_argument(
        "--uct-probe",
        type=float,
        default=0.0,
        help="CPU seconds of the heads-up NFSP-UCT timing (0: none)",
    )
    parser.add_argument("--out", type=Path, default=Path("bench/results/nfsp/hunl_curves"))
    args = parser.parse_args(argv)
    command = "python bench/nfsp_hunl_curves.py " + shlex.join(
        sys.argv[1:] if argv is None else argv
    )
    presets = args.presets.split(",")
    unknown = [p for p in presets if p not in PRESETS]
    if unknown:
        raise ConfigError(f"unknown preset {unknown[0]!r}; allowed: {', '.join(PRESETS)}")
    version = code_version(Path(__file__).resolve().parent)
    cells = [(s, p) for s in args.seeds for p in presets]  # seed-major: equal seeds if stopped
    for seed, preset in tqdm(cells, desc="cells", unit="cell"):
        r = run_cell(
            args.out,
            preset,
            seed,
            args.hands,
            args.eval_every,
            args.eval_hands,
            args.final_hands,
            version=version,
        )
        what = (
            f"diverged at hand {r['stopped']['at_hand']:,}"
            if r["diverged"]
            else f"final {r['final']['bb']:+.2f} ± {r['final']['ci_bb']:.2f} bb/h"
        )
        tqdm.write(f"{preset} seed {seed}: {what} ({r['cpu_seconds']:.0f} CPU s)")
    probe = None
    if args.uct_probe > 0:
        probe = uct_probe(args.out, args.uct_probe, players=2)
        tqdm.write(f"NFSP-UCT heads-up: {probe['cpu_seconds_per_hand']:.2f} CPU s a hand")
    elif (args.out / "nfsp_uct_probe.json").exists():
        probe = json.loads((args.out / "nfsp_uct_probe.json").read_text())
    summarise(args.out, command, probe)
    print((args.out / "summary.md").read_text())


if __name__ == "__main__":
    main()
