"""Unknown-environment poker: base games whose chance and rewards follow a hidden model d*.

``game`` holds the games and their states, ``model`` the environment models and the data they
learn from, ``priors`` the distributions the hidden models are drawn from.
"""

from pokerzoo.games.unknown.game import (
    UnknownConfig,
    UnknownKuhnPoker,
    UnknownLeducHoldem,
    UnknownPokerGame,
    UnknownState,
)
from pokerzoo.games.unknown.model import EnvironmentModel, EpisodeBatch, ModelStructure, base_model
from pokerzoo.games.unknown.priors import PokerPayoffsPrior, Prior, PSRLCFRPrior, make_prior

__all__ = [
    "EnvironmentModel",
    "EpisodeBatch",
    "ModelStructure",
    "PSRLCFRPrior",
    "PokerPayoffsPrior",
    "Prior",
    "UnknownConfig",
    "UnknownKuhnPoker",
    "UnknownLeducHoldem",
    "UnknownPokerGame",
    "UnknownState",
    "base_model",
    "make_prior",
]
