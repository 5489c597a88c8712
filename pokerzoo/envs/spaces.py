"""Observation spaces shared by the envs and the wrappers over them.

>>> from gymnasium import spaces

from pokerzoo.errors import ConfigError
>>> box = flat_space(spaces.Box(-1.0, 1.0, (3,)), spaces.Box(0, 1, (2,), dtype=np.int8))
>>> box.shape, box.high.tolist()
((5,), [1.0, 1.0, 1.0, 1.0, 1.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from pokerzoo.errors import ConfigError


def flat_space(tensor: spaces.Box, mask: spaces.Box) -> spaces.Box:
    """The Box of a tensor followed by its action mask (as float32 0/1)."""
    low = np.concatenate([tensor.low, np.zeros(mask.shape, np.float32)])
    high = np.concatenate([tensor.high, np.ones(mask.shape, np.float32)])
    return spaces.Box(low, high, dtype=np.float32)


def checked_action_mask(mask: Any, num_actions: int, who: str = "the agent") -> np.ndarray:
    """``mask`` as a float64 vector of 0s and 1s, one per action.

    Raises:
        ConfigError: (one line) a mask that is not one-dimensional of length ``num_actions``,
            of a dtype other than bool, integer or float, or with values other than 0 and 1.
    """
    array = np.asarray(mask)
    if array.dtype.kind not in "biuf":
        raise ConfigError(f"{who} got an action_mask of dtype {array.dtype}; a mask holds 0s and "
                          f"1s (bool, integer or float), one per action ({num_actions})")
    if array.shape != (num_actions,):
        raise ConfigError(f"{who} got an action_mask of shape {array.shape}; the game has "
                          f"{num_actions} actions, so a mask is {num_actions} values of 0 or 1")
    values = array.astype(np.float64)
    if not np.isin(values, (0.0, 1.0)).all():
        raise ConfigError(f"{who} got an action_mask with values other than 0 and 1: "
                          f"{array.tolist()!r:.80}")
    return values
