"""The agent table: every agent name, where its factory lives, and what it is.

``AGENTS`` is the one list of agents: ``train.py --list``, ``evaluate.py``, the README's table
(checked by a test) and ``make_agent`` all read it. Its entry points are strings, so listing
agents or rejecting an unknown name imports no family module (and no torch); building a CFR
agent imports only the CFR family.

>>> agent_spec("cfr+").units
'iterations'
>>> sorted(name for name, spec in registered_agents().items()
...        if spec.units == "episodes" and not spec.unknown_only)
['nfsp', 'nfsp-per', 'nfsp-plt']
>>> agent_spec("vcfr").unknown_only
True
>>> distributed_agents()
['deep-cfr', 'deep-gxfp', 'nfsp', 'nfsp-per', 'nfsp-plt']
>>> env_agents()
['nfsp', 'nfsp-per', 'nfsp-plt', 'mccfr-es', 'mccfr-os', 'deep-cfr']
>>> sorted(agent_spec("vcfr").abilities)
['diagnostics', 'rounds']
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from pokerzoo import entry_points
from pokerzoo.agents.base import Agent
from pokerzoo.errors import CheckpointError
from pokerzoo.games.base import ConfigError, Game, check_int

UNITS = ("iterations", "episodes", "rounds")
"""What one ``iterate`` unit can be: a solver iteration, a self-play episode, an interaction
round of a model-based agent."""

ABILITIES: dict[str, str] = {
    "diagnostics": "diagnostics() -> dict[str, float], logged beside the evaluation metrics "
                   "(pokerzoo.agents.base.HasDiagnostics)",
    "close": "close() releases its workers when a run ends (pokerzoo.agents.base.Closes)",
    "solves": "solves: the model a tabular solver solves, or None "
              "(pokerzoo.agents.base.SolvesModel)",
    "rounds": "plays interaction rounds: rounds, episodes_per_round and its posterior "
              "(pokerzoo.agents.base.PlaysRounds)",
}
"""What an agent can do beyond ``Agent``'s interface, by the name its table row declares it
with; a run reads only what the row declares (never probing the object)."""


@dataclass(frozen=True)
class AgentSpec:
    """One row of the agent table (nothing in it is imported until ``factory`` is read)."""

    name: str
    entry_point: str
    """``"module:attribute"`` of the factory: ``factory(preset, game, seed=..., **params)`` when
    ``preset`` is set, else ``factory(game, seed=..., **params)``; it returns an ``Agent`` named
    ``name`` (the preset names the agent it builds; other agents' classes carry the name)."""
    units: str
    """What one ``iterate`` unit is: one of ``UNITS``."""
    description: str
    tabular: bool
    """Whether its policy is scored exactly on the game's tree (a ``TabularPolicy``, or a
    network policy tabularised) when the tree fits, rather than by matches only."""
    config: str | None = None
    """``"module:Class"`` of the frozen config dataclass whose fields are its parameters."""
    preset: str | None = None
    """The family preset the factory builds (its first argument), if the factory takes one."""
    requires: tuple[str, ...] = ()
    """Optional third-party packages that building it imports (``"torch"``)."""
    unknown_only: bool = False
    """Whether it learns only unknown-environment games (by playing them)."""
    any_size: bool = False
    """Whether it trains on games whose tree does not fit (hold'em): it learns from sampled
    hands or traversals of states, not from the compiled tree."""
    distributed: bool = False
    """Whether its factory takes ``workers`` and ``executor`` (``pokerzoo.parallel``): rollout
    or traversal workers, in this process or on Ray (``--workers``, ``--ray-address``)."""
    oracle: bool = False
    """Whether it can be asked to solve an unknown-environment game's hidden true model d*
    (its config's ``oracle`` field: an oracle baseline, built from the environment game
    rather than an agent's view of it)."""
    abilities: frozenset[str] = frozenset()
    """What it can do beyond ``Agent``'s interface: names of ``ABILITIES``."""
    env_entry_point: str | None = None
    """``"module:attribute"`` of its factory on a PettingZoo AEC env (``train.py --env``):
    ``factory(preset, env_factory, seed=..., **params)`` when ``env_preset``, else
    ``factory(env_factory, seed=..., **params)``; ``None``: it trains on pokerzoo games only."""
    env_preset: bool = False
    """Whether its AEC env factory takes ``preset`` first, as ``factory`` does."""

    def __post_init__(self) -> None:
        entry_points.split(self.entry_point)
        for entry_point in (self.config, self.env_entry_point):
            if entry_point is not None:
                entry_points.split(entry_point)
        unknown = sorted(set(self.abilities) - set(ABILITIES))
        if unknown:
            raise ConfigError(f"agent {self.name!r}: unknown abilities {unknown}; the table "
                              f"declares {sorted(ABILITIES)}")
        if self.units not in UNITS:
            raise ConfigError(
                f"agent {self.name!r}: units must be one of {UNITS}, got {self.units!r}"
            )

    @property
    def module(self) -> str:
        """The module holding the factory (imported by ``factory``, not before)."""
        return entry_points.split(self.entry_point)[0]

    @property
    def factory(self) -> Callable[..., Agent]:
        """``factory(game, seed=..., **params) -> Agent`` (imports the family module)."""
        target = entry_points.load(self.entry_point)
        return target if self.preset is None else functools.partial(target, self.preset)

    @property
    def env_factory(self) -> Callable[..., Agent]:
        """``factory(env_factory, seed=..., **params) -> Agent`` on an AEC env (imports the
        family module); ``ConfigError`` naming the agents that train on one otherwise."""
        target = entry_points.load(check_env_agent(self))
        return functools.partial(target, self.preset) if self.env_preset else target

    @property
    def config_class(self) -> type | None:
        """The config dataclass named by ``config`` (imports its module), or ``None``."""
        return None if self.config is None else entry_points.load(self.config)

    def wants_oracle(self, params: Mapping[str, Any]) -> bool:
        """Whether agent parameters ``params`` ask it for the hidden true model d*
        (``oracle=True``), so that it must be built from the environment game; never for an
        agent without the ``oracle`` ability (``make_agent`` then refuses the parameter).

        >>> agent_spec("cfr+").wants_oracle({"oracle": True}), agent_spec("nfsp").wants_oracle({})
        (True, False)
        """
        return self.oracle and bool(params.get("oracle", False))


_CFR = "pokerzoo.agents.cfr.full_width"
_MCCFR = "pokerzoo.agents.cfr.mccfr"
_FP = "pokerzoo.agents.fictitious"
_NFSP = "pokerzoo.agents.nfsp"
_DEEP = "pokerzoo.agents.deep"
_UNKNOWN = "pokerzoo.agents.unknown_env"


_SOLVES = frozenset({"solves"})
"""The tabular solvers (``pokerzoo.agents.tabular.TabularSolver``) say which model they solve."""


def _cfr(name: str, description: str) -> AgentSpec:
    return AgentSpec(name, f"{_CFR}:make_preset", "iterations", description, tabular=True,
                     config=f"{_CFR}:CFRConfig", preset=name, oracle=True, abilities=_SOLVES)


def _mccfr(name: str, description: str, env_class: str) -> AgentSpec:
    # On an AEC env: the same sampling scheme on env copies (pokerzoo.agents.cfr.aec_*).
    return AgentSpec(name, f"{_MCCFR}:make_preset", "iterations", description, tabular=True,
                     config=f"{_MCCFR}:MCCFRConfig", preset=name, oracle=True,
                     abilities=_SOLVES, env_entry_point=f"pokerzoo.agents.cfr.{env_class}")


def _fp(name: str, description: str) -> AgentSpec:
    return AgentSpec(name, f"{_FP}:make_preset", "iterations", description, tabular=True,
                     config=f"{_FP}:FPConfig", preset=name, oracle=True, abilities=_SOLVES)


def _nfsp(name: str, description: str) -> AgentSpec:
    # The network policy is tabularised for exact scoring when the game's tree is small.
    return AgentSpec(name, f"{_NFSP}.agent:make_preset", "episodes", description, tabular=True,
                     config=f"{_NFSP}.config:NFSPConfig", preset=name, requires=("torch",),
                     any_size=True, distributed=True, abilities=frozenset({"close"}),
                     env_entry_point=f"{_NFSP}.aec:make_aec_preset", env_preset=True)


def _deep(name: str, description: str, preset: str, config: str,
          env_entry_point: str | None = None) -> AgentSpec:
    # Scored exactly through the strategy network tabularised over the compiled tree; on
    # hold'em they traverse batches of states instead and are scored by matches (and LBR).
    return AgentSpec(name, f"{_DEEP}.{preset}:make_preset", "iterations", description,
                     tabular=True, config=f"{_DEEP}.{preset}:{config}", preset=name,
                     requires=("torch",), any_size=True, distributed=True,
                     env_entry_point=env_entry_point)


def _unknown(name: str, description: str, module: str, config: str,
             preset: bool = False, diagnostics: bool = False) -> AgentSpec:
    # Learn unknown-environment games by playing them (one unit: one interaction episode);
    # their policies are tables over the compiled tree, scored exactly in d*.
    return AgentSpec(name, f"{_UNKNOWN}.{module}:{'make_preset' if preset else 'make_agent'}",
                     "episodes", description, tabular=True,
                     config=f"{_UNKNOWN}.{module}:{config}",
                     preset=name if preset else None, requires=("torch",), unknown_only=True,
                     abilities=frozenset({"rounds", *(["diagnostics"] if diagnostics else [])}))


def _model_based(name: str, description: str) -> AgentSpec:
    # Their information-gain bonus and posterior fit are logged as diagnostics.
    return _unknown(name, description, "model_based", "ModelBasedConfig", preset=True,
                    diagnostics=True)


_TABLE = (
    _cfr("cfr", "vanilla CFR, alternating updates (Zinkevich et al. 2007)"),
    _cfr("cfr+", "CFR+: regret matching+, linear averaging (Tammelin 2014)"),
    _cfr("lcfr", "linear CFR (Brown & Sandholm 2019)"),
    _cfr("dcfr", "discounted CFR, alpha=1.5 beta=0 gamma=2 (Brown & Sandholm 2019)"),
    _cfr("pcfr+", "predictive CFR+, quadratic averaging (Farina, Kroer & Sandholm 2021)"),
    _mccfr("mccfr-os",
           "outcome-sampling MCCFR, epsilon-greedy exploration 0.6 (Lanctot et al. 2009)",
           "aec_outcome:AECOutcomeMCCFR"),
    _mccfr("mccfr-es", "external-sampling MCCFR (Lanctot et al. 2009)",
           "aec_mccfr:AECExternalMCCFR"),
    _fp("xfp", "full-width extensive-form fictitious play (Heinrich, Lanctot, Silver 2015)"),
    _fp("gxfp", "fictitious play with best decisions, alternating (Schulze; Deep GXFP Sec. 2.1.3)"),
    _fp("bufp-x",
        "belief update fictitious play, XFP's realization-weighted step (Ju et al. 2024)"),
    _fp("bufp-ef", "belief update fictitious play, EFFP's uniform step (Ju et al. 2024)"),
    _nfsp("nfsp", "NFSP: DQN best response, reservoir average policy (Heinrich & Silver 2016)"),
    _nfsp("nfsp-per", "NFSP with prioritized replay for the best response (Li et al. 2023)"),
    _nfsp("nfsp-plt", "NFSP-PER with priority-weighted learning times (Li et al. 2023)"),
    _deep("deep-cfr", "Deep CFR: advantage networks on external-sampling regrets, strategy "
          "network (Brown et al. 2019)", "deep_cfr", "DeepCFRConfig",
          # On an AEC env: a copyable env whose observation layout is declared (pokerzoo's
          # envs do); AECDeepCFR refuses others naming the requirement.
          "pokerzoo.agents.cfr.aec_deep_cfr:AECDeepCFR"),
    _deep("deep-gxfp", "Deep GXFP: action-utility networks on external-sampling utilities, "
          "strategy network on best decisions (Giordano 2024)", "deep_gxfp", "DeepGXFPConfig"),
    _model_based("vcfr", "VCFR: CFR on a posterior sample with information-gain rewards from a "
                 "Bayesian reward network (Qiu et al.)"),
    _model_based("vdcfr", "VCFR with DCFR (1.5, 0, 2) as the solver (Qiu et al.)"),
    _model_based("vfsp", "VCFR with full-width fictitious play as the solver (Qiu et al.)"),
    _model_based("naive-cfr", "CFR on the posterior mean; its average strategy interacts"),
    _model_based("naive-dcfr", "DCFR on the posterior mean; its average strategy interacts"),
    _model_based("random-interaction",
                 "uniform interaction; CFR on the posterior mean gives the output policy"),
    _unknown("psrlcfr", "PSRLCFR: CFR on posterior samples, optimistic interaction strategies "
             "(Zhou, Li, Zhu 2020)", "psrlcfr", "PSRLCFRConfig"),
    _unknown("mccfr-os-unknown", "outcome-sampling MCCFR on the environment's own samples, "
             "epsilon-greedy 0.1", "mccfr_os", "MCCFROSConfig"),
    _unknown("fsp-unknown", "fictitious self-play with fitted-Q best responses (Heinrich, "
             "Lanctot, Silver 2015)", "fsp", "FSPConfig"),
    # Units: the re-solves of its tabularisation (oracle leaves), or value-net training steps.
    AgentSpec("resolver", "pokerzoo.agents.resolver.agent:make_agent", "iterations",
              "continual re-solving with depth limits, leaf values and the CFR-D gadget "
              "(DeepStack, Moravcik et al. 2017)", tabular=True,
              config="pokerzoo.agents.resolver.config:ResolverConfig"),
)



def _by_name(table: tuple[AgentSpec, ...]) -> MappingProxyType[str, AgentSpec]:
    names = [spec.name for spec in table]
    if len(set(names)) != len(names):
        raise ConfigError(f"two rows of the agent table share a name: {sorted(names)}")
    return MappingProxyType({spec.name: spec for spec in sorted(table, key=lambda s: s.name)})


AGENTS = _by_name(_TABLE)
"""Agent name -> ``AgentSpec``: every agent pokerzoo can build, and nothing else."""


def registered_agents() -> dict[str, AgentSpec]:
    """All agent specs by name, from the table (imports no family module)."""
    return dict(AGENTS)


def distributed_agents() -> list[str]:
    """The agents that take workers (``AgentSpec.distributed``), sorted (imports nothing)."""
    return sorted(name for name, spec in AGENTS.items() if spec.distributed)


def env_agents() -> list[str]:
    """The agents that train on a PettingZoo AEC env (``AgentSpec.env_entry_point``): the
    self-play learners (episodes) first, then the solvers, torch-free ones first (the order
    ``train.py --env``'s messages list them in; imports nothing)."""
    on_env = [spec for spec in AGENTS.values() if spec.env_entry_point is not None]
    return [spec.name for spec in sorted(
        on_env, key=lambda s: (s.units != "episodes", bool(s.requires), s.name))]


def check_env_agent(spec: AgentSpec) -> str:
    """The ``env_entry_point`` of agent ``spec``; ``ConfigError`` naming the agents that train
    on an AEC env when it does not."""
    if spec.env_entry_point is None:
        raise ConfigError(f"agent {spec.name!r} does not train on an AEC env; --env takes "
                          f"{', '.join(env_agents())}")
    return spec.env_entry_point


def agent_spec(name: str) -> AgentSpec:
    """The spec of agent ``name``; ``ConfigError`` naming the closest and the valid names
    otherwise (imports no family module)."""
    try:
        return AGENTS[name]
    except (KeyError, TypeError):  # TypeError: an unhashable name
        raise entry_points.unknown_name("agent", name, AGENTS) from None


def make_agent(name: str, game: Game, seed: int = 0, **params: Any) -> Agent:
    """Build agent ``name`` for ``game`` with ``seed`` (an integer >= 0, NumPy's accepted).

    Parameters are checked before anything is built: a factory without ``**params`` by its
    signature here, the others by their config dataclass, through the agent constructor's
    ``pokerzoo.config.with_overrides`` (so building the class directly refuses the same
    parameters with the same message).

    Raises:
        ConfigError: an unknown agent, a game that is not a ``Game``, a bad seed, unknown or
            invalid parameters. Any other error (a ``TypeError`` from a bug in a constructor)
            propagates as it is.
    """
    spec = agent_spec(name)
    if not isinstance(game, Game):
        raise ConfigError(f"agent {name!r} needs a pokerzoo Game, got {game!r}")
    seed = check_int("seed", seed, 0)
    check_requirements(spec)
    factory = spec.factory
    accepted = inspect.signature(factory).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values()):
        unknown = sorted(set(params) - set(accepted))
        if unknown:
            valid = sorted(set(accepted) - {"game", "seed"})
            raise ConfigError(
                f"unknown parameter(s) {unknown} for agent {name!r}; valid are {valid}"
            )
    agent = factory(game, seed=seed, **params)
    agent.build = build_record(name, game, seed, params)
    return agent


