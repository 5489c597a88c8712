"""The face every agent shows, however it learns.

``iterate(n)`` does n units of learning; ``action_probabilities(observation, info)`` and
``act(...)`` answer in an env; ``state_dict()``/``load_state_dict()`` and ``save``/``load``
checkpoint it. Tabular solvers add ``average_policy()``/``current_policy()`` returning
``TabularPolicy`` objects that the exact evaluators score.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from pokerzoo.errors import CheckpointError
from pokerzoo.tree.tabular_policy import TabularPolicy

CHECKPOINT_FORMAT = "pokerzoo-agent-v1"


class Agent(ABC):
    """Base class of all agents."""

    name: ClassVar[str] = "agent"

    @abstractmethod
    def iterate(self, n: int = 1) -> None:
        """Do ``n`` units of learning (iterations, episodes or interaction rounds)."""

    @abstractmethod
    def policy(self) -> Any:
        """The policy to evaluate: answers ``action_probabilities(state)``."""

    @abstractmethod
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume learning (arrays, counters, RNG states)."""

    @abstractmethod
    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` returned."""

    @property
    def iteration(self) -> int:
        """Units of learning done so far."""
        return int(getattr(self, "_iteration", 0))

    def action_probabilities(
        self, observation: Any, info: Mapping[str, Any] | None = None
    ) -> np.ndarray:
        """Probabilities over all actions (zero where ``action_mask`` is 0) for an env turn.

        The default looks up ``info["info_state"]`` in the evaluated policy's table.
        """
        if info is None or "info_state" not in info:
            raise ValueError("this agent needs info['info_state'] from a pokerzoo env")
        mask = _mask_of(observation)
        policy = self.policy()
        if not isinstance(policy, TabularPolicy):
            raise TypeError(f"{type(self).__name__} must override action_probabilities")
        row = policy.row(info["info_state"]).copy()
        if mask is not None:
            row = np.where(mask > 0, row, 0.0)
            total = row.sum()
            row = row / total if total > 0 else mask / mask.sum()
        return row

    def act(
        self,
        observation: Any,
        info: Mapping[str, Any] | None = None,
        rng: np.random.Generator | None = None,
    ) -> int:
        """Sample an action from ``action_probabilities`` (seeded ``rng`` for reproducibility)."""
        probs = self.action_probabilities(observation, info)
        rng = rng if rng is not None else getattr(self, "rng", None) or np.random.default_rng()
        return int(rng.choice(len(probs), p=probs / probs.sum()))

    # Checkpoints -----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike) -> None:
        """Write a checkpoint atomically: a temporary file in the same folder, then rename."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"format": CHECKPOINT_FORMAT, "agent": self.name, "state": self.state_dict()}
        # Plain pickle (torch tensors pickle themselves), so tabular agents never import torch.
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def load(self, path: str | os.PathLike) -> None:
        """Restore a checkpoint written by ``save``; raises ``CheckpointError`` if unusable."""
        payload = read_checkpoint(path)
        if payload["agent"] != self.name:
            raise CheckpointError(
                f"{path} holds a {payload['agent']!r} agent, not {self.name!r}"
            )
        try:
            self.load_state_dict(payload["state"])
        except (KeyError, ValueError, TypeError, RuntimeError) as exc:
            raise CheckpointError(f"{path} does not fit this {self.name} agent: {exc}") from exc


def read_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """Read and check a checkpoint's envelope."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {path}")
    try:
        with open(path, "rb") as fh:
            payload = pickle.load(fh)
    except Exception as exc:  # a damaged pickle can raise almost any exception type
        raise CheckpointError(f"{path} is corrupt or not a pokerzoo checkpoint: {exc}") from exc
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path} is not a pokerzoo checkpoint ({CHECKPOINT_FORMAT})")
    return payload


def _mask_of(observation: Any) -> np.ndarray | None:
    if isinstance(observation, Mapping) and "action_mask" in observation:
        return np.asarray(observation["action_mask"], dtype=np.float64)
    return None
