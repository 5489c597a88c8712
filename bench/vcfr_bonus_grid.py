"""VCFR's bonus, varied: eta, the gain, the BNN's data and the output.

The paper fixes eta = 0.005 (Sec. 4.1), a BNN fitted at batch 1,000 on Leduc(5) (Sec. 5.1) on
posterior draws of every terminal's reward (Algorithm 1), and scores the interaction
strategy itself (Sec. 4.2); its "Naive" baseline is VCFR without information gain (Sec. 5.2).
This grid runs, on Leduc(5) under one reward reading, at a reduced budget (stated in the
table's title):

- ``bnn|beta-eta<E>-interaction|plain``: eta in {0.005, 0.05, 0.5}, the BNN's gain (batch
  1,000, fitted on the observed pool: our default data) or the exact Beta gain, the output the
  interaction solver's average (the paper's) or a plain solver's on the same models;
- ``bnn-draws-eta<E>``: the BNN fitted on one posterior draw per terminal per round
  (Algorithm 1), batch 1,000, the paper's output;
- ``no-gain-sampled``: CFR on a sampled d_t without the bonus (the paper's "Naive");
- ``vcfr-raw-gain``: the default VCFR with the raw KL as its gain (no median normalisation);
- ``naive-cfr`` (the posterior mean) and ``random-interaction`` for reference.

Each cell is ``vcfr_runs.run_cell`` (resumable; finished cells skipped); the summary
(``summary.md`` under ``--out``, by default ``bench/results/vcfr/bonus_grid_rounds<N>``) gives
per variant the output's NashConv in d*, the re-solved posterior mean in d* (the quality of
the data), the output in its own mean, terminals observed, and the bonus quantiles at the end
(raw KL in nats; eta x normalised gain in chips).

    python bench/vcfr_bonus_grid.py --rounds 2500 --envs 3 --jobs 2   # the device's grid
    python bench/vcfr_bonus_grid.py --rounds 1000 --envs 2 --jobs 1   # what fit here
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import table
from vcfr_runs import cell_path, load_records, provenance, run_cell

ETAS = (0.005, 0.05, 0.5)
BATCH_LEDUC5 = {"batch_size": 1000}
"""The paper's BNN batch on Leduc(5) (Sec. 5.1: "1000 in Leduc(5)")."""


def variants() -> dict[str, tuple[str, dict[str, Any]]]:
    """Every variant of the grid: name -> (registry agent, its parameters)."""
    grid: dict[str, tuple[str, dict[str, Any]]] = {}
    for gain in ("bnn", "beta"):
        for eta in ETAS:
            for output in ("interaction", "plain"):
                params: dict[str, Any] = {"information_gain": gain, "eta": eta,
                                          "output": output}
                if gain == "bnn":
                    params["bnn"] = BATCH_LEDUC5
                grid[f"{gain}-eta{eta:g}-{output}"] = ("vcfr", params)
    for eta in (0.005, 0.5):
        grid[f"bnn-draws-eta{eta:g}"] = ("vcfr", {"bnn_data": "posterior_draws", "eta": eta,
                                                   "bnn": BATCH_LEDUC5})
    grid["no-gain-sampled"] = ("vcfr", {"information_gain": "none"})
    # The default agent with the raw KL as the bonus (no division by the recent median gain):
    # separates the normalisation's effect from the bonus's where most gains are near zero.
    grid["vcfr-raw-gain"] = ("vcfr", {"normalise_gain": False})
    grid["naive-cfr"] = ("naive-cfr", {})
    grid["random-interaction"] = ("random-interaction", {})
    return grid


WHERE = "on a machine shared with other jobs (seconds are wall time there)"
"""Where the cells ran, as the summary's first line says it (``--where``)."""


