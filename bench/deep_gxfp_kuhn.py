"""Deep GXFP's Kuhn exploitability against the paper's budget (Giordano 2024, Fig. 4).

The paper: "100 stochastic gradient descent iterations are performed per training and 1000
CFR iterations collect data", and "within 50,000 iterations of the CFR training, less than 1%
of an ante per game can be exploited". Here a CFR iteration is one external-sampling
traversal, so one ``iterate`` unit of ``DeepGXFP`` (1,000 traversals per player) is 2,000 of
them, and the paper's 50,000 are 25 units; 50 units are 50,000 traversals *per player* (the
other reading). Exploitability is exact (NashConv / 2 on the compiled tree, chips; the ante is
1 chip), with two tabular references beside it: full-width GXFP (same alternating schedule)
and *sampled* GXFP, the mean over ``--floor-seeds`` runs of what Deep GXFP computes when its
networks are exact: the same traversal kernel and budget, the argmax of each information
set's mean sampled utilities, the exact per-visit average of those best decisions (the floor
that sampling alone leaves).

The paper's own quantity is printed beside it (the author's Kuhn scripts plot it as
"exploitability", ``kuhn_deep_gxfp.py`` of ``vikjg/Deep-GXFP``): P1's sampled traversal
value, the traverser's value at its first decision of an external-sampling traversal under the
current profile, here from ``--probe-traversals`` extra traversals of player 0 after each point
(a separate generator, so the run itself is unchanged), as the mean of the last block of 100
and as |running mean over every block so far - (-1/18)|, the distance to Kuhn's game value
that such a curve can show; and its noise-free form, |P1's exact value of the profile + 1/18|
(the expected value on the compiled tree, no sampling). None is a best response: a profile can
sit at P1's value and be exploitable.

``--agent deep-cfr`` runs Deep CFR instead, at Deep GXFP's budget and settings where the two
share them (``DEEP_CFR_MATCHED``: 1,000 traversals per player and iteration, 100 SGD steps
per network training, batch 1,024, width 64, Adam 1e-3, clip 1, memories of 1e6, and the
full-memory batches that are Deep CFR's counterpart of Deep GXFP's folded targets), for the
paper's "equivalent to Deep CFR" (Sec. 4.1, Figs. 3-4); the tabular GXFP references are not
computed for it (``--floor-seeds`` is ignored).

``--out FILE.json`` writes the numbers (per seed), the command, the code version, the library
versions and the machine, and ``FILE.md`` beside it with the printed table.

    python bench/deep_gxfp_kuhn.py --iterations 50 --every 5 --seeds 0 1 2
    python bench/deep_gxfp_kuhn.py --agent deep-cfr --iterations 50 --every 5 --seeds 0 1 2
    python bench/deep_gxfp_kuhn.py --param 'utility_targets="samples"' \
        --param 'strategy_targets="samples"'   # the mini-batch fits of earlier versions
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import shlex
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import code_version, library_versions, machine_line

from pokerzoo import load_game
from pokerzoo.agents.deep.deep_cfr import DeepCFR
from pokerzoo.agents.deep.deep_gxfp import DeepGXFP
from pokerzoo.agents.deep.traversal import tree_utility_samples
from pokerzoo.agents.registry import make_agent
from pokerzoo.atomic import write_atomically
from pokerzoo.evaluation import exploitability
from pokerzoo.evaluation.exact import expected_values, policy_array
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.tree.kernels.arrays import tree_arrays
from pokerzoo.tree.tabular_policy import TabularPolicy


def sampled_gxfp(tree: GameTree, traversals: int, points: list[int], seed: int) -> list[float]:
    """Exploitability at ``points`` of GXFP on sampled utilities with exact tables: per
    player in turn, ``traversals`` traversals under the current table, the argmax of each
    information set's mean sampled utility counted once per visit, the table the counts'
    frequencies (Deep GXFP's defaults with networks that fit exactly)."""
    rng, arrays = np.random.default_rng(seed), tree_arrays(tree)
    mask = tree.infoset_mask.astype(bool)
    table = mask / mask.sum(axis=1, keepdims=True)
    counts = np.zeros(mask.shape)
    out = []
    for t in range(1, points[-1] + 1):
        for p in range(tree.num_players):
            iset, utility = tree_utility_samples(arrays, table, p, traversals, rng)
            visits = np.bincount(iset, minlength=len(mask)).astype(float)
            sums = np.zeros(mask.shape)
            np.add.at(sums, iset, utility)
            best = np.where(mask, sums / np.maximum(visits, 1)[:, None], -np.inf).argmax(1)
            mine = np.flatnonzero((tree.infoset_player == p) & (visits > 0))
            counts[mine, best[mine]] += visits[mine]
            table = table.copy()
            table[mine] = counts[mine] / counts[mine].sum(axis=1, keepdims=True)
        if t in points:
            out.append(exploitability(tree, TabularPolicy.from_tree(tree, table)))
    return out


DEEP_CFR_MATCHED: dict[str, object] = {
    "traversals": 1_000, "advantage_steps": 100, "policy_steps": 100, "batch_size": 1_024,
    "advantage_memory": 1_000_000, "strategy_memory": 1_000_000, "width": 64,
    "learning_rate": 1e-3, "grad_clip": 1.0, "batch_mode": "full_memory",
}
"""Deep CFR at Deep GXFP's Kuhn budget: the fields the two configs share set to Deep GXFP's
defaults, and full-memory batches (the counterpart of its folded targets); Deep CFR's own
rules (advantage networks retrained from scratch, t-weighted losses) stay."""

KUHN_P1_VALUE = -1.0 / 18.0
"""Player 1's (the first to act) value of standard Kuhn poker."""
BLOCK = 100
"""Traversals per block of the paper's quantity."""


def p1_traversal_values(tree: GameTree, sigma: np.ndarray, traversals: int,
                        rng: np.random.Generator) -> np.ndarray:
    """P1's sampled value of each of ``traversals`` traversals of player 0 under ``sigma``:
    at its first decision (one per traversal in Kuhn) the sampled action utilities weighted
    by ``sigma`` there."""
    iset, utility = tree_utility_samples(tree_arrays(tree), sigma, 0, traversals, rng)
    first = np.array([not key[2] for key in tree.infoset_keys])[iset]
    return (sigma[iset[first]] * utility[first]).sum(axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", choices=["deep-gxfp", "deep-cfr"], default="deep-gxfp")
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--every", type=int, default=5)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--floor-seeds", type=int, default=20,
                        help="runs of sampled tabular GXFP averaged in its column")
    parser.add_argument("--probe-traversals", type=int, default=1000,
                        help="traversals of P1 after each point for the paper's quantity")
    parser.add_argument("--param", action="append", default=[],
                        help="a config field of --agent, name=value (Python literal)")
    parser.add_argument("--out", type=Path, default=None,
                        help="a .json file for the record (and a .md beside it)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    params = {k: eval(v) for k, v in (p.split("=", 1) for p in args.param)}
    game = load_game("kuhn_poker")
    points = list(range(args.every, args.iterations + 1, args.every))
    curves, seconds, blocks, distances, exact_p1 = [], [], [], [], []
    for seed in args.seeds:
        agent: DeepGXFP | DeepCFR = (
            DeepGXFP(game, seed=seed, device="cpu", **params) if args.agent == "deep-gxfp"
            else DeepCFR(game, seed=seed, device="cpu", **{**DEEP_CFR_MATCHED, **params}))
        probe = np.random.default_rng(10_000 + seed)
        start, curve, last, distance, values = time.perf_counter(), [], [], [], []
        p1 = []
        for _ in points:
            agent.iterate(args.every)
            # Once per point: Deep CFR's policy() trains its strategy network.
            policy = agent.policy()
            curve.append(exploitability(agent.tree, policy))
            p1.append(float(expected_values(agent.tree, policy)[0]))
            sigma = policy_array(agent.tree, policy)
            values.append(p1_traversal_values(agent.tree, sigma, args.probe_traversals, probe))
            last.append(values[-1][-BLOCK:].mean())
            distance.append(abs(np.concatenate(values).mean() - KUHN_P1_VALUE))
        seconds.append(time.perf_counter() - start)
        curves.append(curve)
        blocks.append(last)
        distances.append(distance)
        exact_p1.append(p1)
        print(f"seed {seed}: {seconds[-1]:.0f} s", flush=True)
    exact, floor = [math.nan] * len(points), np.full(len(points), math.nan)
    if args.agent == "deep-gxfp":  # the tabular references are GXFP's
        tabular = make_agent("gxfp", game)
        exact = []
        for _ in points:
            tabular.iterate(args.every)
            exact.append(exploitability(agent.tree, tabular.policy()))
        floor = np.mean([sampled_gxfp(agent.tree, agent.config.traversals, points, 1000 + s)
                         for s in range(args.floor_seeds)], axis=0)
    per_unit = 2 * agent.config.traversals
    lines = [f"config: {agent.config}", "",
             "Exploitability (NashConv / 2, exact, chips; the headline), and the paper's "
             f"quantity: P1's sampled traversal value, last block of {BLOCK} and |running mean "
             "- (-1/18)|, and its noise-free form |P1's exact value + 1/18| (means over seeds)",
             ""]
    lines.append("| iterations | traversals (both players) | " + " | ".join(
        f"seed {s}" for s in args.seeds) + " | mean | tabular GXFP | sampled GXFP "
        "| P1 value, last block | abs(running mean + 1/18) | abs(exact P1 value + 1/18) |")
    lines.append("|" + "---|" * (len(args.seeds) + 8))
    table, block, distance = np.array(curves), np.array(blocks), np.array(distances)
    gap = np.abs(np.array(exact_p1) - KUHN_P1_VALUE)
    for k, n in enumerate(points):
        row = " | ".join(f"{v:.4f}" for v in table[:, k])
        lines.append(
            f"| {n} | {n * per_unit:,} | {row} | {table[:, k].mean():.4f} | {exact[k]:.4f} "
            f"| {floor[k]:.4f} | {block[:, k].mean():+.4f} | {distance[:, k].mean():.4f} "
            f"| {gap[:, k].mean():.4f} |")
    print("\n" + "\n".join(lines))
    if args.out is None:
        return
    command = "python bench/deep_gxfp_kuhn.py " + shlex.join(sys.argv[1:])
    record = {
        "command": command, "code_version": code_version(Path(__file__).resolve().parent),
        "libraries": f"{library_versions()}, torch {torch.__version__}",
        "machine": machine_line(), "platform": platform.platform(),
        "agent": args.agent, "config": str(agent.config), "seeds": list(args.seeds),
        "points": points,
        "traversals_per_unit": per_unit, "exploitability": table.tolist(),
        # The GXFP references (None for Deep CFR: not computed).
        "tabular_gxfp": [float(v) for v in exact] if args.agent == "deep-gxfp" else None,
        "sampled_gxfp": floor.tolist() if args.agent == "deep-gxfp" else None,
        "p1_last_block": block.tolist(), "abs_running_mean_gap": distance.tolist(),
        "p1_exact_value": exact_p1, "abs_exact_gap": gap.tolist(), "seconds": seconds,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(args.out, json.dumps(record, indent=1), what="Deep GXFP record")
    name = "Deep GXFP" if args.agent == "deep-gxfp" else "Deep CFR at Deep GXFP's budget"
    header = [
        f"# {name} on Kuhn: exact exploitability beside the paper's own quantity", "",
        f"Command: `{command}`", "",
        f"Code {record['code_version']}; {record['libraries']}; {record['machine']}. "
        "Numbers on this torch path are draws: a rerun on another machine (or another torch "
        "build) gives other values within the spread over seeds; the numbers per seed are in "
        f"`{args.out.name}`.", "", "```"]
    text = "\n".join(header + [f"seed {s}: {t:.0f} s" for s, t in zip(args.seeds, seconds)]
                     + [""] + lines + ["```", ""])
    write_atomically(args.out.with_suffix(".md"), text, what="Deep GXFP report")

if __name__ == "__main__":
    main()
