"""The error types every layer of pokerzoo raises, in one place so callers catch what they mean.

Every error derives from ``PokerzooError``. Errors about bad input also derive from
``ValueError`` (or ``TypeError`` for a value of the wrong type), so code written against the
built-in types keeps working.

>>> from pokerzoo.errors import ConfigError, PokerzooError
>>> issubclass(ConfigError, PokerzooError) and issubclass(ConfigError, ValueError)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class PokerzooError(Exception):
    """Base class of every error pokerzoo raises on purpose."""


class ConfigError(PokerzooError, ValueError):
    """An unknown name, an unknown parameter, or a parameter of the wrong type or range."""


class IllegalActionError(PokerzooError, ValueError):
    """An action that is not legal in the current state."""

    def __init__(self, action: Any, legal_actions: Sequence[int], context: str = "") -> None:
        where = f" in {context}" if context else ""
        super().__init__(
            f"illegal action {action!r}{where}; legal actions are {list(legal_actions)}"
        )
        self.action = action
        self.legal_actions = list(legal_actions)


class CheckpointError(PokerzooError, ValueError):
    """A checkpoint that is missing, truncated, of an old format, or of another agent or game."""


class TreeTooLargeError(PokerzooError, ValueError):
    """A game whose compiled tree would not fit: use sampled evaluation (matches, LBR) instead."""

    def __init__(self, message: str, estimated_nodes: int | None = None) -> None:
        super().__init__(message)
        self.estimated_nodes = estimated_nodes


class InvalidPolicyError(PokerzooError, ValueError):
    """A policy an evaluator cannot score: NaN, negative, or rows that do not sum to one."""


class EnvStateError(PokerzooError, RuntimeError):
    """An env call at the wrong time: ``step`` after the end, ``last`` before ``reset``, ..."""


class HiddenModelError(PokerzooError, AttributeError):
    """An agent-facing object asked for the hidden true model d* of an unknown environment."""


class WorkerLostError(PokerzooError, RuntimeError):
    """A distributed worker died more often than its job may be retried (the job's results,
    never partially counted, are missing, so the run stops instead of reporting less)."""


class PlayerError(PokerzooError, RuntimeError):
    """An outside player that could not be asked: a callable that raised, a program that exited,
    hung or printed garbage, an endpoint that refused, timed out or kept failing."""


class PokerzooWarning(UserWarning):
    """Input that is accepted but probably not what was meant (a range naming a combo twice,
    ...): filter on this category to silence or escalate pokerzoo's warnings."""
