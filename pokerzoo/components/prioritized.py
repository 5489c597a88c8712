"""Prioritized experience replay (Schaul et al. 2016, proportional variant) on segment trees.

A transition with TD error ``delta`` gets priority ``p = (|delta| + eps)^alpha`` and is drawn
with probability ``P(i) = p_i / sum_k p_k``; the bias this introduces is corrected by the
importance weights ``w_i = (N P(i))^-beta / max_j w_j = (p_i / min_j p_j)^-beta``, with beta
annealed linearly from ``beta0`` to 1 over ``beta_steps`` calls of ``sample``.

The trees are flat arrays (leaves at ``[size, 2 size)``, node ``i`` has children ``2i`` and
``2i + 1``). Batch updates and batch prefix-sum searches are compiled loops (numba), one call
per batch: ``O(batch * log capacity)`` machine operations and no Python loop per sample.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numba
import numpy as np

from pokerzoo.components.learning_times import learning_times
from pokerzoo.components.replay import Batch, ReplayBuffer, SeedLike
from pokerzoo.errors import CheckpointError, ConfigError

# name -> (kernel op code, identity of unused leaves)
_OPS = {"sum": (0, 0.0), "min": (1, np.inf), "max": (2, -np.inf)}


@numba.njit(cache=True)
def _update_kernel(tree, size, leaves, values, op):  # pragma: no cover - compiled
    """Set leaves in order (the last write to a leaf wins) and recompute their ancestors."""
    for k in range(leaves.shape[0]):
        node = leaves[k] + size
        tree[node] = values[k]
        node >>= 1
        while node >= 1:
            a, b = tree[2 * node], tree[2 * node + 1]
            if op == 0:
                tree[node] = a + b
            elif op == 1:
                tree[node] = a if a < b else b
            else:
                tree[node] = a if a > b else b
            node >>= 1


@numba.njit(cache=True)
def _prefix_kernel(tree, size, targets, out):  # pragma: no cover - compiled
    """Per target ``u``: descend from the root, going right past a left subtree of sum <= u."""
    for k in range(targets.shape[0]):
        u = targets[k]
        node = 1
        while node < size:
            left = tree[2 * node]
            if u >= left:
                u -= left
                node = 2 * node + 1
            else:
                node = 2 * node
        out[k] = node - size


class SegmentTree:
    """A complete binary tree over ``capacity`` leaves, each inner node the ``op`` of its two
    children (``"sum"``, ``"min"`` or ``"max"``); unused leaves hold the op's identity.

    >>> t = SegmentTree(4, "sum")
    >>> t.update(np.array([0, 1, 3]), np.array([1.0, 2.0, 4.0]))
    >>> t.total(), t.find_prefix(np.array([0.5, 1.5, 3.5])).tolist()
    (7.0, [0, 1, 3])
    """

    def __init__(self, capacity: int, op: str = "sum") -> None:
        if capacity < 1:
            raise ConfigError(f"capacity must be positive, got {capacity}")
        if op not in _OPS:
            raise ConfigError(f"op must be one of {list(_OPS)}, got {op!r}")
        self.capacity = int(capacity)
        self.op_name = op
        self._op, self._identity = _OPS[op]
        self._depth = max(0, (self.capacity - 1).bit_length())
        self._size = 1 << self._depth
        self._tree = np.full(2 * self._size, self._identity, dtype=np.float64)

    def update(self, indices: np.ndarray, values: np.ndarray) -> None:
        """Set leaves ``indices`` to ``values`` (for repeated indices the last value wins)."""
        indices = np.asarray(indices, dtype=np.int64).ravel()
        values = np.broadcast_to(np.asarray(values, dtype=np.float64), indices.shape)
        if indices.size == 0:
            return
        if indices.min() < 0 or indices.max() >= self.capacity:
            raise IndexError(f"leaf indices must lie in [0, {self.capacity})")
        _update_kernel(self._tree, self._size, indices, np.ascontiguousarray(values), self._op)

    def __getitem__(self, indices: Any) -> np.ndarray:
        """Leaf values at an index array, an int or a slice."""
        if isinstance(indices, slice):
            return self._tree[self._size : self._size + self.capacity][indices]
        return self._tree[self._size + np.asarray(indices, dtype=np.int64)]

    def total(self) -> float:
        """The op over all leaves (the root)."""
        return float(self._tree[1])

    def find_prefix(self, targets: np.ndarray) -> np.ndarray:
        """For a sum tree: per target ``u``, the first leaf ``i`` with ``sum(leaves[:i+1]) > u``.

        Targets are clipped into ``[0, total)``; one descent serves the whole batch.
        """
        if self.op_name != "sum":
            raise TypeError("find_prefix needs a sum tree")
        u = np.array(targets, dtype=np.float64).ravel()
        np.clip(u, 0.0, np.nextafter(self._tree[1], 0.0), out=u)
        leaves = np.empty(u.shape, dtype=np.int64)
        _prefix_kernel(self._tree, self._size, u, leaves)
        # Rounding in inner sums can push a target past the last positive leaf onto an empty one.
        return np.minimum(leaves, self.capacity - 1)

    def state_dict(self) -> dict[str, Any]:
        return {"capacity": self.capacity, "op": self.op_name, "leaves": self[:].copy()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        if state["capacity"] != self.capacity or state["op"] != self.op_name:
            raise CheckpointError("tree state has a different capacity or op")
        self._tree[:] = self._identity
        self.update(np.arange(self.capacity), state["leaves"])


class SumTree(SegmentTree):
    """A segment tree of sums: proportional sampling by prefix-sum search."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity, "sum")


