"""Preflop: the exact equity table's build time, the heads-up push/fold threshold table and
the 100 bb preflop tree solved to 0.01 bb.

    python bench/bench_preflop.py                  # builds the table afresh in a temporary cache
    python bench/bench_preflop.py --reuse          # times only the threshold table

Writes ``bench/results/preflop.md`` (the full threshold table as 13 x 13 grids, the gaps and
the anchors HoldemResources Calculator publishes: pusher T3s 7.7 bb, caller Q2o 5.6 bb, then the
shipped 100 bb tree ``configs/preflop_100bb.toml`` solved to 0.01 bb with its time, peak memory
and the independent class-game check) and the charts ``bench/results/preflop_pushfold.png``,
``preflop_100bb_root.png`` and ``preflop_100bb_vs_open.png``.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import code_version, library_versions

from pokerzoo.atomic import write_atomically
from pokerzoo.public.spots.preflop_equity import class_equity, equity_table
from pokerzoo.public.spots.pushfold import (
    class_game,
    draw_threshold_chart,
    parse_stacks,
    thresholds,
)
from pokerzoo.public.spots.ranges import CLASS_NAMES

RESULTS = Path(__file__).resolve().parent / "results"
LOAD_AT_START = os.getloadavg()[0]


def grid(values: dict[str, float | None], gaps: dict) -> str:
    ranks = "AKQJT98765432"
    lines = ["|    | " + " | ".join(ranks) + " |", "|----" + "|---" * 13 + "|"]
    for r in range(13):
        cells = []
        for c in range(13):
            name = CLASS_NAMES[13 * r + c]
            v = values[name]
            cells.append("-" if v is None else f"{v:g}" + ("*" if name in gaps else ""))
        lines.append(f"| {ranks[r]}  | " + " | ".join(cells) + " |")
    return "\n".join(lines)


TREE = Path(__file__).resolve().parents[1] / "configs" / "preflop_100bb.toml"
ALGORITHMS = ("postflop", "dcfr", "cfr+", "pcfr+")


def solve_tree(algorithm: str, queue: Any) -> None:
    """In a child process (so that its peak memory is its own): solve the 100 bb tree."""
    from pokerzoo.public.spots.preflop import (
        PreflopSpot,
        class_best_response,
        class_payoffs,
        solution_class_strategies,
        solve_preflop,
    )

    table = equity_table(progress=False)
    spot = PreflopSpot.from_toml(TREE)
    solution = solve_preflop(spot, table, target_bb=0.01, max_iterations=2000,
                             check_every=5, algorithm=algorithm)
    _, br0, br1 = class_best_response(spot, class_payoffs(spot, table),
                                      solution_class_strategies(solution))
    row = {"algorithm": algorithm, "iterations": solution.solver.iterations,
           "seconds": solution.seconds, "exploitability_bb": solution.exploitability_bb(),
           "check_bb": (br0 + br1) / 2, "value_bb": solution.game_value_bb(),
           "peak_mb": _peak_mb()}
    if algorithm == ALGORITHMS[0]:
        solution.chart("", RESULTS / "preflop_100bb_root.png")
        solution.chart("raise 2.5", RESULTS / "preflop_100bb_vs_open.png")
        root = solution.to_json(lines=[""])["strategy"][""]
        row["root"] = {a: sum(f >= 0.5 for f in freqs.values()) for a, freqs in root.items()}
    queue.put(row)


def _peak_mb() -> float:
    """This process's own peak resident memory: VmHWM, which a new program image starts
    afresh (``ru_maxrss`` keeps the parent's size at the fork)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def tree_rows() -> list[dict[str, Any]]:
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    rows = []
    for algorithm in ALGORITHMS:
        queue = context.Queue()
        child = context.Process(target=solve_tree, args=(algorithm, queue))
        child.start()
        rows.append(queue.get())
        child.join()
    return rows


def tree_section() -> list[str]:
    rows = tree_rows()
    first = rows[0]
    lines = [
        "## The 100 bb preflop tree", "",
        "`python solve.py configs/preflop_100bb.toml` (100 bb, open 2.5, limp, BB raise to 4 "
        "over a limp, 3-bet to 11, 4-bet to 25, all-in at every raise, cap 5; 16 decisions over "
        "1,326 x 1,326 combos, every terminal a scalar times one of 2 base matrices; chip EV: "
        "all-in calls at the exact equity, "
        "flops seen with chips behind at 100% realisation). Each solve runs in its own process "
        "(its peak memory, the equity table included), to 0.01 bb per hand, checked every 5 "
        "iterations; the check is the independent best response on the 169-class game.", "",
        "| algorithm | iterations | seconds | exploitability (bb) | class-game check (bb) "
        "| SB's value (bb) | peak memory |", "|---|---|---|---|---|---|---|",
        *[f"| {r['algorithm']} | {r['iterations']} | {r['seconds']:.1f} | "
          f"{r['exploitability_bb']:.5f} | {r['check_bb']:.5f} | {r['value_bb']:+.4f} | "
          f"{r['peak_mb']:.0f} MB |" for r in rows], "",
        "At the root the small blind plays these classes with frequency >= 0.5 "
        f"({first['algorithm']}): "
        + ", ".join(f"{a} {n}" for a, n in first["root"].items()) + ".", "",
        "![the small blind at the root](preflop_100bb_root.png)", "",
        "![the big blind facing the open](preflop_100bb_vs_open.png)", ""]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reuse", action="store_true", help="read the cached table, do not rebuild")
    ap.add_argument("--stacks", default="1:20:0.05")
    ap.add_argument("--tree-only", action="store_true",
                    help="rerun only the 100 bb tree and replace its section of --out")
    ap.add_argument("--out", default=str(RESULTS / "preflop.md"))
    args = ap.parse_args()
    if args.tree_only:
        out = Path(args.out)
        head = out.read_text().split("## The 100 bb preflop tree")[0]
        section = tree_section()
        rerun = (f"(This section rerun by `python bench/bench_preflop.py --tree-only`: code "
                 f"{code_version(Path('.'))}; load average {LOAD_AT_START:.1f} at the start, "
                 f"{os.getloadavg()[0]:.1f} at the end.)")
        text = head + "\n".join([*section[:2], rerun, "", *section[2:]])
        write_atomically(out, text)
        print(text)
        return
    if args.reuse:
        started = time.perf_counter()
        table = equity_table()
        build = f"read from the cache in {time.perf_counter() - started:.1f} s (not rebuilt)"
    else:
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            table = equity_table(path=Path(tmp) / "equity.npz")
            seconds = time.perf_counter() - started
        build = (f"built from scratch in {seconds:.0f} s on {os.cpu_count()} cores "
                 "(compile included), 134,459 board classes")
    game = class_game(table)
    started = time.perf_counter()
    result = thresholds(game, parse_stacks(args.stacks))
    solve_seconds = time.perf_counter() - started
    draw_threshold_chart(result, RESULTS / "preflop_pushfold.png")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worst = max(s.exploitability_bb for s in result.solutions)
    text = "\n".join([
        "# Preflop: exact all-in equities and the heads-up push/fold equilibrium", "",
        f"`python bench/bench_preflop.py{' --reuse' if args.reuse else ''}`. Code "
        f"{code_version(Path('.'))}; {library_versions()}; {platform.machine()}, "
        f"{os.cpu_count()} cores; peak memory {peak_mb:.0f} MB; load average "
        f"{LOAD_AT_START:.1f} at the start, {os.getloadavg()[0]:.1f} at the end (above 2 the "
        "cores were shared with other jobs and the times are longer than on a quiet machine).",
        "",
        "## The equity table", "",
        f"Wins and ties of every pair of the 1,326 combos over all 1,712,304 boards: {build}. "
        f"Class equities from it: AA vs KK {class_equity(table, 'AA', 'KK'):.4f}, AKs vs QQ "
        f"{class_equity(table, 'AKs', 'QQ'):.4f}, AKo vs 22 {class_equity(table, 'AKo', '22'):.4f} "
        "(the usual printed values: 81.9%, 46.0%, 47.4%).", "",
        "## Push/fold thresholds", "",
        f"{len(result.stacks)} stacks ({args.stacks} bb, small blind 0.5, big blind 1, no ante), "
        f"each solved exactly by two linear programs: {solve_seconds:.1f} s in all; the worst "
        f"exploitability over the stacks {worst:.1e} bb.", "",
        "| cell | HoldemResources | pokerzoo |", "|---|---|---|",
        f"| pusher T3s | 7.7 bb | {result.push_threshold_bb['T3s']} bb |",
        f"| caller Q2o | 5.6 bb | {result.call_threshold_bb['Q2o']} bb |", "",
        "Each cell is the largest stack (bb, before posting) at which the class is played with "
        "frequency >= 0.5 (`-`: never in the range; a star: it is not played at some smaller "
        "stacks, listed below). Rows: the first card; above the diagonal suited, below offsuit.",
        "", "### Small blind: push", "", grid(result.push_threshold_bb, result.push_gaps), "",
        "### Big blind: call", "", grid(result.call_threshold_bb, result.call_gaps), "",
        "### Gaps (stacks where a class is not pushed, below its threshold)", "",
        *[f"- {name}: " + ", ".join(f"{a:g}-{b:g}" if a != b else f"{a:g}" for a, b in spans)
          for name, spans in result.push_gaps.items()],
        *[f"- {name} (call): " + ", ".join(f"{a:g}-{b:g}" for a, b in spans)
          for name, spans in result.call_gaps.items()],
        "", "Short gaps next to a threshold are stacks where the class mixes with frequency "
        "below 0.5; the long ones (63s, 53s, 43s) are the gaps HoldemResources' chart shows.",
        "", "![push/fold thresholds](preflop_pushfold.png)", "", *tree_section()])
    write_atomically(Path(args.out), text)
    print(text)


if __name__ == "__main__":
    main()
