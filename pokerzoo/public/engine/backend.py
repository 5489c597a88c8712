"""The seam between ``PublicSolver`` and what runs its passes: the backend protocol.

``PublicSolver`` owns the schedule (``pokerzoo.schedule``: which discounts each iteration
takes, player 0's pass then player 1's), the stopping rule and the reading of root values
into game values and exploitability. A *backend* owns the storage (regrets and strategy sums)
and runs one pass over the public tree for one traversing player:

* a CFR pass with the iteration's ``Discounts`` (regret matching for both players, the
  traverser's regrets and sums updated),
* a best-response pass (the opponent on its average strategy, the traverser taking the best
  action per hand),
* an average pass (both on their average strategies: expected values),

each returning the traverser's counterfactual values at the root, and optionally recording
one node on the way (both reaches, the node's values, its per-action values). It also gives a
node's current or average strategy and its storage as numpy arrays in the tree's flat layout
(``PublicTree.offset``), for checks.

Two backends exist, chosen by ``SolverConfig.backend``:

* ``"numba"`` (the default): the compiled depth-first sweep of
  ``pokerzoo.public.engine.sweep_kernel``, driven by ``PublicSolver`` itself. It serves everything:
  node locks, 16-bit storage, suit isomorphism, threads, record and frontier passes, every
  algorithm of the schedule, any ``CompiledTerminals``; CPU only.
* ``"torch"`` (``pokerzoo.public.engine.torch_backend``, the optional ``torch`` extra): every node
  of one depth processed together in batched tensor ops, on a CPU or a CUDA device. It serves the
  algorithms whose step is the plain discounted one, float32 storage, isomorphism and record
  passes, on the terminals this package ships (dense ones for Kuhn and Leduc, hold'em ones).

Each backend declares what it serves (``BackendSupport``); the solver checks the request
against it when it is built, so a spot a backend cannot serve is one ``ConfigError`` naming
what is not supported and what to use instead, never a wrong answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from pokerzoo import schedule
from pokerzoo.errors import ConfigError
from pokerzoo.schedule import Discounts

if TYPE_CHECKING:
    from pokerzoo.public.engine.solver import SolverConfig
    from pokerzoo.public.engine.tree import PublicTree

BACKENDS = ("numba", "torch")
"""The values ``SolverConfig.backend`` takes."""
_DEVICE = re.compile(r"cpu|cuda(:\d+)?")

Recorded = tuple[np.ndarray, ...]
"""What a pass recorded at its ``record`` node: the traverser's reach ``[H_t]``, the
opponent's ``[H_o]``, the traverser's values there ``[H_t]`` and, at the traverser's own
decisions, its values after each action ``[max_actions, H_t]`` (zeros elsewhere); empty when
nothing was recorded."""


@dataclass(frozen=True)
class BackendSupport:
    """What a backend serves; ``check_support`` refuses anything else before a solver exists."""

    name: str
    algorithms: tuple[str, ...]
    """Schedules (``SolverConfig.algorithm``) it runs."""
    storages: tuple[str, ...]
    """``SolverConfig.storage`` values it keeps (``"f32"``, ``"compressed"``)."""
    devices: tuple[str, ...]
    """Device kinds: ``"cpu"``, ``"cuda"`` (``"cuda:N"`` is of kind ``"cuda"``)."""
    terminals: tuple[str, ...] | None
    """Class names of the terminal values it evaluates; ``None``: any ``CompiledTerminals``."""
    locks: bool
    """Node locking (strategies held fixed at some decisions)."""
    isomorphism: bool
    """Chance children standing for suit-isomorphic cards."""
    max_threads: int
    """The most ``SolverConfig.threads`` it runs with."""
    record: bool
    """Passes that record one node's reaches and values (results, EVs)."""
    frontier: bool
    """Passes split at the first chance nodes (threads, subgame leaf values)."""


