"""Reproduce the NFSP-PLT paper's Leduc experiments (Li et al. 2023) as far as they go here.

1. Sample efficiency: NashConv of NFSP, NFSP-PER and NFSP-PLT on Leduc at equal numbers of
   hands, over several seeds (mean and spread).
2. Winnings against a uniform random opponent over 20,000 hands (duplicate deals, 95% CI),
   in chips per hand (Leduc's ante is 1 chip; the paper reports "bb/h": 0.97 for NFSP-PER
   and 1.05 for NFSP-PLT).
3. The adaptive-UCT ablation of Table 6: on decision points of Leduc self-play, how often
   UCT(threshold, confidence) picks the action of fixed-budget UCT_3000, and its time per
   decision. UCT_3000 against itself with another seed is printed as the noise floor.

    python bench/reproduce_nfsp.py --hands 200000 --seeds 3 --positions 60

``--paper`` runs the paper's own protocol instead (``nfsp_paper.py``: SGD 0.1 / 0.005, 50,000
hands on RLCard's Leduc, Fig. 2a's curve against random, Tables 3-4's final matches), one
process per (preset, seed), each writing its own results file under ``--out`` (skipped when
present, so a stopped grid resumes); ``--report DIR`` turns those files into
``bench/results/nfsp/paper_protocol.md`` and prints the rows for ``docs/reproductions.md``:

    python bench/reproduce_nfsp.py --paper --seeds 18 --workers 16 --out $OUT/nfsp
    python bench/reproduce_nfsp.py --report $OUT/nfsp
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_nfsp import BENCH_PARAMS
from common import table
from nfsp_paper import PRESETS as PAPER_PRESETS
from nfsp_paper import Protocol
from nfsp_paper_grid import run_grid, write_report

from pokerzoo import load_game
from pokerzoo.agents.nfsp.agent import NFSP
from pokerzoo.agents.nfsp.uct_best_response import QEvaluator
from pokerzoo.agents.registry import make_agent
from pokerzoo.components.uct import AdaptiveUCT, UCTConfig
from pokerzoo.evaluation import nash_conv
from pokerzoo.evaluation.head_to_head import head_to_head, sample_action
from pokerzoo.policy import UniformRandomPolicy

PRESETS = ("nfsp", "nfsp-per", "nfsp-plt")
ABLATION = [(t, c) for t in (2800, 2500, 2000) for c in (0.98, 0.95, 0.90)]


def sample_efficiency(hands: int, seeds: int, points: int, params: dict) -> dict:
    game = load_game("leduc_holdem")
    marks = np.linspace(hands / points, hands, points).astype(int)
    curves, agents = {}, {}
    for preset in PRESETS:
        runs = []
        for seed in range(seeds):
            agent = make_agent(preset, game, seed=seed, **params)
            start, curve = time.perf_counter(), []
            for mark in marks:
                agent.iterate(int(mark) - agent.iteration)
                curve.append(nash_conv(agent.tree, agent.average_policy()))
            runs.append(curve)
            print(f"{preset} seed {seed}: {np.round(curve, 3).tolist()} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
            if seed == 0:
                agents[preset] = agent
        curves[preset] = np.asarray(runs)
    rows = [[preset, f"{c[:, i].mean():.3f} +- {c[:, i].std():.3f}", int(m)]
            for preset, c in curves.items() for i, m in enumerate(marks)
            if i in (0, len(marks) // 2, len(marks) - 1)]
    print(table(["agent", f"NashConv (mean +- sd, {seeds} seeds)", "hands"], rows))
    return agents


def versus_random(agents: dict[str, NFSP], deals: int) -> None:
    game = load_game("leduc_holdem")
    rows = []
    for preset, agent in agents.items():
        r = head_to_head(game, [agent.average_policy(), UniformRandomPolicy()], deals, seed=1)
        rows.append([preset, r.num_hands, f"{r.mean_chips[0]:+.3f} +- {r.ci_chips[0]:.3f}"])
    print(table(["agent", "hands", "chips/hand vs random (95% CI)"], rows))


def decision_points(agent: NFSP, count: int, seed: int) -> list:
    """States where a seat is to act, drawn from hands of the average policies."""
    rng = np.random.default_rng(seed)
    policy = agent.policy()
    states = []
    while len(states) < count:
        s = agent.game.new_initial_state()
        seen = []
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                s.apply_action(sample_action(dict(outcomes), rng))
            else:
                seen.append(s.clone())
                s.apply_action(sample_action(policy.action_probabilities(s), rng))
        states.append(seen[int(rng.integers(len(seen)))])
    return states


def uct_ablation(agent: NFSP, positions: int) -> None:
    states = decision_points(agent, positions, seed=5)
    evaluator, opponents = QEvaluator(agent), agent.policy()

    def run(config: UCTConfig, seed: int) -> tuple[list[int], float, float, float]:
        actions, sims, early = [], 0, 0
        start = time.process_time()
        for i, s in enumerate(states):
            uct = AdaptiveUCT(config, evaluator=evaluator, opponent_policy=opponents,
                              seed=seed * 100_003 + i)
            result = uct.search(s)
            actions.append(result.action)
            sims += result.simulations
            early += result.stopped_early
        cpu_ms = 1000 * (time.process_time() - start) / len(states)
        return actions, cpu_ms, sims / len(states), early / len(states)

    fixed = UCTConfig(max_simulations=3000, threshold=None)
    ref, ms, sims, early = run(fixed, 0)
    rows = [["UCT_3000", 1.0, ms, sims, early]]
    again, ms, sims, early = run(fixed, 1)
    rows.append(["UCT_3000 (other seed)", float(np.mean(np.equal(again, ref))), ms, sims, early])
    for threshold, confidence in ABLATION:
        cfg = UCTConfig(max_simulations=3000, threshold=threshold, confidence=confidence)
        acts, ms, sims, early = run(cfg, 2)
        rows.append([f"UCT({threshold},{confidence:.2f})", float(np.mean(np.equal(acts, ref))),
                     ms, sims, early])
        print(rows[-1], flush=True)
    print(f"{positions} Leduc decision points of the seed-0 NFSP-PLT agent's self-play")
    print(table(["setting", "agreement with UCT_3000", "CPU ms per decision",
                 "simulations per decision", "stopped early"], rows))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=None,
                        help="training hands (default 200,000; with --paper 50,000)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--points", type=int, default=8)
    parser.add_argument("--deals", type=int, default=10_000, help="x2 seats = hands vs random")
    parser.add_argument("--positions", type=int, default=60, help="UCT ablation positions")
    parser.add_argument("--params", default=json.dumps(BENCH_PARAMS))
    parser.add_argument("--parts", default="efficiency,random,uct",
                        help="which experiments (without efficiency, one NFSP-PLT is trained)")
    paper = parser.add_argument_group("the paper's protocol (--paper, --report)")
    paper.add_argument("--paper", action="store_true",
                       help="run the paper's protocol grid (--seeds runs per preset)")
    paper.add_argument("--out", type=Path, default=Path("bench/results/nfsp/grid"),
                       help="folder of the per-seed results files")
    paper.add_argument("--report", type=Path, default=None, metavar="DIR",
                       help="write the report of the seed files under DIR and stop")
    paper.add_argument("--report-to", type=Path,
                       default=Path("bench/results/nfsp/paper_protocol.md"))
    paper.add_argument("--note", default="", help="a sentence for the report (where it ran)")
    paper.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    paper.add_argument("--backend", choices=["ray", "pool"], default="ray",
                       help="ray where installed (else a process pool)")
    paper.add_argument("--presets", default=",".join(PAPER_PRESETS))
    paper.add_argument("--eval-every", type=int, default=Protocol.eval_every)
    paper.add_argument("--curve-deals", type=int, default=Protocol.curve_deals)
    paper.add_argument("--final-hands", type=int, default=Protocol.final_hands)
    paper.add_argument("--num-envs", type=int, default=Protocol.num_envs)
    paper.add_argument("--opponent-hands", type=int, default=Protocol.opponent_hands,
                       help="NFSP-UCT's training hands when it must be trained (0: missing "
                       "opponents are not trained; their matches are played by --report "
                       "once they exist)")
    paper.add_argument("--hunl-seeds", type=int, default=0,
                       help="also this many HUNL runs per preset (vs random only)")
    paper.add_argument("--opponents", type=Path, default=Path("bench/results/nfsp/opponents"),
                       help="folder of the fixed opponents (trained there when missing)")
    args = parser.parse_args(argv)
    if args.report is not None:
        write_report(args.report, args.report_to, args.note, args.opponents)
        return
    if args.paper:
        protocol = Protocol(hands=args.hands or Protocol.hands, eval_every=args.eval_every,
                            curve_deals=args.curve_deals, final_hands=args.final_hands,
                            num_envs=args.num_envs, opponent_hands=args.opponent_hands)
        run_grid(args.out, args.presets.split(","), range(args.seeds), protocol, args.workers,
                 args.backend, args.opponents, args.hunl_seeds)
        return
    parts = set(args.parts.split(","))
    params = json.loads(args.params)
    hands = args.hands or 200_000
    if "efficiency" in parts:
        agents = sample_efficiency(hands, args.seeds, args.points, params)
    else:
        agents = {"nfsp-plt": make_agent("nfsp-plt", load_game("leduc_holdem"), **params)}
        agents["nfsp-plt"].iterate(hands)
    if "random" in parts:
        versus_random(agents, args.deals)
    if "uct" in parts and args.positions:
        uct_ablation(agents["nfsp-plt"], args.positions)


if __name__ == "__main__":
    main()
