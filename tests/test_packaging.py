"""The install paths the README gives: the "rl" extra holds what its RL snippets import, the
test extra holds the same, and CI keeps its pinned torch."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from tests.manual import manual_text

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
EXTRAS = PYPROJECT["project"]["optional-dependencies"]
README = manual_text()  # README.md and the documentation site


def test_rl_extra_holds_the_rl_libraries_at_the_test_extras_versions() -> None:
    rl = EXTRAS["rl"]
    assert {re.split(r"[<>=!~\[]", r)[0] for r in rl} == {
        "stable-baselines3", "sb3-contrib", "tianshou"
    }
    assert set(rl) <= set(EXTRAS["test"])


def test_readme_rl_snippets_name_the_extra() -> None:
    for heading in ("### gymnasium.make and MaskablePPO", "### Tianshou"):
        section = README.split(heading, 1)[1].split("```python", 1)[0]
        assert 'pip install "pokerzoo[rl]"' in section


def test_readme_points_cpu_only_machines_to_pytorchs_cpu_index_and_ci_keeps_its_pin() -> None:
    install = README.split("## Install and run", 1)[1].split("\n## ", 1)[0]
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in install
    assert "CUDA" in install and "CPU-only" in install
    assert "pip install --quiet --disable-pip-version-check torch==2.13.0" in (
        ROOT / ".ci" / "run"
    ).read_text()
