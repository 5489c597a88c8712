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
    "registered_envs",
]



def load_agent(path: str | os.PathLike) -> Any:
    """The agent saved at ``path`` (a checkpoint or a run folder), rebuilt from what its
    checkpoint records, as Stable-Baselines3's ``PPO.load`` does; see
    ``pokerzoo.runs.load.load_agent``. Imported on call: the agent families (and torch) load
    only when an agent is."""
    from pokerzoo.runs.load import load_agent as load

    return load(path)


# The AEC envs join PettingZoo's registry and the single-agent envs Gymnasium's at import,
# so pettingzoo.make("aec", "pokerzoo/...") and gymnasium.make("pokerzoo/...") just work.
_register_all()
