"""Observation spaces shared by the envs and the wrappers over them.

>>> from gymnasium import spaces
>>> box = flat_space(spaces.Box(-1.0, 1.0, (3,)), spaces.Box(0, 1, (2,), dtype=np.int8))
>>> box.shape, box.high.tolist()
((5,), [1.0, 1.0, 1.0, 1.0, 1.0])
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces


def flat_space(tensor: spaces.Box, mask: spaces.Box) -> spaces.Box:
    """The Box of a tensor followed by its action mask (as float32 0/1)."""
    low = np.concatenate([tensor.low, np.zeros(mask.shape, np.float32)])
    high = np.concatenate([tensor.high, np.ones(mask.shape, np.float32)])
    return spaces.Box(low, high, dtype=np.float32)
