"""The torch backend of the public engine (``pokerzoo.public.engine.torch_backend``), timed
beside the compiled (numba) sweep in the same run.

The numba engine walks the tree depth first, one node at a time; the torch backend processes
every node of one depth together in batched tensor ops, which is what a GPU wants (its module
docstring says how: strategies, reaches down, terminal values in chunks, values up, updates).

The script first checks the backend against the numba engine on small river, turn and flop
spots, pass by pass from the engine's state (float64 arithmetic: see :func:`check`), then times
CFR+ iterations of ``--spot`` (default PioSOLVER's 3betpotFAST flop) on ``--device`` beside the
numba engine's seconds per iteration (2 threads, and every core) measured in the same run, and
writes ``sweep_torch.md`` under ``--out``.

    python bench/bench_sweep_torch.py [--device cuda] [--spot configs/spots/pio_3betpotfast.toml]
        [--iterations 10] [--target-pct 0.5] [--out bench/results/]

``--target-pct`` also solves the spot on the torch backend through ``PublicSolver``
(postflop-solver's schedule, float64) to that exploitability, checked every 10 iterations.

Measured on one H200 (``bench/results/sweep_torch.md``, the form this script timed before it
moved into the package, float32 arithmetic): 0.176 s per flop iteration against 1.917 s for the
numba engine on 2 CPU threads of that machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pokerzoo.atomic import write_atomically  # noqa: E402
from pokerzoo.errors import ConfigError  # noqa: E402
from pokerzoo.public.engine.solver import PublicSolver, SolverConfig, discounts  # noqa: E402
from pokerzoo.public.engine.sweep_kernel import MODE_AVERAGE, MODE_CFR  # noqa: E402
from pokerzoo.public.engine.torch_backend import TorchBackend, player_storage  # noqa: E402
from pokerzoo.public.engine.tree import PublicTree  # noqa: E402
from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree  # noqa: E402
from pokerzoo.schedule import NO_UPDATE  # noqa: E402

SPOT = ROOT / "configs" / "spots" / "pio_3betpotfast.toml"


class TorchIterations:
    """CFR iterations of a ``TorchBackend`` with a chosen arithmetic ``dtype`` (``PublicSolver``
    runs it in float64): the schedule's discounts, player 0's pass then player 1's."""

    def __init__(self, tree: PublicTree, device: str, dtype: torch.dtype, chunk: int,
                 algorithm: str = "cfr+") -> None:
        self.config = SolverConfig(algorithm=algorithm, backend="torch", device=device)
        self.backend = TorchBackend(tree, self.config, dtype=dtype, chunk=chunk)
        self.iterations = 0

    def iterate(self, n: int = 1) -> None:
        for _ in range(n):
            self.iterations += 1
            step = discounts(self.config, self.iterations)
            for player in (0, 1):
                self.backend.run(MODE_CFR, player, step)


def check(tree: PublicTree, iterations: int = 3, device: str = "cpu",
          algorithm: str = "cfr+") -> dict[str, float]:
    """The torch backend against the numba engine, pass by pass: for each of ``iterations``
    iterations of the engine, the backend starts each player's pass from the engine's state
    before that pass, and the largest difference of that player's regrets and sums after it
    (relative to the largest magnitude) is kept; then both compute the game value of the
    engine's average strategy.

    Free-running iterates are not compared: where a hand's actions are worth the same (or the
    opponent's reach is 0) its regret increments are rounding noise in both, which regret
    matching turns into different strategies, so the runs drift apart by more than rounding
    while each is right."""
    ours = PublicSolver(tree, algorithm=algorithm, threads=1)
    config = SolverConfig(algorithm=algorithm, backend="torch", device=device)
    backend = TorchBackend(tree, config)
    entries = [player_storage(tree, p) for p in (0, 1)]
    diff = 0.0
    for _ in range(iterations):
        regrets, sums = ours.regrets.copy(), ours.sums.copy()
        ours.iterate(1)
        step = discounts(ours.config, ours.iterations)
        for p in (0, 1):
            if p == 1:  # player 1's pass sees player 0's regrets and sums after its pass
                regrets[entries[0]], sums[entries[0]] = (ours.regrets[entries[0]],
                                                         ours.sums[entries[0]])
            backend.load_storage(regrets, sums)
            backend.run(MODE_CFR, p, step)
            for got, want in ((backend.regrets(), ours.regrets), (backend.sums(), ours.sums)):
                scale = max(float(np.abs(want[entries[p]]).max(initial=0.0)), 1e-300)
                diff = max(diff, float(np.abs(got - want)[entries[p]].max(initial=0.0)) / scale)
    backend.load_storage(ours.regrets, ours.sums)
    average = backend.run(MODE_AVERAGE, 0, NO_UPDATE)[0]
    return {"step_diff": diff, "engine_value": ours.game_value()[0],
            "torch_value": float(tree.initial_reach[0] @ average) / tree.pair_mass}


