"""bench/bench_schedules.py: the tree engine's table, and the public half's refusals."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench import bench_schedules  # noqa: E402


def test_the_tree_half_writes_one_row_per_variant(tmp_path):
    out = tmp_path / "schedules.md"
    bench_schedules.main(["--no-public", "--tree-checkpoints", "3,1", "--out", str(out)])
    text = out.read_text()
    assert "Not run (`--no-public`)." in text
    assert "| algorithm | 1 it" in text and "| 3 it" in text
    rows = [line.split("|")[1].strip() for line in text.splitlines()
            if line.startswith("| ") and "it " not in line and "algorithm" not in line]
    assert rows == ["cfr", "cfr+", "linear", "dcfr", "pcfr+"]


def test_an_unknown_public_algorithm_is_refused_before_any_solve(capsys):
    with pytest.raises(SystemExit) as info:
        bench_schedules.main(["--public-algorithms", "dcfr,lcfr"])
    assert info.value.code == 2
    assert "unknown public algorithm 'lcfr'; known: cfr, cfr+" in capsys.readouterr().err
