"""Rules only: Kuhn, the Leduc family, hold'em and their unknown-environment variants."""

from pokerzoo.games.base import (
    CHANCE,
    TERMINAL,
    ConfigError,
    Field,
    Game,
    GameConfig,
    GameType,
    IllegalActionError,
    State,
    TensorLayout,
)
from pokerzoo.games.registry import load_game, register_game, registered_games

__all__ = [
    "CHANCE",
    "TERMINAL",
    "ConfigError",
    "Field",
    "Game",
    "GameConfig",
    "GameType",
    "IllegalActionError",
    "State",
    "TensorLayout",
    "load_game",
    "register_game",
    "registered_games",
]
