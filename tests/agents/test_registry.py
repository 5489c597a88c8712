"""The agent table: every row builds its agent, unknown names fail fast, and nothing imports a
family (or torch) before an agent of that family is built."""

from __future__ import annotations

import dataclasses
import inspect
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pokerzoo import load_game
from pokerzoo.agents.base import Agent
from pokerzoo.agents.registry import (
    ABILITIES,
    AGENTS,
    UNITS,
    AgentSpec,
    agent_spec,
    distributed_agents,
    env_agents,
    make_agent,
    make_env_agent,
    registered_agents,
)
from pokerzoo.errors import ConfigError
from tests.manual import section as manual_section

ROOT = Path(__file__).resolve().parents[2]
FAMILY_PREFIXES = ("pokerzoo.agents.cfr", "pokerzoo.agents.fictitious", "pokerzoo.agents.nfsp",
                   "pokerzoo.agents.deep")
# unknown_env: VCFR's Bayesian reward network (its config holds the network's config).
NEURAL_FAMILIES = ("pokerzoo.agents.nfsp", "pokerzoo.agents.deep", "pokerzoo.agents.unknown_env")


def run_python(code: str) -> str:
    """Run ``code`` in a fresh interpreter (so ``sys.modules`` starts empty); its stdout."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_every_row_resolves_and_builds_its_agent(name: str) -> None:
    spec = agent_spec(name)
    assert spec.name == name and callable(spec.factory)
    assert spec.module == spec.entry_point.split(":")[0]
    config_class = spec.config_class
    assert config_class is not None and dataclasses.is_dataclass(config_class)
    game = load_game("unknown_kuhn_poker" if spec.unknown_only else "kuhn_poker")
    agent = make_agent(name, game, seed=0)
    assert isinstance(agent, Agent)
    assert agent.name == name
    assert isinstance(agent.config, config_class)


def test_spec_fields() -> None:
    assert sorted(registered_agents()) == sorted(AGENTS)
    for name, spec in AGENTS.items():
        assert spec.units in UNITS, name
        assert spec.description, name
        # Only the neural families need torch; everything in the table is scored exactly on
        # trees that fit (NFSP and Deep CFR by tabularising their networks).
        assert spec.requires == (("torch",) if spec.module.startswith(NEURAL_FAMILIES)
                                 else ()), name
        assert spec.tabular, name
    assert agent_spec("cfr+").units == "iterations"
    assert agent_spec("nfsp-plt").units == "episodes"


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_abilities_in_the_table_are_what_the_agents_accept(name: str) -> None:
    spec = agent_spec(name)
    accepted = inspect.signature(spec.factory).parameters
    assert spec.distributed == ("executor" in accepted and "workers" in accepted)
    fields = {f.name for f in dataclasses.fields(spec.config_class)}
    assert spec.oracle == ("oracle" in fields)
    assert spec.wants_oracle({"oracle": True}) == spec.oracle
    assert not spec.wants_oracle({}) and not spec.wants_oracle({"oracle": False})


ABILITY_FACES = {
    "diagnostics": ("diagnostics",),
    "close": ("close",),
    "solves": ("solves",),
    "rounds": ("rounds", "episodes_per_round", "posterior"),
}
"""The attributes each declared ability promises (pokerzoo.agents.base's Protocols)."""


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_declared_abilities_are_what_the_agent_has(name: str) -> None:
    # The run reads an ability only where the row declares it, so the row must be exact: an
    # agent with an undeclared ability would lose it (VCFR's diagnostics, NFSP's close).
    assert set(ABILITY_FACES) == set(ABILITIES)
    spec = agent_spec(name)
    game = load_game("unknown_kuhn_poker" if spec.unknown_only else "kuhn_poker")
    agent = make_agent(name, game, seed=0)
    has = {ability for ability, names in ABILITY_FACES.items()
           if all(hasattr(agent, n) for n in names)}
    assert has == set(spec.abilities), name


def test_an_unknown_ability_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"unknown abilities \['fly'\]"):
        AgentSpec("x", "pokerzoo.agents.cfr.full_width:make_preset", "iterations", "x",
                  tabular=True, abilities=frozenset({"fly"}))


def test_env_agents_are_the_rows_with_an_env_factory() -> None:
    assert env_agents() == ["nfsp", "nfsp-per", "nfsp-plt", "mccfr-es", "mccfr-os", "deep-cfr"]
    assert set(env_agents()) == {n for n, s in AGENTS.items() if s.env_entry_point is not None}


def test_an_agent_without_an_env_factory_is_refused_naming_those_with_one() -> None:
    from pettingzoo.classic import tictactoe_v3

    with pytest.raises(ConfigError, match="'cfr\\+' does not train on an AEC env; --env takes "
                                          "nfsp, nfsp-per"):
        make_env_agent("cfr+", tictactoe_v3.env)
    agent = make_env_agent("mccfr-es", tictactoe_v3.env, seed=3)
    assert isinstance(agent, Agent) and agent.iteration == 0


