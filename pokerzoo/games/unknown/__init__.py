"""Unknown-environment poker: base games whose chance and rewards follow a hidden model d*.

``game`` holds the games (the environment, ``UnknownPokerGame``, and what agents get of it,
``AgentGameView``) and their states, ``model`` the environment models and the data they
learn from, ``priors`` the distributions the hidden models are drawn from.
"""

from pokerzoo.games.unknown.game import (
    AgentGameView,
    UnknownConfig,
    UnknownGameBase,
    UnknownKuhnPoker,
    UnknownLeducHoldem,
    UnknownPokerGame,
    UnknownState,
    agent_facing,
)
from pokerzoo.games.unknown.model import EnvironmentModel, EpisodeBatch, ModelStructure, base_model
from pokerzoo.games.unknown.priors import PokerPayoffsPrior, Prior, PSRLCFRPrior, make_prior

__all__ = [
    "AgentGameView",
    "EnvironmentModel",
    "EpisodeBatch",
    "ModelStructure",
    "PSRLCFRPrior",
    "PokerPayoffsPrior",
    "Prior",
    "UnknownConfig",
    "UnknownGameBase",
    "UnknownKuhnPoker",
    "UnknownLeducHoldem",
    "UnknownPokerGame",
    "UnknownState",
    "agent_facing",
    "base_model",
    "make_prior",
]
