"""The README's command-line examples run in order, as written, from a fresh folder.

Convention: a fenced ``bash`` block right after a ``<!-- runnable -->`` line is runnable. The
blocks run in document order, each as one bash script (``set -euo pipefail``), in one
temporary folder holding links to the repository's scripts (``*.py`` at the top level) and
``configs/``, with no input on stdin. Install, test and benchmark lines are not marked (they
change the environment or take long); the Python snippets are run by
``tests/envs/test_docs_snippets.py``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
MARK = "<!-- runnable -->"
BLOCKS = re.findall(re.escape(MARK) + r"\s*\n```bash\n(.*?)```", README, flags=re.S)


def fresh_folder(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder a user would run the README from, and an environment whose ``python`` is
    this interpreter (the one pokerzoo is installed in)."""
    work = tmp_path / "checkout"
    work.mkdir()
    for script in ROOT.glob("*.py"):
        (work / script.name).symlink_to(script)
    (work / "configs").symlink_to(ROOT / "configs")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # A script, not a symlink: a venv's python finds its environment from the path it was
    # started by (its pyvenv.cfg beside it), so a link elsewhere would run the base
    # interpreter outside the venv.
    launcher = bin_dir / "python"
    launcher.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    launcher.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}
    return work, env


def test_readme_marks_its_command_line_examples_runnable() -> None:
    assert len(BLOCKS) >= 1
    commands = [line for block in BLOCKS for line in block.splitlines() if line.strip()]
    assert any(line.startswith("python train.py") for line in commands)
    assert any(line.startswith("python evaluate.py") for line in commands)
    # Nothing that installs or changes the environment is marked runnable.
    assert not [line for line in commands if re.match(r"\s*(pip|sudo|apt|conda)\b", line)]


@pytest.mark.slow
def test_readme_shell_examples_run_in_order_from_a_fresh_folder(tmp_path: Path) -> None:
    work, env = fresh_folder(tmp_path)
    for index, block in enumerate(BLOCKS):
        result = subprocess.run(
            ["bash", "-c", "set -euo pipefail\n" + block], cwd=work, env=env,
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=900,
        )
        assert result.returncode == 0, (
            f"README shell block {index} failed (exit {result.returncode}):\n{block}\n"
            f"--- stdout ---\n{result.stdout[-4000:]}\n--- stderr ---\n{result.stderr[-4000:]}"
        )
        assert "Traceback" not in result.stderr, result.stderr[-4000:]
    # Every run folder an evaluate.py line names was made by an earlier line.
    for block in BLOCKS:
        for line in block.splitlines():
            if line.startswith("python evaluate.py"):
                for folder in re.findall(r"\bruns/[^\s]+", line):
                    assert (work / folder / "config.json").exists(), folder


@pytest.mark.slow
def test_help_lists_agent_hyperparameters_and_budgets() -> None:
    result = subprocess.run([sys.executable, "train.py", "--help"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    # Each family, its default budget in its units, each field with its doc and presets.
    assert "cfr, cfr+, dcfr, lcfr (default budget 20,000 iterations" in text
    assert "nfsp, nfsp-per, nfsp-plt (default budget 1,000,000 episodes" in text
    assert "mccfr-es 1,000,000" in text
    assert "regret_matching_plus = False [cfr+: True]" in text
    assert "Clip cumulative regrets at zero after every update" in text
    assert "prioritized.eps (or per_eps) = 1e-06" in text
    assert "(with best_response=uct)" in text
    # Every file the help names exists.
    for path in re.findall(r"\bconfigs/[\w.+-]+", text):
        assert (ROOT / path).exists(), path


def test_field_docs_are_read_for_every_config_field() -> None:
    import dataclasses

    from pokerzoo.agents.registry import registered_agents
    from pokerzoo.runs.help import field_docs

    for spec in registered_agents().values():
        cls = spec.config_class
        if cls is None:
            continue
        docs = field_docs(cls)
        missing = [f.name for f in dataclasses.fields(cls) if not docs.get(f.name)]
        assert not missing, f"{cls.__name__} fields without a doc: {missing}"


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*.toml")))
def test_shipped_configs_are_valid_run_configs(path: Path) -> None:
    from pokerzoo.runs.run import RunConfig

    config = RunConfig.from_toml(path)
    assert config.agent and config.game
