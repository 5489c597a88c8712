"""The one question every policy answers: action probabilities in a game state.

Anything that answers ``action_probabilities(state) -> {action: probability}`` is a
*state policy* and can be evaluated exactly (tabularised on the compiled tree) or played in
head-to-head matches. Agents that act from env observations expose such an object through
their ``policy()`` / ``average_policy()`` methods.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol, runtime_checkable

from pokerzoo.games.base import State


@runtime_checkable
class StatePolicy(Protocol):
    """Protocol: ``action_probabilities(state)`` over the acting player's legal actions."""

    def action_probabilities(self, state: State) -> Mapping[int, float]: ...


class UniformRandomPolicy:
    """Plays every legal action with equal probability."""

    def action_probabilities(self, state: State) -> dict[int, float]:
        legal = state.legal_actions()
        p = 1.0 / len(legal)
        return {a: p for a in legal}


class CallablePolicy:
    """Adapts a function ``state -> {action: probability}`` to the ``StatePolicy`` protocol."""

    def __init__(self, fn: Callable[[State], Mapping[int, float]]) -> None:
        self.fn = fn

    def action_probabilities(self, state: State) -> Mapping[int, float]:
        return self.fn(state)


def as_state_policy(policy: object) -> StatePolicy:
    """Return ``policy`` as a ``StatePolicy`` (objects with ``action_probabilities`` or callables).

    Raises:
        TypeError: if ``policy`` is neither.
    """
    if isinstance(policy, StatePolicy):
        return policy
    if callable(policy):
        return CallablePolicy(policy)  # type: ignore[arg-type]
    raise TypeError(
        f"expected a policy with action_probabilities(state) or a callable state -> "
        f"{{action: probability}}, got {type(policy).__name__}"
    )
