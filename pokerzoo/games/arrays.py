"""What every batched rule set shares: many hands as arrays, one row per hand, checkpointed.

A game's ``game_type.array_backend`` names a class with the interface of ``RowArrays``'
subclasses (``reset_rows``, ``current_player``, ``mask``, ``observations``, ``apply``);
``VectorPokerEnv`` builds it with ``Class(game, num_envs)``. The batched rules live beside the
game's object rules (``pokerzoo.games.holdem.arrays``) or, for the array-friendly small games,
in ``pokerzoo.envs.vector_backends``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np

from pokerzoo.errors import CheckpointError


def arrays_state(backend: object, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Copies of the arrays ``names`` of ``backend``."""
    return {name: getattr(backend, name).copy() for name in names}


def load_arrays(backend: object, names: tuple[str, ...], state: Mapping[str, Any]) -> None:
    """Write ``state``'s arrays into ``backend``'s arrays ``names`` (same shapes, in place).

    Raises:
        CheckpointError: for an array whose shape differs from the backend's.
    """
    for name in names:
        target = getattr(backend, name)
        value = np.asarray(state[name])
        if value.shape != target.shape:
            raise CheckpointError(f"{name} has shape {value.shape}, this env needs {target.shape}")
        target[...] = value


class RowArrays:
    """Checkpoints of an array backend: the arrays named in ``STATE`` hold the hands in flight,
    and the deals are up front, so restoring needs no generator."""

    STATE: tuple[str, ...] = ()

    def state_dict(self) -> dict[str, np.ndarray]:
        """The hands in flight (copies)."""
        return arrays_state(self, self.STATE)

    def load_state_dict(self, state: Mapping[str, Any], rng: np.random.Generator) -> None:
        """Restore hands from ``state_dict`` (``rng`` is unused: the deals are up front)."""
        load_arrays(self, self.STATE, state)

    def held(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """Copies of the hands in ``rows`` (indices), for ``put_back``."""
        return {name: getattr(self, name)[rows] for name in self.STATE}

    def put_back(self, rows: np.ndarray, held: Any) -> None:
        """Restore the hands in ``rows`` from ``held``."""
        for name, value in held.items():
            getattr(self, name)[rows] = value


class ArrayBackend(Protocol):
    """The interface of the class a game's ``game_type.array_backend`` names: ``num_envs``
    hands of ``game`` as arrays, every hand kept at a decision (chance dealt up front)."""

    game: Any
    num_envs: int
    obs_size: int

    def reset_rows(self, rows: np.ndarray, rng: np.random.Generator) -> None:
        """Deal new hands in ``rows`` (indices)."""

    def current_player(self) -> np.ndarray:
        """``[N]`` the seat to act in each hand."""

    def mask(self) -> np.ndarray:
        """``[N, A]`` int8 legal-action masks."""

    def observations(self, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Information-state tensors of ``seats[i]`` in hand ``rows[i]`` (all rows if None)."""

    def apply(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply one legal action per hand; ``(done [N], returns [N, n] of done hands)``."""

    def deals(self) -> np.ndarray:
        """``[N, k]`` chance outcomes of each hand in the order the ``State`` rules deal."""

    def state_dict(self) -> dict[str, np.ndarray]:
        """The hands in flight (copies)."""

    def load_state_dict(self, state: Mapping[str, Any], rng: np.random.Generator) -> None:
        """Restore hands from ``state_dict``."""

    def held(self, rows: np.ndarray) -> Any:
        """Copies of the hands in ``rows``, for ``put_back``."""

    def put_back(self, rows: np.ndarray, held: Any) -> None:
        """Restore the hands in ``rows`` from ``held``."""
