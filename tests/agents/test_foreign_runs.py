"""``train.py --env MODULE:FACTORY``: a run on a PettingZoo env writes a run folder whose summary
holds the head-to-head result against random, resumes, and refuses what does not apply."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.classic import tictactoe_v3

from pokerzoo.agents.cfr.aec_mccfr import AECExternalMCCFR
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.aec_matches import load_env_factory as load_factory
from pokerzoo.runs.config import RunConfig
from pokerzoo.runs.foreign import vs_random
from pokerzoo.runs.run import train as train_foreign

ROOT = Path(__file__).resolve().parents[2]
KUHN = "pokerzoo.envs.kuhn_poker_v0:env"


def train_script():
    spec = importlib.util.spec_from_file_location("train_script", ROOT / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_train_py_env_runs_resumes_and_reports_vs_random(tmp_path, capsys):
    main = train_script().main
    out = tmp_path / "run"
    args = ["--env", KUHN, "--agent", "mccfr-es", "--iterations", "40", "--eval-hands", "200",
            "--out", str(out), "--no-progress", "--no-tensorboard"]
    assert main(args) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["iterations_done"] == 40 and summary["env"] == KUHN
    assert np.isfinite(summary["vs_random_per_hand"]) and summary["vs_random_ci95"] > 0
    assert "vs random:" in capsys.readouterr().out
    assert main([*args[:5], "80", *args[6:]]) == 0  # a second command resumes the folder
    summary = json.loads((out / "summary.json").read_text())
    assert summary["resumed"] and summary["held_before"] == 40
    assert summary["iterations_done"] == 80
    with pytest.raises(ConfigError, match="not both"):
        main(["--env", KUHN, "--game", "kuhn_poker"])


def test_nfsp_run_on_a_pettingzoo_board_game(tmp_path):
    config = RunConfig(agent="nfsp", game="pettingzoo.classic.tictactoe_v3:env", episodes=64,
                       eval_hands=20, out=str(tmp_path / "ttt"), tensorboard=False,
                       agent_params={"num_envs": 16, "hidden_sizes": (16,)})
    summary = train_foreign(config, progress=False)
    assert summary["iterations_done"] >= 64 and "vs_random_per_hand" in summary


def test_vs_random_plays_every_seat_of_the_same_deals():
    solver = AECExternalMCCFR(tictactoe_v3.env, seed=0)
    a = vs_random(solver, tictactoe_v3.env, 30, seed=1)
    b = vs_random(solver, tictactoe_v3.env, 30, seed=1)
    assert a == b and -1.0 <= a["vs_random_per_hand"] <= 1.0


@pytest.mark.parametrize(("spec", "match"), [
    ("pettingzoo.classic.tictactoe_v3", "MODULE:FACTORY"),
    ("no_such_module_29:env", "cannot import"),
    ("pettingzoo.classic.tictactoe_v3:nothing", "no callable"),
])
def test_bad_env_specs_are_named(spec, match):
    with pytest.raises(ConfigError, match=match):
        load_factory(spec)


def test_agents_without_an_env_path_are_refused(tmp_path):
    config = RunConfig(agent="cfr+", game=KUHN, iterations=1, out=str(tmp_path / "r"))
    with pytest.raises(ConfigError, match="--env takes nfsp, nfsp-per, nfsp-plt, mccfr-es, mccfr"):
        train_foreign(config, progress=False)
    config = RunConfig(agent="nfsp", game=KUHN, workers=2, out=str(tmp_path / "r"))
    with pytest.raises(ConfigError, match="one process"):
        train_foreign(config, progress=False)