def small_spots() -> list[tuple[str, HoldemSpot]]:
    """A river spot with the 3betpotFAST ranges, a turn spot and a flop spot with narrow ranges
    (suit isomorphism on both; the flop's all-ins deal the turn and river without betting)."""
    base = HoldemSpot.from_toml(SPOT).to_dict()
    base["river_sizes"] = ("70%", "45%")
    river = dict(base, board="QsJh2h7c3d", turn_sizes=("", ""), flop_sizes=("", ""))
    turn = dict(base, board="QsJs2h7h", oop_range="AA,KK,QQ,AK,KQs,JTs,T9s,22",
                ip_range="QQ,JJ,AQ,KJs,QTs,33,98s", turn_sizes=("55%", ""),
                river_sizes=("70%", ""))
    flop = dict(base, board="QsJh2h", effective_stack=120, oop_range="AA,KK,QQ,AK,JTs,22",
                ip_range="QQ,JJ,AQ,KJs,33,98s", flop_sizes=("50%,a", "a"),
                turn_sizes=("a", ""), river_sizes=("a", ""))
    return [(name, HoldemSpot.from_dict(d)) for name, d in
            (("river", river), ("turn", turn), ("flop", flop))]


def seconds_per_iteration(step: Any, iterations: int, sync: Any = None) -> float:
    step(1)  # warm-up: allocation, compilation
    if sync is not None:
        sync()
    start = time.perf_counter()
    step(iterations)
    if sync is not None:
        sync()
    return (time.perf_counter() - start) / iterations


