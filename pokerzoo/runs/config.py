"""The run config: everything that defines a training run (``train.py``'s flags and TOML keys),
and the default budgets of each agent."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from typing import Any

from pokerzoo.agents.registry import agent_spec
from pokerzoo.config import from_mapping
from pokerzoo.errors import ConfigError

MAX_TREE_NODES = 5_000_000
"""Games with more histories than this are measured by matches instead of exact evaluation."""


@dataclass(frozen=True)
class RunConfig:
    """Everything that defines a training run (the CLI flags and ``--config`` TOML keys)."""

    agent: str = "cfr+"
    """Registered agent name (``python train.py --list`` shows them)."""
    game: str = "leduc_holdem"
    """Registered game name."""
    game_params: dict[str, Any] = field(default_factory=dict)
    """Game parameters, e.g. ``{"num_ranks": 5}``."""
    agent_params: dict[str, Any] = field(default_factory=dict)
    """Agent hyperparameters overriding its defaults."""
    seed: int = 0
    iterations: int | None = None
    """Budget in iterations (solvers)."""
    episodes: int | None = None
    """Budget in episodes (self-play learners)."""
    rounds: int | None = None
    """Budget in rounds of the unknown-environment agents (Algorithm 1's rounds: a round of
    learning, then ``episodes_per_round`` hands); spent as ``rounds * episodes_per_round``
    episodes. Agents without rounds refuse it."""
    seconds: float | None = None
    """Wall-clock budget for this invocation."""
    eval_every: int | None = None
    """Units between evaluations (default: about 20 points over the budget)."""
    eval_hands: int = 2000
    """Hands per head-to-head evaluation for games too big for exact exploitability."""
    eval_lbr_deals: int = 0
    """Deals (two hands each, LBR in both seats) of local best response per evaluation of a
    heads-up hold'em run too big for exact exploitability, logged as ``lbr_mbb_per_game``
    (a lower bound on exploitability) with ``lbr_ci95``; 0 (default) skips it, since LBR
    costs a win-probability rollout per LBR decision."""
    checkpoint_every: int | None = None
    """Units between checkpoints (default: with each evaluation)."""
    out: str = "runs/default"
    tensorboard: bool = True
    workers: int | None = None
    """Worker processes (``--workers``): rollout workers of self-play learners, traversal
    workers of Deep CFR, evaluation workers of matches; 1 (default) runs all here, no Ray."""
    ray_address: str | None = None
    """A Ray cluster to join (``--ray-address``); default workers: the cluster's CPUs."""
    portable_arithmetic: bool = False
    """Pin torch's CPU arithmetic to the code paths that give the same bits on every x86-64
    processor (``pokerzoo.torch_arithmetic``; slower): a torch agent's run is then the same run
    on any machine with the same torch build. The checkpoint records it, and loading it asks
    for the same."""

    def __post_init__(self) -> None:
        if not isinstance(self.portable_arithmetic, bool):
            raise ConfigError("portable_arithmetic must be true or false, got "
                              f"{self.portable_arithmetic!r}")
        if not isinstance(self.seed, int):
            raise ConfigError(f"seed must be an integer, got {self.seed!r}")
        for name in ("iterations", "episodes", "rounds", "eval_every", "checkpoint_every",
                     "eval_lbr_deals"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 0):
                raise ConfigError(f"{name} must be a non-negative integer, got {value!r}")

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> RunConfig:
        """Build from a mapping (``pokerzoo.config.from_mapping``: names and types checked)."""
        return from_mapping(cls, values, what="the run config")

    @classmethod
    def from_toml(cls, path: str | os.PathLike, **overrides: Any) -> RunConfig:
        """Read a TOML file (top-level keys as fields, ``[game_params]``, ``[agent_params]``)."""
        try:
            with open(path, "rb") as fh:
                values = tomllib.load(fh)
        except FileNotFoundError:
            raise ConfigError(f"config file {path} does not exist") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.from_dict(values)

    def budget_units(self, units_name: str) -> int | None:
        """The units budget for an agent counting ``units_name``; errors on a wrong flag."""
        given = {"iterations": self.iterations, "episodes": self.episodes}
        if self.rounds is not None:
            if self.episodes is not None:
                raise ConfigError("give --episodes or --rounds, not both")
            if units_name != "episodes":
                raise ConfigError(
                    f"agent {self.agent!r} counts {units_name}, not rounds; --rounds applies "
                    "to the unknown-environment agents (see train.py --list)"
                )
        wrong = [k for k, v in given.items() if v is not None and k != _flag_for(units_name)]
        if wrong:
            raise ConfigError(
                f"agent {self.agent!r} counts {units_name}; use --{_flag_for(units_name)} "
                f"or --seconds, not --{wrong[0]}"
            )
        return given.get(_flag_for(units_name))


def _flag_for(units_name: str) -> str:
    return "episodes" if units_name in ("episodes", "rounds") else "iterations"


DEFAULT_UNITS = {"iterations": 20_000, "episodes": 1_000_000, "rounds": 2_000}
"""The default budget of an agent counting these units (unless ``DEFAULT_BUDGETS`` names it)."""
DEFAULT_BUDGETS = {"mccfr-es": 1_000_000, "mccfr-os": 10_000_000, "deep-cfr": 50,
                   "deep-gxfp": 50, "resolver": 200}
"""Agents whose units cost much less (or more) than a full-width iteration: Monte Carlo CFR samples
one trajectory (outcome) or one tree walk per player (external), so 20,000 iterations would
leave Leduc near random play (see the README's budget table, bench/bench_budgets.py).
Self-play learners' episodes are cheap too (about 12,000 NFSP episodes/s on one core): with the
papers' SGD, 100,000 episodes left Leduc at 2,241 mbb/g (random: 2,374), 600,000 at 1,371.
The deep agents' units are much dearer: a Deep CFR iteration (its traversals, then its
advantage networks trained from scratch) takes about 5 s on Kuhn, so 20,000 would take a day;
50 take a few minutes (its leduc-fast preset reaches OpenSpiel's final NashConv at 30). Deep
GXFP's (1,000 traversals and 200 SGD steps per player): 50 of them are twice the paper's Kuhn
budget of 50,000 traversals. The resolver's units are the re-solves of its tabularisation (at most
one per public decision node: 186 on Leduc), so 200 cover Leduc."""


def default_budget(agent: str) -> int:
    """Units ``train.py`` spends on ``agent`` when given neither units nor seconds."""
    return DEFAULT_BUDGETS.get(agent, DEFAULT_UNITS.get(agent_spec(agent).units, 10_000))
SAMPLING_UNITS = ("episodes", "rounds")
"""Units of learners that learn by playing: on an unknown-environment game they get an
interaction view (samples of d*), not the believed model."""


