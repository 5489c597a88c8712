"""What ``solve.py`` shares: its flags, the progress bar, the JSON report, the small-game path.

``solve.py --game kuhn_poker|leduc_holdem`` solves a whole small game on the public engine
(``pokerzoo.public.solve_game``). The hold'em spot form (``solve.py SPOT.toml``) extends the
same parser (``build_parser``) and reuses ``add_solve_flags``, ``solver_params``,
``progress_bar`` and ``write_report``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from pokerzoo.atomic import write_atomically
from pokerzoo.errors import ConfigError
from pokerzoo.public.engine.backend import BACKENDS
from pokerzoo.runs.cli import add_debug_flag, count_arg, parse_assignments
from pokerzoo.runs.shipped import resolve_shipped, shipped_names
from pokerzoo.schedule import ALGORITHMS

SMALL_GAMES = ("kuhn_poker", "leduc_holdem")
"""The games ``--game`` solves whole (heads-up; their dense public trees are small)."""


SOLVE_ALGORITHMS = ("postflop", *(a for a in ALGORITHMS if a != "postflop"))
"""The schedules ``--algorithm`` offers, the default first."""


def _positive_float(flag: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"{flag} must be a number > 0, got {text!r}")
        return value

    return parse


def add_solve_flags(parser: argparse.ArgumentParser) -> None:
    """The flags every solve shares: budget, target, algorithm, storage, memory, output."""
    parser.add_argument("--iterations", type=count_arg("--iterations", 1), default=1000,
                        help="the most iterations to run (default 1000)")
    parser.add_argument("--exploitability", type=_positive_float("--exploitability"),
                        default=None, metavar="PCT",
                        help="stop once the exploitability is at most PCT %% of the starting "
                             "pot (checked every --check-every iterations)")
    parser.add_argument("--check-every", type=count_arg("--check-every", 1), default=10,
                        help="iterations between exploitability checks (default 10)")
    parser.add_argument("--algorithm", choices=SOLVE_ALGORITHMS, default="postflop",
                        help="postflop (postflop-solver's DCFR schedule, default), dcfr "
                             "(alpha 1.5, beta 0, gamma 2), cfr+, cfr, linear or pcfr+ "
                             "(predictive CFR+; f32 storage)")
    parser.add_argument("--restart-limit", type=count_arg("--restart-limit", 0), default=0,
                        metavar="I", help="postflop only: the average restarts at the powers "
                                          "of 4 up to iteration I (default 0: at all of them)")
    parser.add_argument("--storage", choices=("f32", "compressed"), default="f32",
                        help="regrets and strategy sums in float32 (default) or 16 bits")
    parser.add_argument("--max-memory-gb", type=_positive_float("--max-memory-gb"),
                        default=8.0, help="refuse a solve estimated to need more (default 8)")
    parser.add_argument("--threads", type=count_arg("--threads", 1), default=None,
                        help="threads sweeping the subtrees below the first chance cards at "
                             f"once (default: the cores this process may use, here "
                             f"{default_threads()}; --threads 1 for one; the results are the "
                             "same bits on any number)")
    parser.add_argument("--backend", choices=BACKENDS, default="numba",
                        help="what runs the passes: numba (the compiled sweep, default) or "
                             "torch (batched tensor ops, the torch extra: f32 storage, no "
                             "locks, one solver thread)")
    parser.add_argument("--device", default="cpu",
                        help="the torch backend's device: cpu (default), cuda or cuda:N")
    parser.add_argument("--json", default=None, metavar="OUT.json",
                        help="write the results as JSON to this file")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_debug_flag(parser)


def default_threads() -> int:
    """The cores this process may run on (its CPU affinity, as postflop-solver counts them)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity call on this platform
        return max(1, os.cpu_count() or 1)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Solve a small game (or, with the spot form, a hold'em spot) on the "
                    "public-state engine: an equilibrium, its value and exploitability.",
    )
    parser.add_argument("spot", nargs="?", default=None, metavar="SPOT.toml",
                        help="a hold'em spot to solve (see configs/spots/), or a preflop tree "
                             "(a [preflop] table, e.g. configs/preflop_100bb.toml). A path "
                             "that does not exist names a file shipped with pokerzoo, which "
                             "an installed wheel holds too: by its path in the repository "
                             "(configs/spots/nlh_limped_river.toml) or its name "
                             "(nlh_limped_river, preflop_100bb); shipped spots: "
                             + ", ".join(shipped_names()))
    parser.add_argument("--game", choices=SMALL_GAMES, default=None,
                        help="solve this whole game")
    parser.add_argument("--game-param", action="append", default=None, metavar="KEY=VALUE",
                        help="a parameter of --game (repeatable), e.g. num_ranks=5")
    parser.add_argument("--chart", default=None, metavar="DIR",
                        help="spot: draw 13x13 strategy charts (PNG) into the folder DIR, at the "
                             "root and each --line, named after the line (root.png, "
                             "check_bet_94.png); --pushfold: the chart (PNG path) of the "
                             "frequencies at --stack or of the thresholds of --stacks")
    parser.add_argument("--line", action="append", default=None, metavar="ACTIONS",
                        help="spot: a line of comma-separated actions, e.g. 'check,bet 94' "
                             "(repeatable): its strategy goes to the JSON and the charts")
    parser.add_argument("--save", default=None, metavar="FILE",
                        help="spot: write the solved spot to FILE")
    parser.add_argument("--pushfold", action="store_true",
                        help="solve the heads-up push/fold game (SB shoves or folds, BB calls "
                             "or folds) exactly, at --stack or every stack of --stacks")
    parser.add_argument("--stack", type=float, default=None, metavar="BB",
                        help="--pushfold: the effective stack in big blinds, before posting")
    parser.add_argument("--stacks", default=None, metavar="FIRST:LAST:STEP",
                        help="--pushfold: every stack of a range, e.g. 1:20:0.05, and each "
                             "class's largest stack pushed and called (the threshold table)")
    parser.add_argument("--ante", type=float, default=0.0, metavar="BB",
                        help="--pushfold: each player's ante in big blinds (default 0)")
    parser.add_argument("--target-bb", type=_positive_float("--target-bb"), default=None,
                        metavar="BB", help="preflop file: stop once the exploitability is at "
                                           "most BB big blinds per hand (default 0.01)")
    parser.add_argument("--example", action="store_true",
                        help="print a commented spot file (its keys, the size forms, a node "
                             "lock; docs/spot_format.md has them all) and exit")
    add_solve_flags(parser)
    return parser


