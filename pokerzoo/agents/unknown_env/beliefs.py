"""The numbers a model-based agent believes each round, straight from its posterior's arrays.

``Posterior.mean_model()`` / ``sample_model()`` build a checked ``EnvironmentModel``; agents
that switch models every round (10,000 rounds a run) need only its two arrays, the chance
probabilities and the expected terminal rewards, which these functions compute directly.

>>> import numpy as np
>>> from pokerzoo import load_game
>>> from pokerzoo.components.posterior import Posterior
>>> posterior = Posterior(load_game("unknown_kuhn_poker", seed=0).agent_view())
>>> chance, rewards = believed_numbers(posterior, "mean", np.random.default_rng(0))
>>> bool(np.allclose(rewards, posterior.mean_model().expected_returns))
True
"""

from __future__ import annotations

import numpy as np

from pokerzoo.components.posterior import Posterior
from pokerzoo.errors import ConfigError
from pokerzoo.games.unknown.priors import dirichlet_rows, dirichlet_segments


def believed_numbers(
    posterior: Posterior, environment: str, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``(chance_probs [num_slots], expected rewards [num_terminals, num_players])`` of the
    posterior's ``"mean"`` model or of a model drawn from it (``"sample"``, with ``rng``)."""
    structure = posterior.structure
    chance = posterior.chance_parameters()
    reward = posterior.reward_parameters()
    if environment == "mean":
        lengths = np.diff(structure.outcome_offsets)
        chance_probs = chance / np.repeat(structure.segment_sums(chance), lengths)
        reward_probs = reward / reward.sum(axis=1, keepdims=True)
    elif environment == "sample":
        chance_probs = dirichlet_segments(chance, structure.outcome_offsets, rng)
        reward_probs = dirichlet_rows(reward, rng)
    else:
        raise ConfigError(f"environment must be 'mean' or 'sample', got {environment!r}")
    expected = np.einsum("tk,tkp->tp", reward_probs, posterior.reward_values)
    return chance_probs, expected


def predictive_rewards(
    posterior: Posterior, terminals: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """One reward vector per terminal index in ``terminals``, drawn from the posterior
    predictive P_t(r | z) (``[len(terminals), num_players]``)."""
    params = posterior.reward_parameters()[terminals]
    cumulative = np.cumsum(params, axis=1)
    u = rng.random(len(terminals)) * cumulative[:, -1]
    outcome = (cumulative <= u[:, None]).sum(axis=1)
    outcome = np.minimum(outcome, params.shape[1] - 1)
    values: np.ndarray = posterior.reward_values[terminals, outcome]
    return values