def make_env_agent(
    name: str, env_factory: Callable[[], Any], seed: int = 0,
    params: Mapping[str, Any] | None = None,
) -> Agent:
    """Agent ``name`` on the PettingZoo AEC env ``env_factory()`` builds (``train.py --env``):
    its row's ``env_entry_point``; the build record (``pokerzoo.load_agent``) is the run's.

    Raises:
        ConfigError: an unknown agent, one that does not train on an AEC env (naming those
            that do), a missing optional package, a bad seed or bad parameters.
    """
    spec = agent_spec(name)
    seed = check_int("seed", seed, 0)
    if spec.env_entry_point is not None:
        check_requirements(spec)  # before the family module (and torch) is imported
    return spec.env_factory(env_factory, seed=seed, **(params or {}))


def check_requirements(spec: AgentSpec) -> None:
    """``ConfigError`` naming what to install when an optional package the agent needs (torch
    for the neural agents) is missing, before anything imports it."""
    import importlib.util

    def absent(package: str) -> bool:
        try:
            return importlib.util.find_spec(package) is None
        except (ImportError, ValueError):  # a finder that refuses it, a broken install
            return True

    missing = [package for package in spec.requires if absent(package)]
    if missing:
        raise ConfigError(
            f"agent {spec.name!r} needs {', '.join(missing)}, which is not installed: "
            f"pip install \"pokerzoo[{','.join(missing)}]\" (see the README's install section)"
        )


def build_record(
    name: str, game: Game, seed: int, params: dict[str, Any]
) -> dict[str, Any] | None:
    """What ``pokerzoo.load_agent`` needs to rebuild agent ``name`` (plain JSON data), or
    ``None`` when a parameter has no plain-data form. A game given as an agent's view of a
    hidden model (``agent_view()``/``interaction_view()``) does not reveal the environment it
    views: ``game`` is then ``None`` and the run that built the view records it."""
    from pokerzoo.checkpoint import plain_data

    is_view = game.game_type.agent_view
    try:
        return {
            "agent": name,
            "agent_params": plain_data(params),
            "seed": seed,
            "game": None if is_view else game.name,
            "game_params": None if is_view else plain_data(game.params()),
            "game_view": ("interactive" if getattr(game, "interactive", False) else "agent")
            if is_view else "full",
        }
    except CheckpointError:
        return None
