"""train.py's guards: a tree-based agent on hold'em fails at once naming the agents that can
train there; runs on unknown-environment games finish with JSON files that read back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pokerzoo.agents.registry import registered_agents
from pokerzoo.errors import ConfigError, TreeTooLargeError
from pokerzoo.games.unknown.priors import PSRLCFRPrior
from pokerzoo.runs.config import RunConfig
from pokerzoo.runs.run import train, tree_free_agents

ROOT = Path(__file__).resolve().parents[2]


def test_tree_free_agents_are_the_self_play_learners_and_deep_solvers() -> None:
    names = tree_free_agents()
    assert names == ["deep-cfr", "deep-gxfp", "nfsp", "nfsp-per", "nfsp-plt"]
    assert not any(registered_agents()[n].unknown_only for n in names)


@pytest.mark.parametrize("agent", ["cfr", "mccfr-es", "xfp"])
def test_tree_agent_on_holdem_fails_naming_the_agents_that_can(agent: str, tmp_path) -> None:
    out = tmp_path / "run"
    config = RunConfig(agent=agent, game="limit_holdem", iterations=10, out=str(out))
    with pytest.raises(TreeTooLargeError) as info:
        train(config, progress=False)
    message = str(info.value)
    assert f"agent {agent!r} needs the compiled tree" in message
    assert "deep-cfr, deep-gxfp, nfsp, nfsp-per, nfsp-plt" in message
    assert info.value.estimated_nodes is not None  # judged from the estimate, nothing built
    assert not out.exists()  # no half-made run folder


def test_train_script_reports_it_in_one_line(tmp_path) -> None:
    result = subprocess.run(
        [sys.executable, "train.py", "--agent", "mccfr-es", "--game", "limit_holdem",
         "--out", str(tmp_path / "run"), "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode != 0
    assert result.stderr.startswith("error: agent 'mccfr-es' needs the compiled tree")
    assert "nfsp-plt" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("game", ["unknown_kuhn_poker", "unknown_leduc_holdem"])
@pytest.mark.parametrize(("agent", "budget"), [("cfr+", {"iterations": 20}),
                                               ("nfsp", {"episodes": 64})])
def test_unknown_game_runs_finish(game: str, agent: str, budget: dict, tmp_path) -> None:
    out = tmp_path / "run"
    config = RunConfig(agent=agent, game=game, out=str(out), tensorboard=False, **budget)
    summary = train(config, progress=False)
    assert summary["exploitability"] > 0
    assert json.loads((out / "summary.json").read_text()) == json.loads(json.dumps(summary))
    stored = json.loads((out / "config.json").read_text())
    assert stored["game"] == game
    assert not list(out.glob("*.tmp"))
    again = train(config, progress=False)  # the same run resumes from its folder
    assert again["resumed"]


def test_a_prior_object_in_the_game_params_is_written_as_it_reads_back(tmp_path) -> None:
    from pokerzoo.runs.folder import SavedRun

    out = tmp_path / "run"
    prior = PSRLCFRPrior(concentration=2.0)
    config = RunConfig(agent="cfr+", game="unknown_kuhn_poker", out=str(out), iterations=10,
                       game_params={"prior": prior}, tensorboard=False)
    summary = train(config, progress=False)
    stored = json.loads((out / "config.json").read_text())
    assert stored["game_params"]["prior"]["name"] == "psrlcfr"
    saved = SavedRun.open(out)
    assert repr(saved.game) == summary["game"]  # the same game, prior included
    assert train(config, progress=False)["resumed"]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_deep_cfr_trains_on_no_limit_holdem_with_lbr_and_matches(tmp_path) -> None:
    out = tmp_path / "run"
    tiny = {"traversals": 4, "advantage_steps": 2, "policy_steps": 2, "batch_size": 8}
    config = RunConfig(agent="deep-cfr", game="no_limit_holdem", iterations=1, out=str(out),
                       agent_params=tiny, eval_hands=20, eval_lbr_deals=1, tensorboard=False)
    summary = train(config, progress=False)
    header = (out / "metrics.csv").read_text().splitlines()[0].split(",")
    for column in ("bb_per_100_vs_random", "ci95", "lbr_mbb_per_game", "lbr_ci95"):
        assert column in header
    # One deal gives no spread: an infinite interval, never a made-up one.
    assert np.isfinite(summary["lbr_mbb_per_game"]) and summary["lbr_ci95"] == np.inf


@pytest.mark.parametrize(("game", "params"), [("leduc_holdem", {}),
                                             ("no_limit_holdem", {"num_players": 3})])
def test_lbr_evaluation_is_refused_outside_heads_up_holdem(game: str, params: dict,
                                                          tmp_path) -> None:
    config = RunConfig(agent="deep-cfr", game=game, game_params=params, iterations=1,
                       out=str(tmp_path / "run"), eval_lbr_deals=10)
    with pytest.raises(ConfigError, match="heads-up limit or no-limit hold'em"):
        train(config, progress=False)
    assert not (tmp_path / "run").exists()
