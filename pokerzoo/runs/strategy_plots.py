"""Strategy pictures of saved runs for ``evaluate.py --strategy`` / ``--strategy-chart``.

Tables and chart data come from ``pokerzoo.evaluation.strategy_view``; this module loads a
run's policy and draws hold'em 13x13 pre-flop charts with matplotlib (one panel per action).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pokerzoo.evaluation.strategy_view import (
    PreflopChart,
    format_strategy,
    preflop_chart,
    rows_as_dicts,
    strategy_rows,
)
from pokerzoo.public.spots.class_chart import draw_class_chart
from pokerzoo.runs.folder import SavedRun
from pokerzoo.runs.load import load_agent


def run_policy(run: SavedRun) -> Any:
    """What ``run`` plays: its ``policy.npz`` table, else its agent restored from the run's
    checkpoint (``agent.policy()``, e.g. NFSP's network policy on hold'em).

    Raises:
        FileNotFoundError: the folder holds neither a policy file nor a checkpoint.
    """
    policy = run.tabular_policy()
    if policy is not None:
        return policy
    return load_agent(run.folder).policy()


def draw_preflop_chart(chart: PreflopChart, path: str | Path) -> Path:
    """Draw ``chart`` to a PNG in the one chart style (``draw_class_chart``): one 13x13 panel
    per action, each titled with the action's overall frequency. Returns the path written
    (the folder is made if missing; a link or anything but a regular file at the path is a
    ConfigError, its target unchanged)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    panels = [(f"{name} ({100 * freq:.1f}% of hands)", matrix)
              for name, matrix, freq in zip(chart.action_names, chart.matrix,
                                            chart.frequencies())]
    note = "" if chart.opponent_samples == 1 else (
        f"{chart.opponent_samples} opponent deals per combination")
    return draw_class_chart(panels, path, chart.title(), note)


def strategy_report(
    runs: list[SavedRun], table: bool, chart_path: str | None, seat: int | None,
    history: str, opponent_samples: int = 1, seed: int = 0,
) -> tuple[str, dict[str, Any]]:
    """Tables (``table``) and/or pre-flop charts (``chart_path``) of each run: the text to
    print and the same results for ``--json``. With several runs, each chart goes to
    ``<stem>_<run label><suffix>``."""
    lines: list[str] = []
    results: dict[str, Any] = {}
    for run in runs:
        policy = run_policy(run)
        entry: dict[str, Any] = {"agent": run.config.get("agent"), "game": repr(run.game)}
        if table:
            rows = strategy_rows(run.game, policy, player=seat)
            entry["strategy"] = rows_as_dicts(rows)
            lines.extend([f"{run.label}: {run.config.get('agent')} on {run.game!r}",
                          format_strategy(rows), ""])
        if chart_path:
            chart = preflop_chart(run.game, policy, seat=seat, history=history,
                                  opponent_samples=opponent_samples, seed=seed)
            target = Path(chart_path)
            if len(runs) > 1:
                target = target.with_name(f"{target.stem}_{run.label}{target.suffix or '.png'}")
            written = draw_preflop_chart(chart, target)
            entry["chart"] = {
                "path": str(written), "seat": chart.seat, "history": chart.history_names,
                "actions": chart.action_names,
                "frequencies": [float(f) for f in chart.frequencies()],
            }
            lines.append(f"{run.label}: pre-flop chart of seat {chart.seat} written to "
                         f"{written}")
        results[run.label] = entry
    return "\n".join(lines).rstrip(), results
