"""``solve.py PREFLOP.toml``: a heads-up preflop tree (a file with a ``[preflop]`` table).

The tree, the postflop model and the sizes are :class:`pokerzoo.public.spots.preflop.PreflopSpot`'s
(``configs/preflop_100bb.toml`` is the shipped example). The solve stops at ``--target-bb``
(default 0.01 bb per hand; ``--exploitability PCT`` of the starting pot instead) or after
``--iterations``; the report holds the value, the engine's exploitability, an independent
check of it on the 169-class game, and the strategy per class at every decision (or at the
root and each ``--line``). ``--chart DIR`` draws each of those nodes' 13 x 13 charts.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pokerzoo.errors import ConfigError


def solve_preflop_report(args: argparse.Namespace, params: dict[str, Any],
                         progress: Any) -> dict[str, Any]:
    """Solve the preflop file ``args.spot`` and return the JSON report (charts as asked)."""
    from pokerzoo.public.spots.preflop import (
        PreflopSpot,
        class_best_response,
        class_payoffs,
        decision_lines,
        solution_class_strategies,
        solve_preflop,
    )
    from pokerzoo.public.spots.preflop_equity import equity_table
    from pokerzoo.runs.solve_spot import chart_targets

    if args.game is not None or args.pushfold or args.stack is not None or (
            args.stacks is not None):
        raise ConfigError("a preflop file is solved on its own: no --game, --pushfold, "
                          "--stack or --stacks")
    spot = PreflopSpot.from_toml(args.spot)
    known = decision_lines(spot)
    lines = [tuple(part.strip() for part in text.split(",") if part.strip())
             for text in (args.line or [])]
    for line in lines:
        if line not in known:
            shown = [", ".join(x) or "(root)" for x in known]
            raise ConfigError(f"--line {', '.join(line)!r} is not a decision of this tree; "
                              f"decisions: {shown[:12]}" + (" ..." if len(shown) > 12 else ""))
    chosen = [(), *lines]
    charts = None if args.chart is None else chart_targets(args.chart, [list(x) for x in lines])
    pot = sum(spot.contributions(()))
    if args.target_bb is not None and args.exploitability is not None:
        raise ConfigError("give --target-bb or --exploitability, not both")
    target = (args.target_bb if args.target_bb is not None else
              args.exploitability * pot / 100 if args.exploitability is not None else 0.01)
    if args.save is not None:
        from pokerzoo.atomic import check_target

        check_target(args.save, "saved preflop solve")
    # Everything above is checked before the table is read (or built: two minutes).
    table = equity_table(progress=not args.quiet)
    params = {k: v for k, v in params.items() if k != "threads"}  # no chance nodes to split
    solution = solve_preflop(spot, table, target_bb=target, max_iterations=args.iterations,
                             check_every=args.check_every, progress=progress, **params)
    report = solution.to_json(lines=None if not args.line else chosen)
    report["target_bb"] = target
    report["exploitability_pct_pot"] = 100 * report["exploitability_bb"] / pot
    try:
        _, br0, br1 = class_best_response(spot, class_payoffs(spot, table),
                                          solution_class_strategies(solution))
        report["class_check_exploitability_bb"] = (br0 + br1) / 2
    except ConfigError:  # ranges that weight a class's combos unevenly: no class game
        report["class_check_exploitability_bb"] = None
    if charts is not None:
        report["charts"] = [str(solution.chart(line, target_path))
                            for line, target_path in zip(chosen, charts)]
    if args.save is not None:
        from pokerzoo.public.engine.results import save_solver

        save_solver(solution.solver, Path(args.save))
        report["saved"] = str(args.save)
    return report


def preflop_summary_lines(report: dict[str, Any]) -> list[str]:
    """What ``solve.py PREFLOP.toml`` prints."""
    spot = report["spot"]
    check = report["class_check_exploitability_bb"]
    root = report["strategy"].get("", {})
    counts = {a: sum(1 for f in freqs.values() if f >= 0.5) for a, freqs in root.items()}
    return [
        f"preflop tree at {spot['stack']:g} bb (ante {spot['ante']:g}): the small blind's value "
        f"{report['game_value_bb']:+.5f} bb per hand",
        f"exploitability {report['exploitability_bb']:.5f} bb "
        f"({report['exploitability_pct_pot']:.3f}% of the pot"
        + (f"; class-game check {check:.5f} bb" if check is not None else "")
        + f") after {report['iterations']} iterations in {report['seconds']:.1f} s",
        "small blind at the root, classes played >= 50%: "
        + ", ".join(f"{a} {n}" for a, n in counts.items()),
    ]


__all__ = ["preflop_summary_lines", "solve_preflop_report"]
