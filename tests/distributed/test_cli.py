"""``--workers``/``--ray-address`` on the scripts: one worker imports no Ray, a missing Ray is
one line saying how to install it, and evaluate.py prints the same table with 2 workers."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.runs.cli import executor_from_flags

ROOT = Path(__file__).resolve().parents[2]


def test_one_worker_never_imports_ray_and_the_extras_hold_it() -> None:
    code = ("import sys; sys.path.insert(0, '.'); import train, evaluate; "
            "from pokerzoo.runs.cli import executor_from_flags; "
            "assert executor_from_flags(None, None) is None and executor_from_flags(1, None) "
            "is None; assert 'ray' not in sys.modules, 'ray imported'")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert extras["ray"] == ["ray[default]>=2.9"] and set(extras["ray"]) <= set(extras["test"])


def test_a_missing_ray_is_one_line_saying_how_to_install_it(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ConfigError, match=r'needs Ray: pip install "pokerzoo\[ray\]"'):
        executor_from_flags(2, None)
    with pytest.raises(ConfigError, match="--workers must be an integer >= 1"):
        executor_from_flags(0, None)


@pytest.mark.slow
@pytest.mark.usefixtures("ray_local")
def test_evaluate_prints_the_same_tournament_with_two_workers(tmp_path: Path, capsys) -> None:
    sys.path.insert(0, str(ROOT))
    import evaluate
    import train

    run = str(tmp_path / "nfsp_holdem")
    config = tmp_path / "run.toml"  # few hands in the run's own evaluation
    config.write_text('eval_hands = 20\n[agent_params]\nnum_envs = 8\n')
    assert train.main(["--agent", "nfsp", "--game", "limit_holdem", "--episodes", "50",
                       "--config", str(config), "--no-progress", "--no-tensorboard",
                       "--out", run]) == 0
    tables = []
    for workers in ("1", "2"):
        capsys.readouterr()
        assert evaluate.main([run, "--hands", "40", "--lbr-deals", "0", "--json",
                              "--opponents", "random,always-call", "--workers", workers]) == 0
        tables.append(json.loads(capsys.readouterr().out))
    assert tables[0]["tournament"] == tables[1]["tournament"]
    assert tables[1]["distributed"]["workers"] == 2 and tables[1]["distributed"]["retried"] == 0
    with pytest.raises(ConfigError, match="--workers 1"):
        evaluate.main([run, "--hand-history", str(tmp_path / "h.txt"), "--workers", "2"])
