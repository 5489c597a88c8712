"""The run config files that spell out a deep preset stay equal to it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pokerzoo.agents.deep.deep_cfr import DEEP_CFR_PRESETS, RUN_ONLY
from pokerzoo.runs.config import RunConfig

ROOT = Path(__file__).resolve().parents[3]


def test_leduc_deep_cfr_fast_config_is_the_preset() -> None:
    config = RunConfig.from_toml(ROOT / "configs" / "leduc_deep_cfr_fast.toml")
    preset = {k: v for k, v in dataclasses.asdict(DEEP_CFR_PRESETS["leduc-fast"]).items()
              if k not in RUN_ONLY}
    assert (config.agent, config.game) == ("deep-cfr", "leduc_holdem")
    assert config.agent_params == preset
