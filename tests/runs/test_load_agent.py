"""``pokerzoo.load_agent``: a checkpoint or a run folder rebuilds its agent from what the
checkpoint records, with the game view training used; what cannot be rebuilt is refused in one
line naming what is missing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import pokerzoo
from pokerzoo.agents.cfr.full_width import CFRPlus
from pokerzoo.agents.registry import make_agent
from pokerzoo.checkpoint import read_checkpoint, read_header, write_checkpoint
from pokerzoo.errors import CheckpointError
from pokerzoo.evaluation.exact import tabularize
from pokerzoo.runs.config import RunConfig
from pokerzoo.runs.run import train
from pokerzoo.tree import build


def test_a_saved_agent_rebuilds_itself(tmp_path: Path) -> None:
    game = pokerzoo.load_game("leduc_holdem", num_ranks=4)
    agent = make_agent("dcfr", game, seed=3, discount=(1.0, 0.0, 2.0))
    agent.iterate(20)
    agent.save(tmp_path / "a.pzc")
    again = pokerzoo.load_agent(tmp_path / "a.pzc")
    assert (again.name, again.iteration) == ("dcfr", 20)
    assert again.build == agent.build
    assert again.build["agent_params"] == {"discount": (1.0, 0.0, 2.0)}
    np.testing.assert_array_equal(again.average_policy().probs, agent.average_policy().probs)
    # Both go on identically: the rebuilt agent is the same agent, not just the same table.
    agent.iterate(5)
    again.iterate(5)
    np.testing.assert_array_equal(again.average_policy().probs, agent.average_policy().probs)


def test_a_network_run_folder_rebuilds_its_agent(tmp_path: Path) -> None:
    out = tmp_path / "nfsp"
    train(RunConfig(agent="nfsp", game="kuhn_poker", episodes=500, seed=2, out=str(out),
                    tensorboard=False, agent_params={"batch_size": 32}), progress=False)
    agent = pokerzoo.load_agent(out)
    direct = make_agent("nfsp", pokerzoo.load_game("kuhn_poker"), seed=2, batch_size=32)
    direct.load(out / "checkpoint.pzc")
    tree = build(pokerzoo.load_game("kuhn_poker"))
    np.testing.assert_array_equal(tabularize(tree, agent.policy()).probs,
                                  tabularize(tree, direct.policy()).probs)
    header = read_header(out / "checkpoint.pzc")
    assert header["meta"]["build"]["agent_params"] == {"batch_size": 32}


def test_the_game_view_training_used_is_applied(tmp_path: Path) -> None:
    out = tmp_path / "unknown"
    train(RunConfig(agent="random-interaction", game="unknown_kuhn_poker",
                    game_params={"seed": 5}, episodes=40, out=str(out), tensorboard=False),
          progress=False)
    record = read_header(out / "checkpoint.pzc")["meta"]["build"]
    assert record["game"] == "unknown_kuhn_poker" and record["game_params"]["seed"] == 5
    assert record["game_view"] == "interactive"
    agent = pokerzoo.load_agent(out / "checkpoint.pzc")
    # The rebuilt agent holds a view of the environment (an AgentGameView: no d* in reach),
    # as in training, not the game itself.
    assert agent.game.interactive is not None and agent.game.model_source == "prior mean"
    assert agent.iteration == 40


def test_a_record_less_checkpoint_is_refused_naming_what_is_missing(tmp_path: Path) -> None:
    solver = CFRPlus(pokerzoo.load_game("kuhn_poker"))  # built by its constructor: no record
    solver.iterate(3)
    solver.save(tmp_path / "bare.pzc")
    with pytest.raises(CheckpointError, match="missing: agent_params|missing: .*game"):
        pokerzoo.load_agent(tmp_path / "bare.pzc")


def test_an_older_run_folder_loads_through_its_config(tmp_path: Path) -> None:
    out = tmp_path / "old"
    train(RunConfig(agent="cfr", game="kuhn_poker", iterations=7, out=str(out),
                    tensorboard=False), progress=False)
    # Rewrite the checkpoint as an older pokerzoo wrote it: no build record in its header.
    header, state = read_checkpoint(out / "checkpoint.pzc")
    meta = {k: v for k, v in header["meta"].items() if k != "build"}
    write_checkpoint(out / "checkpoint.pzc", agent_name="cfr", state=state, meta=meta)
    assert pokerzoo.load_agent(out).iteration == 7
    with pytest.raises(CheckpointError, match="does not record how to rebuild"):
        pokerzoo.load_agent(_copy(out / "checkpoint.pzc", tmp_path / "alone.pzc"))


def test_a_checkpoint_of_another_agent_than_its_folder_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "mixed"
    train(RunConfig(agent="cfr", game="kuhn_poker", iterations=2, out=str(out),
                    tensorboard=False), progress=False)
    config = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({**config, "agent": "cfr+"}))
    with pytest.raises(CheckpointError, match="do not belong together"):
        pokerzoo.load_agent(out)


@pytest.mark.parametrize("content", ["[1, 2]", '{"agent": 3, "game": "kuhn_poker"}',
                                     '{"agent": "cfr", "game": "kuhn_poker", "game_params": 1}',
                                     "\udcff".encode("utf-8", "surrogateescape").decode("latin-1")])
def test_junk_config_gives_one_line(tmp_path: Path, content: str) -> None:
    out = tmp_path / "junk"
    train(RunConfig(agent="cfr", game="kuhn_poker", iterations=1, out=str(out),
                    tensorboard=False), progress=False)
    (out / "config.json").write_bytes(content.encode("latin-1", "replace"))
    with pytest.raises(pokerzoo.ConfigError, match="config.json is corrupt"):
        pokerzoo.load_agent(out)


def test_missing_paths(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no checkpoint or run folder"):
        pokerzoo.load_agent(tmp_path / "nothing")
    with pytest.raises(FileNotFoundError, match="holds no checkpoint"):
        pokerzoo.load_agent(tmp_path)


def _copy(source: Path, target: Path) -> Path:
    target.write_bytes(source.read_bytes())
    return target


def test_tuple_parameters_survive_the_folder_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "tuple"
    train(RunConfig(agent="dcfr", game="kuhn_poker", iterations=3, out=str(out),
                    agent_params={"discount": (1.0, 0.5, 2.0)}, tensorboard=False),
          progress=False)
    agent = pokerzoo.load_agent(out)
    assert agent.config.discount == (1.0, 0.5, 2.0) and agent.iteration == 3
