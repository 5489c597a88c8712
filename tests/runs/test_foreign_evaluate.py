"""``train.py --env`` runs after training: ``load_agent`` rebuilds them from the env factory,
``evaluate.py`` plays them against the built-in AEC opponents and each other, and draws their
``vs_random_per_hand`` curves."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from pokerzoo.checkpoint import read_header
from pokerzoo.envs import kuhn_poker_v0
from pokerzoo.errors import CheckpointError, ConfigError
from pokerzoo.runs.config import RunConfig
from pokerzoo.runs.load import load_agent
from pokerzoo.runs.run import train as train_foreign

ROOT = Path(__file__).resolve().parents[2]
KUHN = "pokerzoo.envs.kuhn_poker_v0:env"


def evaluate_main():
    spec = importlib.util.spec_from_file_location("evaluate_script", ROOT / "evaluate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


def train(out: Path, env: str = KUHN, seed: int = 0, iterations: int = 100) -> dict:
    config = RunConfig(agent="mccfr-os", game=env, iterations=iterations, eval_hands=40,
                       seed=seed, out=str(out), tensorboard=False)
    return train_foreign(config, progress=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("foreign")
    summaries = [train(root / "os_a", seed=0), train(root / "os_b", seed=1)]
    return root, summaries


def test_summary_scores_the_agent_against_the_builtin_opponents(runs):
    _, (summary, _) = runs
    assert set(summary["vs_opponents"]) == {"first-legal", "last-legal"}
    assert all(np.isfinite(v["per_hand"]) and v["ci95"] > 0
               for v in summary["vs_opponents"].values())


def test_load_agent_rebuilds_a_foreign_run_from_its_folder_or_its_checkpoint(runs, tmp_path):
    root, _ = runs
    header = read_header(root / "os_a" / "checkpoint.pzc")
    assert header["meta"]["build"] == {"agent": "mccfr-os", "agent_params": {}, "seed": 0,
                                       "env": KUHN}
    bare = tmp_path / "moved.pzc"
    shutil.copy(root / "os_a" / "checkpoint.pzc", bare)  # no run folder around it
    a, b = load_agent(root / "os_a"), load_agent(bare)
    assert a.iteration == b.iteration == 100 and a.build["env"] == KUHN
    env = kuhn_poker_v0.env()
    env.reset(seed=3)
    obs, _, _, _, info = env.last()
    info = {**info, "agent": env.agent_selection}
    assert np.array_equal(a.act_probabilities(obs, info), b.act_probabilities(obs, info))


def test_a_checkpoint_in_another_runs_folder_is_refused(runs, tmp_path):
    root, _ = runs
    shutil.copytree(root / "os_b", tmp_path / "b")
    shutil.copy(root / "os_a" / "checkpoint.pzc", tmp_path / "b" / "checkpoint.pzc")
    with pytest.raises(CheckpointError, match="do not belong together"):
        load_agent(tmp_path / "b")


def test_evaluate_py_plays_the_runs_and_the_builtins_and_plots(runs, tmp_path, capsys):
    root, _ = runs
    main = evaluate_main()
    png = tmp_path / "curves.png"
    heat = tmp_path / "heat.png"
    assert main([str(root / "os_a"), str(root / "os_b"), "--hands", "100",
                 "--opponents", "random,first-legal,last-legal", "--plot", str(png),
                 "--heatmap", str(heat)]) == 0
    out = capsys.readouterr().out
    assert "os_a (mccfr-os) on " + KUHN in out and "vs first-legal:" in out
    assert "Tournament on " + KUHN in out and "os_b" in out and "last-legal" in out
    assert png.stat().st_size > 0 and heat.stat().st_size > 0
    assert main([str(root / "os_a"), "--hands", "100", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert set(results["os_a"]["vs"]) == {"random"}
    assert results["tournament"]["names"] == ["os_a", "random"]


def test_evaluate_py_refuses_what_a_foreign_run_cannot_do(runs, tmp_path):
    root, _ = runs
    main = evaluate_main()
    with pytest.raises(ConfigError, match="--strategy need a pokerzoo game"):
        main([str(root / "os_a"), "--strategy"])
    with pytest.raises(ConfigError, match="built-in opponents are"):
        main([str(root / "os_a"), "--opponents", "always-call"])
    game_run = tmp_path / "kuhn"
    game_run.mkdir()
    (game_run / "config.json").write_text(json.dumps(
        {"agent": "cfr", "game": "kuhn_poker", "game_params": {}, "agent_params": {},
         "seed": 0}))
    with pytest.raises(ConfigError, match="apart from runs on a pokerzoo game"):
        main([str(root / "os_a"), str(game_run)])


def test_more_than_two_players_are_scored_against_each_opponent(tmp_path, monkeypatch, capsys):
    (tmp_path / "kuhn3_issue29.py").write_text(
        "from pokerzoo.envs import kuhn_poker_v0\n\n\n"
        "def env():\n    return kuhn_poker_v0.env(num_players=3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    train(tmp_path / "three", env="kuhn3_issue29:env", iterations=30)
    assert evaluate_main()([str(tmp_path / "three"), "--hands", "30",
                            "--opponents", "random,last-legal"]) == 0
    out = capsys.readouterr().out
    assert "vs random:" in out and "vs last-legal:" in out and "Tournament" not in out


def test_an_nfsp_run_on_tictactoe_is_restored_and_played(tmp_path, capsys):
    config = RunConfig(agent="nfsp", game="pettingzoo.classic.tictactoe_v3:env", episodes=64,
                       eval_hands=10, out=str(tmp_path / "nfsp"), tensorboard=False)
    train_foreign(config, progress=False)
    assert load_agent(tmp_path / "nfsp").build["env"] == config.game
    assert evaluate_main()([str(tmp_path / "nfsp"), "--hands", "20", "--opponents",
                            "first-legal", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert results["tournament"]["names"] == ["nfsp", "first-legal"]
