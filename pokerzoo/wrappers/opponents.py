"""Turn anything that can play poker into an opponent for ``SingleAgentEnv``.

An opponent is called as ``opponent(observation, info) -> action`` on its turns. ``as_opponent``
accepts:

* ``"random"`` or ``None``: uniform over the legal actions;
* a ``TabularPolicy`` (anything with ``row(info_state_key)``): its row for ``info["info_state"]``;
* a pokerzoo agent (it answers env turns through ``act_probabilities(observation, info)``,
  e.g. a trained NFSP or a CFR agent);
* a state policy (``action_probabilities(state) -> {action: prob}``, e.g.
  ``pokerzoo.policy.UniformRandomPolicy``): asked about the env's current ``game_state``;
* a Stable-Baselines3 model (``predict``, deterministic), given the tensor (or the dict
  observation if the model was trained on dicts) and, for MaskablePPO, the action mask; an
  illegal prediction of a model without masks is replaced by a random legal action;
* a callable ``fn(observation, info)`` returning an action or a probability vector.

Probabilities are masked to the legal actions and sampled with the env's Generator.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from pokerzoo.envs.batch_opponents import check_opponent_signature
from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.policy import PolicySource, StatePolicy

Opponent = Callable[[dict[str, np.ndarray], Mapping[str, Any]], int]


def sample_masked(probs: Any, mask: np.ndarray, rng: np.random.Generator) -> int:
    """Draw an action from ``probs`` (array or ``{action: p}``) restricted to ``mask``.

    Raises:
        InvalidPolicyError: if ``probs`` has NaN or negative weights, or none on a legal action.
    """
    if isinstance(probs, Mapping):
        vec = np.zeros(len(mask))
        for a, p in probs.items():
            vec[int(a)] = p
        probs = vec
    weights = np.where(mask > 0, np.asarray(probs, dtype=np.float64), 0.0)
    total = weights.sum()
    if not (np.isfinite(total) and total > 0) or (weights < 0).any():
        raise InvalidPolicyError(
            f"the opponent's probabilities {np.asarray(probs).tolist()} give no valid weight to "
            f"the legal actions {np.flatnonzero(mask).tolist()}; they must be finite, >= 0 and "
            "not all zero there"
        )
    cum = np.cumsum(weights)
    return int(min(np.searchsorted(cum, rng.random() * total, side="right"), len(mask) - 1))


def as_opponent(spec: Any, env: Any, rng_of: Callable[[], np.random.Generator]) -> Opponent:
    """Wrap ``spec`` (see the module docstring) as ``fn(observation, info) -> action``.

    Args:
        spec: what plays.
        env: the AEC env it plays in (read for ``game_state`` by state policies).
        rng_of: returns the Generator to sample with (the single-agent env's ``np_random``).

    Raises:
        ConfigError: if ``spec`` is none of the accepted kinds.
    """
    if spec is None or (isinstance(spec, str) and spec == "random"):
        return lambda obs, info: sample_masked(obs["action_mask"], obs["action_mask"], rng_of())
    if isinstance(spec, str):
        raise ConfigError(f"unknown opponent {spec!r}; the only named opponent is 'random'")
    if hasattr(spec, "row") and hasattr(spec, "key_to_row"):
        return lambda obs, info: sample_masked(
            spec.row(info["info_state"]), obs["action_mask"], rng_of()
        )
    if isinstance(spec, PolicySource):
        return lambda obs, info: sample_masked(
            spec.act_probabilities(obs, info), obs["action_mask"], rng_of()
        )
    if isinstance(spec, StatePolicy):
        unwrapped = env.unwrapped
        return lambda obs, info: sample_masked(
            spec.action_probabilities(unwrapped.game_state), obs["action_mask"], rng_of()
        )
    if hasattr(spec, "predict") and hasattr(spec, "observation_space"):
        return _sb3_opponent(spec, rng_of)
    if callable(spec):
        check_opponent_signature(spec, "one turn with an action or a probability vector")

        def call(obs: dict[str, np.ndarray], info: Mapping[str, Any]) -> int:
            out = spec(obs, info)
            if np.ndim(out) == 0 and not isinstance(out, Mapping):
                return int(out)
            return sample_masked(out, obs["action_mask"], rng_of())

        return call
    raise ConfigError(
        f"cannot play with {type(spec).__name__}: pass 'random', a TabularPolicy, an agent, a "
        f"state policy, a Stable-Baselines3 model or a callable (observation, info) -> action"
    )


def _sb3_opponent(model: Any, rng_of: Callable[[], np.random.Generator]) -> Opponent:
    wants_dict = isinstance(model.observation_space, spaces.Dict)
    takes_mask = "action_masks" in inspect.signature(model.predict).parameters

    def play(obs: dict[str, np.ndarray], info: Mapping[str, Any]) -> int:
        x = obs if wants_dict else obs["observation"]
        kwargs = {"action_masks": obs["action_mask"].astype(bool)} if takes_mask else {}
        action, _ = model.predict(x, deterministic=True, **kwargs)
        mask = obs["action_mask"]
        if not mask[int(action)]:  # a model trained without masks: replace by a legal action
            return sample_masked(mask, mask, rng_of())
        return int(action)

    return play
