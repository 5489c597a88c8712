"""train.py and evaluate.py measure in the same unit: the game's ``chip_unit``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pokerzoo import load_game
from pokerzoo.games.leduc import LEDUC_VARIANTS

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> str:
    result = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"{args} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.mark.slow
def test_train_and_evaluate_report_the_same_mbb_on_blinds_leduc(tmp_path: Path) -> None:
    params = LEDUC_VARIANTS["rlcard"]
    assert load_game("leduc_holdem", **params).chip_unit == 2.0  # the big blind, not the ante
    config = tmp_path / "run.toml"
    out = tmp_path / "rlcard"
    lines = [
        'agent = "cfr+"', 'game = "leduc_holdem"', "iterations = 30", f'out = "{out}"',
        "tensorboard = false", "[game_params]",
    ]
    for key, value in params.items():
        lines.append(f"{key} = {json.dumps(list(value) if isinstance(value, tuple) else value)}")
    config.write_text("\n".join(lines) + "\n")

    trained = run("train.py", "--config", str(config), "--no-progress")
    printed = re.search(r"exploitability: (\S+) chips/game = (\S+) mbb/g", trained)
    assert printed, trained
    chips, mbb = float(printed.group(1)), float(printed.group(2))
    assert mbb == pytest.approx(1000 * chips / 2, rel=1e-3)

    evaluated = json.loads(run("evaluate.py", str(out), "--json"))["rlcard"]
    assert evaluated["exploitability"] == pytest.approx(chips, rel=1e-5)
    assert evaluated["exploitability_mbb_per_game"] == pytest.approx(mbb, rel=1e-3)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["exploitability_mbb_per_game"] == pytest.approx(
        evaluated["exploitability_mbb_per_game"], rel=1e-9
    )
