"""The NFSP-PLT paper's Leduc protocol (Li et al. 2023, Sec. 5), one run per (preset, seed).

The paper (Sec. 5.1-5.2): SGD with learning rates 0.1 (DRL) and 0.005 (SL), memories of 30,000
and 1,000,000, gamma 0.99; 50,000 hands of training with an evaluation against random agents
every 1,000 hands (10,000 games each, Fig. 2a); at the end 20,000 games against Random,
NFSP-UCT and DeepCFR (Tables 3-4), in bb/h on RLCard's Leduc. Here:

* the game is our ``rlcard`` Leduc variant (blinds 1/2; the agents learn in big blinds, as
  RLCard pays them); money is recorded in chips and in big blinds (bb = 2 chips);
* every match is played with duplicate deals (each deal played twice, seats swapped, so each
  agent sits in the small blind half the time, as RLCard's random button does), sampled on the
  compiled tree (``duplicate_match``: vectorised over deals); the exact expected value is
  recorded beside each sampled one, and NashConv (chips) beside every point;
* the opponents are fixed policies trained once (``opponents.py``): our NFSP-PLT with the
  adaptive-UCT best response in the place of the paper's ACPC "NFSP-UCT", and our Deep CFR.

A run writes ``<out>/seeds/<preset>_seed<k>.json`` atomically; a run whose file exists is
skipped (the grid is resumable).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from pokerzoo import load_game
from pokerzoo.agents.nfsp.agent import NFSP
from pokerzoo.agents.registry import make_agent
from pokerzoo.atomic import write_atomically
from pokerzoo.evaluation import nash_conv
from pokerzoo.evaluation.exact import expected_values
from pokerzoo.evaluation.head_to_head import Z95
from pokerzoo.games.base import Game
from pokerzoo.games.leduc import LEDUC_VARIANTS
from pokerzoo.tree import GameTree, TabularPolicy

PRESETS = ("nfsp", "nfsp-per", "nfsp-plt")
VARIANT = "rlcard"
PAPER_PARAMS: dict[str, Any] = {
    "optimizer": "sgd",        # Sec. 5.1 gives rates only; plain SGD as in Heinrich & Silver
    "rl_learning_rate": 0.1,   # Sec. 5.1: "The learning rate in the DRL and SL are 0.1
    "sl_learning_rate": 0.005,  # and 0.005, respectively"
}
PAPER_LEDUC = {  # Tables 3-4, bb/h over 20,000 games, one trained agent each
    "nfsp-per": {"random": (0.9731, 0.05), "nfsp-uct": (0.0168, 0.09), "deep-cfr": (0.2162, 0.07)},
    "nfsp-plt": {"random": (1.0513, 0.05), "nfsp-uct": (0.0189, 0.09), "deep-cfr": (0.2633, 0.07)},
}
OPPONENTS = ("nfsp-uct", "deep-cfr")


@dataclass(frozen=True)
class Protocol:
    """The sizes of one run (defaults: the paper's)."""

    hands: int = 50_000
    """Training hands (Sec. 5.2, Fig. 2: 50,000 rounds)."""
    eval_every: int = 1_000
    """Hands between evaluations against random (Fig. 2a: every 1,000)."""
    curve_deals: int = 10_000
    """Duplicate deals per evaluation point (2 hands each; the paper plays 10,000 games)."""
    final_hands: int = 20_000
    """Hands of each final match (Tables 3-4: 20,000 games)."""
    opponent_hands: int = 50_000
    """Training hands of the NFSP-UCT opponent when it is trained (Fig. 2's 50,000)."""
    num_envs: int = 8
    """Hands played at once. The networks learn once per 128 of a seat's transitions, more
    than 8 hands give, so a batch of 8 spans at most one learning step."""


def paper_game() -> Game:
    """RLCard's Leduc (our ``rlcard`` variant)."""
    return load_game("leduc_holdem", **LEDUC_VARIANTS[VARIANT])


def paper_agent(preset: str, game: Game, seed: int, num_envs: int = 8) -> NFSP:
    """``preset`` with the paper's optimiser and rates (every other field its default)."""
    agent = make_agent(preset, game, seed=seed, num_envs=num_envs, **PAPER_PARAMS)
    if not isinstance(agent, NFSP):
        raise TypeError(f"{preset} is not an NFSP preset")
    return agent


def _edges(tree: GameTree, seat_probs: np.ndarray) -> np.ndarray:
    """Each tree row's inclusive cumulative probability among its siblings."""
    parents = tree.parent[1:]
    edge = np.asarray(tree.chance_prob, dtype=np.float64).copy()
    decision = np.flatnonzero(tree.player[parents] >= 0) + 1
    edge[decision] = seat_probs[tree.infoset[tree.parent[decision]], tree.action[decision]]
    total = np.cumsum(edge)
    cum = total.copy()
    cum[1:] -= total[tree.first_child[parents] - 1]
    return cum


def _walk(tree: GameTree, cum: np.ndarray, chance_u: np.ndarray,
          rng: np.random.Generator) -> np.ndarray:
    """The leaves of one hand per row of ``chance_u``: the k-th chance event of hand i is
    decided by ``chance_u[i, k]`` (shared between seatings: the same cards), decisions by
    fresh draws."""
    n = len(chance_u)
    node = np.zeros(n, dtype=np.int64)
    k_chance = np.zeros(n, dtype=np.int64)
    widest = int(tree.num_children.max())
    while True:
        live = np.flatnonzero(tree.num_children[node] > 0)
        if len(live) == 0:
            return node
        at = node[live]
        first, kk = tree.first_child[at], tree.num_children[at]
        is_chance = tree.player[at] < 0
        u = rng.random(len(live))
        u[is_chance] = chance_u[live[is_chance], k_chance[live[is_chance]]]
        k_chance[live[is_chance]] += 1
        u *= cum[first + kk - 1]
        choice = np.zeros(len(live), dtype=np.int64)
        for j in range(widest - 1):
            choice += (j < kk - 1) & (cum[np.minimum(first + j, len(cum) - 1)] <= u)
        node[live] = first + choice


def duplicate_match(tree: GameTree, probs_a: np.ndarray, probs_b: np.ndarray, deals: int,
                    rng: np.random.Generator) -> tuple[float, float]:
    """A's mean chips per hand against B over ``deals`` duplicate deals (each deal played in
    both seatings with the same cards) and its 95% half-width over deals."""
    seat0 = (tree.infoset_player == 0)[:, None]
    depth = int(tree.depth.max()) + 1
    chance_u = rng.random((deals, depth))
    won = np.zeros(deals)
    for a_seat in (0, 1):
        probs = np.where(seat0 == (a_seat == 0), probs_a, probs_b)
        leaves = _walk(tree, _edges(tree, probs), chance_u, rng)
        won += tree.utilities[leaves, a_seat]
    per_deal = won / 2.0
    return float(per_deal.mean()), float(Z95 * per_deal.std(ddof=1) / np.sqrt(deals))


def _match(tree: GameTree, probs: np.ndarray, other: TabularPolicy, deals: int,
           rng: np.random.Generator, big_blind: float) -> dict[str, float]:
    other_probs = other.aligned_to(tree)
    mean, ci = duplicate_match(tree, probs, other_probs, deals, rng)
    seat0 = (tree.infoset_player == 0)[:, None]
    exact = 0.5 * (expected_values(tree, np.where(seat0, probs, other_probs))[0]
                   + expected_values(tree, np.where(seat0, other_probs, probs))[1])
    return {"chips": mean, "ci_chips": ci, "bb": mean / big_blind, "ci_bb": ci / big_blind,
            "exact_chips": float(exact), "hands": 2 * deals}


def seed_path(out: Path, preset: str, seed: int) -> Path:
    """Where the run (preset, seed) writes its results."""
    return out / "seeds" / f"{preset}_seed{seed}.json"


def policy_path(out: Path, preset: str, seed: int) -> Path:
    """Where the run (preset, seed) saves its final average policy."""
    return out / "policies" / f"{preset}_seed{seed}.npz"


def finish(out: Path, opponents: dict[str, TabularPolicy]) -> int:
    """Play the final match against each opponent a seed record lacks (an opponent trained
    beside the runs), from the run's saved policy; returns how many matches were added."""
    added, tree = 0, None
    for path in sorted((out / "seeds").glob("*.json")):
        record = json.loads(path.read_text())
        todo = [n for n in opponents if n not in record["final"]]
        if not todo:
            continue
        if tree is None:
            from pokerzoo.tree import build

            tree = build(paper_game())
        probs = TabularPolicy.load(policy_path(out, record["preset"], record["seed"])
                                   ).aligned_to(tree)
        rng = np.random.default_rng([record["seed"], PRESETS.index(record["preset"]), 7])
        deals = max(1, record["protocol"]["final_hands"] // 2)
        for name in todo:
            record["final"][name] = _match(tree, probs, opponents[name], deals, rng,
                                           record["big_blind_chips"])
            record["opponent_nash_conv"][name] = nash_conv(tree, opponents[name])
            added += 1
        write_atomically(path, json.dumps(record, indent=1), what="NFSP seed record")
    return added


def run_seed(preset: str, seed: int, protocol: Protocol, opponents: dict[str, TabularPolicy],
             out: Path) -> dict[str, Any]:
    """Train ``preset`` with ``seed`` under ``protocol``, evaluate as the paper does, write
    and return the record (the existing record if the file is there)."""
    path = seed_path(out, preset, seed)
    if path.exists():
        return dict(json.loads(path.read_text()))
    torch.set_num_threads(1)  # one process per core
    game = paper_game()
    big_blind = float(game.chip_unit)
    agent = paper_agent(preset, game, seed, protocol.num_envs)
    tree = agent.tree
    uniform = TabularPolicy.uniform(tree)
    rng = np.random.default_rng([seed, PRESETS.index(preset), 2023])
    start, cpu_start, curve = time.perf_counter(), time.process_time(), []
    marks = range(protocol.eval_every, protocol.hands + 1, protocol.eval_every)
    train_cpu_s = 0.0
    for mark in marks:
        t0 = time.process_time()
        agent.iterate(max(0, mark - agent.iteration))
        train_cpu_s += time.process_time() - t0
        probs = agent.average_policy().aligned_to(tree)
        versus = _match(tree, probs, uniform, protocol.curve_deals, rng, big_blind)
        curve.append({"hands": agent.iteration, "nash_conv": nash_conv(tree, probs),
                      "random": versus})
    average = agent.average_policy()
    average.save(policy_path(out, preset, seed))  # for opponents that arrive later (finish)
    probs = average.aligned_to(tree)
    deals = max(1, protocol.final_hands // 2)
    final = {"random": _match(tree, probs, uniform, deals, rng, big_blind)}
    for name, opponent in opponents.items():
        final[name] = _match(tree, probs, opponent, deals, rng, big_blind)
    opt = agent.learners[0]
    record = {
        "preset": preset, "seed": seed, "game": f"leduc_holdem ({VARIANT} variant)",
        "big_blind_chips": big_blind, "protocol": asdict(protocol),
        "optimizer": {"rl": type(opt.q_opt).__name__, "rl_lr": opt.q_opt.param_groups[0]["lr"],
                      "sl": type(opt.avg_opt).__name__,
                      "sl_lr": opt.avg_opt.param_groups[0]["lr"]},
        "hands": agent.iteration, "nash_conv": nash_conv(tree, probs),
        "nash_conv_uniform": nash_conv(tree, uniform), "curve": curve, "final": final,
        "opponent_nash_conv": {n: nash_conv(tree, o) for n, o in opponents.items()},
        "train_cpu_seconds": train_cpu_s, "cpu_seconds": time.process_time() - cpu_start,
        "seconds": time.perf_counter() - start,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(record, indent=1), what="NFSP seed record")
    return record


def load_records(out: Path, part: str = "seeds") -> list[dict[str, Any]]:
    """Every seed record under ``out/part`` ("seeds": Leduc, "hunl")."""
    return [json.loads(p.read_text()) for p in sorted((out / part).glob("*.json"))]


# The opponents --------------------------------------------------------------------------------

UCT_PARAMS: dict[str, Any] = {"best_response": "uct", "uct_simulations": 200,
                              "uct_threshold": 185}
"""NFSP-UCT: our NFSP-PLT whose best response is the adaptive UCT search, at 200 simulations
per decision (the paper's UCT(2800, 0.98) scaled down 15x to fit the training budget)."""
DEEP_CFR_ITERATIONS = 45
"""Deep CFR's ``leduc-fast`` preset, 45 iterations (its documented Leduc budget)."""


def opponent_path(folder: Path, name: str) -> Path:
    return folder / f"{VARIANT}_{name}.npz"


def train_opponent(name: str, folder: Path, hands: int = 50_000) -> TabularPolicy:
    """Train the fixed opponent ``name`` (seed 0), save its average policy, return it; an
    existing file is loaded instead."""
    path = opponent_path(folder, name)
    if path.exists():
        return TabularPolicy.load(path)
    torch.set_num_threads(1)
    game = paper_game()
    if name == "nfsp-uct":
        agent: Any = make_agent("nfsp-plt", game, seed=0, num_envs=8,
                                **{**PAPER_PARAMS, **UCT_PARAMS})
        agent.iterate(hands)
        policy = agent.average_policy()
    elif name == "deep-cfr":
        from pokerzoo.agents.deep.deep_cfr import make_preset

        agent = make_preset("leduc-fast", game, seed=0, device="cpu")
        agent.iterate(DEEP_CFR_ITERATIONS)
        policy = agent.policy()
    else:
        raise ValueError(f"unknown opponent {name!r}; allowed: {OPPONENTS}")
    policy.save(path)
    return policy


def load_opponents(folder: Path) -> dict[str, TabularPolicy]:
    """The opponents saved in ``folder`` (those present)."""
    return {name: TabularPolicy.load(opponent_path(folder, name)) for name in OPPONENTS
            if opponent_path(folder, name).exists()}


# Heads-up no-limit (Tables 3-4's HUNL rows) ---------------------------------------------------

HUNL_PAPER = {"nfsp-per": (34.0647, 0.48), "nfsp-plt": (34.0445, 0.48)}
"""The paper's HUNL results against Random, bb/h over 20,000 games (Tables 3-4)."""


def run_hunl_seed(preset: str, seed: int, hands: int, final_hands: int, out: Path
                  ) -> dict[str, Any]:
    """``preset`` trained ``hands`` hands on our no-limit hold'em (blinds 50/100, bets of half
    and one pot, all-in) with the paper's SGD rates, then ``final_hands`` duplicate hands
    against uniform random (state by state: no tree); written to ``out`` once."""
    from pokerzoo.evaluation.matches import versus_random

    path = out / "hunl" / f"{preset}_seed{seed}.json"
    if path.exists():
        return dict(json.loads(path.read_text()))
    torch.set_num_threads(1)
    game = load_game("no_limit_holdem")
    cpu = time.process_time()
    agent = make_agent(preset, game, seed=seed, num_envs=8, **PAPER_PARAMS)
    agent.iterate(hands)
    train_cpu = time.process_time() - cpu
    result = versus_random(game, agent.policy(), final_hands, seed=seed + 1)
    record = {"preset": preset, "seed": seed, "game": "no_limit_holdem (defaults)",
              "hands": agent.iteration, "final_hands": int(result["hands"]),
              "bb_per_hand": result["bb_per_100"] / 100.0, "ci_bb": result["ci95"] / 100.0,
              "train_cpu_seconds": train_cpu, "cpu_seconds": time.process_time() - cpu}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(record, indent=1), what="HUNL seed record")
    return record
