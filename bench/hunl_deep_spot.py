"""Deep CFR and Deep GXFP blueprints scored at the Deep GXFP paper's flop spot.

The runs are ``train.py`` runs on ``no_limit_holdem`` at $1/$2 with $200 stacks and sizes half
pot, 3/4 pot, pot and all-in (``configs/hunl_spot_deep_cfr.toml``, ``..._gxfp.toml``), where
"the button raises to $5, the big blind calls" makes the paper's $10 flop pot. Each is scored
at the hero's decision facing the big blind's half-pot bet (``pokerzoo.evaluation.spot_decision``,
the same as ``evaluate.py RUN --spot SPOT --spot-decision 'bet 5'``), at the spot's declared
ranges and at the ranges a run's own play reaches the decision with (``--own-from``: the big
blind's bet included). Each equilibrium is saved under ``--work`` and each score written
there as JSON, so a stopped run resumes; ``--summary`` prints the tables from the records.

The Deep CFR run is the HUNL blueprint, rebuilt by ``python train.py --config
configs/hunl_blueprint.toml`` into ``runs/hunl_spot_deep_cfr`` (3 min 14 s on one core,
5.6 GB; portable arithmetic, checked deal by deal in ``bench/results/blueprint.md``). The
results committed before 2026-12-03 are of the earlier, native-arithmetic blueprint
(``bench/results/blueprint_native.md``).

    python bench/hunl_deep_spot.py --ranges declared
    python bench/hunl_deep_spot.py --ranges own --own-from runs/hunl_spot_deep_cfr
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
HERO = "AdQh"


def raw_frequencies(game: Any, policy: Any, spot: Any, line: list[str]) -> dict[str, float]:
    """The policy's own probabilities (per cent, every game action) for the hero's combo at the
    decision, before any mapping to the spot's actions."""
    from pokerzoo.evaluation.spot_eval import _reach_root, find_line, label_action
    from pokerzoo.games.holdem.cards import CARD_STRINGS
    from pokerzoo.public.spots.holdem_spot import spot_seats

    seats = spot_seats(game)
    hero = (CARD_STRINGS.index(HERO[:2]), CARD_STRINGS.index(HERO[2:]))
    taken = set(hero) | set(spot.board_cards)
    other = tuple(c for c in range(52) if c not in taken)[:2]
    state = _reach_root(game, spot, find_line(game, spot), {seats[1]: hero, seats[0]: other},
                        spot.board_cards)
    for label in line:
        state.apply_action(label_action(state, label))
    probs = policy.action_probabilities(state)
    return {game.action_to_string(a, state): 100.0 * float(probs.get(a, 0.0))
            for a in state.legal_actions()}


PAPER = {"GTO+ (paper)": (0.0, 8.3, 21.0, 70.7, None),
         "Deep GXFP (paper)": (0.4, 11.2, 19.1, 69.3, None)}
"""The paper's Table 1 for AdQh (fold, call, raise half, raise pot; no all-in)."""


