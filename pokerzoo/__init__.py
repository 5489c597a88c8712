"""pokerzoo: imperfect-information poker games as PettingZoo AEC envs, and agents to solve them."""

from pokerzoo.envs.registration import register_all as _register_all
from pokerzoo.envs.registry import make, registered_envs
from pokerzoo.games import CHANCE, TERMINAL, ConfigError, IllegalActionError, load_game

__version__ = "0.1.0"

__all__ = [
    "CHANCE",
    "TERMINAL",
    "ConfigError",
    "IllegalActionError",
    "__version__",
    "load_game",
    "make",
    "registered_envs",
]

# The AEC envs join PettingZoo's registry and the single-agent envs Gymnasium's at import,
# so pettingzoo.make("aec", "pokerzoo/...") and gymnasium.make("pokerzoo/...") just work.
_register_all()
