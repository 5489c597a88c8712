"""PettingZoo AEC envs over every pokerzoo game, the ``make`` registry and batched play."""

from pokerzoo.envs.poker_env import PokerEnv
from pokerzoo.envs.registry import make, register_env, registered_envs
from pokerzoo.envs.vector import VectorPokerEnv, VectorStep

__all__ = ["PokerEnv", "VectorPokerEnv", "VectorStep", "make", "register_env", "registered_envs"]