def summary(work: Path) -> str:
    """Markdown tables from the records under ``work``."""
    records = {f.stem: json.loads(f.read_text()) for f in sorted(work.glob("*_decision.json"))
               + sorted(work.glob("*_street.json"))}
    lines = ["| run | ranges | scope | EV loss, chips | % pot | bounds, chips | at the "
             "equilibrium's continuation, chips | solves, % pot | off-tree share |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, r in records.items():
        run, ranges = name.split("_declared")[0].split("_own")[0], r["spot_ranges_name"]
        low, high = r["spot_ev_loss_bounds_chips"]
        lines.append(
            f"| {run} | {ranges} | {r['spot_scope']} | {r['spot_ev_loss_chips']:.2f} | "
            f"{r['spot_ev_loss_pct_pot']:.1f} | {low:.2f} to {high:.2f} | "
            f"{r['spot_ev_loss_at_equilibrium_chips']:.2f} | "
            f"{r['spot_equilibrium_exploitability_pct']:.2f} / "
            f"{r['spot_locked_exploitability_pct']:.2f} | {100 * r['spot_off_tree_mass']:.0f}% |")
    lines += ["", "| AdQh facing the half-pot bet | fold | call | raise half ($15) | "
              "raise pot ($25) | all-in ($195) |", "|---|---|---|---|---|---|"]
    for who, row in PAPER.items():
        lines.append(f"| {who} | " + " | ".join("-" if v is None else f"{v:.1f}" for v in row)
                     + " |")
    seen = set()
    for name, r in records.items():
        ranges = r["spot_ranges_name"]
        if ranges not in seen:
            seen.add(ranges)
            eq = r["hero"]["equilibrium"]
            lines.append(f"| equilibrium, {ranges} ranges | "
                         + " | ".join(f"{v:.1f}" for v in eq.values()) + " |")
        if r["spot_scope"] == "decision" and name.split("_" + ranges)[0] not in seen:
            seen.add(name.split("_" + ranges)[0])  # its own columns: the same at any ranges
            ag = r["hero"]["agent"]
            lines.append(f"| {name.split('_' + ranges)[0]} (mapped; its own: "
                         + ", ".join(f"{k} {v:.1f}" for k, v in r["hero_raw"].items()) + ") | "
                         + " | ".join(f"{v:.1f}" for v in ag.values()) + " |")
    return "\n".join(lines)


def main() -> None:
    from pokerzoo.evaluation.spot_decision import (
        evaluate_decision,
        line_locks,
        node_at,
        range_frequencies,
        solve_locked,
    )
    from pokerzoo.evaluation.spot_eval import own_ranges
    from pokerzoo.public.engine.results import load_solver, save_solver
    from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree
    from pokerzoo.runs.load import load_agent

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", default="runs/hunl_spot_deep_cfr,runs/hunl_spot_deep_gxfp")
    p.add_argument("--spot", default="configs/spots/deep_gxfp_flop_cut.toml")
    p.add_argument("--line", default="bet 5")
    p.add_argument("--ranges", choices=("declared", "own"), default="declared")
    p.add_argument("--own-from", default="runs/hunl_spot_deep_cfr")
    p.add_argument("--scope", choices=("decision", "street"), default="decision")
    p.add_argument("--exploitability", type=float, default=1.0)
    p.add_argument("--max-iterations", type=int, default=400)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--work", default="/tmp/pokerzoo-hunl-deep-spot")
    p.add_argument("--summary", action="store_true", help="print the tables and exit")
    args = p.parse_args()
    work = Path(args.work)
    if args.summary:
        print(summary(work))
        return
    work.mkdir(parents=True, exist_ok=True)
    line = args.line.split(",")
    spot = HoldemSpot.from_toml(ROOT / args.spot)
    spot = HoldemSpot.from_dict({**spot.to_dict(), "suit_isomorphism": False})
    runs = {Path(r).name: load_agent(ROOT / r) for r in args.runs.split(",")}
    if args.ranges == "own":
        owner = load_agent(ROOT / args.own_from)
        spot = own_ranges(owner.game, owner.policy(), spot, through=line)
        (work / "own_ranges.json").write_text(json.dumps(spot.to_dict(), indent=1))
    t0 = time.time()
    tree = build_spot_tree(spot)
    node = node_at(tree, line)
    print(f"tree: {tree.num_nodes:,} nodes, hands {tree.num_hands(0)} / {tree.num_hands(1)}, "
          f"{time.time() - t0:.0f} s", flush=True)
    saved = work / f"equilibrium_{args.ranges}.pzc"
    if saved.exists():
        equilibrium = load_solver(saved)
        tree = equilibrium.tree
    else:
        t0 = time.time()
        equilibrium = solve_locked(tree, line_locks(tree, node), args.exploitability,
                                   args.max_iterations, args.threads)
        save_solver(equilibrium, saved)
        print(f"equilibrium: {equilibrium.iterations} iterations, "
              f"{equilibrium.exploitability_pct():.3f}% pot, {time.time() - t0:.0f} s",
              flush=True)
    for name, agent in runs.items():
        out = work / f"{name}_{args.ranges}_{args.scope}.json"
        if out.exists():
            continue
        t0 = time.time()
        policy = agent.policy()
        r = evaluate_decision(agent.game, policy, spot, tree, line, args.scope,
                              args.exploitability, args.max_iterations, equilibrium,
                              threads=args.threads)
        record = {**r.to_dict(), "seconds": time.time() - t0, "spot_ranges_name": args.ranges,
                  "hero": r.hand_frequencies(tree, HERO),
                  "hero_raw": raw_frequencies(agent.game, policy, spot, line),
                  "range": range_frequencies(tree, r),
                  "equilibrium_iterations": equilibrium.iterations,
                  "hands": [tree.num_hands(0), tree.num_hands(1)], "nodes": tree.num_nodes,
                  "oop_mass": float(np.sum(tree.initial_reach[0])),
                  "ip_mass": float(np.sum(tree.initial_reach[1]))}
        out.write_text(json.dumps(record, indent=1))
        print(json.dumps({k: v for k, v in record.items() if k not in ("spot_decision",)},
                         indent=1), flush=True)


if __name__ == "__main__":
    sys.exit(main())