def solver_params(args: argparse.Namespace) -> dict[str, Any]:
    """``SolverConfig`` fields from the shared flags."""
    return {"algorithm": args.algorithm, "storage": args.storage,
            "restart_limit": args.restart_limit,
            "max_memory_bytes": int(args.max_memory_gb * 2**30),
            "backend": args.backend, "device": args.device,
            # The torch backend runs one solver thread (torch's own threads run its ops).
            "threads": args.threads if args.threads is not None
            else 1 if args.backend == "torch" else default_threads()}


def say(message: str, quiet: bool) -> None:
    """A note on what the solve is doing now, on stderr (between tqdm bars), unless quiet."""
    if not quiet:
        from tqdm.auto import tqdm

        tqdm.write(message, file=sys.stderr)


COMPILE_NOTE = ("compiling the solver's kernels (first run of this install only, cached on "
                "disk after; about half a minute for a river spot, a minute or more for a "
                "flop spot on 2 cores, its three large kernels in parallel processes)")


class CompileClock:
    """Seconds numba spends compiling (disk-cache misses only) while it is installed, and a
    note the first time a compile starts, so a frozen bar is explained and compile time is
    reported apart from solve time."""

    def __init__(self, on_first_compile: Callable[[], None] | None = None) -> None:
        self.seconds = 0.0
        self.compiles = 0
        self._on_first = on_first_compile
        self._local = threading.local()  # nested compiles (callees) count once, per thread
        self._lock = threading.Lock()

    def _depth(self) -> int:
        return getattr(self._local, "depth", 0)

    def on_start(self) -> None:
        if self._depth() == 0:
            self._local.start = time.perf_counter()
            with self._lock:
                first = self.compiles == 0
                self.compiles += 1
            if first and self._on_first is not None:
                self._on_first()
        self._local.depth = self._depth() + 1

    def on_end(self) -> None:
        self._local.depth = self._depth() - 1
        if self._depth() == 0:
            with self._lock:
                self.seconds += time.perf_counter() - self._local.start

    @contextmanager
    def installed(self) -> Iterator[CompileClock]:
        """Count numba's compiles inside the ``with`` block."""
        from numba.core import event

        clock = self

        class _Listener(event.Listener):
            def on_start(self, ev: event.Event) -> None:
                clock.on_start()

            def on_end(self, ev: event.Event) -> None:
                clock.on_end()

        with event.install_listener("numba:compile", _Listener()):
            yield self


