"""Fixed-capacity, numpy-backed experience stores: a uniform ring buffer and a reservoir.

Both store *typed batches*: a spec maps each field name to the shape and dtype of one item,
e.g. ``{"obs": ((30,), np.float32), "action": ((), np.int64)}``; storage is one preallocated
array per field, so adding and sampling are array copies, never Python loops over items.

* ``ReplayBuffer``: first in, first out (DQN's replay memory, the RL buffer of NFSP).
* ``ReservoirBuffer``: Vitter's algorithm R, a uniform sample of everything ever added (the SL
  buffer of NFSP, which must average over the whole history of best responses).

>>> buf = ReplayBuffer(4, {"x": ((2,), np.float32), "a": ((), np.int64)}, seed=0)
>>> buf.add({"x": np.ones((3, 2)), "a": np.arange(3)})
>>> len(buf), buf.sample(5).a.shape
(3, (5,))
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple, cast

import numpy as np

from pokerzoo.errors import CheckpointError, ConfigError

SeedLike = int | np.random.SeedSequence | np.random.Generator | None


class FieldSpec(NamedTuple):
    """Shape and dtype of one item of a field (a plain ``(shape, dtype)`` tuple also works)."""

    shape: tuple[int, ...]
    dtype: np.dtype


def normalise_fields(fields: Mapping[str, Any]) -> dict[str, FieldSpec]:
    """Check a field spec ``{name: (shape, dtype)}`` and return it with canonical types.

    Raises:
        ValueError: on an empty spec, a bad name, shape or dtype.
    """
    if not fields:
        raise ConfigError("a buffer needs at least one field")
    out: dict[str, FieldSpec] = {}
    for name, spec in fields.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ConfigError(f"field names must be identifiers, got {name!r}")
        try:
            shape, dtype = spec
            # np.isscalar narrows to numpy's scalar union, which int() does not accept in stubs
            shape = (int(cast(Any, shape)),) if np.isscalar(shape) else tuple(int(d) for d in shape)
            dtype = np.dtype(dtype)
        except (TypeError, ValueError) as err:
            raise ConfigError(f"field {name!r}: expected (shape, dtype), got {spec!r}") from err
        if any(d < 0 for d in shape):
            raise ConfigError(f"field {name!r}: negative dimension in shape {shape}")
        out[name] = FieldSpec(shape, dtype)
    return out


def transition_fields(obs_size: int, num_actions: int) -> dict[str, FieldSpec]:
    """The spec of one RL transition: obs, mask, action, reward, next_obs, next_mask, done."""
    return normalise_fields(
        {
            "obs": ((obs_size,), np.float32),
            "mask": ((num_actions,), np.int8),
            "action": ((), np.int64),
            "reward": ((), np.float32),
            "next_obs": ((obs_size,), np.float32),
            "next_mask": ((num_actions,), np.int8),
            "done": ((), np.float32),
        }
    )


class Batch(Mapping[str, np.ndarray]):
    """An immutable mapping of field name to an array with one row per item.

    Fields read as keys (``batch["obs"]``) or attributes (``batch.obs``); ``size`` is the
    number of rows (``len()`` is the number of fields, as for any mapping).
    """

    __slots__ = ("_data", "size")
    _data: dict[str, np.ndarray]
    size: int

    def __init__(self, data: Mapping[str, np.ndarray]) -> None:
        sizes = {len(v) for v in data.values()}
        if len(sizes) > 1:
            raise ConfigError(
                f"batch fields differ in length: { {k: len(v) for k, v in data.items()} }"
            )
        object.__setattr__(self, "_data", dict(data))
        object.__setattr__(self, "size", sizes.pop() if sizes else 0)

    def __getitem__(self, key: str) -> np.ndarray:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self._data[name]
        except KeyError:
            fields = list(self._data)
            raise AttributeError(f"batch has no field {name!r}; fields are {fields}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Batch is immutable")

    def __repr__(self) -> str:
        shapes = ", ".join(f"{k}={v.shape}" for k, v in self._data.items())
        return f"Batch(size={self.size}, {shapes})"


class _ArrayStore:
    """Preallocated per-field storage with validation, sampling and checkpoints."""

    kind = "store"

    def __init__(self, capacity: int, fields: Mapping[str, Any], seed: SeedLike = None) -> None:
        if not isinstance(capacity, int | np.integer) or capacity < 1:
            raise ConfigError(f"capacity must be a positive integer, got {capacity!r}")
        self.capacity = int(capacity)
        self.fields = normalise_fields(fields)
        self._data = {
            k: np.zeros((self.capacity, *f.shape), dtype=f.dtype) for k, f in self.fields.items()
        }
        self._size = 0
        self.rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        return self._size

    def _as_batch(self, data: Mapping[str, Any]) -> tuple[dict[str, np.ndarray], int]:
        """Validate ``data`` (one item or a batch, told apart by the spec) as a batch."""
        missing = sorted(set(self.fields) - set(data))
        extra = sorted(set(data) - set(self.fields))
        if missing or extra:
            raise KeyError(
                f"fields do not match the spec: missing {missing}, unexpected {extra}; "
                f"expected {list(self.fields)}"
            )
        first = next(iter(self.fields))
        single = np.ndim(data[first]) == len(self.fields[first].shape)
        out: dict[str, np.ndarray] = {}
        n = None
        for k, spec in self.fields.items():
            arr = np.asarray(data[k])
            if single:
                arr = arr[None]
            if arr.shape[1:] != spec.shape:
                raise ConfigError(
                    f"field {k!r}: item shape {arr.shape[1:]} does not match spec {spec.shape}"
                )
            if n is None:
                n = len(arr)
            elif len(arr) != n:
                raise ConfigError(f"field {k!r} has {len(arr)} rows, expected {n}")
            out[k] = arr
        return out, int(n or 0)

    def add(self, data: Mapping[str, Any]) -> None:
        """Add one item (arrays of the item shapes) or a batch (a leading batch axis)."""
        batch, n = self._as_batch(data)
        if n:
            self._write(batch, n)

    def add_batch(self, batch: Mapping[str, Any]) -> None:
        """Add a batch: every field has a leading axis of the same length."""
        first = next(iter(self.fields))
        if first in batch and np.ndim(batch[first]) != len(self.fields[first].shape) + 1:
            raise ConfigError(f"add_batch needs a leading batch axis on field {first!r}")
        self.add(batch)

    def _write(self, batch: dict[str, np.ndarray], n: int) -> None:
        raise NotImplementedError

    def _store(self, slots: np.ndarray, batch: dict[str, np.ndarray], rows: np.ndarray) -> None:
        for k, arr in self._data.items():
            arr[slots] = batch[k][rows]

    def sample_indices(self, batch_size: int, replace: bool = True) -> np.ndarray:
        """Uniformly drawn slot indices of stored items."""
        if self._size == 0:
            raise ConfigError(f"cannot sample from an empty {type(self).__name__}")
        if batch_size < 1:
            raise ConfigError(f"batch_size must be positive, got {batch_size}")
        if replace:
            return self.rng.integers(0, self._size, size=batch_size)
        if batch_size > self._size:
            raise ConfigError(f"cannot draw {batch_size} distinct items from {self._size}")
        return self.rng.choice(self._size, size=batch_size, replace=False)

    def sample(self, batch_size: int, replace: bool = True) -> Batch:
        """A uniform batch of stored items (with replacement unless ``replace=False``)."""
        return self.gather(self.sample_indices(batch_size, replace))

    def gather(self, indices: np.ndarray) -> Batch:
        """The items at the given slot indices, as a ``Batch`` of copies."""
        return Batch({k: v[indices] for k, v in self._data.items()})

    # Checkpoints ---------------------------------------------------------------------------------

    def _extra_state(self) -> dict[str, Any]:
        return {}

    def _load_extra_state(self, state: Mapping[str, Any]) -> None:
        pass

    def state_dict(self) -> dict[str, Any]:
        """Contents (the filled part only), counters and the RNG state, as plain objects."""
        return {
            "kind": self.kind,
            "capacity": self.capacity,
            "fields": {k: (f.shape, f.dtype.str) for k, f in self.fields.items()},
            "size": self._size,
            "data": {k: v[: self._size].copy() for k, v in self._data.items()},
            "rng": self.rng.bit_generator.state,
            **self._extra_state(),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore a ``state_dict()`` taken from a buffer of the same kind, capacity and spec.

        Raises:
            CheckpointError: if the kind, capacity or field spec differ.
        """
        if state.get("kind") != self.kind:
            raise CheckpointError(f"state is of a {state.get('kind')!r} buffer, not {self.kind!r}")
        if int(state["capacity"]) != self.capacity:
            raise CheckpointError(f"capacity {state['capacity']} != this buffer's {self.capacity}")
        if normalise_fields(state["fields"]) != self.fields:
            raise CheckpointError(f"field spec {state['fields']} differs from {self.fields}")
        size = int(state["size"])
        for k, arr in self._data.items():
            arr[:size] = state["data"][k]
            # Rows past this buffer's own size were never written (still the zeros they were
            # allocated as): clearing only the written ones keeps a fresh 1M-row buffer's
            # untouched pages untouched (a hold'em NFSP load: ~10 s -> well under one).
            arr[size : self._size] = 0
        self._size = size
        self.rng.bit_generator.state = state["rng"]
        self._load_extra_state(state)


