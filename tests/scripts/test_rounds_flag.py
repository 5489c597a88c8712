"""``train.py --rounds N``: Algorithm 1's rounds of the unknown-environment agents, spent as
``N * episodes_per_round`` hands; refused by agents that play no rounds."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.runs.config import RunConfig
from pokerzoo.runs.run import train

ROOT = Path(__file__).resolve().parents[2]


def _train_script():
    spec = importlib.util.spec_from_file_location("train_script", ROOT / "train.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_round_of_psrlcfr_is_two_hands(tmp_path: Path) -> None:
    config = RunConfig(agent="psrlcfr", game="unknown_kuhn_poker", game_params={"seed": 1},
                       rounds=5, out=str(tmp_path / "run"), tensorboard=False)
    summary = train(config, progress=False)
    assert summary["units"] == "episodes"
    assert summary["budget_units"] == 10 and summary["iterations_done"] == 10
    assert summary["budget_rounds"] == 5 and summary["rounds_done"] == 5
    assert summary["interactions_this_run"] == 10
    stored = json.loads((tmp_path / "run" / "config.json").read_text())
    assert stored["rounds"] == 5 and stored["episodes"] is None


def test_the_flag_reaches_the_run(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    code = _train_script().main(
        ["--agent", "naive-cfr", "--game", "unknown_kuhn_poker", "--game-param", "seed=2",
         "--agent-param", "episodes_per_round=3", "--rounds", "2", "--out", str(out),
         "--no-progress", "--no-tensorboard"])
    assert code == 0
    assert "6 episodes" in capsys.readouterr().out
    assert json.loads((out / "summary.json").read_text())["rounds_done"] == 2


def test_agents_without_rounds_refuse_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="counts iterations, not rounds"):
        train(RunConfig(agent="cfr+", game="kuhn_poker", rounds=3, out=str(tmp_path / "a"),
                        tensorboard=False), progress=False)
    with pytest.raises(ConfigError, match="plays no rounds"):
        train(RunConfig(agent="nfsp", game="kuhn_poker", rounds=3, out=str(tmp_path / "b"),
                        tensorboard=False), progress=False)
    with pytest.raises(ConfigError, match="not both"):
        RunConfig(agent="psrlcfr", game="unknown_kuhn_poker", rounds=3,
                  episodes=6).budget_units("episodes")
    with pytest.raises(ConfigError, match="non-negative integer"):
        RunConfig(rounds=-1)
