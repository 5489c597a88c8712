"""A training run: config -> game, agent, callbacks -> a run folder that ``evaluate.py`` reads.

A run folder holds ``config.json`` (what was trained), ``metrics.csv`` and ``tensorboard/``
(curves), ``checkpoint.pzc`` (to resume; see ``pokerzoo.checkpoint``), ``policy.npz`` (tabular
agents' average policy) and ``summary.json`` (final numbers). Starting a run in a folder that has
a checkpoint of the same config resumes it. Every file is read as data (JSON, arrays, tensors
with ``weights_only``), so a run folder from anywhere cannot run code.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import tempfile
import tomllib
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pokerzoo.agents.base import Agent
from pokerzoo.agents.registry import agent_spec, make_agent, registered_agents
from pokerzoo.checkpoint import CHECKPOINT_FILE, find_run_checkpoint
from pokerzoo.config import from_mapping
from pokerzoo.errors import TreeTooLargeError
from pokerzoo.evaluation.exact import tabularize
from pokerzoo.evaluation.unknown import evaluation_tree
from pokerzoo.games.base import ConfigError, Game
from pokerzoo.games.holdem.game import HoldemGame
from pokerzoo.games.registry import load_game
from pokerzoo.games.unknown import AgentGameView, agent_facing
from pokerzoo.games.unknown.priors import Prior
from pokerzoo.parallel import Executor, check_workers
from pokerzoo.training.callbacks import (
    CheckpointCallback,
    ExploitabilityCallback,
    MetricCallback,
    MetricsLogger,
)
from pokerzoo.training.cli import executor_from_flags
from pokerzoo.training.loop import Budget, Callback, Trainer
from pokerzoo.tree.game_tree import GameTree

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

    def __post_init__(self) -> None:
        if not isinstance(self.seed, int):
            raise ConfigError(f"seed must be an integer, got {self.seed!r}")
        for name in ("iterations", "episodes", "eval_every", "checkpoint_every",
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
DEFAULT_BUDGETS = {"mccfr-es": 1_000_000, "mccfr-os": 10_000_000, "deep-gxfp": 50}
"""Agents whose units cost much less (or more) than a full-width iteration: Monte Carlo CFR samples
one trajectory (outcome) or one tree walk per player (external), so 20,000 iterations would
leave Leduc near random play (see the README's budget table, bench/bench_budgets.py).
Self-play learners' episodes are cheap too (about 12,000 NFSP episodes/s on one core): with the
papers' SGD, 100,000 episodes left Leduc at 2,241 mbb/g (random: 2,374), 600,000 at 1,371.
Deep GXFP's units are much dearer (1,000 traversals and 200 SGD steps per player): 50 of them
are twice the paper's Kuhn budget of 50,000 traversals."""


def default_budget(agent: str) -> int:
    """Units ``train.py`` spends on ``agent`` when given neither units nor seconds."""
    return DEFAULT_BUDGETS.get(agent, DEFAULT_UNITS.get(agent_spec(agent).units, 10_000))
SAMPLING_UNITS = ("episodes", "rounds")
"""Units of learners that learn by playing: on an unknown-environment game they get an
interaction view (samples of d*), not the believed model."""


def try_build_tree(game: Game) -> GameTree | None:
    """The game's tree, or ``None`` (with a warning) when it has more than ``MAX_TREE_NODES``
    histories (hold'em). Any other error of the build is a broken game and propagates: a
    silent switch from exact exploitability to matches would change what a run measures."""
    try:
        # Unknown-environment games are scored in their true model d* (evaluator side).
        return evaluation_tree(game, max_nodes=MAX_TREE_NODES)
    except TreeTooLargeError as exc:
        warnings.warn(
            f"{exc}. Exact exploitability is replaced by matches (bb/100 against a random "
            "player); add a local best response with --eval-lbr-deals N (heads-up hold'em)",
            stacklevel=2,
        )
        return None


def train(config: RunConfig, progress: bool = True) -> dict[str, Any]:
    """Run (or resume) a training run; returns the summary also written to ``summary.json``."""
    spec = agent_spec(config.agent)
    game = load_game(config.game, **config.game_params)
    if config.eval_lbr_deals and not (isinstance(game, HoldemGame) and game.num_players == 2):
        # LBR is only defined there; elsewhere exact exploitability (or matches) score runs.
        raise ConfigError(
            f"eval_lbr_deals needs heads-up limit or no-limit hold'em, got {game!r}; "
            "use 0 (the default) for other games"
        )
    units = config.budget_units(spec.units)
    if units is None and config.seconds is None:
        units = default_budget(config.agent)
    budget = Budget(units=units, seconds=config.seconds)
    out = Path(config.out)
    # Learners get no hidden model: an unknown game's agent view, unless asked for the oracle.
    # Sample-based learners get an interaction view: they play d* (sampled, counted), solvers
    # solve the believed model.
    learner = (
        game if config.agent_params.get("oracle")
        else agent_facing(game, interactive=spec.units in SAMPLING_UNITS)
    )
    executor = _executor(config)
    agent = _make_agent(config, learner, spec.units, executor)
    resumed = _prepare_folder(out, config, agent)

    period = config.eval_every or max(1, (units or 20_000) // 20)
    tree = try_build_tree(game) if spec.tabular else None
    callbacks: list[Callback] = []
    if tree is not None:
        callbacks.append(ExploitabilityCallback(tree, period))
    else:
        callbacks.append(MetricCallback(_match_metric(game, config, executor), period))
    callbacks.append(MetricsLogger(out, period, tensorboard=config.tensorboard))
    callbacks.append(CheckpointCallback(out / CHECKPOINT_FILE, config.checkpoint_every or period))
    # A seconds budget with default periods: evaluations may take at most a quarter of it
    # (their period doubles when they take more), so a slow evaluator cannot eat the budget.
    default_periods = config.eval_every is None and config.checkpoint_every is None
    share = 0.25 if config.seconds is not None and default_periods else None
    trainer = Trainer(agent, budget, callbacks, progress=progress, callback_share=share)
    try:
        trainer.run()
    finally:
        close = getattr(agent, "close", None)
        if callable(close):
            close()  # release rollout workers

    summary: dict[str, Any] = {
        "agent": config.agent,
        "game": repr(game),
        # Unknown-environment games: which model a tabular solver solved (prior mean, oracle d*).
        **({"solves": solves} if (solves := getattr(agent, "solves", None)) else {}),
        # Learners that play an unknown environment: hands they were paid in it this run.
        **({"interactions_this_run": learner.sampler.episodes}
           if isinstance(learner, AgentGameView) and learner.interactive else {}),
        "units": spec.units,
        "iterations_done": agent.iteration,
        "seconds_this_run": round(trainer.elapsed, 3),
        "resumed": resumed,
        **({"workers": executor.workers, "distributed": executor.stats.summary()}
           if executor is not None else {}),
        **trainer.metrics,
    }
    if tree is not None:  # what evaluate.py scores: agent.policy() on the game's tree
        tabularize(tree, agent.policy()).save(out / "policy.npz")
    _write_json(out / "summary.json", summary)
    return summary


def tree_free_agents() -> list[str]:
    """Agents that train without a compiled tree, so on games of any size: the self-play
    learners (sampled hands) and the deep solvers (traversals of batches of states). The
    unknown-environment agents play hands too but solve models on the compiled tree."""
    return sorted(name for name, spec in registered_agents().items() if spec.any_size)


def _executor(config: RunConfig) -> Executor | None:
    """The run's executor (``None``: one worker, here); agents without workers refuse more."""
    if config.workers is not None:
        check_workers(config.workers, "--workers")
    wants = not (config.ray_address is None and config.workers in (None, 1))
    if wants and "executor" not in inspect.signature(agent_spec(config.agent).factory).parameters:
        able = sorted(n for n, s in registered_agents().items()
                      if "executor" in inspect.signature(s.factory).parameters)
        raise ConfigError(f"agent {config.agent!r} runs in one process; --workers and "
                          f"--ray-address apply to {', '.join(able)}")
    return executor_from_flags(config.workers, config.ray_address)


def _make_agent(
    config: RunConfig, learner: Game, units: str, executor: Executor | None = None
) -> Agent:
    """Build the run's agent; a tree-based agent on a game whose tree cannot be built fails
    at once (the size is estimated before anything is built) naming the agents that can."""
    extra: dict[str, Any] = (
        {"workers": executor.workers, "executor": executor} if executor is not None else {}
    )
    try:
        return make_agent(config.agent, learner, seed=config.seed, **config.agent_params,
                          **extra)
    except TreeTooLargeError as exc:
        raise TreeTooLargeError(
            f"agent {config.agent!r} needs the compiled tree of {config.game!r}, which does not "
            f"fit ({exc}). Agents that train on games of any size: "
            f"{', '.join(tree_free_agents())}",
            estimated_nodes=exc.estimated_nodes,
        ) from exc


def _match_metric(game: Game, config: RunConfig, executor: Executor | None = None):
    """The evaluation of a game too big for exact exploitability: bb/100 against random
    players, and with ``eval_lbr_deals`` LBR's winnings against the policy."""
    from pokerzoo.evaluation.matches import versus_random

    def metric(agent: Agent) -> dict[str, float]:
        policy = agent.policy()
        result = versus_random(game, policy, config.eval_hands, config.seed, executor=executor)
        scores = {"bb_per_100_vs_random": result["bb_per_100"], "ci95": result["ci95"]}
        if config.eval_lbr_deals and isinstance(game, HoldemGame):  # train() checked it
            from pokerzoo.evaluation.lbr import local_best_response

            lbr = local_best_response(game, policy, config.eval_lbr_deals, seed=config.seed,
                                      executor=executor)
            scores["lbr_mbb_per_game"] = lbr.mbb_per_game
            scores["lbr_ci95"] = lbr.mbb_per_game_ci
        return scores

    return metric


def _prepare_folder(out: Path, config: RunConfig, agent: Agent) -> bool:
    """Write ``config.json``; resume from the folder's checkpoint when the config matches.

    Raises:
        CheckpointError: if the checkpoint cannot be loaded (damaged, an old pickle
            checkpoint, another agent's); the run does not silently start over.
    """
    out.mkdir(parents=True, exist_ok=True)
    stored = out / "config.json"
    # Fields one level deep (not dataclasses.asdict, which would flatten a prior object into
    # a dict make_prior cannot read back): _to_json writes each value as it reads back.
    fields = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    identity = {k: v for k, v in fields.items() if k in _IDENTITY}
    if stored.exists():
        try:
            previous = json.loads(stored.read_text())
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{stored} is corrupt ({exc}); remove it or pick another --out"
            ) from exc
        previous_identity = {k: v for k, v in previous.items() if k in _IDENTITY}
        if previous_identity != json.loads(json.dumps(identity, default=_to_json)):
            raise ConfigError(
                f"{out} holds a different run ({previous_identity}); pick another --out or "
                "delete the folder"
            )
        # A run killed while writing leaves its half-written temporary files (the files they
        # were to replace are intact, since writes end with a rename); they are ours to remove.
        for stale in out.glob("tmp*.tmp"):
            stale.unlink(missing_ok=True)
        checkpoint = find_run_checkpoint(out)
        if checkpoint is not None:
            agent.load(checkpoint)
            return True
    _write_json(stored, fields)
    return False


_IDENTITY = ("agent", "game", "game_params", "agent_params", "seed")


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` atomically; it is serialised before the file is opened, so a value
    JSON cannot hold never leaves a half-written file."""
    text = json.dumps(data, indent=2, default=_to_json)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)


def _to_json(value: Any) -> Any:
    """JSON for the values a config or summary may hold beyond JSON's own: priors as the
    spec ``make_prior`` reads, other dataclasses (nested agent configs) as their fields, numpy
    scalars and arrays as numbers and lists, anything else as its ``repr`` (what was used,
    readable, never code)."""
    if isinstance(value, Prior):  # as make_prior reads it back
        return value.spec()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    tolist = getattr(value, "tolist", None)  # numpy scalars and arrays
    if callable(tolist):
        return tolist()
    return repr(value)