class ReplayBuffer(_ArrayStore):
    """A first-in-first-out ring buffer with uniform sampling.

    Args:
        capacity: the most items kept; when full the oldest are overwritten.
        fields: ``{name: (shape, dtype)}`` of one item.
        seed: anything ``numpy.random.default_rng`` takes.
    """

    kind = "replay"

    def __init__(self, capacity: int, fields: Mapping[str, Any], seed: SeedLike = None) -> None:
        super().__init__(capacity, fields, seed)
        self._next = 0

    def _write(self, batch: dict[str, np.ndarray], n: int) -> None:
        self._write_slots(batch, n)

    def _write_slots(self, batch: dict[str, np.ndarray], n: int) -> np.ndarray:
        """Write a batch in order; returns the slots written (only the last ``capacity`` rows
        of an oversized batch survive, as they would when added one by one)."""
        rows = np.arange(max(0, n - self.capacity), n)
        slots = (self._next + rows) % self.capacity
        self._store(slots, batch, rows)
        self._next = (self._next + n) % self.capacity
        self._size = min(self.capacity, self._size + n)
        return slots

    def _extra_state(self) -> dict[str, Any]:
        return {"next": self._next}

    def _load_extra_state(self, state: Mapping[str, Any]) -> None:
        self._next = int(state["next"])


