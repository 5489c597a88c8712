"""Runs on a foreign PettingZoo AEC env: ``train.py --env MODULE:FACTORY``.

``--env pettingzoo.classic.leduc_holdem_v4:env`` imports ``MODULE`` and calls ``FACTORY()`` for
each env it needs (any AEC env with ``Discrete`` actions and an action mask: see
``pokerzoo.wrappers.aec_learner``). The agents that train on one are the rows of the agent
table with an ``env_entry_point`` (``pokerzoo.agents.registry.env_agents``), and the run is
``pokerzoo.runs.run.train``'s, with the env spec as the config's ``game``: the same run folder
(``config.json``, ``metrics.csv``, ``checkpoint.pzc``, ``summary.json``), resumed by a second
command. There is no tree to score on: evaluation is matches in the env
(``pokerzoo.evaluation.aec_matches``), against uniform random (``vs_random``, logged as
``vs_random_per_hand`` and ``vs_random_ci95``) and, in the summary, against the built-in
``first-legal`` and ``last-legal`` opponents (``vs_opponents``). ``evaluate.py`` on the folder
restores the agent through ``pokerzoo.load_agent`` (the checkpoint records the env factory as
``env``) and plays it against the built-in opponents and other runs of the env
(``pokerzoo.runs.tournament.foreign_report``).
"""

from __future__ import annotations

from typing import Any

from pokerzoo.evaluation.aec_matches import AECGame, EnvSource, aec_game, aec_versus


def is_env_spec(game: str) -> bool:
    """Whether a run's ``game`` names an env factory (``MODULE:FACTORY``, a ``--env`` run)
    rather than a pokerzoo game."""
    return ":" in game


def vs_random(agent: Any, env: AECGame | EnvSource, deals: int, seed: int) -> dict[str, float]:
    """The agent against uniform random players in every other seat, in every seat of each of
    ``deals`` deals (duplicate dealing, ``pokerzoo.evaluation.aec_matches.aec_versus``).

    Returns ``vs_random_per_hand`` (the agent's mean reward per hand) and ``vs_random_ci95``
    (half-width of the normal 95% interval over deals).
    """
    table = aec_game(env)
    result = aec_versus(table, agent, "random", deals * table.num_players, seed)
    return {"vs_random_per_hand": result["per_hand"], "vs_random_ci95": result["per_hand_ci95"]}


SUMMARY_OPPONENTS = ("first-legal", "last-legal")
"""Built-in opponents (``pokerzoo.evaluation.aec_opponents``) the final summary scores the
agent against, beside ``vs_random``'s metric."""


def vs_opponents(
    agent: Any, env: AECGame | EnvSource, hands: int, seed: int
) -> dict[str, dict[str, float]]:
    """The agent against each of ``SUMMARY_OPPONENTS`` in every other seat (duplicate
    seeds, all seats): mean reward per hand and its 95% half-width."""
    table = aec_game(env)
    results = {}
    for name in SUMMARY_OPPONENTS:
        r = aec_versus(table, agent, name, hands, seed)
        results[name] = {"per_hand": r["per_hand"], "ci95": r["per_hand_ci95"]}
    return results
