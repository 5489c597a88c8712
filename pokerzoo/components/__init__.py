"""Reusable building blocks of the learning agents: replay buffers, learning times, search.

Import-light on purpose: nothing here imports torch (the network blocks live in
``pokerzoo.components.networks`` and are imported from there).
"""

from pokerzoo.components.learning_times import learning_times, sample_learning_times
from pokerzoo.components.prioritized import (
    MinTree,
    PrioritizedReplayBuffer,
    PrioritizedSample,
    SegmentTree,
    SumTree,
)
from pokerzoo.components.replay import (
    Batch,
    FieldSpec,
    ReplayBuffer,
    ReservoirBuffer,
    transition_fields,
)

__all__ = [
    "Batch",
    "FieldSpec",
    "MinTree",
    "PrioritizedReplayBuffer",
    "PrioritizedSample",
    "ReplayBuffer",
    "ReservoirBuffer",
    "SegmentTree",
    "SumTree",
    "learning_times",
    "sample_learning_times",
    "transition_fields",
]
