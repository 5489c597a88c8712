"""Name -> AEC env registry behind ``pokerzoo.make``.

Each named env is a module with ``env(**kw)`` and ``raw_env(**kw)``; other packages (or the
unknown-environment games) add theirs with ``register_env``.
"""

from __future__ import annotations

import difflib
import importlib
from typing import Any

from pokerzoo.games.base import ConfigError
from pokerzoo.games.registry import registered_games

_ENVS: dict[str, tuple[str, str]] = {
    "kuhn_poker_v0": ("pokerzoo.envs.kuhn_poker_v0", "kuhn_poker"),
    "leduc_holdem_v0": ("pokerzoo.envs.leduc_holdem_v0", "leduc_holdem"),
    "limit_holdem_v0": ("pokerzoo.envs.limit_holdem_v0", "limit_holdem"),
    "no_limit_holdem_v0": ("pokerzoo.envs.no_limit_holdem_v0", "no_limit_holdem"),
    "unknown_kuhn_poker_v0": ("pokerzoo.envs.unknown_kuhn_poker_v0", "unknown_kuhn_poker"),
    "unknown_leduc_holdem_v0": ("pokerzoo.envs.unknown_leduc_holdem_v0", "unknown_leduc_holdem"),
}


def register_env(name: str, module: str, game: str) -> None:
    """Make ``make(name)`` build ``module.env(**kw)``; ``game`` is the game it needs."""
    _ENVS[name] = (module, game)


def registered_envs() -> list[str]:
    """Names accepted by ``make`` whose game and env module are available in this install."""
    games = set(registered_games())
    names = []
    for name, (module, game) in _ENVS.items():
        if game in games and importlib.util.find_spec(module) is not None:
            names.append(name)
    return sorted(names)


def env_module(name: str) -> Any:
    """The module of the named env (with ``env`` and ``raw_env``)."""
    available = registered_envs()
    if name not in available:
        close = difflib.get_close_matches(name, available, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"unknown env {name!r}{hint}; available envs are {available}")
    return importlib.import_module(_ENVS[name][0])


def make(name: str, *, raw: bool = False, **kwargs: Any) -> Any:
    """Create a named AEC env, e.g. ``make("leduc_holdem_v0", num_ranks=5)``.

    Args:
        name: a name from ``registered_envs()``.
        raw: build ``raw_env`` (illegal actions raise) instead of ``env``.
        **kwargs: game parameters and env options (``render_mode``, ``illegal_reward``, ...).

    Raises:
        ConfigError: for an unknown name (listing the available envs) or unknown parameters
            (listing the game's parameters and the env options).
    """
    module = env_module(name)
    return (module.raw_env if raw else module.env)(**kwargs)