@contextmanager
def progress_bar(total: int, quiet: bool) -> Iterator[Callable[[int, float], None]]:
    """A ``progress(iterations, pct)`` callback drawing a tqdm bar with the exploitability."""
    if quiet:
        yield lambda iterations, pct: None
        return
    from tqdm.auto import tqdm

    bars: list[Any] = []  # drawn at the first report, after the notes on building/compiling

    def update(iterations: int, pct: float) -> None:
        if not bars:
            bars.append(tqdm(total=total, unit="it", desc="solving"))
        bars[0].update(iterations - bars[0].n)
        bars[0].set_postfix_str(f"exploitability {pct:.4f}% pot")

    try:
        yield update
    finally:
        for bar in bars:
            bar.close()


def write_report(path: str | None, report: dict[str, Any]) -> None:
    """Write ``report`` as JSON to ``path`` (atomically), if a path was given."""
    if path is not None:
        write_atomically(path, json.dumps(report, indent=2, allow_nan=False) + "\n",
                         what="JSON report")


def solve_small_game(args: argparse.Namespace) -> dict[str, Any]:
    """Solve ``args.game`` and return the JSON report."""
    from pokerzoo.public.engine.small_games import solve_game

    with progress_bar(args.iterations, args.quiet) as progress:
        solution = solve_game(
            args.game, iterations=args.iterations, exploitability_pct=args.exploitability,
            check_every=args.check_every, progress=progress,
            game_params=parse_assignments(args.game_param, "--game-param"),
            **solver_params(args),
        )
    return solution.to_json()


def summary_lines(report: dict[str, Any]) -> list[str]:
    """The printed summary of a small-game report."""
    values = ", ".join(f"{v:+.6f}" for v in report["game_value"])
    return [
        f"{report['game']}: game value per player {values} chips",
        f"exploitability {report['exploitability']:.3g} chips "
        f"({report['exploitability_pct_pot']:.4f}% of the starting pot) after "
        f"{report['iterations']} iterations in {report['seconds']:.1f} s",
    ]


