"""``train.py --env`` also trains Deep CFR (on a copyable env whose observation layout is
declared), resumes it, and ``load_agent`` restores it."""

from __future__ import annotations

from pathlib import Path

import pokerzoo
from pokerzoo.runs.config import RunConfig
from pokerzoo.runs.run import train as train_foreign

KUHN = "pokerzoo.envs.kuhn_poker_v0:raw_env"
PARAMS = {"traversals": 30, "advantage_steps": 10, "policy_steps": 10}


def test_deep_cfr_trains_on_an_env_resumes_and_reloads(tmp_path: Path) -> None:
    out = str(tmp_path / "deep")
    base = {"agent": "deep-cfr", "game": KUHN, "agent_params": PARAMS, "eval_hands": 100,
            "out": out, "tensorboard": False}
    first = train_foreign(RunConfig.from_dict({**base, "iterations": 2}), progress=False)
    assert first["iterations_done"] == 2 and "vs_random_per_hand" in first
    second = train_foreign(RunConfig.from_dict({**base, "iterations": 3}), progress=False)
    assert second["iterations_done"] == 3 and second["resumed"]
    agent = pokerzoo.load_agent(out)
    assert agent.iteration == 3 and agent.name == "deep-cfr-aec"
