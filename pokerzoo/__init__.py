"""pokerzoo: imperfect-information poker games as PettingZoo AEC envs, and agents to solve them."""

import os
from typing import Any

from pokerzoo.envs.registration import register_all as _register_all
from pokerzoo.envs.registry import make, registered_envs
from pokerzoo.games import CHANCE, TERMINAL, ConfigError, IllegalActionError, load_game
from pokerzoo.version import __version__

__all__ = [
    "CHANCE",
    "TERMINAL",
    "ConfigError",
    "IllegalActionError",
    "__version__",
    "load_agent",
    "load_game",
    "make",
    "registered_agents",
    "registered_envs",
]



def load_agent(path: str | os.PathLike) -> Any:
    """The agent saved at ``path`` (a checkpoint or a run folder), rebuilt from what its
    checkpoint records, as Stable-Baselines3's ``PPO.load`` does; see
    ``pokerzoo.runs.load.load_agent``. Imported on call: the agent families (and torch) load
    only when an agent is."""
    from pokerzoo.runs.load import load_agent as load

    return load(path)


def registered_agents() -> dict[str, Any]:
    """Every agent pokerzoo can build: name -> its row of the agent table
    (``pokerzoo.agents.registry.AgentSpec``). Imported on call, and the table imports no agent
    family (nor torch)."""
    from pokerzoo.agents.registry import registered_agents as table

    return dict(table())


# The AEC envs join PettingZoo's registry and the single-agent envs Gymnasium's at import,
# so pettingzoo.make("aec", "pokerzoo/...") and gymnasium.make("pokerzoo/...") just work.
_register_all()