NUMBA_SUPPORT = BackendSupport(
    name="numba", algorithms=schedule.ALGORITHMS, storages=("f32", "compressed"),
    devices=("cpu",), terminals=None, locks=True, isomorphism=True, max_threads=256,
    record=True, frontier=True,
)
"""The compiled sweep's declaration: everything ``SolverConfig`` offers, on the CPU."""


class SolverBackend(Protocol):
    """What ``PublicSolver`` asks of a backend other than its own compiled sweep."""

    support: BackendSupport
    memory_bytes: int
    """What it holds (storage and per-pass buffers), estimated when it is built."""

    def run(self, mode: int, traverser: int, step: Discounts,
            record: int = -1) -> tuple[np.ndarray, Recorded]:
        """One pass for ``traverser``: ``mode`` is ``sweep_kernel.MODE_CFR`` (update with
        ``step``), ``MODE_BEST_RESPONSE`` or ``MODE_AVERAGE``; returns the root values
        ``[H_traverser]`` and what was recorded at node ``record`` (``Recorded``)."""
        ...

    def strategy(self, node: int, average: bool) -> np.ndarray:
        """Decision ``node``'s ``[actions, hands]`` average or current strategy."""
        ...

    def regrets(self) -> np.ndarray:
        """The regrets as float32 in the tree's flat storage layout (a copy or a view)."""
        ...

    def sums(self) -> np.ndarray:
        """The strategy sums, as ``regrets``."""
        ...


def check_device(device: Any) -> None:
    """Refuse a ``SolverConfig.device`` that names no device (``"cpu"``, ``"cuda"``,
    ``"cuda:N"``)."""
    if not isinstance(device, str) or not _DEVICE.fullmatch(device):
        raise ConfigError(f"device must be 'cpu', 'cuda' or 'cuda:N', not {device!r}")


def check_support(support: BackendSupport, config: SolverConfig, tree: PublicTree,
                  locks: Mapping[int, Any]) -> None:
    """Raise ``ConfigError`` naming the first part of the request ``support`` does not serve,
    and what serves it."""
    name = support.name
    other = "use backend='numba'" if name != "numba" else "use backend='torch'"
    kind = config.device.split(":")[0]
    terminals = type(tree.terminals).__name__
    refusals = (
        (config.algorithm not in support.algorithms,
         f"algorithm {config.algorithm!r} (it runs {list(support.algorithms)})"),
        (config.storage not in support.storages,
         f"storage {config.storage!r} (it keeps {list(support.storages)})"),
        (kind not in support.devices,
         f"device {config.device!r} (it runs on {list(support.devices)})"),
        (bool(locks) and not support.locks, "node locks"),
        (config.threads > support.max_threads,
         f"threads={config.threads} (at most {support.max_threads})"),
        (support.terminals is not None and terminals not in support.terminals,
         f"{terminals} terminals (it evaluates {list(support.terminals or ())})"),
        (not support.isomorphism and int(np.sum(tree.iso_count)) > 0,
         "trees with isomorphic chance cards"),
    )
    for refused, what in refusals:
        if refused:
            raise ConfigError(f"the {name} backend does not support {what}; {other}")


def build_backend(tree: PublicTree, config: SolverConfig,
                  locks: Mapping[int, Any]) -> SolverBackend | None:
    """The backend ``config.backend`` names for ``tree``, checked against its declaration;
    ``None`` for ``"numba"`` (``PublicSolver`` runs its compiled sweep itself)."""
    if config.backend == "numba":
        check_support(NUMBA_SUPPORT, config, tree, locks)
        return None
    try:
        from pokerzoo.public.engine.torch_backend import TORCH_SUPPORT, TorchBackend
    except ImportError as exc:
        raise ConfigError("backend='torch' needs torch (pip install 'pokerzoo[torch]'); "
                          f"importing it failed: {exc}") from None
    check_support(TORCH_SUPPORT, config, tree, locks)
    return TorchBackend(tree, config)


__all__ = ["BACKENDS", "NUMBA_SUPPORT", "BackendSupport", "Recorded", "SolverBackend",
           "build_backend", "check_device", "check_support"]
