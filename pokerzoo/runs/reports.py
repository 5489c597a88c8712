"""What ``evaluate.py`` computes for saved runs: exact scores, pairings, curves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.atomic import check_target, write_figure
from pokerzoo.evaluation.exact import to_milli_big_blinds
from pokerzoo.evaluation.unknown import evaluation_tree
from pokerzoo.games.base import ConfigError
from pokerzoo.runs.folder import SavedRun
from pokerzoo.training.callbacks import read_metrics
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.tree.tabular_policy import TabularPolicy


def total_scores(tree: GameTree, policy: TabularPolicy, beliefs: str = "bayes") -> dict:
    """Total exploitability (every information set, on or off the path) in mbb per hand."""
    from pokerzoo.evaluation.perfect import total_exploitability

    scale = to_milli_big_blinds(1.0, tree.game.chip_unit)
    total = total_exploitability(tree, policy, beliefs=beliefs)
    return {
        "total_exploitability_mbb": float(total.total * scale),
        "total_exploitability_per_player_mbb": [float(v * scale) for v in total.per_player],
        "total_exploitability_mean_per_infoset_mbb": float(total.mean_per_infoset * scale),
    }


def parse_forced(tree: GameTree, spec: str) -> dict[int, int]:
    """``"PLAYER:ACTION"`` (action by name or id, e.g. ``0:call``) -> forced infosets."""
    from pokerzoo.evaluation.perfect import force_first_action

    player_text, sep, action_text = spec.partition(":")
    if not sep or not player_text.strip().isdigit():
        raise ConfigError(f"--forced expects PLAYER:ACTION such as 0:call, got {spec!r}")
    player = int(player_text)
    if not 0 <= player < tree.num_players:
        raise ConfigError(f"--forced player must be in 0..{tree.num_players - 1}, got {player}")
    names = {tree.game.action_to_string(a): a for a in range(tree.num_actions)}
    if action_text.isdigit() and int(action_text) < tree.num_actions:
        action = int(action_text)
    elif action_text in names:
        action = names[action_text]
    else:
        raise ConfigError(f"--forced action {action_text!r} unknown; actions are {names}")
    return force_first_action(tree, action, player)


CURVE_METRICS = {
    "exploitability": ("exploitability (chips per game)", True),
    "bb_per_100_vs_random": ("winnings against a random player (bb/100)", False),
    "lbr_mbb_per_game": ("LBR's winnings against the policy (mbb/g)", False),
    "vs_random_per_hand": ("mean reward per hand against uniform random (AEC env)", False),
}
"""Metrics ``plot_curves`` draws when none is named, in order of preference: the y label and
whether the axis is logarithmic (exploitability is positive; winnings may not be)."""


def run_units(run: SavedRun) -> str:
    """What the run's agent counts (iterations, episodes, rounds), from the agent table."""
    from pokerzoo.agents.registry import registered_agents

    spec = registered_agents().get(str(run.config.get("agent")))
    return spec.units if spec is not None else "iterations"


def curve_metric(runs: list[SavedRun]) -> str:
    """The first of ``CURVE_METRICS`` every run logged (exact exploitability where the tree
    fit, winnings against random on hold'em).

    Raises:
        ConfigError: when no such metric is logged by all runs, naming what each has.
    """
    logged = {run.label: set(read_metrics(run.folder)) for run in runs}
    for metric in CURVE_METRICS:
        if all(metric in columns for columns in logged.values()):
            return metric
    have = {label: sorted(c - {"iteration", "seconds"}) for label, c in logged.items()}
    raise ConfigError(f"no metric logged by every run to plot (plottable: {list(CURVE_METRICS)}; "
                      f"logged: {have})")


def curve_styles(n: int) -> list[tuple[Any, str]]:
    """``n`` (colour, line style) pairs that stay apart: matplotlib's 10 colours up to 10
    curves; beyond, colours spread over a larger colormap with line styles cycling, so no two
    curves look alike."""
    import matplotlib

    if n <= 10:
        cmap = matplotlib.colormaps["tab10"]
        return [(cmap(i), "-") for i in range(n)]
    styles = ("-", "--", "-.", ":")
    if n <= 20:
        cmap = matplotlib.colormaps["tab20"]
        colours = [cmap(i) for i in range(n)]
    else:
        cmap = matplotlib.colormaps["turbo"]
        colours = [cmap(x) for x in np.linspace(0.05, 0.95, n)]
    return [(colours[i], styles[i % len(styles)]) for i in range(n)]


def plot_curves(runs: list[SavedRun], path: str | Path, metric: str | None = None) -> Path:
    """Draw ``metric`` (default: ``curve_metric(runs)``) against each run's units on one PNG
    (``draw_curves``), written atomically: a link or anything but a regular file at ``path``
    is a ConfigError (checked before drawing), its target unchanged."""
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    check_target(path, "curves picture")
    fig = draw_curves(runs, metric)
    try:
        return write_figure(fig, path, what="curves picture", dpi=120, bbox_inches="tight")
    finally:
        plt.close(fig)


