"""The hold'em spot form of ``solve.py``: ``solve.py SPOT.toml --exploitability 0.3 --json OUT``.

The spot is a TOML file of ``pokerzoo.public.spots.holdem_spot.HoldemSpot`` fields (see
``configs/spots/pio_3betpotfast.toml``); the shared flags of ``pokerzoo.runs.solve`` set the
budget, target and solver; ``--chart DIR`` draws the 13 x 13 strategy of the acting player at
the root and at each ``--line`` (comma-separated action labels, e.g. ``"check,bet 94"``) in
the chart style of ``evaluate.py --strategy-chart``, each file named after its line
(``root.png``, ``check_bet_94.png``);
``--save FILE`` writes the solved spot (``SpotSolution.load`` reads it back). The spot file's
``[locks]`` table locks decisions by line and hand (``pokerzoo.public.spots.spot_locks``;
``docs/spot_format.md``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.atomic import check_target
from pokerzoo.errors import ConfigError
from pokerzoo.public.spots.spot_locks import parse_line


def chart_targets(folder: str | Path, lines: list[list[str]]) -> list[Path]:
    """The chart files of ``solve.py --chart FOLDER``: the root's, then one per line, each
    named after its line (``root.png``, ``check_bet_94.png``); the folder is made if missing.

    Raises:
        ConfigError: ``folder`` is an existing file (or anything but a folder), or a chart's
            path is a link or anything but a new path or a regular file.
    """
    from pokerzoo.public.spots.class_chart import line_file_name

    where = Path(folder)
    if os.path.lexists(where) and not where.is_dir():
        raise ConfigError(f"--chart takes a folder (the charts go in it, named after their "
                          f"lines, e.g. root.png); {str(folder)!r} is not a folder")
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(f"--chart: cannot make the folder {str(folder)!r}: "
                          f"{err.strerror}") from None
    targets = [where / line_file_name(line) for line in [[], *lines]]
    for target in targets:
        check_target(target, "strategy chart")
    return targets


def _array_bytes(value: Any) -> int:
    """Bytes of the arrays in a nest of dicts, lists and tuples (what a checkpoint stores)."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, dict):
        return sum(_array_bytes(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_array_bytes(v) for v in value)
    return 0


def saved_bytes(solution: Any) -> int:
    """About the bytes ``SpotSolution.save`` writes: the tree's, the terminals' and the
    solver storage's arrays (the JSON around them is small)."""
    from pokerzoo.public.engine.results import _STORAGE

    solver = solution.solver
    terminals = solver.tree.terminals
    total = _array_bytes(solver.tree.state_dict())
    total += _array_bytes(terminals.state_dict()) if hasattr(terminals, "state_dict") else 0
    return total + sum(_array_bytes(getattr(solver, k, None)) for k in _STORAGE)


def format_bytes(count: int) -> str:
    """``1_280_000_000`` -> ``"1.28 GB"`` (decimal units, what file managers show)."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if count >= size:
            return f"{count / size:.2f} {unit}"
    return f"{count} bytes"


def solve_spot_report(args: argparse.Namespace, params: dict[str, Any],
                      progress: Any) -> dict[str, Any]:
    """Solve ``args.spot`` and return the JSON report (charts and the save as asked).

    The report's ``build_seconds`` (the tree and the solver's setup), ``compile_seconds``
    (numba compiling kernels missing from its disk cache: the first run only) and
    ``solve_seconds`` (iterations and exploitability checks) are apart; ``seconds`` is
    ``solve_seconds``, the figure comparable between runs, and ``wall_seconds`` all three.
    """
    from pokerzoo.public.spots.holdem_spot import HoldemSpot, solve_until, unsolved_spot
    from pokerzoo.public.engine.warm_start import compile_kernels_for
    from pokerzoo.runs.solve import COMPILE_NOTE, CompileClock, say

    spot = HoldemSpot.from_toml(args.spot)
    lines = [parse_line(text) for text in (args.line or [])]
    # A bad chart folder or target is refused before the solve, not after it.
    chart_paths = None if args.chart is None else chart_targets(args.chart, lines)
    clock = CompileClock(lambda: say(COMPILE_NOTE, args.quiet))
    start = time.perf_counter()
    with clock.installed():
        # A cold cache: the large kernels compile in parallel processes first, not one by one.
        compiled = compile_kernels_for(spot, progress=not args.quiet, **params)
        prior_compile = clock.seconds  # what finding the kernels' signatures compiled here
        parallel_compile = time.perf_counter() - start - prior_compile if compiled else 0.0
        start_build = time.perf_counter()
        say("building the tree", args.quiet)
        solution = unsolved_spot(spot, args.spot, **params)  # the spot file's [locks] too
        tree = solution.tree
        nodes = [solution.node(line) for line in lines]  # unknown lines fail before the solve
        build_compile = clock.seconds
        build_seconds = time.perf_counter() - start_build - (build_compile - prior_compile)
        say(f"solving: {tree.num_nodes:,} public nodes on {params.get('threads', 1)} "
            f"thread(s)", args.quiet)
        solve_until(solution, args.exploitability, args.iterations, None, args.check_every,
                    progress)
        solve_seconds = max(0.0, solution.seconds - (clock.seconds - build_compile))
        report = solution.summary()  # its equity and EV kernels compile on a first run too
    wall = time.perf_counter() - start
    report.update(spot=str(args.spot), seconds=solve_seconds, solve_seconds=solve_seconds,
                  build_seconds=build_seconds, compile_seconds=clock.seconds + parallel_compile,
                  wall_seconds=wall)
    report["lines"] = {
        ",".join(line) or "root": solution.action_frequencies(node)
        for line, node in zip(lines, nodes)
    }
    if chart_paths is not None:
        report["charts"] = [str(solution.chart(target, node))
                            for target, node in zip(chart_paths, [0, *nodes])]
    if args.save is not None:
        size = saved_bytes(solution)
        hint = ("" if params.get("storage") == "compressed"
                else "; --storage compressed stores the regrets and sums in 16 bits")
        # Always said, even with --quiet: a file this large should not appear without a word.
        print(f"writing the solved spot ({format_bytes(size)}) to {args.save}{hint}",
              file=sys.stderr)
        solution.save(args.save)
        report["saved"] = str(args.save)
        report["saved_bytes"] = size
    return report


def spot_summary_lines(report: dict[str, Any]) -> list[str]:
    """The printed summary of a spot report."""
    ev = report["root_ev"]
    eq = report["root_equity"]
    strategy = ", ".join(f"{a} {100 * f:.1f}%" for a, f in report["root_strategy"].items())
    return [
        f"{report['spot']}: EV OOP {ev[0]:.3f} / IP {ev[1]:.3f} chips, equity OOP "
        f"{100 * eq[0]:.3f}% / IP {100 * eq[1]:.3f}%",
        f"root (OOP): {strategy}",
        f"exploitability {report['exploitability_pct_pot']:.4f}% of the starting pot after "
        f"{report['iterations']} iterations in {report['seconds']:.1f} s (building "
        f"{report['build_seconds']:.1f} s, compiling {report['compile_seconds']:.1f} s)",
    ]


def check_spot_args(args: argparse.Namespace) -> None:
    """Refuse flags of one form used with the other."""
    if args.spot is not None and args.game is not None:
        raise ConfigError("give a spot file or --game, not both")
    if args.spot is None and (args.chart or args.line or args.save):
        raise ConfigError("--chart, --line and --save need a spot file (solve.py SPOT.toml)")
