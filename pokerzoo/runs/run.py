"""A training run: config -> game (or foreign AEC env), agent, callbacks -> a run folder that
``evaluate.py`` reads.

Starting a run in a folder that has a checkpoint of the same config resumes it; the folder's
files are described in ``pokerzoo.runs.folder``.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pokerzoo.agents.base import Agent, Closes, HasDiagnostics, PlaysRounds, SolvesModel
from pokerzoo.agents.cfr.full_width import CFRPlus
from pokerzoo.agents.registry import (
    AgentSpec,
    agent_spec,
    check_env_agent,
    distributed_agents,
    make_agent,
    make_env_agent,
    registered_agents,
)
from pokerzoo.checkpoint import CHECKPOINT_FILE
from pokerzoo.errors import TreeTooLargeError
from pokerzoo.evaluation.aec_matches import AECGame, load_env_factory
from pokerzoo.evaluation.exact import tabularize
from pokerzoo.evaluation.unknown import evaluation_tree, run_measures
from pokerzoo.games.base import ConfigError, Game
from pokerzoo.games.registry import load_game
from pokerzoo.games.unknown import AgentGameView
from pokerzoo.parallel import Executor, check_workers
from pokerzoo.runs.cli import executor_from_flags
from pokerzoo.runs.config import MAX_TREE_NODES, RunConfig, default_budget
from pokerzoo.runs.folder import pin_drawn_seed, prepare_folder, write_json
from pokerzoo.runs.foreign import is_env_spec, vs_opponents, vs_random
from pokerzoo.runs.load import game_view, game_view_name
from pokerzoo.torch_arithmetic import torch_version, use_portable_arithmetic
from pokerzoo.runs.lock import hold_run_folder
from pokerzoo.training.callbacks import (
    CheckpointCallback,
    ExploitabilityCallback,
    MetricCallback,
    MetricsLogger,
)
from pokerzoo.training.loop import Budget, Callback, Trainer
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.wrappers.aec_guard import MAX_STEPS_PER_HAND, guard_factory


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


@dataclass
class _Setup:
    """What differs between a run on a pokerzoo game and one on a foreign AEC env; the rest
    of ``train`` is shared."""

    config: RunConfig
    """The run's config as ``config.json`` records it (an unknown game's drawn seed pinned)."""
    agent: Agent
    units: int | None
    """The budget in the agent's units (``None``: seconds only)."""
    scoring: Callable[[int], list[Callback]]
    """The callbacks that score the agent every ``period`` units (logged before the rest)."""
    summary_head: Callable[[], dict[str, Any]]
    """The summary's entries after ``agent``: the game and what the agent plays it as."""
    summary_tail: Callable[[Trainer], dict[str, Any]]
    """The summary's entries after the budget's: the final measures."""
    finish: Callable[[Trainer, dict[str, Any]], None] | None = None
    """What the run writes beside the summary (``policy.npz``), adding to the summary."""


