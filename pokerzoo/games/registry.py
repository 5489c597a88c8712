"""The game table behind ``pokerzoo.load_game``: names -> ``"module:Class"``, imported when asked.

Rows come from three places, so adding a game edits no other file:

* pokerzoo's own games: every module and sub-package directly inside ``pokerzoo.games`` is
  imported the first time the table is read (``pkgutil``), and each game class in them joins
  with the ``@register_game`` decorator (a sub-package's ``__init__`` imports its game module);
* other packages' games: the ``pokerzoo.games`` entry-point group, e.g. in a plugin's
  ``pyproject.toml``::

      [project.entry-points."pokerzoo.games"]
      high_card = "toy_games:HighCard"

  (the name is the game's ``name``); only the names are read until the game is loaded;
* ``register_game(cls)`` called directly.

Envs derive their names and ids from this table (``pokerzoo.envs.registry``), so a registered
game is also a ``pokerzoo.make`` env, a PettingZoo id and a Gymnasium id.

>>> registered_games()[:3]
['kuhn_poker', 'leduc_holdem', 'limit_holdem']
>>> game_entry_point("kuhn_poker")
'pokerzoo.games.kuhn:KuhnPoker'
>>> load_game("kuhn_poker", num_players=3).num_players
3
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import warnings
from collections.abc import Callable
from importlib import metadata
from typing import Any

from pokerzoo import entry_points
from pokerzoo.games.base import ConfigError, Game

ENTRY_POINT_GROUP = "pokerzoo.games"
"""The entry-point group other packages declare their games in."""


class GamePluginWarning(UserWarning):
    """A game declared in the ``pokerzoo.games`` entry-point group could not be read or
    imported; it is left out of the lists (``load_game`` of its name raises the error)."""


_ENTRIES: dict[str, str] = {}
"""Game name -> ``"module:Class"``."""
_CLASSES: dict[str, type[Game]] = {}
"""Game name -> class, for the games imported so far."""
_LISTENERS: list[Callable[[type[Game]], None]] = []
_discovered = False


def _entry_of(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def register_game(cls: type[Game]) -> type[Game]:
    """Class decorator: make ``cls`` loadable by ``load_game(cls.name, ...)``.

    Raises:
        ConfigError: for a class that is not a ``Game`` with a string ``name``, or a name
            another class already has.
    """
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise ConfigError(f"register_game takes a Game subclass, got {cls!r}")
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{cls.__qualname__} needs a class attribute name (a string)")
    known = _CLASSES.get(name)
    if known is cls:
        return cls
    entry = _entry_of(cls)
    if known is not None or _ENTRIES.get(name, entry) != entry:
        raise ConfigError(
            f"a game named {name!r} is already registered ({_ENTRIES[name]}); "
            f"{entry} needs another name"
        )
    _ENTRIES[name] = entry
    _CLASSES[name] = cls
    for listener in list(_LISTENERS):
        listener(cls)
    return cls


def on_register(listener: Callable[[type[Game]], None]) -> None:
    """Call ``listener(cls)`` for every game class registered from now on (the env registry
    derives the envs of games that join after it read the table)."""
    _LISTENERS.append(listener)


def registered_games() -> list[str]:
    """Names accepted by ``load_game``: pokerzoo's games and every declared plugin game
    (whose modules are not imported for this)."""
    _discover()
    return sorted(_ENTRIES)


def game_entry_point(name: str) -> str:
    """``"module:Class"`` of the game ``name`` (imports nothing but pokerzoo's game modules).

    Raises:
        ConfigError: for an unknown name, listing the valid ones.
    """
    _discover()
    if not isinstance(name, str):
        raise ConfigError(
            f"a game name must be a string, got {name!r}; valid games are {sorted(_ENTRIES)}"
        )
    try:
        return _ENTRIES[name]
    except KeyError:
        raise entry_points.unknown_name("game", name, _ENTRIES) from None


def game_class(name: str) -> type[Game]:
    """The class of the game ``name``, importing its module on first use.

    Raises:
        ConfigError: for an unknown name, or an entry point that does not name a ``Game``
            class called ``name``.
    """
    cls = _CLASSES.get(name) if isinstance(name, str) else None
    if cls is not None:
        return cls
    entry = game_entry_point(name)
    target = entry_points.load(entry)
    if not (isinstance(target, type) and issubclass(target, Game)):
        raise ConfigError(f"game {name!r}: {entry} is not a Game class")
    if getattr(target, "name", None) != name:
        raise ConfigError(
            f"game {name!r}: {entry} is named {getattr(target, 'name', None)!r}; an entry "
            "point's name must be its game's name"
        )
    return register_game(target)


def game_classes() -> dict[str, type[Game]]:
    """Every registered game's class that can be imported now, by name.

    A plugin whose module is being imported at this moment (it imported pokerzoo first) is
    left out: its class joins when its ``@register_game`` runs, or when it is loaded. A
    plugin that fails to import is left out with a ``GamePluginWarning`` naming the error.
    """
    out: dict[str, type[Game]] = {}
    for name in registered_games():
        if name not in _CLASSES and _importing(_ENTRIES[name]):
            continue
        try:
            out[name] = game_class(name)
        except (ImportError, ConfigError) as exc:
            warnings.warn(
                f"the game {name!r} ({_ENTRIES[name]}) could not be loaded and is left out: "
                f"{exc}", GamePluginWarning, stacklevel=2,
            )
    return out


def load_game(name: str, **params: Any) -> Game:
    """Create a game by name, e.g. ``load_game("leduc_holdem", num_ranks=5)``.

    Raises:
        ConfigError: for an unknown name (listing the valid ones) or unknown parameters
            (listing the game's parameters) or invalid parameter values.
    """
    return game_class(name)(**params)


def _importing(entry: str) -> bool:
    """Whether the module of ``entry`` is being imported right now (not finished)."""
    module = sys.modules.get(entry_points.split(entry)[0])
    spec = getattr(module, "__spec__", None)
    return module is not None and bool(getattr(spec, "_initializing", False))


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    package = importlib.import_module(__package__ or "pokerzoo.games")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
    for point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        _add_entry_point(point.name, point.value)


def _add_entry_point(name: str, value: str) -> None:
    try:
        entry_points.split(value)
    except ConfigError as exc:
        warnings.warn(f"the {ENTRY_POINT_GROUP} entry point {name!r} is left out: {exc}",
                      GamePluginWarning, stacklevel=3)
        return
    known = _ENTRIES.get(name)
    if known is not None and known != value:
        warnings.warn(
            f"the {ENTRY_POINT_GROUP} entry point {name!r} = {value!r} is left out: the name "
            f"is {known}'s", GamePluginWarning, stacklevel=3,
        )
        return
    _ENTRIES[name] = value
