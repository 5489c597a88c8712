"""The env table: every row builds its env, ``make``, PettingZoo's and Gymnasium's registries all
agree with it, and unknown names fail fast without importing any env module."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import gymnasium
import pettingzoo
import pytest

from pokerzoo.envs import make, registered_envs
from pokerzoo.envs.registration import (
    AEC_IDS,
    GYM_IDS,
    SINGLE_AGENT_ENTRY_POINT,
    aec_ids,
    gym_ids,
    register_all,
)
from pokerzoo.envs.registry import ENVS, env_module, env_spec
from pokerzoo.errors import ConfigError
from pokerzoo.games.registry import registered_games
from tests.manual import manual_text

ROOT = Path(__file__).resolve().parents[2]
NAMESPACE = "pokerzoo/"

register_all()


def run_python(code: str) -> str:
    """Run ``code`` in a fresh interpreter (so ``sys.modules`` starts empty); its stdout."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_table() -> None:
    assert registered_envs() == sorted(ENVS)
    assert set(registered_envs()) >= {
        "kuhn_poker_v0", "leduc_holdem_v0", "limit_holdem_v0", "no_limit_holdem_v0",
        "unknown_kuhn_poker_v0", "unknown_leduc_holdem_v0",
    }
    for name, spec in ENVS.items():
        assert spec.name == name
        assert spec.game in registered_games(), name
        assert spec.aec_id is not None and spec.aec_id.startswith(NAMESPACE), name
        assert spec.entry_point == f"{spec.module}:env"
    ids = [i for spec in ENVS.values() for i in (spec.aec_id, spec.gym_id) if i is not None]
    assert len(ids) == len(set(ids)), "an id names two envs"


@pytest.mark.parametrize("name", sorted(ENVS))
def test_every_row_resolves_and_builds_its_env(name: str) -> None:
    spec = env_spec(name)
    module = env_module(name)
    assert module.__name__ == spec.module
    assert callable(module.env) and callable(module.raw_env)
    for raw in (False, True):
        env = make(name, raw=raw)
        assert env.game.name == spec.game
        env.reset(seed=0)
        # PettingZoo's no-limit env (and its drop-in) seats the dealer by the seed.
        first = "player_1" if name == "classic_texas_holdem_no_limit_v6" else "player_0"
        assert env.agent_selection == first
    assert make(name).illegal_action == "penalize"
    assert make(name, raw=True).illegal_action == "raise"


def test_pettingzoo_registry_holds_exactly_the_table_ids() -> None:
    registered = {i for i in pettingzoo.aec_registry if i.startswith(NAMESPACE)}
    assert registered == {spec.aec_id for spec in ENVS.values()}
    assert AEC_IDS == aec_ids() == {spec.aec_id: spec.entry_point for spec in ENVS.values()}


@pytest.mark.parametrize("name", sorted(ENVS))
def test_each_pettingzoo_id_builds_the_same_env_as_make(name: str) -> None:
    spec = ENVS[name]
    assert spec.aec_id is not None
    env = pettingzoo.make("aec", spec.aec_id)
    assert type(env) is type(make(name))
    assert env.game == make(name).game


def test_gymnasium_registry_holds_exactly_the_table_ids() -> None:
    registered = {i for i in gymnasium.registry if i.startswith(NAMESPACE)}
    table = {spec.gym_id: spec.name for spec in ENVS.values() if spec.gym_id is not None}
    assert registered == set(table)
    assert GYM_IDS == gym_ids() == table
    for gym_id, name in table.items():
        assert gymnasium.spec(gym_id).entry_point == SINGLE_AGENT_ENTRY_POINT
        assert gymnasium.spec(gym_id).kwargs == {"env": name}
    assert set(table.values()) == {
        "kuhn_poker_v0", "leduc_holdem_v0", "limit_holdem_v0", "no_limit_holdem_v0"
    }


def test_gymnasium_id_plays_the_named_env() -> None:
    env = gymnasium.make("pokerzoo/LeducHoldem-v0", seat=0)
    assert env.unwrapped.aec.game == make("leduc_holdem_v0").game
    env.close()