def test_distributed_agents_are_the_rows_that_take_workers() -> None:
    assert distributed_agents() == sorted(n for n, s in AGENTS.items() if s.distributed)
    assert "nfsp" in distributed_agents() and "cfr" not in distributed_agents()


def test_no_ghost_names() -> None:
    # The families of later issues are added with their code, not before it.
    assert not {"vcfr-x", "deep"} & set(AGENTS)


@pytest.mark.parametrize("name", ["nope", "cfr++", "", "CFR+"])
def test_unknown_name_lists_the_valid_ones(name: str) -> None:
    with pytest.raises(ConfigError, match=f"unknown agent {re.escape(repr(name))}") as info:
        agent_spec(name)
    assert str(sorted(AGENTS)) in str(info.value)
    with pytest.raises(ConfigError, match="valid agents are"):
        make_agent(name, load_game("kuhn_poker"))


def test_unknown_name_suggests_the_closest() -> None:
    with pytest.raises(ConfigError, match=r"did you mean 'cfr\+'\?"):
        agent_spec("cfr++")
    with pytest.raises(ConfigError, match="did you mean 'mccfr-os'"):
        agent_spec("mccfr_os")


@pytest.mark.parametrize("name", [3, None, ["cfr"], ("cfr",)])
def test_a_name_that_is_not_a_string_is_a_config_error(name: object) -> None:
    with pytest.raises(ConfigError, match="unknown agent"):
        agent_spec(name)  # type: ignore[arg-type]


def test_bad_rows_are_refused() -> None:
    with pytest.raises(ConfigError, match="units must be one of"):
        AgentSpec("x", "pokerzoo.agents.cfr.full_width:make_preset", "hands", "x", tabular=True)
    with pytest.raises(ConfigError, match="package.module:attribute"):
        AgentSpec("x", "pokerzoo.agents.cfr.full_width.make_preset", "iterations", "x",
                  tabular=True)


def test_listing_and_unknown_names_import_no_family_and_no_torch() -> None:
    out = run_python(f"""
        import sys
        from pokerzoo.agents.registry import agent_spec, registered_agents
        from pokerzoo.errors import ConfigError
        assert len(registered_agents()) == {len(AGENTS)}
        assert agent_spec("nfsp").units == "episodes"
        try:
            agent_spec("nope")
        except ConfigError as error:
            print("refused:", error)
        families = [m for m in sys.modules if m.startswith({FAMILY_PREFIXES!r})]
        print("torch" in sys.modules, families)
    """)
    assert "refused: unknown agent 'nope'" in out
    assert out.splitlines()[-1] == "False []"


def test_torch_free_agents_build_without_importing_torch() -> None:
    torch_free = sorted(name for name, spec in AGENTS.items() if "torch" not in spec.requires)
    assert {"cfr+", "mccfr-os", "xfp"} <= set(torch_free)
    out = run_python(f"""
        import sys
        from pokerzoo import load_game
        from pokerzoo.agents.registry import make_agent
        for name in {torch_free!r}:
            make_agent(name, load_game("kuhn_poker"))
        print("torch" in sys.modules, "pokerzoo.agents.nfsp" in sys.modules)
    """)
    assert out.splitlines()[-1] == "False False"


def test_building_a_cfr_agent_imports_only_its_family() -> None:
    out = run_python("""
        import sys
        from pokerzoo import load_game
        from pokerzoo.agents.registry import make_agent
        make_agent("cfr+", load_game("kuhn_poker"))
        print("pokerzoo.agents.cfr.full_width" in sys.modules,
              "pokerzoo.agents.fictitious" in sys.modules, "torch" in sys.modules)
    """)
    assert out.splitlines()[-1] == "True False False"


def test_train_list_shows_the_table() -> None:
    result = subprocess.run(
        [sys.executable, "train.py", "--list"], cwd=ROOT, capture_output=True, text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    listed = {}
    for line in result.stdout.split("games:")[0].splitlines()[1:]:
        name, rest = line.split(maxsplit=1)
        listed[name] = rest
    assert sorted(listed) == sorted(AGENTS)
    for name, spec in AGENTS.items():
        assert listed[name].startswith(f"({spec.units}")
        assert spec.description in listed[name]
        assert ("needs torch" in listed[name]) == ("torch" in spec.requires)


def test_readme_agent_table_matches_the_registry() -> None:
    section = manual_section("## Solvers and learners")
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    documented = {}
    for row in rows:
        names_cell, _what, units_cell = (cell.strip() for cell in row.strip("|").split("|"))
        for name in re.findall(r"`([^`]+)`", names_cell):
            documented[name] = units_cell
    assert sorted(documented) == sorted(AGENTS)
    for name, units in documented.items():
        assert units == AGENTS[name].units, name
