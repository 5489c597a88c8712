"""torch is an optional dependency (the "torch" extra): the main job runs without it, and an
agent that needs it says what to install."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pokerzoo
from pokerzoo.agents.registry import make_agent
from pokerzoo.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_an_agent_needing_torch_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real(name, *a))
    with pytest.raises(ConfigError, match=r'needs torch.*pip install "pokerzoo\[torch\]"'):
        make_agent("nfsp", pokerzoo.load_game("kuhn_poker"))


@pytest.mark.slow
def test_the_main_job_runs_where_torch_cannot_be_imported(tmp_path: Path) -> None:
    # A finder that refuses torch stands in for a machine without it.
    script = textwrap.dedent(f"""
        import runpy, sys
        class NoTorch:
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch."):
                    raise ImportError("no torch here")
        sys.meta_path.insert(0, NoTorch())
        sys.argv = ["train.py", "--iterations", "30", "--no-progress",
                    "--out", {str(tmp_path / "run")!r}]
        runpy.run_path("train.py", run_name="__main__")
    """)
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "exploitability:" in result.stdout
    assert (tmp_path / "run" / "tensorboard").is_dir()
