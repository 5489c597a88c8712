"""One run of the VCFR experiments: an agent on one sampled environment, recorded as JSON.

Shared by ``reproduce_vcfr.py`` (the paper's grid) and ``vcfr_bonus_grid.py`` (VCFR's bonus
options). A *cell* is (game, variant, environment) under one reward reading and one budget;
its record is written atomically to ``<out>/<game>/<variant>/env<N>.json`` and a finished
cell is skipped on rerun, so grids are resumable and can be split over processes.

The budget is counted either in hands (``hands``) or in Algorithm 1's rounds (``rounds``:
each round plays the agent's ``episodes_per_round`` hands, two for every agent here). At
log-spaced points the output's NashConv in d* is measured, with VCFR's bonus quantiles
(``ModelBasedAgent.bonus_quantiles``); at the ``measure_at`` hands (and the end) also the
end-of-run measures of ``pokerzoo.evaluation.unknown.run_measures``: the posterior mean
re-solved by CFR+ and scored in d* (the quality of the data), the output in its own
posterior mean and the distinct terminals observed.
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import code_version, library_versions, machine_name

from pokerzoo.atomic import write_atomically

GAMES = {
    "kuhn": ("unknown_kuhn_poker", None),
    "leduc4": ("unknown_leduc_holdem", "leduc4"),
    "leduc5": ("unknown_leduc_holdem", "leduc5"),
}


def checkpoints(total: int, extra: tuple[int, ...] = ()) -> list[int]:
    """Log-spaced measuring points up to ``total`` hands (always including it and any of
    ``extra`` inside the budget)."""
    points = {int(round(x)) for x in np.geomspace(100, total, 12)} | {total}
    points |= {p for p in extra if p <= total}
    return sorted(p for p in points if 0 < p <= total)


def cell_path(out: Path, game: str, variant: str, env: int) -> Path:
    return out / game / variant / f"env{env}.json"


def environment(game: str, env: int, reward_prior: str) -> Any:
    """Environment ``env`` (its seed) of ``game`` under ``reward_prior``."""
    from pokerzoo import load_game

    name, base = GAMES[game]
    kwargs: dict[str, Any] = {"seed": env, "reward_prior": reward_prior}
    if base is not None:
        kwargs["base"] = base
    return load_game(name, **kwargs)


def run_cell(
    out: str,
    game: str,
    agent: str,
    env: int,
    *,
    reward_prior: str = "bernoulli",
    hands: int | None = None,
    rounds: int | None = None,
    params: dict[str, Any] | None = None,
    variant: str | None = None,
    measure_at: tuple[int, ...] = (),
    deadline: float | None = None,
    chunk: int = 4_000,
) -> dict[str, Any] | None:
    """Run ``agent`` (with ``params``) on environment ``env`` of ``game``; write and return
    the record (see the module doc). Exactly one of ``hands`` and ``rounds`` is given.

    The agent is saved every ``chunk`` hands beside the cell (``env<N>.pzc`` and
    ``env<N>.partial.json``), so a stopped cell resumes where it was (a split budget gives the
    same run); past ``deadline`` (a ``time.time()``) the cell saves and returns ``None``."""
    import torch

    from pokerzoo.agents.cfr.full_width import CFRPlus
    from pokerzoo.agents.registry import make_agent
    from pokerzoo.evaluation.exact import nash_conv
    from pokerzoo.evaluation.unknown import run_measures, true_model_tree

    if (hands is None) == (rounds is None):
        raise ValueError("give exactly one of hands and rounds")
    torch.set_num_threads(1)  # one core per run; runs go in parallel processes
    variant = variant or agent
    params = dict(params or {})
    path = cell_path(Path(out), game, variant, env)
    saved, partial = path.with_suffix(".pzc"), path.with_suffix(".partial.json")
    true_game = environment(game, env, reward_prior)
    true_tree = true_model_tree(true_game)
    learner = make_agent(agent, true_game, seed=env, **params)
    per_round = int(getattr(learner, "episodes_per_round", 1))
    total = hands if hands is not None else rounds * per_round  # type: ignore[operator]
    measured = {p for p in measure_at if p <= total} | {total}
    state: dict[str, Any] = {"done": 0, "curve": [], "diagnostics": [], "measures": {},
                             "learning": 0.0, "counted": 0, "wall": 0.0}
    if partial.exists() and saved.exists():
        state = json.loads(partial.read_text())
        learner.load(saved)
    start = time.perf_counter()
    path.parent.mkdir(parents=True, exist_ok=True)
    points = [p for p in checkpoints(total, tuple(measured)) if p > state["done"]]
    for point in points:
        while state["done"] < point:
            if deadline is not None and time.time() > deadline:
                return None  # the last chunk is saved: a rerun goes on from it
            step = min(chunk, point - state["done"])
            tick = time.perf_counter()
            learner.iterate(step)
            state["learning"] += time.perf_counter() - tick
            state["done"] += step
            if state["done"] < point:
                _save(learner, saved, partial, state, start)
        policy = learner.policy()
        state["curve"].append([point, nash_conv(true_tree, policy)])
        quantiles = getattr(learner, "bonus_quantiles", None)
        if callable(quantiles) and (row := quantiles()):
            state["diagnostics"].append({"hands": point, **row})
        if point in measured:
            state["measures"][str(point)] = run_measures(
                true_game, policy, learner.posterior, CFRPlus, true_tree)  # type: ignore[attr-defined]
        if point < total:
            _save(learner, saved, partial, state, start)
    counter = learner.view.sampler.counter.episodes  # type: ignore[attr-defined]
    record = {
        "game": game, "agent": agent, "variant": variant, "params": params, "env": env,
        "reward_prior": reward_prior, "budget": "rounds" if rounds is not None else "hands",
        "episodes": total, "counted_episodes": int(counter) + state["counted"],
        "rounds": int(getattr(learner, "rounds", 0)), "curve": state["curve"],
        "nash_conv": state["curve"][-1][1], "measures": state["measures"],
        "diagnostics": state["diagnostics"], "learning_seconds": state["learning"],
        "wall_seconds": state["wall"] + time.perf_counter() - start,
        "resumed": state["counted"] > 0,
        "machine": f"{platform.node()} ({os.cpu_count()} cores); {machine_name()}",
        "code_version": code_version(Path(__file__).resolve().parent),
        "libraries": f"{library_versions()}, torch {_torch_version()}",
    }
    write_atomically(path, json.dumps(record, indent=1))  # a killed run leaves no half record
    for leftover in (saved, partial):
        leftover.unlink(missing_ok=True)
    return record


def _torch_version() -> str:
    """torch's version if it is installed (the BNN cells use it), else ``none``."""
    try:
        import torch
    except ImportError:
        return "none"
    return str(torch.__version__)


