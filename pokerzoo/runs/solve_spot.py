"""The hold'em spot form of ``solve.py``: ``solve.py SPOT.toml --exploitability 0.3 --json OUT``.

The spot is a TOML file of ``pokerzoo.public.holdem_spot.HoldemSpot`` fields (see
``configs/spots/pio_3betpotfast.toml``); the shared flags of ``pokerzoo.runs.solve`` set the
budget, target and solver; ``--chart DIR`` draws the 13 x 13 strategy of the acting player at
the root and at each ``--line`` (comma-separated action labels, e.g. ``"check,bet 94"``) in
the chart style of ``evaluate.py --strategy-chart``, each file named after its line
(``root.png``, ``check_bet_94.png``);
``--save FILE`` writes the solved spot (``SpotSolution.load`` reads it back). The spot file's
``[locks]`` table locks decisions by line and hand (``pokerzoo.public.spot_locks``;
``docs/spot_format.md``).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from pokerzoo.atomic import check_target
from pokerzoo.errors import ConfigError
from pokerzoo.public.spot_locks import parse_line, spot_file_locks


def chart_targets(folder: str | Path, lines: list[list[str]]) -> list[Path]:
    """The chart files of ``solve.py --chart FOLDER``: the root's, then one per line, each
    named after its line (``root.png``, ``check_bet_94.png``); the folder is made if missing.

    Raises:
        ConfigError: ``folder`` is an existing file (or anything but a folder), or a chart's
            path is a link or anything but a new path or a regular file.
    """
    from pokerzoo.public.class_chart import line_file_name

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


def solve_spot_report(args: argparse.Namespace, params: dict[str, Any],
                      progress: Any) -> dict[str, Any]:
    """Solve ``args.spot`` and return the JSON report (charts and the save as asked)."""
    from pokerzoo.public.holdem_spot import HoldemSpot, solve_spot

    spot = HoldemSpot.from_toml(args.spot)
    lines = [parse_line(text) for text in (args.line or [])]
    # A bad chart folder or target is refused before the solve, not after it.
    chart_paths = None if args.chart is None else chart_targets(args.chart, lines)
    solution = solve_spot(spot, exploitability_pct=args.exploitability,
                          max_iterations=args.iterations, check_every=args.check_every,
                          progress=progress, locks=spot_file_locks(args.spot), **params)
    nodes = [solution.node(line) for line in lines]  # unknown lines fail before any output
    report = solution.summary()
    report["spot"] = str(args.spot)
    report["lines"] = {
        ",".join(line) or "root": solution.action_frequencies(node)
        for line, node in zip(lines, nodes)
    }
    if chart_paths is not None:
        report["charts"] = [str(solution.chart(target, node))
                            for target, node in zip(chart_paths, [0, *nodes])]
    if args.save is not None:
        solution.save(args.save)
        report["saved"] = str(args.save)
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
        f"{report['iterations']} iterations in {report['seconds']:.1f} s",
    ]


def check_spot_args(args: argparse.Namespace) -> None:
    """Refuse flags of one form used with the other."""
    if args.spot is not None and args.game is not None:
        raise ConfigError("give a spot file or --game, not both")
    if args.spot is None and (args.chart or args.line or args.save):
        raise ConfigError("--chart, --line and --save need a spot file (solve.py SPOT.toml)")
