"""Checks of evaluators' arguments: a ``ConfigError`` that says what is allowed.

NumPy integers count as integers; ``bool`` does not.

>>> player_arg(np.int64(1), 2)
1
>>> count_arg(2.5, "num_deals")
Traceback (most recent call last):
...
pokerzoo.errors.ConfigError: num_deals must be an integer >= 1, got 2.5
"""

from __future__ import annotations

import numbers

import numpy as np

from pokerzoo.errors import ConfigError


def is_int(value: object) -> bool:
    """Whether ``value`` is an integer (Python or NumPy), not a bool."""
    integral = isinstance(value, numbers.Integral | np.integer)
    return integral and not isinstance(value, bool | np.bool_)


def player_arg(player: object, num_players: int, name: str = "player") -> int:
    """``player`` as an ``int`` in ``[0, num_players)``; ``ConfigError`` otherwise."""
    if not is_int(player) or not 0 <= int(player) < num_players:  # type: ignore[call-overload]
        raise ConfigError(f"{name} must be an int in [0, {num_players}), got {player!r}")
    return int(player)  # type: ignore[call-overload]


def count_arg(value: object, name: str, low: int = 1) -> int:
    """``value`` as an ``int`` >= ``low``; ``ConfigError`` otherwise."""
    if not is_int(value) or int(value) < low:  # type: ignore[call-overload]
        raise ConfigError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)  # type: ignore[call-overload]


def seed_arg(seed: object, name: str = "seed") -> int | None:
    """``seed`` as a non-negative ``int`` or ``None``; ``ConfigError`` otherwise."""
    if seed is None:
        return None
    return count_arg(seed, name, 0)
