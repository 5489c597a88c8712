"""A training run: config -> game, agent, callbacks -> a run folder that ``evaluate.py`` reads.

Starting a run in a folder that has a checkpoint of the same config resumes it; the folder's
files are described in ``pokerzoo.runs.folder``.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import Any, cast

from pokerzoo.agents.base import Agent
from pokerzoo.agents.cfr.full_width import CFRPlus
from pokerzoo.agents.registry import (
    agent_spec,
    distributed_agents,
    make_agent,
    registered_agents,
)
from pokerzoo.checkpoint import CHECKPOINT_FILE
from pokerzoo.components.posterior import Posterior
from pokerzoo.errors import TreeTooLargeError
from pokerzoo.evaluation.exact import tabularize
from pokerzoo.evaluation.unknown import evaluation_tree, run_measures
from pokerzoo.games.base import ConfigError, Game
from pokerzoo.games.registry import load_game
from pokerzoo.games.unknown import AgentGameView
from pokerzoo.parallel import Executor, check_workers
from pokerzoo.runs.cli import executor_from_flags
from pokerzoo.runs.config import (  # noqa: F401  (re-exported: train.py and benches import them)
    DEFAULT_BUDGETS,
    DEFAULT_UNITS,
    MAX_TREE_NODES,
    SAMPLING_UNITS,
    RunConfig,
    default_budget,
)
from pokerzoo.runs.folder import pin_drawn_seed, prepare_folder, write_json
from pokerzoo.runs.load import game_view, game_view_name
from pokerzoo.runs.lock import hold_run_folder
from pokerzoo.training.callbacks import (
    CheckpointCallback,
    ExploitabilityCallback,
    MetricCallback,
    MetricsLogger,
)
from pokerzoo.training.loop import Budget, Callback, Trainer
from pokerzoo.tree.game_tree import GameTree


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
    started = time.perf_counter()  # set-up (game, agent, tree) counts from here
    spec = agent_spec(config.agent)
    game = load_game(config.game, **config.game_params)
    # An unknown game built without a seed drew one: config.json records it (or the folder's).
    config, game = pin_drawn_seed(Path(config.out), config, game)
    if config.eval_lbr_deals and not (game.game_type.lbr and game.num_players == 2):
        # LBR is only defined there; elsewhere exact exploitability (or matches) score runs.
        raise ConfigError(
            f"eval_lbr_deals needs heads-up limit or no-limit hold'em, got {game!r}; "
            "use 0 (the default) for other games"
        )
    units = config.budget_units(spec.units)
    if config.rounds is not None and not spec.unknown_only:
        raise ConfigError(f"agent {config.agent!r} plays no rounds; --rounds applies to the "
                          "unknown-environment agents (see train.py --list)")
    if units is None and config.seconds is None and config.rounds is None:
        units = default_budget(config.agent)
    out = Path(config.out)
    # Learners get no hidden model: an unknown game's agent view, unless asked for the oracle.
    # Sample-based learners get an interaction view: they play d* (sampled, counted), solvers
    # solve the believed model.
    view = game_view_name(config.agent, config.agent_params, game)
    learner = game_view(game, view)
    executor = _executor(config)
    agent = _make_agent(config, learner, spec.units, executor)
    if config.rounds is not None:
        units = config.rounds * _episodes_per_round(agent)
    budget = Budget(units=units, seconds=config.seconds)
    # The checkpoint's header records the game behind the view, so load_agent rebuilds it.
    if agent.build is not None:
        agent.build.update(game=config.game, game_params=game.params(), game_view=view)
    # One writer at a time: a second train.py on this folder is refused naming the first.
    with hold_run_folder(out):
        resumed = prepare_folder(out, config, agent)

        period = config.eval_every or max(1, (units or 20_000) // 20)
        tree = try_build_tree(game) if spec.tabular else None
        callbacks: list[Callback] = []
        if tree is not None:
            callbacks.append(ExploitabilityCallback(tree, period))
        else:
            callbacks.append(MetricCallback(_match_metric(game, config, executor), period))
        if callable(diagnostics := getattr(agent, "diagnostics", None)):  # e.g. VCFR's bonus
            callbacks.append(MetricCallback(lambda _agent: diagnostics(), period))
        callbacks.append(MetricsLogger(out, period, tensorboard=config.tensorboard))
        callbacks.append(
            CheckpointCallback(out / CHECKPOINT_FILE, config.checkpoint_every or period)
        )
        # A seconds budget with default periods: evaluations may take at most a quarter of it
        # (their period doubles when they take more), so a slow evaluator cannot eat the budget.
        default_periods = config.eval_every is None and config.checkpoint_every is None
        share = 0.25 if config.seconds is not None and default_periods else None
        trainer = Trainer(agent, budget, callbacks, progress=progress, callback_share=share,
                          started=started)
        held = agent.iteration  # what the folder held (0 for a fresh run)
        try:
            trainer.run()
        except KeyboardInterrupt:
            pass  # the checkpoint callback saved what was learned; the summary says so
        finally:
            close = getattr(agent, "close", None)
            if callable(close):
                close()  # release rollout workers

        playing = cast(AgentGameView, learner) if learner.game_type.agent_view else None
        summary: dict[str, Any] = {
            "agent": config.agent,
            "game": repr(game),
            # Unknown-environment games: which model a tabular solver solved (prior mean,
            # oracle d*).
            **({"solves": solves} if (solves := getattr(agent, "solves", None)) else {}),
            # Learners that play an unknown environment: hands they were paid in it this run.
            **({"interactions_this_run": playing.sampler.episodes}
               if playing is not None and playing.interactive else {}),
            "units": spec.units,
            **trainer.timing(),
            "resumed": resumed,
            # A budget the folder had already spent trains nothing: the summary says what it held.
            "held_before": held,
            "budget_units": units,
            **({"budget_rounds": config.rounds, "rounds_done": getattr(agent, "rounds", None)}
               if config.rounds is not None else {}),
            **({"interrupted": True} if trainer.interrupted else {}),
            **({"workers": executor.workers, "distributed": executor.stats.summary()}
               if executor is not None else {}),
            **trainer.metrics,
        }
        if tree is not None and not trainer.interrupted:  # what evaluate.py scores
            tabularize(tree, agent.policy()).save(out / "policy.npz")
            posterior = getattr(agent, "posterior", None)
            if game.game_type.hidden_model and isinstance(posterior, Posterior):
                # Learners of an unknown game: their output, their data (the posterior mean
                # re-solved by CFR+) and their own view of the output, all at the end.
                summary.update(run_measures(game, agent.policy(), posterior, CFRPlus, tree))
        write_json(out / "summary.json", summary)
        return summary


def _episodes_per_round(agent: Agent) -> int:
    """Hands per round of an unknown-environment agent (``--rounds`` counts its rounds)."""
    per = getattr(agent, "episodes_per_round", None)
    if not isinstance(per, int):
        raise ConfigError(f"agent {agent.name!r} plays no rounds; give --episodes")
    return per


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