def test_readme_names_every_id() -> None:
    text = manual_text()
    for gym_id in gym_ids():
        assert f"`{gym_id}`" in text, gym_id


@pytest.mark.parametrize("name", ["leduc_v9", "leduc_hold", "", "LEDUC_HOLDEM_V0"])
def test_unknown_name_lists_the_available_ones(name: str) -> None:
    with pytest.raises(ConfigError, match=f"unknown env {re.escape(repr(name))}") as info:
        make(name)
    assert str(sorted(ENVS)) in str(info.value)
    with pytest.raises(ConfigError, match="available envs are"):
        env_spec(name)


def test_unknown_name_suggests_the_closest() -> None:
    with pytest.raises(ConfigError, match="did you mean 'leduc_holdem_v0'"):
        make("leduc_holdem_v1")


@pytest.mark.parametrize("name", [3, None, ["kuhn_poker_v0"]])
def test_a_name_that_is_not_a_string_is_a_config_error(name: object) -> None:
    with pytest.raises(ConfigError, match="unknown env"):
        make(name)  # type: ignore[arg-type]


def test_unknown_names_import_no_env_module() -> None:
    out = run_python("""
        import sys
        import pokerzoo
        from pokerzoo.errors import ConfigError
        try:
            pokerzoo.make("nope_v0")
        except ConfigError as error:
            print("refused:", error)
        names = [name.split(".")[-1] for name in pokerzoo.registered_envs()]
        print([m for m in sys.modules if m.split(".")[-1] in names])
    """)
    assert "refused: unknown env 'nope_v0'" in out
    assert out.splitlines()[-1] == "[]"


def test_register_env_adds_a_row_everywhere() -> None:
    # In a fresh interpreter: the registries are process-wide.
    out = run_python("""
        import gymnasium, pettingzoo
        import pokerzoo
        from pokerzoo.envs import register_env
        from pokerzoo.envs.registration import AEC_IDS, GYM_IDS
        from pokerzoo.errors import ConfigError
        register_env("my_kuhn_v0", "pokerzoo.envs.kuhn_poker_v0", "kuhn_poker",
                     aec_id="mine/kuhn-v0", gym_id="mine/Kuhn-v0")
        register_env("my_kuhn_v0", "pokerzoo.envs.kuhn_poker_v0", "kuhn_poker",
                     aec_id="mine/kuhn-v0", gym_id="mine/Kuhn-v0")  # the same row: no-op
        assert "my_kuhn_v0" in pokerzoo.registered_envs()
        assert pokerzoo.make("my_kuhn_v0").game.name == "kuhn_poker"
        assert pettingzoo.make("aec", "mine/kuhn-v0").game.name == "kuhn_poker"
        assert gymnasium.spec("mine/Kuhn-v0").kwargs == {"env": "my_kuhn_v0"}
        assert AEC_IDS["mine/kuhn-v0"] == "pokerzoo.envs.kuhn_poker_v0:env"
        assert GYM_IDS["mine/Kuhn-v0"] == "my_kuhn_v0"
        for bad in [
            dict(name="my_kuhn_v0", module="pokerzoo.envs.leduc_holdem_v0", game="leduc_holdem"),
            dict(name="other_v0", module="pokerzoo.envs.leduc_holdem_v0", game="leduc_holdem",
                 aec_id="pokerzoo/leduc_holdem-v0"),
            dict(name="bad_v0", module="", game="kuhn_poker"),
        ]:
            try:
                register_env(**bad)
            except ConfigError as error:
                print("refused:", error)
    """)
    refusals = [line for line in out.splitlines() if line.startswith("refused:")]
    assert len(refusals) == 3
    assert "reuses the name or an id of ['my_kuhn_v0']" in refusals[0]
    assert "reuses the name or an id of ['leduc_holdem_v0']" in refusals[1]
    assert "package.module:attribute" in refusals[2]
