"""Name -> game class registry behind ``pokerzoo.load_game``."""

from __future__ import annotations

import difflib
from typing import Any

from pokerzoo.games.base import ConfigError, Game

_GAMES: dict[str, type[Game]] = {}


def register_game(cls: type[Game]) -> type[Game]:
    """Class decorator: make ``cls`` loadable by ``load_game(cls.name, ...)``."""
    if cls.name in _GAMES and _GAMES[cls.name] is not cls:
        raise ConfigError(f"a game named {cls.name!r} is already registered")
    _GAMES[cls.name] = cls
    return cls


def registered_games() -> list[str]:
    """Names accepted by ``load_game``."""
    _import_all()
    return sorted(_GAMES)


def load_game(name: str, **params: Any) -> Game:
    """Create a game by name, e.g. ``load_game("leduc_holdem", num_ranks=5)``.

    Raises:
        ConfigError: for an unknown name (listing the valid ones) or unknown parameters
            (listing the game's parameters) or invalid parameter values.
    """
    _import_all()
    if not isinstance(name, str):
        raise ConfigError(
            f"a game name must be a string, got {name!r}; valid games are {sorted(_GAMES)}"
        )
    try:
        cls = _GAMES[name]
    except KeyError:
        close = difflib.get_close_matches(name, _GAMES, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(
            f"unknown game {name!r}{hint}; valid games are {sorted(_GAMES)}"
        ) from None
    return cls(**params)


def _import_all() -> None:
    # Game modules register themselves on import; importing here keeps the registry complete
    # whichever module the user imported first.
    import importlib

    for module in ("kuhn", "leduc", "holdem", "unknown"):
        try:
            importlib.import_module(f"pokerzoo.games.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"pokerzoo.games.{module}":
                raise
