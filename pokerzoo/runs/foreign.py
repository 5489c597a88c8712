"""Training on a foreign PettingZoo AEC env: ``train.py --env MODULE:FACTORY``.

``--env pettingzoo.classic.leduc_holdem_v4:env`` imports ``MODULE`` and calls ``FACTORY()`` for
each env it needs (any AEC env with ``Discrete`` actions and an action mask: see
``pokerzoo.wrappers.aec_learner``). The agents that train on one: ``FOREIGN_AGENTS``. The run
folder is a run folder as ``train.py --game`` writes it (``config.json`` with the env spec as
``game``, ``metrics.csv``, ``checkpoint.pzc``, ``summary.json``) and a second command resumes it.
There is no tree to score on: evaluation is head to head against uniform random in the env
(``vs_random``), logged as ``vs_random_per_hand`` and ``vs_random_ci95``; the summary adds
``vs_opponents``, the final agent against the built-in ``first-legal`` and ``last-legal``
opponents (``pokerzoo.evaluation.aec_opponents``). ``evaluate.py`` on the folder restores the
agent through ``pokerzoo.load_agent`` (the checkpoint records the env factory as ``env``) and
plays it against the built-in opponents and other runs of the env (``foreign_report``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.agents.base import Agent
from pokerzoo.checkpoint import CHECKPOINT_FILE
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.aec_matches import AECGame, aec_versus, load_env_factory
from pokerzoo.runs.config import RunConfig, default_budget
from pokerzoo.runs.folder import prepare_folder, write_json
from pokerzoo.runs.lock import hold_run_folder
from pokerzoo.training.callbacks import CheckpointCallback, MetricCallback, MetricsLogger
from pokerzoo.training.loop import Budget, Trainer
from pokerzoo.wrappers.aec_guard import MAX_STEPS_PER_HAND, guard_factory

FOREIGN_AGENTS = {"nfsp": "episodes", "nfsp-per": "episodes", "nfsp-plt": "episodes",
                  "mccfr-es": "iterations", "mccfr-os": "iterations", "deep-cfr": "iterations"}
"""Agents ``--env`` trains, with their units."""


def load_factory(spec: str) -> Callable[[], Any]:
    """``"package.module:factory"`` -> the callable (``factory()`` builds an AEC env); see
    ``pokerzoo.evaluation.aec_matches.load_env_factory``.

    Raises:
        ConfigError: a malformed spec, a module that does not import, a missing name.
    """
    return load_env_factory(spec)


def is_env_spec(game: str) -> bool:
    """Whether a run's ``game`` names an env factory (``MODULE:FACTORY``, a ``--env`` run)
    rather than a pokerzoo game."""
    return ":" in game


def check_foreign_agent(name: str) -> str:
    """The units of agent ``name``; ``ConfigError`` naming the agents ``--env`` takes."""
    if name not in FOREIGN_AGENTS:
        raise ConfigError(f"agent {name!r} does not train on an AEC env; --env takes "
                          f"{', '.join(FOREIGN_AGENTS)}")
    return FOREIGN_AGENTS[name]


def make_foreign_agent(
    name: str, factory: Callable[[], Any], seed: int, params: dict[str, Any]
) -> Agent:
    """Agent ``name`` (a key of ``FOREIGN_AGENTS``) on the env ``factory`` builds."""
    check_foreign_agent(name)
    if name == "mccfr-es":
        from pokerzoo.agents.cfr.aec_mccfr import AECExternalMCCFR

        return AECExternalMCCFR(factory, seed=seed, **params)
    if name == "mccfr-os":
        from pokerzoo.agents.cfr.aec_outcome import AECOutcomeMCCFR

        return AECOutcomeMCCFR(factory, seed=seed, **params)
    if name == "deep-cfr":
        # Needs a copyable env whose observation layout is declared (pokerzoo's envs do);
        # AECDeepCFR refuses others naming the requirement.
        from pokerzoo.agents.cfr.aec_deep_cfr import AECDeepCFR

        return AECDeepCFR(factory, seed=seed, **params)
    from pokerzoo.agents.nfsp.aec import make_aec_preset

    return make_aec_preset(name, factory, seed=seed, **params)


def vs_random(agent: Any, factory: Callable[[], Any], deals: int, seed: int) -> dict[str, float]:
    """The agent against uniform random players, in every seat of each of ``deals`` deals
    (duplicate seeds: deal ``d`` is ``reset(seed=...)`` with the same seed for every seat).

    Returns ``vs_random_per_hand`` (the agent's mean reward per hand) and ``vs_random_ci95``
    (half-width of the normal 95% interval over deals).
    """
    env = factory()
    agents = list(env.possible_agents)
    rng = np.random.default_rng([seed, 29])
    per_deal = np.zeros(deals)
    for d in range(deals):
        deal_seed = int(np.random.SeedSequence([seed, d]).generate_state(1)[0])
        for me in agents:
            env.reset(seed=deal_seed)
            total = 0.0
            for name in env.agent_iter():
                obs, reward, terminated, truncated, info = env.last()
                if name == me:
                    total += float(reward)
                if terminated or truncated:
                    action = None
                elif name == me:
                    probs = agent.act_probabilities(obs, {**info, "agent": name})
                    action = int(rng.choice(len(probs), p=probs / probs.sum()))
                else:
                    mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
                    action = int(rng.choice(np.flatnonzero(mask)))
                env.step(action)
            per_deal[d] += total / len(agents)
    ci = 1.96 * per_deal.std(ddof=1) / np.sqrt(deals) if deals > 1 else float("nan")
    return {"vs_random_per_hand": float(per_deal.mean()), "vs_random_ci95": float(ci)}


SUMMARY_OPPONENTS = ("first-legal", "last-legal")
"""Built-in opponents (``pokerzoo.evaluation.aec_opponents``) the final summary scores the
agent against, beside ``vs_random``'s metric."""


def vs_opponents(
    agent: Any, env: str | AECGame, hands: int, seed: int
) -> dict[str, dict[str, float]]:
    """The agent against each of ``SUMMARY_OPPONENTS`` in every other seat (duplicate
    seeds, all seats): mean reward per hand and its 95% half-width."""
    results = {}
    for name in SUMMARY_OPPONENTS:
        r = aec_versus(env, agent, name, hands, seed)
        results[name] = {"per_hand": r["per_hand"], "ci95": r["per_hand_ci95"]}
    return results


def train_foreign(
    config: RunConfig, progress: bool = True, max_steps_per_hand: int = MAX_STEPS_PER_HAND
) -> dict[str, Any]:
    """Run (or resume) ``config.agent`` on the env ``config.game`` names (``MODULE:FACTORY``);
    returns the summary also written to ``summary.json``.

    Every env is a ``pokerzoo.wrappers.aec_guard.GuardedAEC``: what the factory returns or
    raises, each call's exceptions, rewards, observations and masks are checked (one
    ``ConfigError`` line each), and a hand longer than ``max_steps_per_hand`` steps ends the
    run with one line instead of hanging it.
    """
    started = time.perf_counter()
    if config.workers not in (None, 1) or config.ray_address is not None:
        raise ConfigError("--env runs in one process: drop --workers and --ray-address")
    if config.game_params:
        raise ConfigError("--game-param does not apply to --env (pass a factory that "
                          "builds the env you want)")
    units_name = check_foreign_agent(config.agent)
    units = config.budget_units(units_name)
    if units is None and config.seconds is None:
        units = default_budget(config.agent)
    # Every env call checked: a misbehaving env or factory is one line, not a traceback.
    factory = guard_factory(config.game, load_factory(config.game), max_steps_per_hand)
    agent = make_foreign_agent(config.agent, factory, config.seed, dict(config.agent_params))
    # The checkpoint's header records how to rebuild the agent (pokerzoo.load_agent).
    agent.build = {"agent": config.agent, "agent_params": dict(config.agent_params),
                   "seed": config.seed, "env": config.game}
    out = Path(config.out)
    # One writer at a time: a second train.py on this folder is refused naming the first.
    with hold_run_folder(out):
        resumed = prepare_folder(out, config, agent)
        period = config.eval_every or max(1, (units or 20_000) // 20)
        deals = max(2, config.eval_hands // 2)
        callbacks = [
            MetricCallback(lambda a: vs_random(a, factory, deals, config.seed), period),
            MetricsLogger(out, period, tensorboard=config.tensorboard),
            CheckpointCallback(out / CHECKPOINT_FILE, config.checkpoint_every or period),
        ]
        trainer = Trainer(agent, Budget(units=units, seconds=config.seconds), callbacks,
                          progress=progress, started=started)
        held = agent.iteration
        try:
            trainer.run()
        except KeyboardInterrupt:
            pass  # the checkpoint callback saved what was learned; the summary says so
        summary: dict[str, Any] = {
            "agent": config.agent,
            "game": config.game,
            "env": config.game,
            "units": units_name,
            **trainer.timing(),
            "resumed": resumed,
            "held_before": held,
            "budget_units": units,
            **({"interrupted": True} if trainer.interrupted else {}),
            **trainer.metrics,
            "vs_opponents": vs_opponents(
                agent, AECGame(factory, config.game, len(factory().possible_agents)),
                config.eval_hands, config.seed,
            ),
        }
        write_json(out / "summary.json", summary)
        return summary
