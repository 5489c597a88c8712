"""pokerzoo: imperfect-information poker games as PettingZoo AEC envs, and agents to solve them."""

from pokerzoo.games import CHANCE, TERMINAL, ConfigError, IllegalActionError, load_game

__version__ = "0.1.0"

__all__ = ["CHANCE", "TERMINAL", "ConfigError", "IllegalActionError", "load_game", "__version__"]
