"""The one chart style: ``draw_class_chart`` draws both scripts' charts, and ``solve.py
--chart`` names each file after its line and refuses a file or a link before solving."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.public.spots.class_chart import draw_class_chart, line_file_name

ROOT = Path(__file__).resolve().parents[3]
OOP = "AA,KK,QQ,AKs,T9s,87s:0.5"
IP = "JJ-99,AQs,KQo:0.5,65s"


def _spot_file(tmp_path: Path) -> Path:
    spot = tmp_path / "river.toml"
    spot.write_text(
        'board = "QsJh2h8c3d"\nstarting_pot = 100\neffective_stack = 150\n'
        f'oop_range = "{OOP}"\nip_range = "{IP}"\nriver_sizes = ["50%", "a"]\n'
    )
    return spot


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ([], "root.png"),
        (["check", "bet 94"], "check_bet_94.png"),
        (["check", "check", "Kh", "allin 150"], "check_check_Kh_allin_150.png"),
        (["raise 2.5x", "../etc"], "raise_2.5x_etc.png"),
        (["bet/ 5"], "bet_5.png"),
    ],
)
def test_line_file_names_are_safe_and_readable(line: list[str], name: str) -> None:
    assert line_file_name(line) == name


def test_a_long_line_is_cut_with_a_hash_that_keeps_lines_apart() -> None:
    one, other = ["bet 94"] * 40, ["bet 94"] * 39 + ["bet 95"]
    assert len(line_file_name(one)) <= 130 and "/" not in line_file_name(one)
    assert line_file_name(one) != line_file_name(other)


def test_draw_class_chart_writes_a_png_with_missing_classes(tmp_path: Path) -> None:
    grid = np.full((13, 13), 0.25)
    grid[0, 0] = np.nan  # a class the player does not hold
    out = draw_class_chart([("call (25.0% of hands)", grid)], tmp_path / "c.png", "title")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_both_scripts_draw_with_the_one_chart_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``evaluate.py --strategy-chart`` (``draw_preflop_chart``) and ``solve.py --chart``
    (``SpotSolution.chart``) both hand their panels to ``draw_class_chart``."""
    import pokerzoo.public.spots.class_chart as class_chart
    import pokerzoo.runs.strategy_plots as strategy_plots
    from pokerzoo.evaluation.strategy_view import PreflopChart, hand_class_labels
    from pokerzoo.games import load_game
    from pokerzoo.public.spots.holdem_spot import HoldemSpot, solve_spot

    calls: list[tuple[list[tuple[str, np.ndarray]], Path, str]] = []

    def record(panels: Any, path: Any, title: str, note: str = "", what: str = "") -> Path:
        calls.append((list(panels), Path(path), title))
        return Path(path)

    monkeypatch.setattr(class_chart, "draw_class_chart", record)
    monkeypatch.setattr(strategy_plots, "draw_class_chart", record)
    chart = PreflopChart(load_game("kuhn_poker"), 0, [], [], [0, 1], ["fold", "call"],
                         np.stack([np.full((13, 13), 0.25), np.full((13, 13), 0.75)]),
                         hand_class_labels(), 1)
    strategy_plots.draw_preflop_chart(chart, tmp_path / "preflop.png")
    spot = HoldemSpot("QsJh2h8c3d", 100, 150, OOP, IP, river_sizes=("50%", "a"))
    solution = solve_spot(spot, exploitability_pct=None, max_iterations=5)
    solution.chart(tmp_path / "root.png")
    (pre_panels, _, _), (spot_panels, _, spot_title) = calls
    assert [t for t, _ in pre_panels] == ["fold (25.0% of hands)", "call (75.0% of hands)"]
    assert all(t.endswith("% of hands)") for t, _ in spot_panels)
    assert [t.split(" (")[0] for t, _ in spot_panels] == list(solution.action_frequencies(0))
    assert spot_title == "QsJh2h8c3d: OOP at root"
    assert all(m.shape == (13, 13) for _, m in pre_panels + spot_panels)


def test_solve_py_chart_files_are_named_after_their_lines(tmp_path: Path) -> None:
    from pokerzoo.runs.solve import main

    spot = _spot_file(tmp_path)
    folder = tmp_path / "charts"
    assert main([str(spot), "--quiet", "--iterations", "5", "--chart", str(folder),
                 "--line", "check", "--line", "check, bet 50"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == [
        "check.png", "check_bet_50.png", "root.png"]


def _no_solve(*args: object, **kwargs: object) -> None:
    raise AssertionError("the spot was solved before its chart target was checked")


def test_solve_py_chart_onto_a_regular_file_is_one_line_before_solving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pokerzoo.public.spots.holdem_spot as holdem_spot
    from pokerzoo.runs.solve import main

    spot = _spot_file(tmp_path)
    existing = tmp_path / "chart.png"
    existing.write_bytes(b"kept")
    monkeypatch.setattr(holdem_spot, "solve_spot", _no_solve)
    with pytest.raises(ConfigError, match=r"^--chart takes a folder .* is not a folder$"):
        main([str(spot), "--quiet", "--chart", str(existing)])
    assert existing.read_bytes() == b"kept"


def test_solve_py_chart_onto_a_file_exits_2_with_one_line(tmp_path: Path) -> None:
    spot = _spot_file(tmp_path)
    existing = tmp_path / "chart.png"
    existing.write_bytes(b"kept")
    result = subprocess.run(
        [sys.executable, "solve.py", str(spot), "--quiet", "--chart", str(existing)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--chart takes a folder" in lines[0]
    assert "Traceback" not in result.stderr and existing.read_bytes() == b"kept"


def test_solve_py_chart_refuses_a_link_at_a_chart_before_solving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pokerzoo.public.spots.holdem_spot as holdem_spot
    from pokerzoo.runs.solve import main

    spot = _spot_file(tmp_path)
    folder = tmp_path / "charts"
    folder.mkdir()
    kept = tmp_path / "kept.txt"
    kept.write_bytes(b"kept")
    (folder / "root.png").symlink_to(kept)
    monkeypatch.setattr(holdem_spot, "solve_spot", _no_solve)
    with pytest.raises(ConfigError, match="it is a symbolic link") as info:
        main([str(spot), "--quiet", "--chart", str(folder)])
    assert "\n" not in str(info.value) and kept.read_bytes() == b"kept"

