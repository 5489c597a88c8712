"""The one question every policy answers: action probabilities in a game state.

Anything that answers ``action_probabilities(state) -> {action: probability}`` is a
*state policy* and can be evaluated exactly (tabularised on the compiled tree) or played in
head-to-head matches. Agents answer env turns through a verb of their own
(``act_probabilities(observation, info)``) and hand out what evaluators score through
``policy()``; every evaluator takes an agent and scores ``agent.policy()``.

>>> from pokerzoo import load_game
>>> state = load_game("kuhn_poker").new_initial_state()
>>> state.apply_action(0); state.apply_action(1)
>>> as_state_policy(UniformRandomPolicy()).action_probabilities(state)
{0: 0.5, 1: 0.5}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import State

NUM_HOLE_PAIRS = 1326
"""Hole-card pairs of a 52-card deck: the rows of a ``RangePolicy``'s table."""


@runtime_checkable
class StatePolicy(Protocol):
    """Protocol: ``action_probabilities(state)`` over the acting player's legal actions."""

    def action_probabilities(self, state: State) -> Mapping[int, float]: ...


@runtime_checkable
class PolicySource(Protocol):
    """Protocol of agents as evaluators see them: ``policy()`` hands out what is scored, and
    ``act_probabilities(observation, info)`` (not a state policy's verb) answers env turns."""

    def policy(self) -> Any: ...

    def act_probabilities(self, observation: Any, info: Mapping[str, Any] | None = None) -> Any: ...


@runtime_checkable
class RangePolicy(Protocol):
    """Protocol of policies that answer for a whole hold'em range at once:
    ``range_table(state, player)`` is ``[1326, num_actions]``, row ``k`` the probabilities
    ``player`` would play at ``state`` holding the ``k``-th hole-card pair (pairs ``(i, j)``,
    ``i < j``, in lexicographic order), whatever ``player`` really holds. Range evaluators
    (LBR) use it instead of one query per pair; a network answers with one forward pass."""

    def range_table(self, state: State, player: int) -> np.ndarray: ...


class UniformRandomPolicy:
    """Plays every legal action with equal probability."""

    def action_probabilities(self, state: State) -> dict[int, float]:
        legal = state.legal_actions()
        p = 1.0 / len(legal)
        return {a: p for a in legal}

    def range_table(self, state: State, player: int) -> np.ndarray:
        """The same row for every hole-card pair (``RangePolicy``)."""
        legal = state.legal_actions()
        row = np.zeros(state.game.num_distinct_actions)
        row[legal] = 1.0 / len(legal)
        return np.broadcast_to(row, (NUM_HOLE_PAIRS, len(row)))


class CallablePolicy:
    """Adapts a function ``state -> {action: probability}`` to the ``StatePolicy`` protocol."""

    def __init__(self, fn: Callable[[State], Mapping[int, float]]) -> None:
        self.fn = fn

    def action_probabilities(self, state: State) -> Mapping[int, float]:
        return self.fn(state)


WHAT_TO_PASS = (
    "pass a policy answering action_probabilities(state) (e.g. a TabularPolicy, "
    "agent.policy()), an [n_infosets, n_actions] array where a tree is given, an agent "
    "(its policy() is scored) or a callable state -> {action: probability}"
)
"""What evaluators accept where a policy is expected (quoted by their errors)."""


def policy_of(policy: object) -> object:
    """``policy.policy()`` if ``policy`` is an agent (what evaluators score), else ``policy``."""
    if isinstance(policy, PolicySource) and not isinstance(policy, StatePolicy):
        return policy.policy()
    return policy


def as_state_policy(policy: object) -> StatePolicy:
    """Return ``policy`` as a ``StatePolicy``.

    Accepts a state policy, an agent (its ``policy()``, which must be a state policy) or a
    callable ``state -> {action: probability}``.

    Raises:
        ConfigError: for anything else, saying what to pass.
    """
    resolved = policy_of(policy)
    if isinstance(resolved, StatePolicy):
        return resolved
    if resolved is not policy:
        raise ConfigError(
            f"{type(policy).__name__}.policy() returned a {type(resolved).__name__}, which does "
            "not answer action_probabilities(state); agents must hand out a state policy"
        )
    if callable(policy):
        return CallablePolicy(policy)
    raise ConfigError(f"cannot score a {type(policy).__name__}: {WHAT_TO_PASS}")
