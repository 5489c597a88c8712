"""Unknown-environment poker: base games whose chance and rewards follow a hidden model d*.

``game`` holds the games (the environment, ``UnknownPokerGame``, and what agents get of it,
``AgentGameView``) and their states, ``model`` the environment models and the data they
learn from, ``priors`` the distributions the hidden models are drawn from, ``sampler`` what an
interaction view plays the environment with (draws from d* without a way to read it).
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
from pokerzoo.games.unknown.sampler import EnvironmentSampler, InteractionCounter

__all__ = [
    "AgentGameView",
    "EnvironmentModel",
    "EnvironmentSampler",
    "EpisodeBatch",
    "InteractionCounter",
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
