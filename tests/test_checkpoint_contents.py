"""Meaningless checkpoint contents are refused at load, naming the field, and change nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pokerzoo
from pokerzoo.agents.registry import make_agent
from pokerzoo.checkpoint import checked_array, checked_int, read_checkpoint, write_checkpoint
from pokerzoo.errors import CheckpointError, ConfigError

KUHN = pokerzoo.load_game("kuhn_poker")


def test_a_path_that_is_not_a_path_or_a_system_file_is_one_line() -> None:
    with pytest.raises(ConfigError, match="must be a str or path, not NoneType"):
        read_checkpoint(None)  # type: ignore[arg-type]
    with pytest.raises(CheckpointError, match="is a system file") as caught:
        read_checkpoint("/proc/self/mem")
    assert "\n" not in str(caught.value)


def _saved(tmp_path: Path, name: str = "cfr+") -> tuple[Path, dict[str, Any], dict[str, Any]]:
    agent = make_agent(name, KUHN)
    agent.iterate(5)
    path = tmp_path / "run.pzc"
    agent.save(path)
    header, state = read_checkpoint(path)
    return path, header, state


def _refused(tmp_path: Path, name: str, fragment: str, **changes: Any) -> None:
    path, header, state = _saved(tmp_path, name)
    write_checkpoint(path, agent_name=header["agent"], state={**state, **changes},
                     meta=header["meta"])
    fresh: Any = make_agent(name, KUHN)
    before = {key: getattr(fresh, key).copy() for key in fresh._state_arrays}
    with pytest.raises(CheckpointError) as caught:
        fresh.load(path)
    assert fragment in str(caught.value) and "\n" not in str(caught.value)
    assert fresh.iteration == 0
    assert all(np.array_equal(getattr(fresh, key), before[key]) for key in before)


@pytest.mark.parametrize("name", ["cfr+", "cfr"])
def test_negative_or_all_zero_strategy_sums_are_refused(tmp_path: Path, name: str) -> None:
    _, _, state = _saved(tmp_path, name)
    negative = state["strategy_sum"].copy()
    negative.reshape(-1)[0] = -1.0
    _refused(tmp_path, name, "strategy_sum holds -1.0; its values must be >= 0",
             strategy_sum=negative)
    _refused(tmp_path, name, "strategy_sum is all zero after 5 iterations",
             strategy_sum=np.zeros_like(state["strategy_sum"]))


def test_an_absurd_iteration_count_is_refused(tmp_path: Path) -> None:
    _refused(tmp_path, "cfr+", "iteration count is 1000000000000000000000000000000",
             iteration=10**30)


@pytest.mark.parametrize("dtype", ["U12", "complex128", "bool", "int64"])
def test_regrets_of_another_type_are_refused_not_cast(tmp_path: Path, dtype: str) -> None:
    _, _, state = _saved(tmp_path)
    _refused(tmp_path, "cfr+", f"checkpoint field regrets holds dtype {np.dtype(dtype)}",
             regrets=state["regrets"].astype(dtype))


def test_fictitious_play_probabilities_must_be_non_negative(tmp_path: Path) -> None:
    _, _, state = _saved(tmp_path, "xfp")
    probs = state["probs"].copy()
    probs.reshape(-1)[0] = -0.5
    _refused(tmp_path, "xfp", "probs holds -0.5", probs=probs)


def test_the_shared_checks_name_the_field() -> None:
    with pytest.raises(CheckpointError, match="field w has shape \\[2\\]; it must have shape"):
        checked_array(np.zeros(2), "w", shape=(3,))
    with pytest.raises(CheckpointError, match="field w must be an array, not list"):
        checked_array([1.0], "w")
    with pytest.raises(CheckpointError, match="field n is True; it must be an int from 0"):
        checked_int(True, "n")


def test_nfsp_weights_all_nan_are_refused_before_any_learner_changes(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    params = {"num_envs": 4, "hidden_sizes": (8,), "learn_every": 8, "batch_size": 8,
              "min_buffer_size": 16, "rl_buffer_size": 200, "sl_buffer_size": 200}
    agent = make_agent("nfsp", KUHN, seed=0, **params)
    agent.iterate(20)
    path = tmp_path / "nfsp.pzc"
    agent.save(path)
    header, state = read_checkpoint(path)
    for tensor in state["learners"][1]["avg"].values():
        tensor.fill_(float("nan"))
    write_checkpoint(path, agent_name=header["agent"], state=state, meta=header["meta"])
    fresh: Any = make_agent("nfsp", KUHN, seed=0, **params)
    before = {k: v.clone() for k, v in fresh.learners[0].avg.state_dict().items()}
    with pytest.raises(CheckpointError, match="learner.avg.* holds NaN or infinite values"):
        fresh.load(path)
    after = fresh.learners[0].avg.state_dict()
    assert all(bool((after[k] == v).all()) for k, v in before.items())


@pytest.mark.parametrize(("change", "fragment"), [
    (lambda sigma: sigma.astype("U8"), "sigma holds dtype <U8"),
    (lambda sigma: sigma + 2.0, "its values must be <= 1.0"),
])
def test_deep_cfr_strategy_tables_are_refused_not_cast(tmp_path: Path, change: Any,
                                                       fragment: str) -> None:
    pytest.importorskip("torch")
    params = {"traversals": 20, "advantage_steps": 10, "policy_steps": 10, "batch_size": 16,
              "device": "cpu"}
    agent = make_agent("deep-cfr", KUHN, seed=0, **params)
    agent.iterate(1)
    path = tmp_path / "deep.pzc"
    agent.save(path)
    header, state = read_checkpoint(path)
    state["sigma"] = change(state["sigma"])
    write_checkpoint(path, agent_name=header["agent"], state=state, meta=header["meta"])
    fresh = make_agent("deep-cfr", KUHN, seed=0, **params)
    with pytest.raises(CheckpointError, match="checkpoint field sigma") as caught:
        fresh.load(path)
    assert fragment in str(caught.value)
    assert fresh.iteration == 0


def _fill_nan(weights: dict[str, Any]) -> None:
    for value in weights.values():
        if hasattr(value, "fill_"):
            value.fill_(float("nan"))
        else:
            value[...] = np.nan


@pytest.mark.parametrize(("name", "params", "nets", "fragment"), [
    ("deep-cfr", {"traversals": 20, "advantage_steps": 10, "policy_steps": 10,
                  "batch_size": 16, "device": "cpu"},
     lambda state: [n for n in state["advantage_nets"] if n is not None],
     r"advantage_nets\[\d\]\..* holds NaN or infinite values"),
    ("deep-gxfp", {"traversals": 20, "utility_steps": 5, "strategy_steps": 5,
                   "batch_size": 16, "device": "cpu"},
     lambda state: [state["strategy"]["weights"]], r"network weights\..* holds NaN"),
])
def test_deep_networks_with_nan_weights_are_refused_at_load(
        tmp_path: Path, name: str, params: dict[str, Any], nets: Any, fragment: str) -> None:
    pytest.importorskip("torch")
    agent = make_agent(name, KUHN, seed=0, **params)
    agent.iterate(1)
    path = tmp_path / "deep.pzc"
    agent.save(path)
    header, state = read_checkpoint(path)
    for weights in nets(state):
        _fill_nan(weights)
    write_checkpoint(path, agent_name=header["agent"], state=state, meta=header["meta"])
    fresh = make_agent(name, KUHN, seed=0, **params)
    with pytest.raises(CheckpointError, match=fragment):
        fresh.load(path)
    assert fresh.iteration == 0
