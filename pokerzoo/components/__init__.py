"""Reusable building blocks of the learning agents: replay buffers, learning times, search.

Import-light on purpose: nothing here imports torch (the network blocks live in
``pokerzoo.components.networks`` and are imported from there).
"""

from pokerzoo.components.determinisation import (
    Sampler,
    consistent_histories,
    resampling_sampler,
    sampler_from_histories,
    sampler_from_states,
)
from pokerzoo.components.learning_times import learning_times, sample_learning_times
from pokerzoo.components.posterior import Posterior
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
from pokerzoo.components.uct import AdaptiveUCT, Evaluator, SearchResult, UCTConfig

__all__ = [
    "AdaptiveUCT",
    "Batch",
    "Evaluator",
    "FieldSpec",
    "MinTree",
    "Posterior",
    "PrioritizedReplayBuffer",
    "PrioritizedSample",
    "ReplayBuffer",
    "ReservoirBuffer",
    "Sampler",
    "SearchResult",
    "SegmentTree",
    "SumTree",
    "UCTConfig",
    "consistent_histories",
    "learning_times",
    "resampling_sampler",
    "sample_learning_times",
    "sampler_from_histories",
    "sampler_from_states",
    "transition_fields",
]
