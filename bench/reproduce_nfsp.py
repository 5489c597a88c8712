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
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_nfsp import BENCH_PARAMS
from common import table

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
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--points", type=int, default=8)
    parser.add_argument("--deals", type=int, default=10_000, help="x2 seats = hands vs random")
    parser.add_argument("--positions", type=int, default=60, help="UCT ablation positions")
    parser.add_argument("--params", default=json.dumps(BENCH_PARAMS))
    parser.add_argument("--parts", default="efficiency,random,uct",
                        help="which experiments (without efficiency, one NFSP-PLT is trained)")
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    params = json.loads(args.params)
    if "efficiency" in parts:
        agents = sample_efficiency(args.hands, args.seeds, args.points, params)
    else:
        agents = {"nfsp-plt": make_agent("nfsp-plt", load_game("leduc_holdem"), **params)}
        agents["nfsp-plt"].iterate(args.hands)
    if "random" in parts:
        versus_random(agents, args.deals)
    if "uct" in parts and args.positions:
        uct_ablation(agents["nfsp-plt"], args.positions)


if __name__ == "__main__":
    main()