def on_sampled_environments(runs: list[SavedRun]) -> bool:
    """Whether ``runs`` are on different sampled environments of one unknown game (the
    papers' experiments: 10-20 environments per game, each agent run in each)."""
    return (
        len({repr(r.game) for r in runs}) > 1
        and all(r.game.game_type.is_environment for r in runs)
        and len({(r.game.name, repr(r.game.params().get("base"))) for r in runs}) == 1
    )


def spread_groups(runs: list[SavedRun]) -> dict[str, list[SavedRun]] | None:
    """Runs on different sampled environments of an unknown game, grouped by agent, when
    every agent has more than one run; ``None`` otherwise (runs on one game keep a curve
    each)."""
    if not on_sampled_environments(runs):
        return None
    groups: dict[str, list[SavedRun]] = {}
    for run in runs:
        groups.setdefault(f"{run.config.get('agent')} on {run.game.name}", []).append(run)
    return groups if all(len(g) > 1 for g in groups.values()) else None


def draw_spread(
    groups: dict[str, list[tuple[np.ndarray, np.ndarray]]], ylabel: str, xlabel: str,
    log_y: bool = True,
) -> Any:
    """One curve per group: the geometric mean (arithmetic if ``log_y`` is false) of its runs'
    ``(x, y)`` curves over the x values they share, in a shaded band from the lowest to the
    highest run (the papers' spread over sampled environments)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (label, curves), (colour, style) in zip(groups.items(), curve_styles(len(groups))):
        shared = curves[0][0]
        for x, _ in curves[1:]:
            shared = np.intersect1d(shared, x)
        shared = shared[shared > 0]
        y = np.stack([np.interp(shared, x, v) for x, v in curves])
        if log_y:
            y = np.maximum(y, 1e-12)
            centre = 10 ** np.log10(y).mean(axis=0)
        else:
            centre = y.mean(axis=0)
        ax.plot(shared, centre, color=colour, linestyle=style, label=f"{label} ({len(curves)})")
        ax.fill_between(shared, y.min(axis=0), y.max(axis=0), color=colour, alpha=0.15)
    ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small")
    return fig


def draw_curves(runs: list[SavedRun], metric: str | None = None) -> Any:
    """A matplotlib figure of ``metric`` against each run's units.

    The x axis names the agents' units (iterations, episodes or rounds; runs counting
    different units say so). More than ten curves get colours from a larger colormap and
    cycling line styles; the legend sits outside the axes so it hides no curve. When the runs
    are on several sampled environments of an unknown game and every agent has several of
    them, each agent gets one curve with a shaded spread instead (``draw_spread``), of
    NashConv in d* by default, as the VCFR and PSRLCFR papers plot it.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = spread_groups(runs)
    if groups is not None:
        if metric is None and all("nash_conv" in read_metrics(r.folder) for r in runs):
            metric = "nash_conv"
        metric = metric or curve_metric(runs)
        label, log_y = CURVE_METRICS.get(metric, (metric, True))
        if metric == "nash_conv":
            label = "NashConv in d* (geometric mean; band: min-max over runs)"
        curves: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
        for name, members in groups.items():
            for run in members:
                columns = read_metrics(run.folder)
                if metric not in columns:
                    raise ConfigError(f"{run.folder} logged no {metric!r} (it has "
                                      f"{sorted(columns)})")
                x = np.asarray(columns["iteration"][-len(columns[metric]):], dtype=float)
                curves.setdefault(name, []).append((x, np.asarray(columns[metric], dtype=float)))
        return draw_spread(curves, label, " / ".join(sorted({run_units(r) for r in runs})), log_y)

    metric = metric or curve_metric(runs)
    label, log_y = CURVE_METRICS.get(metric, (metric, True))
    styles = curve_styles(len(runs))
    fig, ax = plt.subplots(figsize=(7 if len(runs) <= 10 else 9, 4.5))
    units: list[str] = []
    for run, (colour, style) in zip(runs, styles):
        columns = read_metrics(run.folder)
        if metric not in columns:
            raise ConfigError(f"{run.folder} logged no {metric!r} (it has {sorted(columns)})")
        x = np.asarray(columns["iteration"][-len(columns[metric]):])
        y = np.asarray(columns[metric])
        keep = (x > 0) & (y > 0) if log_y else x > 0
        unit = run_units(run)
        units.append(unit)
        ax.plot(x[keep], y[keep], color=colour, linestyle=style,
                label=f"{run.label} ({run.config.get('agent')}, {unit})")
    ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
    distinct = sorted(set(units), key=units.index)
    ax.set_xlabel(distinct[0] if len(distinct) == 1 else " / ".join(distinct)
                  + " (each run in its own units)")
    ax.set_ylabel(label)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
              fontsize="small" if len(runs) <= 10 else "x-small",
              ncol=1 if len(runs) <= 25 else 2)
    return fig


def tree_for(runs: list[SavedRun]) -> GameTree:
    """The one tree all ``runs`` share (they must be on the same game)."""
    games = {repr(r.game) for r in runs}
    if len(games) != 1:
        raise ConfigError(f"runs are on different games: {sorted(games)}")
    # Unknown-environment games are scored in their true model d* (evaluator side).
    return evaluation_tree(runs[0].game)
