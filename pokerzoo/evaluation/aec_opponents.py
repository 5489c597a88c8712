"""Built-in opponents in any PettingZoo AEC env with ``Discrete`` actions and an action mask.

A foreign env says nothing about what its actions mean, only which are legal (the mask) and
their order (the ``Discrete`` index). So the opponents that make sense in *every* such env are
the ones that read nothing else:

* ``random``: every legal action with equal probability (the usual baseline);
* ``first-legal``: always the lowest-numbered legal action;
* ``last-legal``: always the highest-numbered legal action.

The two deterministic ones are fixed, fully exploitable strategies: an agent that learned
anything should beat them, and, unlike ``random``, they expose an agent that only learned to
beat noise. In PettingZoo's ``leduc_holdem_v4`` (actions ``call, raise, fold, check``)
``first-legal`` calls a bet and raises otherwise (a maniac) and ``last-legal`` checks or folds;
in ``tictactoe_v3`` they fill the board in order from either end.
Poker-specific opponents (``always-call``) need a pokerzoo ``Game``: see
``pokerzoo.evaluation.opponents``.

Each opponent answers ``act_probabilities(observation, info)`` with one probability per action,
like the agents trained on an AEC env.

>>> import numpy as np
>>> obs = {"observation": np.zeros(3), "action_mask": np.array([0, 1, 1, 0], np.int8)}
>>> make_aec_opponent("first-legal").act_probabilities(obs, {}).tolist()
[0.0, 1.0, 0.0, 0.0]
>>> aec_opponent_names()
['first-legal', 'last-legal', 'random']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError


def action_mask(observation: Any, info: Any) -> np.ndarray:
    """The legal-action mask of an AEC turn: ``observation["action_mask"]`` of a dict
    observation, else ``info["action_mask"]``.

    Raises:
        ConfigError: neither carries a mask.
    """
    if isinstance(observation, Mapping) and "action_mask" in observation:
        return np.asarray(observation["action_mask"]).astype(bool)
    if isinstance(info, Mapping) and "action_mask" in info:
        return np.asarray(info["action_mask"]).astype(bool)
    raise ConfigError("no action mask: the observation must be a {'observation', "
                      "'action_mask'} dict or info must carry 'action_mask'")


@dataclass(frozen=True)
class LegalActionPlayer:
    """Plays from the mask alone: ``"random"`` (uniform), ``"first"`` or ``"last"`` legal."""

    rule: str
    name: str

    def act_probabilities(self, observation: Any, info: Any = None) -> np.ndarray:
        mask = action_mask(observation, info)
        legal = np.flatnonzero(mask)
        if not len(legal):
            raise ConfigError(f"{self.name}: the action mask allows no action")
        probs = np.zeros(len(mask))
        if self.rule == "random":
            probs[legal] = 1.0 / len(legal)
        else:
            probs[legal[0] if self.rule == "first" else legal[-1]] = 1.0
        return probs


AEC_OPPONENTS: dict[str, tuple[str, str]] = {
    "random": ("random", "every legal action with equal probability"),
    "first-legal": ("first", "always the lowest-numbered legal action"),
    "last-legal": ("last", "always the highest-numbered legal action"),
}
"""Built-in opponents in a foreign env: name -> (rule, one line on how it plays)."""


def aec_opponent_names() -> list[str]:
    """The built-in opponents of AEC envs, sorted."""
    return sorted(AEC_OPPONENTS)


def make_aec_opponent(name: str) -> LegalActionPlayer:
    """Built-in opponent ``name`` of AEC envs.

    Raises:
        ConfigError: an unknown name (the error lists the built-in ones).
    """
    if name not in AEC_OPPONENTS:
        raise ConfigError(f"unknown opponent {name!r} for an AEC env; built-in opponents there "
                          f"are {aec_opponent_names()}")
    return LegalActionPlayer(AEC_OPPONENTS[name][0], name)
