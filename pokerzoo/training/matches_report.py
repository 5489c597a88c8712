"""Match results of saved runs whose policies are not tables (networks on hold'em)."""

from __future__ import annotations

from typing import Any

from pokerzoo.agents.registry import make_agent
from pokerzoo.checkpoint import CHECKPOINT_FILE, find_run_checkpoint
from pokerzoo.evaluation.matches import versus_random
from pokerzoo.training.reports import SavedRun


def match_results(runs: list[SavedRun], hands: int, seed: int) -> dict[str, dict[str, Any]]:
    """Each run's agent (restored from its checkpoint) against random opponents."""
    results: dict[str, dict[str, Any]] = {}
    for run in runs:
        checkpoint = find_run_checkpoint(run.folder)
        if checkpoint is None:
            raise FileNotFoundError(f"{run.folder} has neither policy.npz nor {CHECKPOINT_FILE}")
        agent = make_agent(
            run.config["agent"], run.game, seed=run.config.get("seed", 0),
            **run.config.get("agent_params", {}),
        )
        agent.load(checkpoint)
        outcome = versus_random(run.game, agent.policy(), hands, seed)
        results[run.label] = {
            "agent": run.config["agent"],
            "game": repr(run.game),
            "bb_per_100": outcome["bb_per_100"],
            "ci95": outcome["ci95"],
            "hands": int(outcome["hands"]),
        }
    return results
