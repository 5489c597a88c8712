"""13 x 13 charts of a judged player's strategy beside the equilibrium's at a spot's decision,
in the one chart style of ``pokerzoo.public.spots.class_chart``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from pokerzoo.judge.spots import SEATS

if TYPE_CHECKING:
    from pokerzoo.judge.spots import SpotJudgeReport


def draw_strategy_charts(report: SpotJudgeReport, path: str | os.PathLike[str]) -> Path:
    """The player's strategy beside the equilibrium's at the report's chart node, one 13 x 13
    panel per action and strategy (``class_chart.draw_class_chart``)."""
    from pokerzoo.public.spots.class_chart import draw_class_chart
    from pokerzoo.public.spots.holdem_spot import SpotSolution, combo_indices
    from pokerzoo.public.spots.ranges import class_grid

    eq = report.equilibrium
    tree = eq.tree
    node = report.chart_node()
    seat = int(tree.player[node])
    solution = SpotSolution(report.spot.spot, tree, eq)
    combos = combo_indices(tree, seat)
    weights = np.zeros(1326)
    weights[combos] = solution.weights(node, seat)
    mine = report.strategy.get(node) if seat == report.seat else None
    labels = [tree.label(c) for c in tree.children(node)]
    total = float(weights.sum())
    panels = []
    for who, strat in (("player", mine), ("equilibrium", eq.strategy(node))):
        if strat is None:
            continue
        for i, label in enumerate(labels):
            values = np.zeros(1326)
            values[combos] = strat[i]
            freq = float(values @ weights) / total if total > 0 else 0.0
            panels.append((f"{who}: {label} ({100 * freq:.1f}%)", class_grid(values, weights)))
    line = ", ".join(tree.line(node)) or "root"
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    return draw_class_chart(panels, out, f"{report.name}: {SEATS[seat]} at {line}",
                            "grey: classes the player does not hold")


__all__ = ["draw_strategy_charts"]