class ReservoirBuffer(_ArrayStore):
    """Reservoir sampling (Vitter 1985, algorithm R): a uniform sample of the whole stream.

    The ``t``-th item (0-based) of the stream is kept outright while ``t < capacity``, and
    after that replaces a uniformly chosen slot with probability ``capacity / (t + 1)``, so at
    every moment each item seen so far is in the buffer with the same probability.

    Args:
        capacity: the number of items kept.
        fields: ``{name: (shape, dtype)}`` of one item.
        seed: anything ``numpy.random.default_rng`` takes.
    """

    kind = "reservoir"

    def __init__(self, capacity: int, fields: Mapping[str, Any], seed: SeedLike = None) -> None:
        super().__init__(capacity, fields, seed)
        self.seen = 0
        """Items offered so far (the stream length)."""

    def _write(self, batch: dict[str, np.ndarray], n: int) -> None:
        t = self.seen + np.arange(n)
        # Algorithm R draws j uniform in [0, t] for each item past the fill phase; one vector
        # draw covers the batch (integers() accepts per-row upper bounds).
        j = np.where(t < self.capacity, t, self.rng.integers(0, t + 1))
        keep = j < self.capacity
        rows, slots = np.nonzero(keep)[0], j[keep]
        # Several rows may land on one slot: sequentially the last one would win, so keep it.
        rows, slots = _last_per_slot(rows, slots)
        self._store(slots, batch, rows)
        self.seen += n
        self._size = min(self.capacity, self.seen)

    def _extra_state(self) -> dict[str, Any]:
        return {"seen": self.seen}

    def _load_extra_state(self, state: Mapping[str, Any]) -> None:
        self.seen = int(state["seen"])


def _last_per_slot(rows: np.ndarray, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Of rows writing to the same slot, keep only the last (numpy's fancy assignment leaves
    the winner among duplicates unspecified)."""
    if len(slots) < 2:
        return rows, slots
    rev_slots = slots[::-1]
    _, first_in_rev = np.unique(rev_slots, return_index=True)
    pick = len(slots) - 1 - first_in_rev
    return rows[pick], slots[pick]