def solve_push_fold(args: argparse.Namespace) -> int:
    """``--pushfold``: one stack's equilibrium or the threshold table, JSON and a chart."""
    import time

    from pokerzoo.public.spots.preflop_equity import equity_table
    from pokerzoo.public.spots.pushfold import (
        check_stack,
        class_game,
        draw_threshold_chart,
        parse_stacks,
        solve_pushfold,
        thresholds,
    )

    if not args.pushfold:
        raise ConfigError("--stack and --stacks go with --pushfold")
    if args.spot is not None or args.game is not None or args.line or args.save:
        raise ConfigError("--pushfold solves its own game: no spot file, --game, --line or "
                          "--save")
    if (args.stack is None) == (args.stacks is None):
        raise ConfigError("--pushfold needs one of --stack BB (e.g. 10) or --stacks "
                          "FIRST:LAST:STEP (e.g. 1:20:0.05)")
    if args.chart is not None:
        from pokerzoo.atomic import check_target

        check_target(args.chart, "push/fold chart")
    # Every input checked before the table is read or built (two minutes the first time).
    stacks = None if args.stacks is None else parse_stacks(args.stacks)
    for stack in [args.stack] if stacks is None else [stacks[0], stacks[-1]]:
        check_stack(stack, args.ante)
    started = time.perf_counter()
    game = class_game(equity_table(progress=not args.quiet))
    if args.stack is not None:
        solution = solve_pushfold(game, args.stack, args.ante)
        report = solution.to_json()
        if args.chart is not None:
            from pokerzoo.public.spots.class_chart import draw_class_chart

            draw_class_chart([("small blind: push", solution.sb_push.reshape(13, 13)),
                              ("big blind: call", solution.bb_call.reshape(13, 13))],
                             args.chart, f"Heads-up push/fold at {args.stack:g} bb",
                             what="push/fold chart")
        write_report(args.json, report)
        pushed = sum(f >= 0.5 for f in solution.sb_push)
        called = sum(f >= 0.5 for f in solution.bb_call)
        print(f"push/fold at {args.stack:g} bb (ante {args.ante:g}): SB pushes {pushed} of "
              f"169 classes, BB calls {called}; SB's value {solution.game_value_bb:+.6f} bb "
              f"per hand; exploitability {solution.exploitability_bb:.2e} bb")
        return 0
    assert stacks is not None
    table = thresholds(game, stacks, args.ante, progress=not args.quiet)
    report = table.to_json()
    report["seconds"] = time.perf_counter() - started
    if args.chart is not None:
        draw_threshold_chart(table, args.chart, args.ante)
    write_report(args.json, report)
    print(f"push/fold at {len(table.stacks)} stacks ({args.stacks} bb, ante {args.ante:g}) in "
          f"{report['seconds']:.1f} s; largest exploitability "
          f"{report['max_exploitability_bb']:.2e} bb; e.g. T3s pushed to "
          f"{table.push_threshold_bb['T3s']} bb, Q2o called to "
          f"{table.call_threshold_bb['Q2o']} bb")
    return 0


def _solved(args: argparse.Namespace, solve: Callable[..., dict[str, Any]],
            summary: Callable[[dict[str, Any]], list[str]]) -> int:
    """Run a spot-file solve under the progress bar, write its JSON, print its summary."""
    with progress_bar(args.iterations, args.quiet) as progress:
        report = solve(args, solver_params(args), progress)
    write_report(args.json, report)
    for line in summary(report):
        print(line)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.spot is not None:
        args.spot = resolve_shipped(args.spot)
    if args.example:
        from pokerzoo.public.spots.spot_format import EXAMPLE_SPOT

        print(EXAMPLE_SPOT, end="")
        return 0
    if args.spot is not None:
        from pokerzoo.public.spots.preflop import is_preflop_file

        if is_preflop_file(args.spot):
            from pokerzoo.runs.solve_preflop import preflop_summary_lines, solve_preflop_report

            return _solved(args, solve_preflop_report, preflop_summary_lines)
    if args.target_bb is not None:
        raise ConfigError("--target-bb goes with a preflop file (solve.py PREFLOP.toml)")
    if args.pushfold or args.stack is not None or args.stacks is not None:
        return solve_push_fold(args)
    from pokerzoo.runs.solve_spot import check_spot_args, solve_spot_report, spot_summary_lines

    check_spot_args(args)
    if args.save is not None and args.backend == "torch" and args.device != "cpu":
        raise ConfigError(f"--save writes the storage from the host; on --device {args.device} "
                          "it stays on the GPU: save a --device cpu solve")
    if args.spot is not None:
        return _solved(args, solve_spot_report, spot_summary_lines)
    if args.game is None:
        raise ConfigError(f"say what to solve: a spot file, or --game with one of "
                          f"{list(SMALL_GAMES)}")
    report = solve_small_game(args)
    write_report(args.json, report)
    for line in summary_lines(report):
        print(line)
    return 0
