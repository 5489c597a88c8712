"""Depth-limited solving and re-solving on the public engine (the engine side).

Writes ``--out`` (default ``bench/results/depth_limit.md``), all on Leduc hold'em, exact
whole-game numbers through ``strategy_best_responses``:

1. the round-1 trunk with coupled oracle leaves beside the whole-game CFR+ solve at the same
   iterations (game value, exploitability, seconds);
2. ``OracleLeaves.values`` per public belief state (the rest of the game solved from random
   reaches at each round-1 leaf) at two tolerances: seconds and CFR iterations per solve;
3. round-2 re-solves (both players, every round-2 public root, from a CFR+ blueprint's
   beliefs): whole-game NashConv of the blueprint with its second round replaced, for the
   unsafe re-solve, the CFR-D gadget and the max-margin gadget, with seconds;
4. player 0's round-1 trunk solved against the blueprint's leaf values alone and against
   multi-valued leaves (the blueprint and fold/call/raise-biased opponent continuations):
   the opponent's best-response value in the whole game (player 0 plays the blueprint
   below the trunk).

    python bench/bench_depth_limit.py [--iterations 1000] [--blueprint 500] [--resolve 300]
        [--out FILE]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import table  # noqa: E402
from pokerzoo.atomic import write_atomically  # noqa: E402
from pokerzoo.games import load_game  # noqa: E402
from pokerzoo.public.engine.solver import PublicSolver, strategy_best_responses  # noqa: E402
from pokerzoo.public.engine.tree import CHANCE, DECISION  # noqa: E402
from pokerzoo.public.subgames.depth_limit import DepthLimitedSolver  # noqa: E402
from pokerzoo.public.subgames.leaf_values import OracleLeaves  # noqa: E402
from pokerzoo.public.subgames.multi_valued import MultiValuedLeaves  # noqa: E402
from pokerzoo.public.subgames.resolve import node_beliefs, resolve  # noqa: E402
from pokerzoo.public.subgames.subgame import full_tree, public_subgame  # noqa: E402


def _profile(solver: PublicSolver) -> dict[int, np.ndarray]:
    tree = solver.tree
    return {n: solver.strategy(n) for n in np.flatnonzero(tree.kind == DECISION).tolist()}


def trunk_vs_whole(game, iterations: int) -> list[list[object]]:
    rows = []
    sub = public_subgame(game, [], [np.ones(6), np.ones(6)], depth="round")
    for name, make in (
        ("whole game (PublicSolver)", lambda: PublicSolver(full_tree(game).tree,
                                                           algorithm="cfr+")),
        ("round-1 trunk + coupled oracle leaves",
         lambda: DepthLimitedSolver(sub, OracleLeaves(game), algorithm="cfr+")),
    ):
        solver = make()
        solver.iterate(1)  # compile outside the clock
        start = time.perf_counter()
        solver.iterate(iterations - 1)
        seconds = time.perf_counter() - start
        rows.append([name, iterations, f"{solver.game_value()[0]:.7f}",
                     f"{solver.exploitability():.2e}", f"{seconds:.2f}"])
    return rows


def oracle_costs(game) -> list[list[object]]:
    sub = public_subgame(game, [], [np.ones(6), np.ones(6)], depth="round")
    rng = np.random.default_rng(0)
    rows = []
    for tolerance in (1e-3, 1e-4):
        oracle = OracleLeaves(game, tolerance=tolerance, warm_start=False)
        oracle.solve_leaf(int(sub.leaf_full_nodes[0]), np.ones(6), np.ones(6))
        before, count = oracle.solve_iterations, 20
        start = time.perf_counter()
        for i in range(count):
            oracle.solve_leaf(int(sub.leaf_full_nodes[i % 5]), rng.random(6), rng.random(6))
        seconds = (time.perf_counter() - start) / count
        rows.append([f"{tolerance:g}", count, f"{seconds * 1e3:.1f}",
                     f"{(oracle.solve_iterations - before) / count:.0f}"])
    return rows


def round_two(game, blueprint: PublicSolver, iterations: int) -> list[list[object]]:
    full = blueprint.tree
    base = _profile(blueprint)
    rows = [["blueprint (CFR+)", f"{sum(strategy_best_responses(full, base)):.2e}", "-"]]
    roots = [c for n in np.flatnonzero(full.kind == CHANCE).tolist() for c in full.children(n)]
    for method in ("unsafe", "cfrd", "max_margin"):
        profile = dict(base)
        start = time.perf_counter()
        for root in roots:
            beliefs = node_beliefs(blueprint, root)
            sub = public_subgame(game, full.line(root), [beliefs["reach0"], beliefs["reach1"]],
                                 depth=None)
            for p in (0, 1):
                res = resolve(sub, p, opp_cfv=beliefs[f"br_cfv{1 - p}"], method=method,
                              iterations=iterations)
                for n in np.flatnonzero(sub.tree.kind == DECISION).tolist():
                    if sub.tree.player[n] == p:
                        profile[int(sub.full_node[n])] = res.solver.strategy(n)
        seconds = time.perf_counter() - start
        rows.append([method, f"{sum(strategy_best_responses(full, profile)):.2e}",
                     f"{seconds:.1f}"])
    return rows


def multi_valued(game, blueprint: PublicSolver, iterations: int) -> list[list[object]]:
    full = blueprint.tree
    base = _profile(blueprint)
    rows = [["blueprint everywhere", "-", f"{strategy_best_responses(full, base)[1]:.4f}"]]
    sub = public_subgame(game, [], [np.ones(6), np.ones(6)], depth="round")
    for biases in ((), ("fold", "call", "raise")):
        leaves = MultiValuedLeaves(game, base, player=0, biases=biases)
        solver = DepthLimitedSolver(sub, leaves, algorithm="cfr+")
        solver.iterate(iterations)
        profile = dict(base)
        for n in np.flatnonzero(sub.tree.kind == DECISION).tolist():
            if sub.tree.player[n] == 0:
                profile[int(sub.full_node[n])] = solver.strategy(n)
        rows.append([f"trunk vs {1 + len(biases)} continuation(s)", 1 + len(biases),
                     f"{strategy_best_responses(full, profile)[1]:.4f}"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--blueprint", type=int, default=500)
    parser.add_argument("--resolve", type=int, default=300)
    parser.add_argument("--out", default=str(ROOT / "bench/results/depth_limit.md"))
    args = parser.parse_args()
    game = load_game("leduc_holdem")
    blueprint = PublicSolver(full_tree(game).tree, algorithm="cfr+")
    blueprint.iterate(args.blueprint)
    sections = [
        "# Depth-limited solving and re-solving (Leduc hold'em)\n",
        f"`python bench/bench_depth_limit.py --iterations {args.iterations} --blueprint "
        f"{args.blueprint} --resolve {args.resolve}`; {platform.processor() or 'cpu'}, "
        f"Python {platform.python_version()}; a machine shared with other jobs, so seconds "
        "are indicative. Values in chips; exploitability (BR_0 + BR_1) / 2, NashConv "
        "BR_0 + BR_1, both exact in the whole game.\n",
        "## 1. Round-1 trunk with coupled oracle leaves vs the whole game (CFR+)\n",
        table(["solver", "iterations", "game value p0", "exploitability", "seconds"],
              trunk_vs_whole(game, args.iterations)),
        "\nThe coupled oracle runs each leaf's rest-of-game solver one pass per trunk pass, "
        "so the two rows are the same CFR, update for update.\n",
        "## 2. OracleLeaves.values: one public belief state solved (random reaches)\n",
        table(["tolerance (chips)", "solves", "ms per solve", "CFR iterations per solve"],
              oracle_costs(game)),
        f"\n## 3. Round-2 re-solves from a {args.blueprint}-iteration CFR+ blueprint "
        f"({args.resolve} iterations each, both players, all 30 round-2 roots)\n",
        table(["round 2 played by", "whole-game NashConv", "seconds"],
              round_two(game, blueprint, args.resolve)),
        "\nReference (a 2026 write-up on Leduc, chips): isolated round-2 re-solves 0.21, "
        "CFR-D gadget 2.7e-4.\n",
        "## 4. Multi-valued leaves (Brown, Sandholm & Amos 2018): player 0's round-1 trunk\n",
        table(["player 0 plays", "continuations", "opponent's whole-game BR value"],
              multi_valued(game, blueprint, args.iterations // 2)),
        "",
    ]
    write_atomically(args.out, "\n".join(sections))
    print(Path(args.out).read_text())


if __name__ == "__main__":
    main()
