"""Agent names -> constructors, for ``train.py`` and ``evaluate.py``.

Each family module registers its agents with ``register_agent``; ``make_agent(name, game,
seed=..., **params)`` builds one with a clear error for unknown names or parameters.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pokerzoo.agents.base import Agent
from pokerzoo.games.base import ConfigError, Game


@dataclass(frozen=True)
class AgentSpec:
    """How to build an agent and what budget units it understands."""

    name: str
    factory: Callable[..., Agent]
    """``factory(game, seed=..., **params) -> Agent``."""
    units: str = "iterations"
    """What one ``iterate`` unit is: "iterations", "episodes" or "rounds"."""
    description: str = ""
    tabular: bool = True
    """Whether its policy can be scored exactly on the game's tree."""


_AGENTS: dict[str, AgentSpec] = {}
_FAMILY_MODULES = ("cfr", "fictitious", "nfsp")
# Where each known agent lives, so building one imports only its family (a CFR run should
# not pay for importing torch). Names not listed here are found by importing every family.
_HOME = {
    "cfr": "cfr", "cfr+": "cfr", "lcfr": "cfr", "dcfr": "cfr",
    "mccfr-os": "cfr", "mccfr-es": "cfr",
    "xfp": "fictitious", "gxfp": "fictitious", "bufp-x": "fictitious", "bufp-ef": "fictitious",
    "nfsp": "nfsp", "nfsp-per": "nfsp", "nfsp-plt": "nfsp",
}


def register_agent(spec: AgentSpec) -> AgentSpec:
    """Make ``spec.name`` available to ``make_agent`` and the scripts."""
    _AGENTS[spec.name] = spec
    return spec


def _load_families(modules: tuple[str, ...] = _FAMILY_MODULES) -> None:
    for module in modules:
        try:
            importlib.import_module(f"pokerzoo.agents.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"pokerzoo.agents.{module}":
                raise


def registered_agents() -> dict[str, AgentSpec]:
    """All agent specs by name."""
    _load_families()
    return dict(sorted(_AGENTS.items()))


def agent_spec(name: str) -> AgentSpec:
    """The spec of agent ``name``; ``ConfigError`` listing the valid names otherwise."""
    if name in _HOME:
        _load_families((_HOME[name],))
        if name in _AGENTS:
            return _AGENTS[name]
    agents = registered_agents()
    if name not in agents:
        close = difflib.get_close_matches(name, agents, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"unknown agent {name!r}{hint}; valid agents are {sorted(agents)}")
    return agents[name]


def make_agent(name: str, game: Game, seed: int = 0, **params: Any) -> Agent:
    """Build agent ``name`` for ``game``; unknown parameters raise ``ConfigError``."""
    spec = agent_spec(name)
    accepted = inspect.signature(spec.factory).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values()):
        unknown = sorted(set(params) - set(accepted))
        if unknown:
            valid = sorted(set(accepted) - {"game", "seed"})
            raise ConfigError(
                f"unknown parameter(s) {unknown} for agent {name!r}; valid are {valid}"
            )
    try:
        return spec.factory(game, seed=seed, **params)
    except TypeError as exc:
        raise ConfigError(f"bad parameters for agent {name!r}: {exc}") from exc
