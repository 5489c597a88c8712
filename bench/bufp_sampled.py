"""The BUFP paper's headline with a *sampled* CFR in CFR's place (``reproduce_bufp.py --cfr
sampled``).

The paper's CFR is unconverged (5.15 mb/h after 100,000 iterations, 30 runs with bands, Sec. 5,
Fig. 1) while our full-width CFR ends at about 0.1 mb/h. Here each seed trains a sampled CFR
and stops it at the first check where its exploitability is at or below the target (the
paper's 5.15 mb/h) or at its iteration cap, then redoes Tables 1-2 with that policy in the CFR
row and column (BUFP(EF) and BUFP(X) are the deterministic full-width runs, loaded from
``--policies``). Two sampled CFRs:

* ``mccfr-es``: external-sampling MCCFR on the game's own (perfect-recall) information sets;
* ``cs-rlcard``: RLCard's chance-sampling CFR on RLCard's observation-keyed information sets
  (``pokerzoo.agents.cfr.chance_sampling``), capped at the paper's 100,000 iterations.

A seed saves its sampled CFR's policy and trace (reused when present), then writes
``<out>/<method>_seed<k>.json`` with the tables (skipped when present: resumable).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.agents.cfr.chance_sampling import ChanceSamplingCFR
from pokerzoo.agents.cfr.mccfr import MCCFRSolver
from pokerzoo.atomic import write_atomically
from pokerzoo.evaluation import exploitability
from pokerzoo.evaluation.perfect import force_first_action, forced_deviation_values
from pokerzoo.games.leduc import CALL
from pokerzoo.tree import GameTree, TabularPolicy

METHODS = {"mccfr-es": (250_000, 100_000_000), "cs-rlcard": (10_000, 100_000)}
"""method -> (iterations between checks, iteration cap)."""
PAPER = {"p1": 52.87, "p2": 44.20, "mean": 48.53}
CORRECTED = {"p1": 100 * (52.57 - 25.25) / 52.57, "p2": 100 * (48.94 - 33.94) / 33.94}
CORRECTED["mean"] = (CORRECTED["p1"] + CORRECTED["p2"]) / 2
FULL_NAMES = ("CFR", "BUFP(EF)", "BUFP(X)")


def recoveries(tree: GameTree, policies: dict[str, TabularPolicy], big_blind: float
               ) -> dict[str, Any]:
    """Tables 1-2 (P1 forced to Call at its first decision) and BUFP(EF)'s recovery over CFR:
    P1's part (how much less of the drop it suffers), P2's part (how much more it secures),
    their mean, in percent."""
    table1 = forced_deviation_values(tree, policies, big_blind=big_blind)
    forced = force_first_action(tree, CALL, player=0)
    table2 = forced_deviation_values(tree, policies, forced, big_blind=big_blind)
    t1, t2 = table1.matrix(0), table2.matrix(0)  # milli-big-blinds per hand
    drop_p1 = t1.mean(axis=1) - t2.mean(axis=1)
    rise_p2 = t1.mean(axis=0) - t2.mean(axis=0)
    cfr, ef = 0, 1
    p1 = 100 * (drop_p1[cfr] - drop_p1[ef]) / drop_p1[cfr]
    p2 = 100 * (rise_p2[ef] - rise_p2[cfr]) / rise_p2[cfr]
    return {"table1": t1.tolist(), "table2": t2.tolist(), "drop_p1": drop_p1.tolist(),
            "rise_p2": rise_p2.tolist(), "p1": float(p1), "p2": float(p2),
            "mean": float((p1 + p2) / 2)}


def train_to_target(method: str, tree: GameTree, seed: int, target_mbh: float, scale: float,
                    check_every: int | None = None, cap: int | None = None
                    ) -> tuple[TabularPolicy, dict[str, Any]]:
    """Train ``method`` with ``seed`` until its exploitability (mb/h = ``scale`` x chips) is at
    most ``target_mbh`` at a check, or ``cap`` iterations; the policy and the trace."""
    every, limit = METHODS[method]
    every, limit = check_every or every, cap or limit
    solver: Any
    if method == "mccfr-es":
        solver = MCCFRSolver(tree.game, {"sampling": "external"}, seed=seed, tree=tree)
    else:
        solver = ChanceSamplingCFR(tree.game, seed=seed, tree=tree)
    start, trace, done = time.process_time(), [], 0
    while done < limit:
        step = min(every, limit - done)
        solver.iterate(step)
        done += step
        value = scale * exploitability(tree, solver.average_policy())
        trace.append((done, value))
        if value <= target_mbh:
            break
    return solver.average_policy(), {
        "iterations": done, "exploitability_mbh": trace[-1][1], "reached": trace[-1][1]
        <= target_mbh, "trace": trace, "cpu_seconds": time.process_time() - start,
    }


def run_seed(method: str, seed: int, tree: GameTree, fixed: dict[str, TabularPolicy] | None,
             big_blind: float, target_mbh: float, out: Path, check_every: int | None = None,
             cap: int | None = None) -> dict[str, Any]:
    """One seed of ``method``: its trained policy and trace are saved (``.npz``,
    ``_trace.json``) and reused; with ``fixed`` (the BUFP policies) the tables are computed
    and the record written to ``<out>/<method>_seed<k>.json`` (returned as it is if present)."""
    path = out / f"{method}_seed{seed}.json"
    if path.exists():
        return dict(json.loads(path.read_text()))
    policy_path = out / f"{method}_seed{seed}.npz"
    trace_path = out / f"{method}_seed{seed}_trace.json"
    out.mkdir(parents=True, exist_ok=True)
    if policy_path.exists() and trace_path.exists():
        policy, trace = TabularPolicy.load(policy_path), json.loads(trace_path.read_text())
    else:
        policy, trace = train_to_target(method, tree, seed, target_mbh, 1000.0 / big_blind,
                                        check_every, cap)
        policy.save(policy_path)
        write_atomically(trace_path, json.dumps(trace), what="BUFP seed trace")
    if fixed is None:
        return dict(trace)
    policies = {"CFR": policy, "BUFP(EF)": fixed["BUFP(EF)"], "BUFP(X)": fixed["BUFP(X)"]}
    record = {"method": method, "seed": seed, "target_mbh": target_mbh, **trace,
              **recoveries(tree, policies, big_blind)}
    write_atomically(path, json.dumps(record, indent=1), what="BUFP seed record")
    return record


def _band(values: list[float], fmt: str = "+.1f") -> str:
    x = np.asarray(values)
    return f"{x.mean():{fmt}} (range {x.min():{fmt}} to {x.max():{fmt}})"


def report(records: list[dict[str, Any]], full: dict[str, Any], command: str) -> str:
    """The Markdown summary: per method the seeds' band of each part, the full-width row and
    the paper's (printed and corrected) percentages."""
    lines = [
        "# BUFP(EF)'s recovery over a sampled CFR (Ju et al. 2024, Sec. 5, Tables 1-2)", "",
        f"`{command}`", "",
        "5-Leduc on RLCard's rules (`5leduc_rlcard`: blinds 1/2, money in milli-big-blinds per "
        "hand, the paper's mb/h); exploitability = NashConv/2 (OpenSpiel's, as "
        "`reproduce_bufp.py`). P1 is forced to Call at its first decision (completing the small "
        "blind). P1 part: (CFR's drop - BUFP(EF)'s drop) / CFR's drop; P2 part: (BUFP(EF)'s "
        "rise - CFR's rise) / CFR's rise (averages over the other seat's three policies).", "",
        f"Paper as printed: P1 {PAPER['p1']:.2f}%, P2 {PAPER['p2']:.2f}%, mean "
        f"{PAPER['mean']:.2f}%. Corrected (19.10 - (-33.47) = 52.57, not 53.57): P1 "
        f"{CORRECTED['p1']:.2f}%, P2 {CORRECTED['p2']:.2f}%, mean {CORRECTED['mean']:.2f}% "
        "(48.09 from the rounded parts). Bands: mean over seeds (range).", "",
        "| CFR in the tables | seeds | iterations | exploitability (mb/h) | P1 part % | "
        "P2 part % | mean % | paper (corrected) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for method in METHODS:
        rs = [r for r in records if r["method"] == method]
        if not rs:
            continue
        reached = sum(r["reached"] for r in rs)
        lines.append(
            f"| {method} (stopped at <= {rs[0]['target_mbh']} mb/h; reached by {reached}/"
            f"{len(rs)}) | {len(rs)} | {_band([r['iterations'] for r in rs], ',.0f')} | "
            f"{_band([r['exploitability_mbh'] for r in rs], '.2f')} | "
            f"{_band([r['p1'] for r in rs])} | {_band([r['p2'] for r in rs])} | "
            f"{_band([r['mean'] for r in rs])} | "
            f"{CORRECTED['p1']:.2f} / {CORRECTED['p2']:.2f} / {CORRECTED['mean']:.2f} |")
    if full:
        lines.append(
            f"| full-width CFR, {full['iterations']:,} iterations | 1 (deterministic) | "
            f"{full['iterations']:,} | {full['exploitability_mbh']:.2f} | {full['p1']:+.1f} | "
            f"{full['p2']:+.1f} | {full['mean']:+.1f} | {CORRECTED['p1']:.2f} / "
            f"{CORRECTED['p2']:.2f} / {CORRECTED['mean']:.2f} |")
    lines += ["", "Per seed (P1 drop / P2 rise for CFR and BUFP(EF), mb/h):", ""]
    for r in records:
        lines.append(f"- {r['method']} seed {r['seed']}: {r['iterations']:,} iterations, "
                     f"{r['exploitability_mbh']:.2f} mb/h, {r['cpu_seconds']:.0f} CPU s; "
                     f"CFR drop {r['drop_p1'][0]:.2f}, BUFP(EF) drop {r['drop_p1'][1]:.2f}; "
                     f"CFR rise {r['rise_p2'][0]:.2f}, BUFP(EF) rise {r['rise_p2'][1]:.2f}")
    return "\n".join(lines) + "\n"
