"""Curves of many runs stay readable: units on the x axis, distinct styles, legend outside."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.runs.folder import SavedRun
from pokerzoo.runs.reports import curve_styles, draw_curves, plot_curves

matplotlib.use("Agg")


def fake_run(folder: Path, agent: str, game: str, metric: str, scale: float) -> SavedRun:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"agent": agent, "game": game}))
    rows = [f"iteration,seconds,{metric}"]
    rows += [f"{x},{x / 1000},{scale / (1 + x) ** 0.5}" for x in (0, 10, 100, 1000)]
    (folder / "metrics.csv").write_text("\n".join(rows) + "\n")
    return SavedRun.open(folder)


@pytest.mark.parametrize("n", [1, 10, 11, 13, 20, 21, 40])
def test_styles_are_distinct(n: int) -> None:
    styles = curve_styles(n)
    keys = {(tuple(round(c, 6) for c in colour), style) for colour, style in styles}
    assert len(keys) == n
    if n <= 10:
        assert all(style == "-" for _, style in styles)


def test_x_axis_names_the_units_of_episode_agents(tmp_path: Path) -> None:
    runs = [fake_run(tmp_path / f"n{i}", "nfsp", "kuhn_poker", "exploitability", 1 + i)
            for i in range(2)]
    fig = draw_curves(runs)
    assert fig.axes[0].get_xlabel() == "episodes"
    cfr = [fake_run(tmp_path / "c", "cfr", "kuhn_poker", "exploitability", 1.0)]
    assert draw_curves(cfr).axes[0].get_xlabel() == "iterations"
    mixed = draw_curves(runs + cfr).axes[0].get_xlabel()
    assert "episodes" in mixed and "iterations" in mixed


def test_thirteen_curves_keep_their_own_style_and_the_legend_is_outside(tmp_path: Path) -> None:
    runs = [fake_run(tmp_path / f"r{i:02d}", "cfr" if i % 2 else "nfsp", "kuhn_poker",
                     "exploitability", 1 + i) for i in range(13)]
    fig = draw_curves(runs)
    ax = fig.axes[0]
    lines = ax.get_lines()
    assert len(lines) == 13
    assert len({(line.get_color(), line.get_linestyle()) for line in lines}) == 13
    fig.canvas.draw()
    legend_box = ax.get_legend().get_window_extent()
    axes_box = ax.get_window_extent()
    assert legend_box.x0 >= axes_box.x1  # right of the axes: covers no curve
    png = plot_curves(runs, tmp_path / "curves.png")
    assert png.stat().st_size > 10_000


def test_holdem_runs_plot_their_winnings(tmp_path: Path) -> None:
    runs = [fake_run(tmp_path / "h", "nfsp", "limit_holdem", "bb_per_100_vs_random", 5.0)]
    ax = draw_curves(runs).axes[0]
    assert "bb/100" in ax.get_ylabel() and ax.get_yscale() == "linear"


def test_runs_without_a_common_metric_are_refused_by_name(tmp_path: Path) -> None:
    a = fake_run(tmp_path / "a", "cfr", "kuhn_poker", "exploitability", 1.0)
    b = fake_run(tmp_path / "b", "nfsp", "limit_holdem", "bb_per_100_vs_random", 1.0)
    with pytest.raises(ConfigError, match="no metric logged by every run"):
        draw_curves([a, b])
