"""solve.py PREFLOP.toml: the shipped 100 bb tree's report and charts, one-line errors before
any table is read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "configs" / "preflop_100bb.toml"


def solve(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, POKERZOO_CACHE=str(cache))
    return subprocess.run([sys.executable, "solve.py", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env=env)


@pytest.mark.slow
def test_the_shipped_tree_to_a_hundredth_of_a_big_blind(equity_cache_root, tmp_path):
    out, charts = tmp_path / "pre.json", tmp_path / "charts"
    done = solve(str(EXAMPLE), "--json", str(out), "--chart", str(charts), "--line",
                 "raise 2.5", "--quiet", cache=equity_cache_root)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["exploitability_bb"] <= report["target_bb"] == 0.01
    assert report["class_check_exploitability_bb"] == pytest.approx(
        report["exploitability_bb"], abs=1e-9)
    assert set(report["strategy"]) == {"", "raise 2.5"}
    assert set(report["strategy"][""]) == {"fold", "call", "raise 2.5", "allin"}
    assert report["spot"]["stack"] == 100 and report["spot"]["threebet"] == [11.0]
    assert sorted(p.name for p in charts.iterdir()) == ["raise_2.5.png", "root.png"]
    assert "exploitability" in done.stdout and "class-game check" in done.stdout


@pytest.mark.parametrize("text, args, message", [
    ("[preflop]\nthreebet = [3]\n", [], "below the minimum raise"),
    ("[preflop]\nopen = 'x'\n", [], "each size is a raise-to amount"),
    ("[preflop]\nbogus = 1\n", [], "unknown preflop key"),
    ("[preflop]\n", ["--line", "raise 3"], "is not a decision of this tree"),
    ("[preflop]\n", ["--pushfold"], "solved on its own"),
    ("[preflop]\n", ["--target-bb", "0.1", "--exploitability", "1"], "not both"),
])
def test_bad_trees_and_flags_are_one_line_before_any_table(text, args, message, tmp_path):
    tree = tmp_path / "tree.toml"
    tree.write_text(text)
    done = solve(str(tree), *args, cache=tmp_path / "cache")  # empty: nothing may be built
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "cache").exists()


def test_target_bb_needs_a_preflop_file(tmp_path):
    done = solve("--game", "kuhn_poker", "--target-bb", "0.1", cache=tmp_path)
    assert done.returncode == 2 and "goes with a preflop file" in done.stderr