def summarise(out: Path, game: str, where: str = WHERE) -> str:
    """The grid's table (also written to ``summary.md`` under ``out``, headed by ``where`` the
    cells ran and which are unfinished)."""
    records = [r for r in load_records(out) if r["game"] == game]
    if not records:
        return "no finished runs yet"
    order = list(variants())
    rows = []
    for variant in sorted({r["variant"] for r in records}, key=order.index):
        runs = [r for r in records if r["variant"] == variant]

        def final(key: str, runs: list[dict[str, Any]] = runs) -> float:
            return float(np.mean([r["measures"][max(r["measures"], key=int)][key]
                                  for r in runs]))

        last = [r["diagnostics"][-1] for r in runs if r["diagnostics"]]
        bonus = [f"{np.mean([d[k] for d in last]):.3g}" if last else "-"
                 for k in ("gain_q50", "gain_max", "bonus_q50", "bonus_max")]
        conv = np.array([r["nash_conv"] for r in runs])
        rows.append([variant, len(runs), f"{conv.mean():.4f} ± {conv.std():.4f}",
                     f"{final('nash_conv_resolved'):.4f}", f"{final('nash_conv_in_own_mean'):.4f}",
                     f"{final('terminals_observed'):,.0f}", *bonus,
                     f"{np.mean([r['learning_seconds'] for r in runs]):.0f}"])
    first = records[0]
    title = (f"### {game}, reward_prior={first['reward_prior']}, {first['rounds']:,} rounds "
             f"({first['episodes']:,} hands) per run, envs "
             f"{min(r['env'] for r in records)}..{max(r['env'] for r in records)}"
             + (" (a reduced budget: the paper's is 20,000 rounds)" if first["rounds"] < 20_000
                else " (the paper's budget)") + "\n")
    text = title + "\n" + table(
        ["variant", "envs", "NashConv in d* (output)", "re-solved posterior mean",
         "output in own mean", "terminals observed", "gain q50 (nats)", "gain max",
         "bonus q50 (chips)", "bonus max", "s / run"], rows)
    (out / "summary.md").write_text(
        "Written by `bench/vcfr_bonus_grid.py --out " + str(out) + "` from its finished cells, "
        + where + ".\n\n" + "\n".join(provenance(out)) + "\n\n" + text + "\n")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="leduc5")
    parser.add_argument("--reward-prior", default="fixed", choices=("bernoulli", "fixed"))
    parser.add_argument("--rounds", type=int, default=2_500)
    parser.add_argument("--envs", type=int, default=3)
    parser.add_argument("--variants", default=",".join(variants()))
    parser.add_argument("--jobs", type=int, default=2, help="parallel processes")
    parser.add_argument("--deadline-minutes", type=float, default=None,
                        help="past this, cells save where they are and stop (rerun resumes)")
    parser.add_argument("--out", default=None,
                        help="default: bench/results/vcfr/bonus_grid_rounds<N>")
    parser.add_argument("--summary-only", action="store_true",
                        help="only the table of the finished cells: no run starts")
    parser.add_argument("--where", default=WHERE,
                        help="where the cells ran, for the summary's first line")
    args = parser.parse_args()
    out = Path(args.out or f"bench/results/vcfr/bonus_grid_rounds{args.rounds}")
    grid = variants()
    if not args.summary_only:
        names = args.variants.split(",")
        unknown = sorted(set(names) - set(grid))
        if unknown:
            parser.error(f"unknown variants {unknown}; known: {', '.join(grid)}")
        todo = [(v, e) for e in range(args.envs) for v in names
                if not cell_path(out, args.game, v, e).exists()]
        deadline = (time.time() + 60 * args.deadline_minutes
                    if args.deadline_minutes is not None else None)
        print(f"{len(todo)} cells to do under {out}", flush=True)
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = {
                pool.submit(run_cell, str(out), args.game, grid[v][0], e,
                            reward_prior=args.reward_prior, rounds=args.rounds,
                            params=grid[v][1], variant=v, deadline=deadline): (v, e)
                for v, e in todo
            }
            for future in as_completed(futures):
                v, e = futures[future]
                try:
                    r = future.result()
                except Exception as exc:  # one failed cell must not stop the grid
                    print(f"FAILED {v} env{e}: {type(exc).__name__}: {exc}", flush=True)
                    continue
                print(f"{v} env{e}: " + ("stopped at the deadline (saved)" if r is None else
                                         f"NashConv {r['nash_conv']:.4f}"), flush=True)
    print(summarise(out, args.game, args.where))


if __name__ == "__main__":
    main()