def _save(learner: Any, saved: Path, partial: Path, state: dict[str, Any], start: float) -> None:
    """Save the agent and what the cell measured so far (hands counted up to now)."""
    learner.save(saved)
    counted = state["counted"] + int(learner.view.sampler.counter.episodes)
    wall = state["wall"] + time.perf_counter() - start
    write_atomically(partial, json.dumps({**state, "counted": counted, "wall": wall}))


def load_records(out: Path) -> list[dict[str, Any]]:
    """Every finished cell's record under ``out`` (``<game>/<variant>/env<N>.json``)."""
    records = []
    for path in sorted(out.glob("*/*/env*.json")):
        if not path.stem[3:].isdigit():  # env<N>.partial.json: a cell still under way
            continue
        record = json.loads(path.read_text())
        record.setdefault("variant", record["agent"])
        record.setdefault("reward_prior", "bernoulli")  # records from before these fields
        record.setdefault("budget", "hands")
        record.setdefault("measures", {})
        record.setdefault("diagnostics", [])
        records.append(record)
    return records


def provenance(out: Path, variants: tuple[str, ...] | None = None) -> list[str]:
    """Where the finished cells under ``out`` ran (their records' machines) and which cells
    are unfinished (a saved ``env<N>.partial.json`` without a record: left out of every
    table); only ``variants`` when given."""
    def wanted(path: Path) -> bool:
        return variants is None or path.parent.name in variants

    machines: dict[str, int] = {}
    for record in load_records(out):
        if variants is None or record["variant"] in variants:
            name = record.get("machine", "an unrecorded machine")
            machines[name] = machines.get(name, 0) + 1
    unfinished = []
    for path in sorted(out.glob("*/*/env*.partial.json")):
        # A partial file beside a finished record is a stale save: that cell is done.
        if wanted(path) and not path.with_name(path.name.replace(".partial", "")).exists():
            done = json.loads(path.read_text())["done"]
            unfinished.append(f"{path.parent.parent.name} {path.parent.name} "
                              f"{path.name.split('.')[0]} (saved at {done:,} hands)")
    ran = ", ".join(f"{name}: {n} cells" for name, n in sorted(machines.items()))
    return [f"- Finished cells in `{out}` ran on: {ran or 'none'}.",
            "- Unfinished cells (saved part-way, left out of every table): "
            + ("; ".join(unfinished) if unfinished else "none") + "."]


def paired_difference(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """Mean of ``a - b`` over pairs and its two-sided 95% t interval."""
    from scipy import stats

    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    mean = float(diff.mean())
    if len(diff) < 2:
        return mean, float("nan"), float("nan")
    half = float(stats.t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / np.sqrt(len(diff)))
    return mean, mean - half, mean + half
