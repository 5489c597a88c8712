"""Every picture pokerzoo writes goes through ``write_figure``: a link at the target is refused
with one line, the link's target keeps its content, and nothing is drawn first."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from pokerzoo.atomic import write_figure
from pokerzoo.errors import ConfigError

KEPT = b"precious bytes\n"


@pytest.fixture
def link(tmp_path: Path) -> Path:
    """A symbolic link ``picture.png`` to a regular file holding ``KEPT``."""
    target = tmp_path / "kept.txt"
    target.write_bytes(KEPT)
    path = tmp_path / "picture.png"
    path.symlink_to(target)
    return path


def _refused(call: object, link: Path, what: str) -> None:
    with pytest.raises(ConfigError) as info:
        call()  # type: ignore[operator]
    message = str(info.value)
    assert "\n" not in message
    assert f"cannot write the {what} to {str(link)!r}: it is a symbolic link" in message
    assert link.is_symlink() and (link.parent / "kept.txt").read_bytes() == KEPT


def test_write_figure_refuses_a_link_and_writes_a_png(link: Path, tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure()
    try:
        _refused(lambda: write_figure(fig, link, what="picture"), link, "picture")
        written = write_figure(fig, tmp_path / "new.png")
    finally:
        plt.close(fig)
    assert written.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_curves_refuses_a_link_before_drawing(link: Path) -> None:
    from pokerzoo.runs.reports import plot_curves

    # No runs: drawing them would fail otherwise, so the refusal comes before any drawing.
    _refused(lambda: plot_curves([], link), link, "curves picture")


def test_plot_tournament_refuses_a_link_before_drawing(link: Path) -> None:
    from pokerzoo.runs.tournament import plot_tournament

    table = SimpleNamespace(size=2)  # ranking() and the tables are never reached
    _refused(lambda: plot_tournament(table, link), link, "heatmap")  # type: ignore[arg-type]


def test_strategy_chart_refuses_a_link(link: Path) -> None:
    from pokerzoo.evaluation.strategy_view import PreflopChart, hand_class_labels
    from pokerzoo.games import load_game
    from pokerzoo.runs.strategy_plots import draw_preflop_chart

    chart = PreflopChart(load_game("kuhn_poker"), 0, [], [], [0, 1], ["fold", "call"],
                         np.full((2, 13, 13), 0.5), hand_class_labels(), 1)
    _refused(lambda: draw_preflop_chart(chart, link), link, "strategy chart")


def test_value_curve_refuses_a_link(link: Path) -> None:
    from pokerzoo.agents.resolver.value_training import ValueNetTrainer

    trainer = SimpleNamespace(history=[(1, 0.5, 0.0), (2, 0.25, 0.0)],
                              game=SimpleNamespace(name="leduc"))
    _refused(lambda: ValueNetTrainer.plot_curve(trainer, link), link,  # type: ignore[arg-type]
             "curve")
