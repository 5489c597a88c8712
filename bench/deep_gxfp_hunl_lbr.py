"""Deep GXFP on heads-up no-limit: LBR during training, raw and AIVAT-corrected (the Deep GXFP
paper's Fig. 5, "Exploitability of HUNLH").

The paper (Giordano 2024, Sec. 4.2) shows exploitability in mbb/g falling as its HUNL network
trains, without saying how it was measured. Here the measure is LBR (Lisy and Bowling,
"Equilibrium Approximation Quality of Current No-Limit Poker Bots", arXiv 1612.07547), a lower
bound, on ``no_limit_holdem``'s defaults (the paper's abstraction: fold, check/call, half pot,
pot, all-in; blinds 50/100, 100 bb). At our budget plain LBR's 95% interval is about
+-2,000 mbb/g (``bench/results/deep/hunl.md``), too wide to show a trend, so each point is also
scored by AIVAT (``pokerzoo.evaluation.aivat``; Burch et al., AAAI 2018, arXiv 1612.06915) with
the check-down value function (``holdem_values.CheckDownValues`` with the exact pre-flop
equities): the same hands, chance and the network's decisions corrected, unbiased whatever the
value function.

The agent and its budget are ``bench/hunl_deep.py``'s latest run (3,000 traversals per player
and iteration, 300 SGD steps per fit, batch 512, memories 150,000, seed 0, one torch thread).
Checkpoints and the measured points live under ``--work`` (resumable); the results go to
``bench/results/deep/hunl_lbr_aivat.json`` and ``.md``. Numbers are draws (torch).

    python bench/deep_gxfp_hunl_lbr.py                      # points 6, 12, 24; 500 deals each
    python bench/deep_gxfp_hunl_lbr.py --points 2,4 --deals 40 --out /tmp/x   # a quick look
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import code_version, library_versions, machine_line, table
from hunl_deep import make_deep, save_policy, write_json

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "deep" / "hunl_lbr_aivat"


def measure(game: Any, policy: Any, deals: int, wp: int, seed: int, values: Any) -> dict[str, Any]:
    """LBR of ``policy`` over ``deals`` duplicate deals, raw and AIVAT-corrected, in mbb/g."""
    from pokerzoo.evaluation.lbr import local_best_response

    start = time.perf_counter()
    r = local_best_response(game, policy, deals, seed=seed, wp_samples=wp, aivat=values)
    to_mbb = 1000.0 / game.chip_unit
    return {
        "deals": deals,
        "lbr_mbb": r.mean_chips * to_mbb,
        "lbr_ci": r.ci_chips * to_mbb,
        "aivat_mbb": r.aivat_mean_chips * to_mbb,
        "aivat_ci": r.aivat_ci_chips * to_mbb,
        "variance_ratio": r.variance_ratio,
        "seconds": time.perf_counter() - start,
    }


def report(records: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    rows = [
        [r["iteration"], f"{r['traversals']:,}", r["deals"],
         f"{r['lbr_mbb']:+.0f} ± {r['lbr_ci']:.0f}", f"{r['aivat_mbb']:+.0f} ± {r['aivat_ci']:.0f}",
         f"{r['variance_ratio']:.2f}" if r["variance_ratio"] else "-", f"{r['seconds']:.0f}"]
        for r in records
    ]
    return "\n".join([
        "# Deep GXFP on heads-up no-limit: LBR during training, raw and AIVAT-corrected",
        "",
        f"Command: `{meta['command']}`",
        "",
        f"Code {meta['code_version']}; {meta['libraries']}; {meta['machine']}. Draws (torch):",
        "a rerun elsewhere gives other values within the intervals' spread.",
        "",
        "LBR in mbb/g for LBR (a lower bound on the network's exploitability), mean ± 95%",
        "half-width over duplicate deals; AIVAT: the same hands scored with chance and the",
        "network's decisions corrected by check-down values (exact pre-flop equities).",
        "",
        table(["iteration", "traversals per player", "deals", "LBR mbb/g", "LBR with AIVAT mbb/g",
               "variance ratio", "LBR s"], rows),
        "",
    ])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", default="6,12,24", help="iterations to measure at")
    parser.add_argument("--deals", type=int, default=500, help="LBR deals per point")
    parser.add_argument("--wp", type=int, default=12, help="LBR board samples")
    parser.add_argument("--traversals", type=int, default=3000)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--policy-steps", type=int, default=1500)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--memory", type=int, default=150_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=Path("/tmp/pokerzoo-gxfp-hunl-lbr"))
    parser.add_argument("--out", type=Path, default=OUT, help="results path without suffix")
    args = parser.parse_args(argv)
    import torch

    from pokerzoo import load_game
    from pokerzoo.evaluation.holdem_values import CheckDownValues
    from pokerzoo.public.spots.preflop_equity import equity_table

    torch.set_num_threads(1)
    points = sorted({int(p) for p in args.points.split(",")})
    game = load_game("no_limit_holdem")
    values = CheckDownValues(game, preflop=equity_table(progress=False))
    args.work.mkdir(parents=True, exist_ok=True)
    agent = make_deep("deep-gxfp", game, args)
    ckpt = args.work / "deep-gxfp.ckpt"
    if ckpt.exists():
        agent.load(ckpt)
        print(f"resumed at iteration {agent.iteration}", flush=True)
    while agent.iteration < max(points):
        start = time.perf_counter()
        agent.iterate(1)
        print(f"iteration {agent.iteration}: {time.perf_counter() - start:.0f} s", flush=True)
        if agent.iteration in points:
            point = args.work / f"it{agent.iteration}.json"
            if not point.exists():
                policy = agent.policy()
                save_policy(policy, agent.config.width, point.with_suffix(".pt"))
                record = measure(game, policy, args.deals, args.wp, 1000 + agent.iteration,
                                 values)
                record.update(iteration=agent.iteration,
                              traversals=agent.iteration * args.traversals)
                write_json(point, record)
                print(f"iteration {agent.iteration}: LBR {record['lbr_mbb']:+.0f} ± "
                      f"{record['lbr_ci']:.0f}, AIVAT {record['aivat_mbb']:+.0f} ± "
                      f"{record['aivat_ci']:.0f} mbb/g", flush=True)
            agent.save(ckpt)
    records = [json.loads((args.work / f"it{p}.json").read_text()) for p in points
               if (args.work / f"it{p}.json").exists()]
    meta = {
        "command": "python bench/deep_gxfp_hunl_lbr.py " + " ".join(argv or sys.argv[1:]),
        "code_version": code_version(ROOT),
        "libraries": library_versions(),
        "machine": machine_line(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json(args.out.with_suffix(".json"), {**meta, "points": records})
    args.out.with_suffix(".md").write_text(report(records, meta))
    print(report(records, meta))


if __name__ == "__main__":
    main()