class MinTree(SegmentTree):
    """A segment tree of minima: the smallest priority, for the importance-weight normaliser."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity, "min")


class PrioritizedSample(NamedTuple):
    """What ``PrioritizedReplayBuffer.sample`` returns (unpacks as a 4-tuple)."""

    batch: Batch
    """The sampled items."""
    indices: np.ndarray
    """Their slots, to pass back to ``update_priorities``."""
    weights: np.ndarray
    """Normalised importance weights ``(p_i / min_j p_j)^-beta`` in ``(0, 1]`` (float32)."""
    priorities: np.ndarray
    """Their priorities ``p_i = (|delta_i| + eps)^alpha`` (float64)."""


class PrioritizedReplayBuffer(ReplayBuffer):
    """A ring buffer sampled in proportion to ``(|delta| + eps)^alpha`` (Schaul et al. 2016).

    New items enter at the largest priority seen so far (1 at first), so each is likely
    sampled at least once before its TD error is known.

    Args:
        capacity: the most items kept (oldest overwritten first).
        fields: ``{name: (shape, dtype)}`` of one item.
        alpha: priority exponent; 0 is uniform sampling (Schaul's proportional: 0.6).
        beta0: initial importance-sampling exponent (Schaul: 0.4), raised linearly to 1.
        beta_steps: number of ``sample`` calls over which beta reaches 1 (0: beta is 1).
        eps: added to ``|delta|`` so that no item has zero priority (must be > 0).
        seed: anything ``numpy.random.default_rng`` takes.
    """

    kind = "prioritized"

    def __init__(
        self,
        capacity: int,
        fields: Mapping[str, Any],
        alpha: float = 0.6,
        beta0: float = 0.4,
        beta_steps: int = 100_000,
        eps: float = 1e-6,
        seed: SeedLike = None,
    ) -> None:
        if not alpha >= 0.0:
            raise ConfigError(f"alpha must be >= 0, got {alpha}")
        if not 0.0 <= beta0 <= 1.0:
            raise ConfigError(f"beta0 must be in [0, 1], got {beta0}")
        if beta_steps < 0:
            raise ConfigError(f"beta_steps must be >= 0, got {beta_steps}")
        if not eps > 0.0:
            raise ConfigError(f"eps must be > 0 so that every item can be drawn, got {eps}")
        super().__init__(capacity, fields, seed)
        self.alpha, self.beta0 = float(alpha), float(beta0)
        self.beta_steps, self.eps = int(beta_steps), float(eps)
        self._sum = SumTree(self.capacity)
        self._min = MinTree(self.capacity)
        self._max = SegmentTree(self.capacity, "max")
        self.new_priority = 1.0
        """Priority given to new items: the largest priority ever assigned (at least 1)."""
        self.sample_calls = 0
        """Completed ``sample`` calls; drives the beta schedule."""

    # Priorities ----------------------------------------------------------------------------------

    def priority(self, td_errors: np.ndarray) -> np.ndarray:
        """``(|delta| + eps)^alpha``."""
        return (np.abs(np.asarray(td_errors, dtype=np.float64)) + self.eps) ** self.alpha

    @property
    def beta(self) -> float:
        """The exponent the next ``sample`` call uses: ``beta0 + (1 - beta0) * min(1, t / T)``."""
        if self.beta_steps == 0:
            return 1.0
        frac = min(1.0, self.sample_calls / self.beta_steps)
        return self.beta0 + (1.0 - self.beta0) * frac

    @property
    def total_priority(self) -> float:
        """Sum of the stored items' priorities (the normaliser of ``P(i)``)."""
        return self._sum.total()

    @property
    def max_priority(self) -> float:
        """Largest priority among the stored items (0 when empty)."""
        return max(self._max.total(), 0.0)

    @property
    def min_priority(self) -> float:
        """Smallest priority among the stored items (inf when empty)."""
        return self._min.total()

    def priorities(self) -> np.ndarray:
        """The stored items' priorities, by slot."""
        return self._sum[: self._size]

    def _set_priorities(self, slots: np.ndarray, p: np.ndarray) -> None:
        self._sum.update(slots, p)
        self._min.update(slots, p)
        self._max.update(slots, p)

    def update_priorities(self, indices: np.ndarray, td_errors: np.ndarray) -> None:
        """Set the priorities of sampled slots from their new TD errors.

        Raises:
            ValueError: if the lengths differ or an index is not a stored slot.
        """
        indices = np.asarray(indices, dtype=np.int64).ravel()
        td = np.asarray(td_errors, dtype=np.float64).ravel()
        if indices.shape != td.shape:
            raise ConfigError(f"{indices.size} indices but {td.size} TD errors")
        if indices.size and (indices.min() < 0 or indices.max() >= self._size):
            raise ConfigError(f"indices must be stored slots in [0, {self._size})")
        if not np.all(np.isfinite(td)):
            raise ConfigError("TD errors must be finite")
        p = self.priority(td)
        self._set_priorities(indices, p)
        if p.size:
            self.new_priority = max(self.new_priority, float(p.max()))

    # Adding and sampling -------------------------------------------------------------------------

    def _write(self, batch: dict[str, np.ndarray], n: int) -> None:
        slots = self._write_slots(batch, n)
        self._set_priorities(slots, np.full(len(slots), self.new_priority))

    def sample(  # type: ignore[override]
        self, batch_size: int, beta: float | None = None
    ) -> PrioritizedSample:
        """Draw ``batch_size`` items in proportion to priority, one per stratum.

        The total priority is split into ``batch_size`` equal segments and one item is drawn
        uniformly within each (stratified: lower variance than independent draws, same
        marginal probability ``P(i)``). Advances the beta schedule unless ``beta`` is given.
        """
        if self._size == 0:
            raise ConfigError("cannot sample from an empty PrioritizedReplayBuffer")
        if batch_size < 1:
            raise ConfigError(f"batch_size must be positive, got {batch_size}")
        b = self.beta if beta is None else float(beta)
        total = self._sum.total()
        seg = total / batch_size
        targets = (np.arange(batch_size) + self.rng.random(batch_size)) * seg
        indices = self._sum.find_prefix(targets)
        p = self._sum[indices]
        # (N P(i))^-b / max_j (N P(j))^-b simplifies to (p_i / p_min)^-b: N and the total
        # cancel, which also avoids the underflow of P(i) in large buffers.
        weights = (p / self._min.total()) ** (-b)
        if beta is None:
            self.sample_calls += 1
        return PrioritizedSample(self.gather(indices), indices, weights.astype(np.float32), p)

    def probabilities(self) -> np.ndarray:
        """Sampling probability ``P(i)`` of every stored slot."""
        return self.priorities() / self._sum.total()

    def learning_times(
        self, priorities: np.ndarray, n_min: int, n_max: int, normalisation: str = "max"
    ) -> int:
        """NFSP-PLT's Eq. (8) for a sampled batch, normalised by this buffer's current maximum
        (``"max"``) or total (``"sum"``) priority; see ``components.learning_times``."""
        return learning_times(
            priorities,
            n_min,
            n_max,
            normalisation,
            max_priority=self.max_priority,
            total_priority=self.total_priority,
        )

    # Checkpoints -------------------------------------------------------------------------------

    def _extra_state(self) -> dict[str, Any]:
        return {
            **super()._extra_state(),
            "priorities": self.priorities().copy(),
            "new_priority": self.new_priority,
            "sample_calls": self.sample_calls,
            "hyper": (self.alpha, self.beta0, self.beta_steps, self.eps),
        }

    def _load_extra_state(self, state: Mapping[str, Any]) -> None:
        super()._load_extra_state(state)
        if tuple(state["hyper"]) != (self.alpha, self.beta0, self.beta_steps, self.eps):
            raise CheckpointError(
                f"(alpha, beta0, beta_steps, eps) {tuple(state['hyper'])} differ from this "
                f"buffer's {(self.alpha, self.beta0, self.beta_steps, self.eps)}"
            )
        for tree in (self._sum, self._min, self._max):
            tree._tree[:] = tree._identity
        self._set_priorities(np.arange(self._size), np.asarray(state["priorities"]))
        self.new_priority = float(state["new_priority"])
        self.sample_calls = int(state["sample_calls"])
