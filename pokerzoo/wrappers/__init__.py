"""Wrappers over pokerzoo's AEC envs (public API only).

* ``TransitionRecorder``: per-agent ``(obs, mask, action, reward, next_obs, next_mask, done)``
  transitions for self-play learners;
* ``SingleAgentEnv``: a Gymnasium env against fixed opponents (``action_masks()`` for
  MaskablePPO);
* ``FlattenObservation``, ``BigBlindRewards``, ``parallel_view``: small AEC adapters;
* ``AECLearnerEnv``: any PettingZoo AEC env (``Discrete`` actions, a mask), ``N`` copies side
  by side, as our agents' batched input (``pokerzoo.wrappers.aec_learner``).
"""

from pokerzoo.wrappers.aec import (
    BigBlindRewards,
    FixedShapeInfos,
    FlattenObservation,
    big_blind_of,
    parallel_view,
)
from pokerzoo.wrappers.aec_learner import AECLearnerEnv
from pokerzoo.wrappers.opponents import as_opponent
from pokerzoo.wrappers.single_agent import SingleAgentEnv
from pokerzoo.wrappers.transitions import Transition, TransitionRecorder

__all__ = [
    "AECLearnerEnv",
    "BigBlindRewards",
    "FixedShapeInfos",
    "FlattenObservation",
    "SingleAgentEnv",
    "Transition",
    "TransitionRecorder",
    "as_opponent",
    "big_blind_of",
    "parallel_view",
]
