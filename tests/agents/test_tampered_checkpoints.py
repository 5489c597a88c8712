"""Tampered checkpoints are refused in one line naming what is wrong, and leave the agent as it
was: NaN regrets, another solver's config, odd iteration counts, duplicate zip members."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

import pokerzoo
from pokerzoo.agents.registry import make_agent
from pokerzoo.checkpoint import read_checkpoint, write_checkpoint
from pokerzoo.errors import CheckpointError


def _saved(tmp_path: Path, name: str = "cfr+") -> tuple[Path, dict]:
    agent = make_agent(name, pokerzoo.load_game("kuhn_poker"))
    agent.iterate(5)
    path = tmp_path / "run.pzc"
    agent.save(path)
    header, state = read_checkpoint(path)
    return path, {"header": header, "state": state}


def _rewrite(path: Path, saved: dict, **changes: object) -> None:
    state = {**saved["state"], **changes}
    write_checkpoint(path, agent_name=saved["header"]["agent"], state=state,
                     meta=saved["header"]["meta"])


def test_nan_regrets_are_refused(tmp_path: Path) -> None:
    path, saved = _saved(tmp_path)
    regrets = saved["state"]["regrets"].copy()
    regrets[0, 0] = np.nan
    _rewrite(path, saved, regrets=regrets)
    fresh = make_agent("cfr+", pokerzoo.load_game("kuhn_poker"))
    with pytest.raises(CheckpointError, match="regrets holds NaN or infinite values"):
        fresh.load(path)
    assert fresh.iteration == 0 and np.all(fresh.regrets == 0)


def test_another_solvers_config_is_refused_not_adopted(tmp_path: Path) -> None:
    path, saved = _saved(tmp_path)
    config = {**saved["state"]["config"], "regret_matching_plus": False}
    _rewrite(path, saved, config=config)
    fresh = make_agent("cfr+", pokerzoo.load_game("kuhn_poker"))
    with pytest.raises(CheckpointError, match="regret_matching_plus=False but this agent has "
                                              "regret_matching_plus=True"):
        fresh.load(path)
    assert fresh.config.regret_matching_plus


@pytest.mark.parametrize("iteration", [-3, 2.5, "7", True, None])
def test_odd_iteration_counts_are_refused(tmp_path: Path, iteration: object) -> None:
    path, saved = _saved(tmp_path)
    _rewrite(path, saved, iteration=iteration)
    with pytest.raises(CheckpointError, match="iteration count"):
        make_agent("cfr+", pokerzoo.load_game("kuhn_poker")).load(path)


def test_duplicate_zip_members_are_refused(tmp_path: Path) -> None:
    path, _ = _saved(tmp_path)
    with zipfile.ZipFile(path) as zf:
        state_json = zf.read("state.json")
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(path, "a") as zf:
        zf.writestr("state.json", state_json)  # a second copy would win on reading
    with pytest.raises(CheckpointError, match=r"members \['state.json'\] appear more than once"):
        make_agent("cfr+", pokerzoo.load_game("kuhn_poker")).load(path)


@pytest.mark.parametrize("name, game, params", [
    ("nfsp", "kuhn_poker", {}),
    ("deep-cfr", "kuhn_poker", {"traversals": 20, "advantage_steps": 5, "policy_steps": 5}),
    ("random-interaction", "unknown_kuhn_poker", {}),
])
def test_every_family_refuses_a_negative_iteration_count(tmp_path: Path, name: str, game: str,
                                                         params: dict) -> None:
    from pokerzoo.runs.load import game_view, game_view_name

    built = pokerzoo.load_game(game, **({"seed": 1} if game.startswith("unknown") else {}))
    learner = game_view(built, game_view_name(name, params, built))
    agent = make_agent(name, learner, **params)
    agent.iterate(1)
    path = tmp_path / "a.pzc"
    agent.save(path)
    header, state = read_checkpoint(path)
    write_checkpoint(path, agent_name=header["agent"], state={**state, "iteration": -1},
                     meta=header["meta"])
    with pytest.raises(CheckpointError, match="iteration count is -1"):
        agent.load(path)
    assert agent.iteration >= 1  # refused before anything changed
