"""solve.py --pushfold: one stack's JSON and chart, the threshold table, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def solve(*args: str, cache: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if cache is not None:
        env["POKERZOO_CACHE"] = str(cache)
    return subprocess.run([sys.executable, "solve.py", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env=env)


@pytest.mark.slow
def test_one_stack_and_the_threshold_table(equity_cache_root, tmp_path):
    out, png = tmp_path / "pf.json", tmp_path / "pf.png"
    done = solve("--pushfold", "--stack", "10", "--json", str(out), "--chart", str(png),
                 "--quiet", cache=equity_cache_root)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["stack_bb"] == 10 and report["exploitability_bb"] < 1e-6
    assert report["sb_push"]["AA"] == 1.0 and report["bb_call"]["72o"] == 0.0
    assert len(report["sb_push"]) == len(report["bb_call"]) == 169
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    done = solve("--pushfold", "--stacks", "7:8:0.05", "--json", str(out), "--chart", str(png),
                 "--quiet", cache=equity_cache_root)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["push_threshold_bb"]["T3s"] == pytest.approx(7.7)
    assert len(report["per_stack"]) == 21 and "call_threshold_bb" in report


@pytest.mark.parametrize("args, message", [
    (["--pushfold"], "needs one of --stack"),
    (["--pushfold", "--stack", "0.5"], "must cover the big blind"),
    (["--pushfold", "--stacks", "3:1:0.5"], "LAST >= FIRST"),
    (["--stack", "10"], "go with --pushfold"),
    (["--pushfold", "--stack", "10", "--game", "kuhn_poker"], "solves its own game"),
])
def test_bad_input_is_one_line_before_any_table(args, message, tmp_path):
    done = solve(*args, cache=tmp_path)  # an empty cache: nothing may be built
    assert done.returncode == 2 and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "preflop").exists()