def train(
    config: RunConfig, progress: bool = True, max_steps_per_hand: int = MAX_STEPS_PER_HAND
) -> dict[str, Any]:
    """Run (or resume) a training run; returns the summary also written to ``summary.json``.

    ``config.game`` names a pokerzoo game, or a PettingZoo AEC env factory
    (``MODULE:FACTORY``, ``train.py --env``; see ``pokerzoo.runs.foreign``): every env is then
    a ``pokerzoo.wrappers.aec_guard.GuardedAEC``, checked at each call (one ``ConfigError``
    line each), and a hand longer than ``max_steps_per_hand`` steps ends the run with one line
    instead of hanging it.
    """
    started = time.perf_counter()  # set-up (game, agent, tree) counts from here
    spec = agent_spec(config.agent)
    if config.portable_arithmetic:  # before the agent's first tensor: then torch has chosen
        use_portable_arithmetic(f"the run {config.out!r}")
    if is_env_spec(config.game):
        setup = _env_setup(config, spec, max_steps_per_hand)
    else:
        setup = _game_setup(config, spec)
    config, agent, units = setup.config, setup.agent, setup.units
    if config.portable_arithmetic and agent.build is not None:
        # Loading the checkpoint asks for the same arithmetic (pokerzoo.runs.load).
        agent.build.update(portable_arithmetic=True, torch=torch_version())
    out = Path(config.out)
    # One writer at a time: a second train.py on this folder is refused naming the first.
    with hold_run_folder(out):
        resumed = prepare_folder(out, config, agent)
        period = config.eval_every or max(1, (units or 20_000) // 20)
        callbacks = setup.scoring(period)
        if "diagnostics" in spec.abilities:  # e.g. VCFR's bonus
            diagnostics = cast(HasDiagnostics, agent).diagnostics
            callbacks.append(MetricCallback(lambda _agent: diagnostics(), period))
        callbacks.append(MetricsLogger(out, period, tensorboard=config.tensorboard))
        callbacks.append(
            CheckpointCallback(out / CHECKPOINT_FILE, config.checkpoint_every or period)
        )
        # A seconds budget with default periods: evaluations may take at most a quarter of it
        # (their period doubles when they take more), so a slow evaluator cannot eat the budget.
        default_periods = config.eval_every is None and config.checkpoint_every is None
        share = 0.25 if config.seconds is not None and default_periods else None
        trainer = Trainer(agent, Budget(units=units, seconds=config.seconds), callbacks,
                          progress=progress, callback_share=share, started=started)
        held = agent.iteration  # what the folder held (0 for a fresh run)
        try:
            trainer.run()
        except KeyboardInterrupt:
            pass  # the checkpoint callback saved what was learned; the summary says so
        finally:
            if "close" in spec.abilities:
                cast(Closes, agent).close()  # release rollout workers

        summary: dict[str, Any] = {
            "agent": config.agent,
            **setup.summary_head(),
            "units": spec.units,
            **trainer.timing(),
            "resumed": resumed,
            # A budget the folder had already spent trains nothing: the summary says what it held.
            "held_before": held,
            "budget_units": units,
            **({"budget_rounds": config.rounds,
                "rounds_done": cast(PlaysRounds, agent).rounds}
               if config.rounds is not None else {}),
            **({"interrupted": True} if trainer.interrupted else {}),
            **setup.summary_tail(trainer),
        }
        if setup.finish is not None:
            setup.finish(trainer, summary)
        write_json(out / "summary.json", summary)
        return summary


def _budget(config: RunConfig, spec: AgentSpec) -> int | None:
    """The run's budget in the agent's units (``None``: seconds or rounds only); ``--rounds``
    only for agents that play rounds."""
    units = config.budget_units(spec.units)
    if config.rounds is not None and "rounds" not in spec.abilities:
        raise ConfigError(f"agent {config.agent!r} plays no rounds; --rounds applies to the "
                          "unknown-environment agents (see train.py --list)")
    if units is None and config.seconds is None and config.rounds is None:
        units = default_budget(config.agent)
    return units


def _game_setup(config: RunConfig, spec: AgentSpec) -> _Setup:
    """A run on a pokerzoo game: scored exactly on its tree when it fits, else by matches."""
    game = load_game(config.game, **config.game_params)
    # An unknown game built without a seed drew one: config.json records it (or the folder's).
    config, game = pin_drawn_seed(Path(config.out), config, game)
    if config.eval_lbr_deals and not (game.game_type.lbr and game.num_players == 2):
        # LBR is only defined there; elsewhere exact exploitability (or matches) score runs.
        raise ConfigError(
            f"eval_lbr_deals needs heads-up limit or no-limit hold'em, got {game!r}; "
            "use 0 (the default) for other games"
        )
    units = _budget(config, spec)
    # Learners get no hidden model: an unknown game's agent view, unless asked for the oracle.
    # Sample-based learners get an interaction view: they play d* (sampled, counted), solvers
    # solve the believed model.
    view = game_view_name(config.agent, config.agent_params, game)
    learner = game_view(game, view)
    executor = _executor(config)
    agent = _make_agent(config, learner, spec.units, executor)
    if config.rounds is not None:  # _budget checked that the agent plays rounds
        units = config.rounds * cast(PlaysRounds, agent).episodes_per_round
    # The checkpoint's header records the game behind the view, so load_agent rebuilds it.
    if agent.build is not None:
        agent.build.update(game=config.game, game_params=game.params(), game_view=view)
    trees: list[GameTree] = []  # the tree scoring built, for the end of the run

    def scoring(period: int) -> list[Callback]:
        tree = try_build_tree(game) if spec.tabular else None
        if tree is None:
            return [MetricCallback(_match_metric(game, config, executor), period)]
        trees.append(tree)
        return [ExploitabilityCallback(tree, period)]

    playing = cast(AgentGameView, learner) if learner.game_type.agent_view else None

    def head() -> dict[str, Any]:
        solves = cast(SolvesModel, agent).solves if "solves" in spec.abilities else None
        return {
            "game": repr(game),
            # Unknown-environment games: which model a tabular solver solved (prior mean,
            # oracle d*).
            **({"solves": solves} if solves else {}),
            # Learners that play an unknown environment: hands they were paid in it this run.
            **({"interactions_this_run": playing.sampler.episodes}
               if playing is not None and playing.interactive else {}),
        }

    def tail(trainer: Trainer) -> dict[str, Any]:
        return {
            **({"workers": executor.workers, "distributed": executor.stats.summary()}
               if executor is not None else {}),
            **trainer.metrics,
        }

    def finish(trainer: Trainer, summary: dict[str, Any]) -> None:
        if not trees or trainer.interrupted:
            return
        tree = trees[0]
        tabularize(tree, agent.policy()).save(Path(config.out) / "policy.npz")  # evaluate.py's
        if game.game_type.hidden_model and "rounds" in spec.abilities:
            # Learners of an unknown game: their output, their data (the posterior mean
            # re-solved by CFR+) and their own view of the output, all at the end.
            posterior = cast(PlaysRounds, agent).posterior
            summary.update(run_measures(game, agent.policy(), posterior, CFRPlus, tree))

    return _Setup(config, agent, units, scoring, head, tail, finish)


def _env_setup(config: RunConfig, spec: AgentSpec, max_steps_per_hand: int) -> _Setup:
    """A run on a foreign AEC env (``pokerzoo.runs.foreign``): scored by matches in it."""
    if config.workers not in (None, 1) or config.ray_address is not None:
        raise ConfigError("--env runs in one process: drop --workers and --ray-address")
    if config.game_params:
        raise ConfigError("--game-param does not apply to --env (pass a factory that "
                          "builds the env you want)")
    check_env_agent(spec)
    units = _budget(config, spec)
    # Every env call checked: a misbehaving env or factory is one line, not a traceback.
    factory = guard_factory(config.game, load_env_factory(config.game), max_steps_per_hand)
    agent = make_env_agent(config.agent, factory, config.seed, dict(config.agent_params))
    # The checkpoint's header records how to rebuild the agent (pokerzoo.load_agent).
    agent.build = {"agent": config.agent, "agent_params": dict(config.agent_params),
                   "seed": config.seed, "env": config.game}
    env = AECGame(factory, config.game, len(factory().possible_agents))
    deals = max(2, config.eval_hands // 2)

    def scoring(period: int) -> list[Callback]:
        return [MetricCallback(lambda a: vs_random(a, env, deals, config.seed), period)]

    def tail(trainer: Trainer) -> dict[str, Any]:
        return {**trainer.metrics,
                "vs_opponents": vs_opponents(agent, env, config.eval_hands, config.seed)}

    return _Setup(config, agent, units, scoring,
                  lambda: {"game": config.game, "env": config.game}, tail)


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
    if wants and not agent_spec(config.agent).distributed:
        raise ConfigError(f"agent {config.agent!r} runs in one process; --workers and "
                          f"--ray-address apply to {', '.join(distributed_agents())}")
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
        if config.eval_lbr_deals:  # train() checked that LBR applies
            from pokerzoo.evaluation.lbr import local_best_response

            lbr = local_best_response(game, policy, config.eval_lbr_deals, seed=config.seed,
                                      executor=executor)
            scores["lbr_mbb_per_game"] = lbr.mbb_per_game
            scores["lbr_ci95"] = lbr.mbb_per_game_ci
        return scores

    return metric


