"""Limit and no-limit Texas hold'em, 2 to 6 players: rules, cards, observations, configs."""

from pokerzoo.games.holdem.config import HoldemConfig, LimitHoldemConfig, NoLimitHoldemConfig
from pokerzoo.games.holdem.game import HoldemGame, LimitHoldem, NoLimitHoldem
from pokerzoo.games.holdem.state import CALL, FOLD, HoldemState

__all__ = [
    "CALL",
    "FOLD",
    "HoldemConfig",
    "HoldemGame",
    "HoldemState",
    "LimitHoldem",
    "LimitHoldemConfig",
    "NoLimitHoldem",
    "NoLimitHoldemConfig",
]