def solve_to_target(tree: PublicTree, device: str, target_pct: float, max_iterations: int,
                    sync: Any) -> list[str]:
    """Solve ``tree`` on the torch backend through ``PublicSolver`` (postflop-solver's schedule,
    float64 arithmetic) to ``target_pct`` % of the pot, checked every 10 iterations: the
    results section (iterations, seconds, exploitability at each check)."""
    solver = PublicSolver(tree, algorithm="postflop", backend="torch", device=device,
                          max_memory_bytes=1 << 40)
    checks: list[tuple[int, float, float]] = []
    start = time.perf_counter()

    def progress(iterations: int, pct: float) -> None:
        if sync is not None:
            sync()
        checks.append((iterations, pct, time.perf_counter() - start))
        print(checks[-1], flush=True)

    pct = solver.solve(max_iterations=max_iterations, target_pct=target_pct, check_every=10,
                       progress=progress)
    seconds = time.perf_counter() - start
    lines = ["", f"## To {target_pct}% of the pot on the torch backend ({device}, float64)", "",
             f"postflop schedule, exploitability checked every 10 iterations (its best "
             f"responses in the seconds): {solver.iterations} iterations, {seconds:.1f} s, "
             f"{pct:.4f}% of the pot at the end.", "",
             "| iterations | % of the pot | seconds |", "|---|---|---|"]
    return lines + [f"| {i} | {p:.4f} | {s:.1f} |" for i, p, s in checks] + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--spot", default=str(SPOT), help="spot TOML to time")
    parser.add_argument("--iterations", type=int, default=10, help="timed torch iterations")
    parser.add_argument("--numba-iterations", type=int, default=2)
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    parser.add_argument("--chunk", type=int, default=16384, help="terminals per batch")
    parser.add_argument("--torch-threads", type=int, default=0,
                        help="torch CPU threads (0: torch's default; 1 on a busy machine)")
    parser.add_argument("--target-pct", type=float, default=0.0,
                        help="also solve with postflop-solver's schedule on the torch backend "
                             "(PublicSolver, float64) until this %% of the pot, exploitability "
                             "checked every 10 iterations (0: not)")
    parser.add_argument("--max-iterations", type=int, default=200,
                        help="the most iterations of the --target-pct solve")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()
    if args.torch_threads > 0:
        torch.set_num_threads(args.torch_threads)
    if args.iterations < 1 or args.numba_iterations < 1:
        raise ConfigError("--iterations and --numba-iterations must be at least 1")
    dtype = getattr(torch, args.dtype)
    lines = ["# The torch backend of the CFR+ sweep (bench/bench_sweep_torch.py)", "",
             f"Command: `python bench/bench_sweep_torch.py {' '.join(sys.argv[1:])}`", ""]
    gpu = torch.cuda.get_device_name(0) if args.device.startswith("cuda") else "none"
    lines += [f"Machine: {platform.processor() or platform.machine()}, "
              f"{len(os.sched_getaffinity(0))} cores usable, "
              f"GPU {gpu}, torch {torch.__version__}.", "", "## Check against the engine", "",
              "For each of 3 iterations of the engine, the torch backend (float64 arithmetic) "
              "starts each player's pass from the engine's state before that pass: the largest "
              "relative difference of that player's regrets and sums after it, then the game "
              "value of the engine's average strategy computed by both.", "",
              "| spot | nodes | step diff (relative) | engine value | torch value |",
              "|---|---|---|---|---|"]
    for name, spot in small_spots():
        tree = build_spot_tree(spot)
        res = check(tree, device=args.device)
        print(name, res, flush=True)
        lines.append(f"| {name} {spot.board} | {tree.num_nodes:,} | {res['step_diff']:.1e} | "
                     f"{res['engine_value']:.9f} | {res['torch_value']:.9f} |")
    spot = HoldemSpot.from_toml(args.spot)
    start = time.perf_counter()
    tree = build_spot_tree(spot)
    build_s = time.perf_counter() - start
    summary = tree.summary()
    print(summary, f"built in {build_s:.1f} s", flush=True)
    timings = []
    for threads in sorted({2, len(os.sched_getaffinity(0))}):
        engine = PublicSolver(tree, algorithm="cfr+", threads=threads)
        sec = seconds_per_iteration(engine.iterate, args.numba_iterations)
        timings.append((f"numba engine, {threads} threads", sec, "-"))
        print(timings[-1], flush=True)
        del engine
    start = time.perf_counter()
    sweep = TorchIterations(tree, args.device, dtype, args.chunk)
    setup_s = time.perf_counter() - start
    cuda = args.device.startswith("cuda")
    sync = torch.cuda.synchronize if cuda else None
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    sec = seconds_per_iteration(sweep.iterate, args.iterations, sync)
    memory = f"{torch.cuda.max_memory_allocated() / 2**30:.2f} GiB" if cuda else "-"
    timings.append((f"torch {args.dtype} on {args.device}", sec, memory))
    print(timings[-1], flush=True)
    lines += ["", f"## Seconds per CFR+ iteration: {spot.board} ({Path(args.spot).name})", "",
              f"Tree: {summary['nodes']:,} nodes ({summary['decision']:,} decisions), hands "
              f"{summary['hands_0']} / {summary['hands_1']}, built in {build_s:.1f} s; torch "
              f"set-up {setup_s:.1f} s; {args.iterations} torch / {args.numba_iterations} numba "
              "iterations timed after one warm-up each.", "",
              "| sweep | s / iteration | peak GPU memory |", "|---|---|---|"]
    lines += [f"| {name} | {s:.3f} | {m} |" for name, s, m in timings]
    two = timings[0][1]
    lines += ["", f"A batched torch sweep gives {sec:.3f} s/iteration on {gpu if cuda else 'CPU'} "
              f"vs {two:.3f} s for the numba engine on 2 threads of this machine "
              f"({two / sec:.1f}x).", ""]
    del sweep
    if args.target_pct > 0:
        lines += solve_to_target(tree, args.device, args.target_pct, args.max_iterations, sync)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_atomically(out / "sweep_torch.md", "\n".join(lines), what="results file")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
