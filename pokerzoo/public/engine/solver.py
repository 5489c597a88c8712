"""Range-vs-range solvers on a public tree: CFR+, DCFR, PCFR+ and postflop-solver's schedule.

Every iteration is two compiled sweeps (``pokerzoo.public.engine.sweep_kernel``), one per player,
with alternating updates: player 0's regrets are updated against player 1's current strategy,
then player 1's against player 0's new one. The algorithms differ only in four scalars per
iteration (``discounts``):

* ``"cfr+"``: regrets floored at 0 (regret matching+), strategy sums weighted by ``t``.
* ``"dcfr"``: positive regrets times ``s^alpha / (s^alpha + 1)``, negative ones times
  ``s^beta / (s^beta + 1)`` with ``s = t - 1``, strategy sums times ``((t - 1) / t)^gamma``
  (Brown & Sandholm 2019; alpha 1.5, beta 0, gamma 2).
* ``"postflop"``: postflop-solver's schedule. With ``i = t - 1`` (it counts from 0), positive
  regrets times ``s^1.5 / (s^1.5 + 1)`` with ``s = max(i - 1, 0)``, negative regrets halved,
  strategy sums times ``(u / (u + 1))^3`` with ``u`` the iterations since the last power of 4,
  so the average restarts at ``i`` = 0, 1, 4, 16, 64, ... (``restart_limit`` stops the
  restarts after a given power of 4). Strategy sums here are weighted by the player's own
  reach (the textbook average), where postflop-solver's ``solver.rs``, as we read it, adds
  the current strategy unweighted (tried here as an option: 2-3% cheaper per iteration, 3%
  more exploitable at equal iterations on the flop benchmark, so not kept).
* ``"pcfr+"``: predictive CFR+ (Farina, Kroer and Sandholm, "Faster Game Solving via
  Predictive Blackwell Approachability: Connecting Regret Matching and Mirror Descent",
  AAAI 2021, arXiv:2007.14358): CFR+'s regrets, the strategy matched on the regrets plus the
  last instantaneous regret (kept per entry, float32: 4 bytes an entry more), strategy sums
  weighted by ``t^2``. Float32 storage only.

The sweeps take the solver's arrays in named groups (``sweep_kernel``'s ``TreeArrays``,
``Storage``, ``Locks``, ...), built once when the solver is made (per traverser where they
differ); a pass adds only its iteration's scalars, its reaches and what it records.

Values are chips net of each player's contribution (``pokerzoo.public.engine.tree``'s convention);
exploitability is the mean of the two players' best-response gains, ``(BR_0 + BR_1) / 2`` in
chips (OpenSpiel's and pokerzoo.evaluation's ``exploitability``), and in % of
``tree.starting_pot``. The memory a solver needs is estimated before it allocates anything and
refused over ``max_memory_bytes`` (``TreeTooLargeError``).
"""

from __future__ import annotations

import ctypes
import gc
import itertools
import math
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import numpy as np

from pokerzoo import schedule
from pokerzoo.errors import ConfigError, TreeTooLargeError
from pokerzoo.public.engine import sweep_kernel as kernel
from pokerzoo.public.engine.backend import BACKENDS, SolverBackend, build_backend, check_device
from pokerzoo.public.engine.holdem_terminal import NUM_CARDS, empty_tables, holdem_terminal_kernel
from pokerzoo.public.engine.tree import CHANCE, DECISION, CompiledTerminals, PublicTree
from pokerzoo.schedule import NO_UPDATE, Discounts

ALGORITHMS = schedule.ALGORITHMS
STORAGES = ("f32", "compressed")
NODE_BYTES = 71
"""Bytes per node of a built tree's arrays (kind 1, player 1, parent 4, depth 2, links 8,
label 2, pot 8, contributions 16, board 4, chance card and weight 10, folder 1, terminal data
4, offset 4, isomorphism 6): the estimate before a tree exists. Once it exists the solver
counts its arrays instead (``tree_bytes``), with the isomorphism permutations and the
terminal tables."""


@dataclass(frozen=True)
class SolverConfig:
    """How a public tree is solved."""

    algorithm: str = "postflop"
    """``"cfr+"``, ``"dcfr"``, ``"postflop"`` or ``"pcfr+"`` (see the module docstring)."""
    alpha: float = 1.5
    """DCFR's exponent for positive regrets (``"dcfr"`` only)."""
    beta: float = 0.0
    """DCFR's exponent for negative regrets (``"dcfr"`` only; 0 halves them)."""
    gamma: float = 2.0
    """DCFR's exponent for the strategy sums (``"dcfr"`` only)."""
    storage: str = "f32"
    """``"f32"`` (float32 regrets and sums) or ``"compressed"`` (16-bit codes with one float32
    scale per node and table: half the memory)."""
    max_memory_bytes: int = 8 * 2**30
    """Refuse a tree whose solver would need more than this (estimated before allocating)."""
    restart_limit: int = 0
    """``"postflop"`` only: the average restarts at the powers of 4 up to this iteration
    (counted from 0) and no later; 0 restarts at every power of 4, as postflop-solver does.
    Each restart drops the average built so far: on the flop benchmark the one at 64 puts the
    average back from 0.62% of the pot to 1.17% and 0.5% is reached 7 iterations later than
    with ``restart_limit=16`` (``bench/results/subgame.md``)."""
    threads: int = 1
    """Threads sweeping the subtrees below the first public chance nodes at once (hold'em:
    the turn cards). Results are bit for bit those of one thread."""
    batch_rivers: bool = True
    """Hold'em trees from the flop: evaluate each river board's showdowns and folds of a
    turn subtree together (``sweep_kernel.sweep_tasks_rivers``). The same bits as
    one by one, about 2x less work per showdown; ``False`` sweeps them one by one."""
    backend: str = "numba"
    """What runs the passes: ``"numba"`` (the compiled sweep) or ``"torch"`` (batched tensor
    ops on ``device``; the ``torch`` extra). ``pokerzoo.public.engine.backend`` says what each
    serves; a request one cannot serve is refused when the solver is built."""
    device: str = "cpu"
    """The torch backend's device: ``"cpu"``, ``"cuda"`` or ``"cuda:N"`` (numba: ``"cpu"``)."""

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise ConfigError(f"algorithm must be one of {ALGORITHMS}, not {self.algorithm!r}")
        if self.storage not in STORAGES:
            raise ConfigError(f"storage must be one of {STORAGES}, not {self.storage!r}")
        if self.storage == "compressed" and schedule.predictive(self.algorithm):
            raise ConfigError(f"algorithm {self.algorithm!r} keeps float32 predictions; "
                              "it needs storage='f32', not 'compressed'")
        for name in ("alpha", "beta", "gamma"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                math.isfinite(value) and value >= 0
            ):
                raise ConfigError(f"{name} must be a finite number >= 0, not {value!r}")
        limit = self.max_memory_bytes
        if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
            raise ConfigError(f"max_memory_bytes must be an int > 0, not {limit!r}")
        limit = self.restart_limit
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ConfigError(f"restart_limit must be an int >= 0, not {limit!r}")
        threads = self.threads
        if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 256:
            raise ConfigError(f"threads must be an int from 1 to 256, not {threads!r}")
        if not isinstance(self.batch_rivers, bool):
            raise ConfigError(f"batch_rivers must be True or False, not {self.batch_rivers!r}")
        if self.backend not in BACKENDS:
            raise ConfigError(f"backend must be one of {BACKENDS}, not {self.backend!r}")
        check_device(self.device)


def config_with(config: SolverConfig | None, overrides: Mapping[str, Any]) -> SolverConfig:
    """``config`` (default: ``SolverConfig()``) with fields replaced; unknown names refused."""
    base = SolverConfig() if config is None else config
    if not isinstance(base, SolverConfig):
        raise ConfigError(f"config must be a SolverConfig, not {type(base).__name__}")
    fields = set(asdict(base))
    unknown = sorted(set(overrides) - fields)
    if unknown:
        raise ConfigError(f"unknown solver parameter {unknown[0]!r}; known: {sorted(fields)}")
    return SolverConfig(**{**asdict(base), **overrides})


def discounts(config: SolverConfig, t: int) -> Discounts:
    """``(positive, negative, floor, sum_discount, sum_weight)`` of iteration ``t`` (1-based),
    from the schedule (``pokerzoo.schedule``)."""
    return schedule.discounts(config.algorithm, t, config.alpha, config.beta, config.gamma,
                              config.restart_limit)


def estimate_memory(
    num_nodes: int, storage_size: int, max_depth: int, max_actions: int, max_hands: int,
    storage: str = "f32", locked_entries: int = 0, threads: int = 1,
    tree_bytes: int | None = None, frontier_nodes: int = 0, frontier_tasks: int = 0,
    river_bytes: int = 0, predictive: bool = False,
) -> int:
    """Bytes a solver of such a tree needs: the tree's arrays, regrets and strategy sums
    (8 bytes an entry in f32, 4 compressed, plus two float32 scales per node), locked
    strategies, the solver's per-node arrays and the per-depth buffers and terminal scratch
    of each thread's sweep. Callable before the tree exists (the tree's arrays at
    ``NODE_BYTES`` a node); ``tree_bytes``, once it exists, is what its arrays and terminal
    tables hold (``tree_memory``). Not in it: the process itself (Python, numpy, numba and the
    compiled code: about 0.1 GiB) and what building the tree held at its peak (the solver
    returns what the build freed to the system before it allocates). With ``threads > 1``,
    ``frontier_nodes`` and ``frontier_tasks`` (the first chance nodes and their children, known
    once the tree exists) count what a threaded pass keeps per chance node and subtree;
    ``river_bytes`` is what each thread's batched river pass holds (``river_memory``);
    ``predictive``: PCFR+'s float32 predictions, 4 bytes an entry more."""
    if storage not in STORAGES:
        raise ConfigError(f"storage must be one of {STORAGES}, not {storage!r}")
    per_entry = (8 if storage == "f32" else 4) + (4 if predictive else 0)
    scales = 8 * num_nodes if storage == "compressed" else 0
    sweep = 8 * (max_depth + 1) * (3 * max_hands + 2 * max_actions * max_hands)
    sweep += 8 * (8 * max_hands + 160)  # the terminals' scratch and the walker's rows
    # The solver's own per-node arrays: the chance index (int16) and, with locks, the lock
    # offsets (int32).
    solver_nodes = (2 + (4 if locked_entries else 0)) * num_nodes
    nodes = (NODE_BYTES * num_nodes if tree_bytes is None else tree_bytes) + solver_nodes
    # A threaded pass (one thread takes it too where the rivers are batched): both reaches
    # and the values at each first chance node, and each subtree's values until summed.
    threaded = threads > 1 or river_bytes > 0
    frontier = 8 * max_hands * (3 * frontier_nodes + frontier_tasks) if threaded else 0
    return (nodes + per_entry * storage_size + scales + 8 * locked_entries
            + (1 + threads) * sweep + frontier + threads * river_bytes)


def river_memory(max_depth: int, max_actions: int, max_hands: int, max_group: int,
                 most_rivers: int) -> int:
    """Bytes one thread's batched river pass holds (``sweep_kernel.sweep_tasks_rivers``): the
    river sweep's per-depth rows, the reaches and values of a subtree's river chance nodes,
    the terminals of one river card (a row and three indices each), the merge's scratch
    for ``RIVER_MAX_LANES`` showdowns and the 16-bit update's row."""
    depth = 8 * (max_depth + 1) * (3 * max_hands + 2 * max_actions * max_hands)
    depth += 8 * max_actions * max_hands
    rivers = 8 * 3 * max_hands * max(most_rivers, 1)
    group = (8 * max_hands + 17) * max(max_group, 1)
    lanes = 8 * kernel.RIVER_MAX_LANES * (3 * max_hands + 52 + 2)
    return depth + rivers + group + lanes + 8 * (NUM_CARDS + 2 * max_hands)


def tree_memory(tree: PublicTree, terminal_data: tuple[Any, ...] = ()) -> int:
    """Bytes held by ``tree``'s arrays (views counted once) and by the arrays of its compiled
    terminal tables ``terminal_data`` that are not the tree's own."""
    seen: set[int] = set()
    total = 0

    def add(array: Any) -> None:
        nonlocal total
        if isinstance(array, np.ndarray):
            base = array if array.base is None else array.base
            if isinstance(base, np.ndarray) and id(base) not in seen:
                seen.add(id(base))
                total += base.nbytes
        elif isinstance(array, tuple | list):
            for item in array:
                add(item)

    for name in tree.__dataclass_fields__:
        add(getattr(tree, name))
    add(terminal_data)
    return total


def _checked_locks(tree: PublicTree, locks: Mapping[int, Any]) -> dict[int, np.ndarray]:
    out: dict[int, np.ndarray] = {}
    for node, strategy in locks.items():
        if isinstance(node, bool) or not isinstance(node, int | np.integer) or not (
            0 <= node < tree.num_nodes
        ) or tree.kind[node] != DECISION:
            raise ConfigError(f"locks are keyed by decision node ids; {node!r} is not one")
        shape = (int(tree.num_children[node]), tree.num_hands(int(tree.player[node])))
        array = np.asarray(strategy, dtype=np.float64)
        if array.shape != shape or not np.all(np.isfinite(array)) or np.any(array < 0) or not (
            np.allclose(array.sum(axis=0), 1.0)
        ):
            raise ConfigError(
                f"the lock of node {node} must be a [actions, hands] = {list(shape)} array of "
                "probabilities, each hand's column summing to 1"
            )
        out[int(node)] = array
    return out


class PublicSolver:
    """CFR+/DCFR/PCFR+/postflop on a public tree with compiled sweeps.

    Args:
        tree: a public tree whose terminals offer ``compiled(tree)``.
        config: a ``SolverConfig`` (keyword ``overrides`` replace its fields).
        locks: ``{decision node: [actions, hands] strategy}`` held fixed (node locking).

    Single passes, for whatever is built on the solver: ``run_pass`` (``cfr_pass``,
    ``best_response``, ``expected_values``, ``frontier_reaches``), each with an optional record
    of one node and an optional frontier. A subclass changes what the passes see through
    three extension points, never through the engine's private passes: ``root_reach`` (where
    the players enter), ``frontier_leaves`` with ``leaf_values`` (values at the first chance
    nodes instead of the subtrees below) and ``iteration_pass`` (state stepped with the
    regrets).

    >>> from pokerzoo.games import load_game
    >>> from pokerzoo.public.engine.small_games import public_game_tree
    >>> solver = PublicSolver(public_game_tree(load_game("kuhn_poker")).tree)
    >>> solver.iterate(200)
    >>> round(solver.game_value()[0], 3), solver.exploitability_pct() < 0.5
    (-0.056, True)
    """

    tree: PublicTree
    config: SolverConfig
    locks: dict[int, np.ndarray]
    max_actions: int
    max_depth: int
    memory_bytes: int
    iterations: int
    _kernel: Any
    _data: tuple[Any, ...]
    _terminal_kind: int | None
    _typed_data: tuple[Any, Any]
    _tasks: list[tuple[int, int]]
    _task_front: np.ndarray
    _task_start: np.ndarray
    _chunks: list[np.ndarray]
    _frontier: np.ndarray
    _chance_index: np.ndarray
    _backend: SolverBackend | None = None
    """The backend running the passes where it is not the compiled sweep (``_start_backend``)."""
    _trees: tuple[Any, ...]
    _isomorphisms: tuple[Any, ...]
    _no_record: tuple[Any, ...]
    _no_frontier: tuple[Any, ...]
    _storage: Any
    _lock_group: Any
    _task_group: Any
    _river_group: Any
    _terminals: Any

    def __init__(
        self, tree: PublicTree, config: SolverConfig | None = None,
        locks: Mapping[int, Any] | None = None, **overrides: Any,
    ) -> None:
        if not isinstance(tree, PublicTree):
            raise ConfigError(f"expected a PublicTree, got {type(tree).__name__}")
        if not isinstance(tree.terminals, CompiledTerminals):
            raise ConfigError("the tree's terminals offer no compiled(tree) kernel; the "
                              "solver sweeps compiled terminals only")
        self.config = config_with(config, overrides)
        self.tree = tree
        self.locks = _checked_locks(tree, locks or {})
        if self._start_backend():
            return
        locked_entries = sum(a.size for a in self.locks.values())
        decisions = tree.kind == DECISION
        self.max_actions = int(tree.num_children[decisions].max(initial=1))
        self.max_depth = int(tree.depth.max())
        # The terminal tables first: the memory need counts them with the tree's arrays.
        self._kernel, self._data = tree.terminals.compiled(tree)
        self._frontier, self._chance_index = _frontier(tree)
        self._tasks = [(i, c) for i, n in enumerate(self._frontier.tolist())
                       for c in tree.children(n)]
        self._task_front = np.array([i for i, _ in self._tasks], dtype=np.int64)
        self._task_start = np.array([c for _, c in self._tasks], dtype=np.int64)
        max_hands = max(tree.num_hands(0), tree.num_hands(1))
        self._rivers: tuple[np.ndarray, np.ndarray, int] | None = None
        river_bytes = 0
        if self.config.batch_rivers and self._kernel is holdem_terminal_kernel and self._tasks:
            self._rivers = _river_layout(tree, self._task_start, self._chance_index)
        if self._rivers is not None:
            starts, _, max_group = self._rivers
            river_bytes = river_memory(self.max_depth, self.max_actions, max_hands, max_group,
                                       int(np.diff(starts).max()))
        need = estimate_memory(tree.num_nodes, tree.storage_size, self.max_depth,
                               self.max_actions, max_hands,
                               self.config.storage, locked_entries, self.config.threads,
                               tree_bytes=tree_memory(tree, self._data),
                               frontier_nodes=self._frontier.size,
                               frontier_tasks=len(self._tasks), river_bytes=river_bytes,
                               predictive=schedule.predictive(self.config.algorithm))
        if need > self.config.max_memory_bytes:
            raise TreeTooLargeError(
                f"solving this tree needs about {_size(need)}, over the limit of "
                f"{_size(self.config.max_memory_bytes)} (max_memory_bytes); use "
                "storage='compressed', fewer bet sizes, or a higher limit",
                estimated_nodes=tree.num_nodes,
            )
        self.memory_bytes = need
        self._allocate(locked_entries)
        self.iterations = 0
        self._terminal_kind, self._typed_data = _known_terminals(self._kernel, self._data)
        self._groups()
        # Threads take the subtrees in chunks, largest first (so no thread is left with a big
        # one at the end); only the chunks are kept, not a cost per node.
        self._chunks: list[np.ndarray] = []
        if self.config.threads == 1 and self._rivers is not None:
            self._chunks = [np.arange(len(self._tasks), dtype=np.int64)]
        elif self.config.threads > 1 and self._tasks:
            self._chunks = _guided_chunks(_subtree_cost(tree)[self._task_start],
                                          self.config.threads)
        self._pool: ThreadPoolExecutor | None = None

    def _start_backend(self) -> bool:
        """Build the backend ``config.backend`` names, checked against what it serves; ``True``
        where it is not the compiled sweep (which then needs nothing more of ``__init__``).
        On the CPU ``regrets`` / ``sums`` are the backend's live storage, as the compiled
        sweep's are (saves and results read them); on a GPU they stay there (the backend's
        ``regrets()`` / ``sums()`` copy them out)."""
        self._backend = build_backend(self.tree, self.config, self.locks)
        if self._backend is None:
            return False
        tree = self.tree
        self.max_actions = int(tree.num_children[tree.kind == DECISION].max(initial=1))
        self.max_depth = int(tree.depth.max())
        self.memory_bytes = self._backend.memory_bytes
        self.iterations = 0
        if self.config.device == "cpu":
            self.regrets, self.sums = self._backend.regrets(), self._backend.sums()
        self.regrets16, self.sums16 = np.zeros(0, np.int16), np.zeros(0, np.uint16)
        self.rscale = self.sscale = np.zeros(0, np.float32)
        return True

    def _allocate(self, locked_entries: int) -> None:
        tree, size = self.tree, self.tree.storage_size
        if size >= _TRIM_ENTRIES:  # a full collection costs ~0.5 s in a busy process
            _release_freed_memory()
        compressed = self.config.storage == "compressed"
        self.regrets = np.zeros(0 if compressed else size, dtype=np.float32)
        self.sums = np.zeros(0 if compressed else size, dtype=np.float32)
        self.regrets16 = np.zeros(size if compressed else 0, dtype=np.int16)
        self.sums16 = np.zeros(size if compressed else 0, dtype=np.uint16)
        self.rscale = np.zeros(tree.num_nodes if compressed else 0, dtype=np.float32)
        self.sscale = np.zeros(tree.num_nodes if compressed else 0, dtype=np.float32)
        predictive = schedule.predictive(self.config.algorithm)
        self.predictions = np.zeros(size if predictive else 0, dtype=np.float32)
        # Per node only where some node is locked (empty: none is, which the sweep reads as
        # -1 everywhere).
        index = np.int32 if locked_entries < 2**31 else np.int64
        self.lock_offset = np.full(tree.num_nodes if self.locks else 0, -1, dtype=index)
        self.lock_values = np.zeros(locked_entries, dtype=np.float64)
        position = 0
        for node, strategy in sorted(self.locks.items()):
            self.lock_offset[node] = position
            self.lock_values[position:position + strategy.size] = strategy.ravel()
            position += strategy.size

    def _sweep(self, mode: int, trav: int, scalars: tuple[float, float, bool, float, float],
               record: int = -1) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """``run_pass`` in the kernel's terms: the root values and what ``record`` copied
        (``()`` without a record)."""
        result = self.run_pass(_KIND_OF_MODE[mode], trav, discounts=Discounts(*scalars),
                               record=None if record < 0 else record)
        return result.values, () if result.record is None else tuple(result.record)

    def _groups(self) -> None:
        """The sweeps' argument groups (``sweep_kernel``'s named tuples), built once: the
        tree, isomorphism, an empty record and an off frontier per traverser; the storage,
        the locks, the tasks, the river layout and the terminals shared."""
        tree = self.tree
        hands = (tree.num_hands(0), tree.num_hands(1))
        self._trees = tuple(kernel.TreeArrays(
            tree.kind, tree.player, tree.first_child, tree.num_children, tree.chance_card,
            tree.chance_weight, tree.offset, tree.card_masks[p], tree.card_masks[1 - p],
            self.max_depth, self.max_actions) for p in (0, 1))
        self._isomorphisms = tuple(kernel.Isomorphism(
            tree.iso_offset, tree.iso_count, tree.iso_card, tree.iso_row, tree.iso_perm[p])
            for p in (0, 1))
        # Never written: a pass writes its record only at its record node (-1: none).
        self._no_record = tuple(kernel.Record(
            -1, np.zeros(hands[p]), np.zeros(hands[1 - p]), np.zeros(hands[p]),
            np.zeros((self.max_actions, hands[p]))) for p in (0, 1))
        self._no_frontier = tuple(kernel.Frontier(
            False, False, self._chance_index, np.zeros((0, hands[p])),
            np.zeros((0, hands[1 - p])), np.zeros((0, hands[p]))) for p in (0, 1))
        self._storage = kernel.Storage(
            self.config.storage == "compressed", self.regrets, self.sums, self.regrets16,
            self.sums16, self.rscale, self.sscale, self.predictions)
        self._lock_group = kernel.Locks(self.lock_offset, self.lock_values)
        self._task_group = kernel.Tasks(self._task_front, self._task_start)
        self._river_group = None if self._rivers is None else kernel.Rivers(*self._rivers)
        kind = self._terminal_kind
        self._terminals = None if kind is None else kernel.Terminals(kind, *self._typed_data)

    def _terminal_group(self) -> Any:
        """The terminals' group: the cached sweep's kinds, or the kernel of one's own."""
        if self._terminal_kind is None or self._terminals is None:
            return kernel.AnyTerminals(self._kernel, self._data)
        return self._terminals

    def _call(self, mode: int, trav: int, scalars: tuple[float, float, bool, float, float],
              start: int, own: np.ndarray, opp: np.ndarray, record: int = -1,
              update: bool = True, fronts: tuple[np.ndarray, ...] | None = None,
              frontier_record: bool = False) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """One compiled pass of ``mode`` for ``trav`` from node ``start`` with these reaches:
        its values there and what ``record`` copied (both reaches, the values, the values
        per action; zeros where nothing is recorded).
        ``fronts`` (reaches and values at the first chance nodes) make those nodes leaves."""
        tree = self.tree
        if record >= 0:
            ht, ho = tree.num_hands(trav), tree.num_hands(1 - trav)
            rec = kernel.Record(int(record), np.zeros(ht), np.zeros(ho), np.zeros(ht),
                                np.zeros((self.max_actions, ht)))
        else:
            rec = self._no_record[trav]
        if fronts is None:
            frontier = self._no_frontier[trav]
        else:
            frontier = kernel.Frontier(fronts[0].shape[0] > 0, bool(frontier_record),
                                       self._chance_index, *fronts)
        args = (mode, trav, self._trees[trav], self._storage, self._lock_group,
                _discounts_of(scalars), rec, self._terminal_group(), start, update, frontier,
                self._isomorphisms[trav], own, opp)
        if self._terminal_kind is None:
            values = kernel.sweep(*args)
        else:
            values = kernel.sweep_cached(*args)
        if record < 0:  # the callers' own zeros, as ever (the shared group stays untouched)
            return values, tuple(np.zeros_like(row) for row in rec[1:])
        return values, (rec.own, rec.opp, rec.value, rec.actions)

    def _call_tasks(self, mode: int, trav: int,
                    scalars: tuple[float, float, bool, float, float], positions: np.ndarray,
                    fronts: tuple[np.ndarray, ...], values: np.ndarray) -> None:
        """The CFR passes of the subtrees ``self._tasks[p]`` for ``p`` in ``positions`` (one
        compiled call), their values into ``values[p]``."""
        frontier = kernel.Frontier(True, True, self._chance_index, *fronts)
        args = (mode, trav, self._trees[trav], self._storage, self._lock_group,
                _discounts_of(scalars), self._no_record[trav])
        tail = (frontier, self._isomorphisms[trav], self._task_group)
        if mode == kernel.MODE_CFR and self._river_group is not None:
            kernel.sweep_tasks_rivers(*args, self._typed_data[1], *tail, self._river_group,
                                      positions, values)
        elif self._terminal_kind is None:
            kernel.sweep_tasks(*args, self._terminal_group(), *tail, positions, values)
        else:
            kernel.sweep_tasks_cached(*args, self._terminal_group(), *tail, positions, values)

    def _parallel(self, mode: int, trav: int, scalars: tuple[float, float, bool, float, float],
                  own: np.ndarray, opp: np.ndarray) -> np.ndarray:
        """The same pass in three steps: the reaches at the first chance nodes, their
        children's subtrees on ``threads`` threads (each subtree's storage is its own), then
        the part above with those chance values (summed in child order, as one thread would).

        The subtrees go out in chunks, largest first and smaller as fewer remain (guided
        scheduling), each chunk one compiled call: a few dozen calls a pass where one per
        subtree cost several percent. Which thread sweeps which subtree changes nothing in
        the results. With batched rivers, CFR passes take this path on one thread as well
        (the subtrees are the unit the batched river pass works in)."""
        tree = self.tree
        count = self._frontier.shape[0]
        ht = tree.num_hands(trav)
        fronts = (np.zeros((count, ht)), np.zeros((count, tree.num_hands(1 - trav))),
                  np.zeros((count, ht)))
        self._call(mode, trav, scalars, 0, own, opp, update=False, fronts=fronts,
                   frontier_record=True)
        values = np.empty((len(self._tasks), ht))
        chunks = self._chunks
        taken = itertools.count()  # next() on it is atomic under the interpreter lock

        def work() -> None:
            while (k := next(taken)) < len(chunks):
                self._call_tasks(mode, trav, scalars, chunks[k], fronts, values)

        if self._pool is None and self.config.threads > 1:
            self._pool = ThreadPoolExecutor(self.config.threads - 1)
        pool = self._pool
        helpers = [pool.submit(work) for _ in range(self.config.threads - 1)] if pool else []
        work()  # this thread sweeps too
        for helper in helpers:
            helper.result()
        kernel.gather_chance_values(self._task_group, values, self._trees[trav],
                                    self._isomorphisms[trav], fronts[2])
        return self._call(mode, trav, scalars, 0, own, opp, fronts=fronts)[0]

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations (each: player 0's sweep, then player 1's)."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ConfigError(f"iterations must be an int >= 0, not {n!r}")
        for _ in range(n):
            scalars = discounts(self.config, self.iterations + 1)
            for trav in (0, 1):
                self.iteration_pass(trav, scalars)
            self.iterations += 1

    def _value(self, player: int, values: np.ndarray) -> float:
        return float(self.tree.initial_reach[player] @ values) / self.tree.pair_mass

    def game_value(self) -> tuple[float, float]:
        """Each player's expected chips when both play their average strategies."""
        v0 = self._value(0, self.expected_values(0).values)
        return v0, -v0

    def best_response_values(self) -> tuple[float, float]:
        """Each player's expected chips best-responding to the other's average strategy
        (locked nodes keep their locked strategy)."""
        return (self._value(0, self.best_response(0).values),
                self._value(1, self.best_response(1).values))

    def exploitability(self) -> float:
        """``(BR_0 + BR_1) / 2`` in chips (0 at an equilibrium)."""
        br0, br1 = self.best_response_values()
        return (br0 + br1) / 2.0

    def exploitability_pct(self) -> float:
        """Exploitability in % of the starting pot."""
        return 100.0 * self.exploitability() / self.tree.starting_pot

    def strategy(self, node: int, average: bool = True) -> np.ndarray:
        """The ``[actions, hands]`` strategy at decision ``node`` (average or current)."""
        tree = self.tree
        if not isinstance(node, int | np.integer) or not 0 <= node < tree.num_nodes or (
            tree.kind[node] != DECISION
        ):
            raise ConfigError(f"node must be a decision node id of this tree, not {node!r}")
        if self._backend is not None:
            return self._backend.strategy(int(node), average)
        hands = tree.num_hands(int(tree.player[node]))
        out = np.zeros((int(tree.num_children[node]), hands))
        kernel.node_strategy(int(node), hands, int(tree.num_children[node]), average,
                             tree.offset, self._storage, self._lock_group, np.zeros(2 * hands),
                             out)
        return out

    def solve(
        self, max_iterations: int = 1000, target_pct: float | None = None,
        check_every: int = 10, progress: Callable[[int, float], None] | None = None,
    ) -> float:
        """Iterate until the exploitability (checked every ``check_every`` iterations) is at
        most ``target_pct`` % of the starting pot, or ``max_iterations`` in all; returns the
        last exploitability in % of the pot. ``progress(iterations, pct)`` after each check."""
        if target_pct is not None and (isinstance(target_pct, bool) or not isinstance(
            target_pct, int | float) or not target_pct > 0):
            raise ConfigError(f"target_pct must be a number > 0 or None, not {target_pct!r}")
        if isinstance(check_every, bool) or not isinstance(check_every, int) or check_every < 1:
            raise ConfigError(f"check_every must be an int >= 1, not {check_every!r}")
        if isinstance(max_iterations, bool) or not isinstance(max_iterations, int) or (
            max_iterations < 0
        ):
            raise ConfigError(f"max_iterations must be an int >= 0, not {max_iterations!r}")
        pct = self.exploitability_pct()
        while self.iterations < max_iterations and (target_pct is None or pct > target_pct):
            self.iterate(min(check_every, max_iterations - self.iterations))
            pct = self.exploitability_pct()
            if progress is not None:
                progress(self.iterations, pct)
        return pct

    @property
    def frontier_nodes(self) -> np.ndarray:
        """The first chance nodes (those with no chance node above them), in tree order: the
        rows of a pass's frontier (``run_pass(frontier=...)``, ``frontier_reaches``). A
        read-only view."""
        view = self._frontier.view()
        view.flags.writeable = False
        return view

    @property
    def frontier_leaves(self) -> bool:
        """Whether the first chance nodes are leaves valued by ``leaf_values`` (a depth-limited
        trunk's) instead of subtrees the engine sweeps. ``False`` here: the extension point of
        solvers that value their frontier themselves (``DepthLimitedSolver``)."""
        return False

    def leaf_values(self, kind: str, traverser: int, reach0: np.ndarray, reach1: np.ndarray,
                    discounts: Discounts = NO_UPDATE) -> np.ndarray:
        """``traverser``'s values ``[F, H_traverser]`` at ``frontier_nodes`` for a pass of
        ``kind`` that brings the players there with reaches ``reach0`` ``[F, H0]`` and
        ``reach1`` ``[F, H1]``: asked by every pass given no ``frontier`` of a solver with
        ``frontier_leaves``, between the pass that records those reaches and the one that
        reads the values. This solver sweeps below its frontier and has none to give."""
        raise ConfigError("this solver sweeps the subtrees below its first chance nodes: only "
                          "a solver whose frontier is leaves (frontier_leaves) has leaf values")

    def root_reach(self, player: int, average: bool = True) -> np.ndarray:
        """``player``'s reach at the root in passes given no ``reaches`` (``average``: a pass
        of the average strategies, not a CFR pass): the tree's initial range. The extension
        point of solvers whose players enter otherwise (a re-solving gadget's opponent)."""
        return np.array(self.tree.initial_reach[player])

    def iteration_pass(self, traverser: int, discounts: Discounts) -> PassResult:
        """The CFR pass of ``traverser`` in an iteration with these ``discounts`` (``iterate``
        runs player 0's, then player 1's). The extension point of solvers that update state
        of their own in step with the regrets (a re-solving gadget's entering choice)."""
        return self.run_pass("cfr", traverser, discounts=discounts)

    def run_pass(
        self, kind: str, traverser: int, *, discounts: Discounts | tuple[Any, ...] = NO_UPDATE,
        start: int = 0, reaches: tuple[Any, Any] | None = None, record: int | None = None,
        update: bool | None = None, frontier: str | np.ndarray | None = None,
    ) -> PassResult:
        """One pass over the subtree of ``start``: ``traverser``'s counterfactual values there.

        Args:
            kind: ``"cfr"`` (both play their current strategies; ``traverser``'s regrets and
                strategy sums are updated with ``discounts``), ``"best_response"``
                (``traverser`` best-responds to the other's average strategy; locked nodes
                keep their lock) or ``"average"`` (both play their average strategies).
            traverser: the player 0 or 1 whose values the pass returns.
            discounts: the iteration's scalars (``pokerzoo.schedule``; CFR passes only).
            start: the node the pass starts at.
            reaches: ``(reach of player 0, reach of player 1)`` at ``start`` (``[H0]``,
                ``[H1]``: ranges times the strategies on the way, no chance weights); by
                default ``root_reach`` of each (average strategies unless ``kind="cfr"``).
            record: a node whose reaches and values the pass copies out (``PassResult.record``).
            update: whether a CFR pass updates (default: it does unless it records the
                frontier); other kinds never update.
            frontier: ``None``: the solver handles its first chance nodes (``frontier_nodes``)
                itself (the engine sweeps below them, on threads where it has them; a
                depth-limited solver asks ``leaf_values``); ``"record"``: they are leaves of
                value 0 and the pass records both reaches there (``PassResult.frontier``),
                updating nothing; an ``[F, H_traverser]`` array: they are leaves with these
                values.

        Returns:
            A ``PassResult``; bad arguments are a ``ConfigError``.

        >>> from pokerzoo.games import load_game
        >>> from pokerzoo.public.engine.small_games import public_game_tree
        >>> solver = PublicSolver(public_game_tree(load_game("kuhn_poker")).tree)
        >>> solver.iterate(200)
        >>> result = solver.run_pass("best_response", 1, record=0)
        >>> result.values.shape, result.record.opp_reach.tolist()
        ((3,), [1.0, 1.0, 1.0])
        >>> solver.run_pass("fold", 0)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        pokerzoo.errors.ConfigError: kind must be one of ('cfr', 'best_response', ...), not 'fold'
        """
        if not isinstance(kind, str) or kind not in _MODE_OF_KIND:
            raise ConfigError(f"kind must be one of {PASS_KINDS}, not {kind!r}")
        if type(traverser) is not int and (isinstance(traverser, bool) or not isinstance(
                traverser, np.integer)) or traverser not in (0, 1):
            raise ConfigError(f"traverser must be 0 or 1, not {traverser!r}")
        mode, trav = _MODE_OF_KIND[kind], int(traverser)
        scalars = _checked_discounts(discounts)
        if type(start) is not int or not 0 <= start < self.tree.num_nodes:
            start = self._checked_node("start", start)
        node = -1 if record is None else self._checked_node("record", record)
        recording = isinstance(frontier, str)
        if recording and frontier != "record":
            raise ConfigError(f"frontier must be None, 'record' or an array of values, "
                              f"not {frontier!r}")
        if update is None:
            update = mode == kernel.MODE_CFR and not recording
        elif not isinstance(update, bool) or (update and (kind != "cfr" or recording)):
            raise ConfigError(f"update=True is for CFR passes that do not record the frontier; "
                              f"not {update!r} in a {kind!r} pass")
        if self._backend is not None:
            if start != 0 or reaches is not None or frontier is not None or (
                    update is False and mode == kernel.MODE_CFR):
                raise ConfigError(f"the {self.config.backend} backend runs whole passes from "
                                  "the root only (no start, reaches, frontier or update=False);"
                                  " use backend='numba'")
            values, rec = self._backend.run(mode, trav, Discounts(*scalars), node)
            return self._pass_result(node, values, rec)
        own, opp = self._pass_reaches(trav, kind, reaches)
        if frontier is None and not self.frontier_leaves:
            batched = mode == kernel.MODE_CFR and self._rivers is not None
            if ((self.config.threads > 1 or batched) and self._frontier.size and start == 0
                    and node < 0 and (update or mode != kernel.MODE_CFR)):
                return PassResult(self._parallel(mode, trav, scalars, own, opp), None, None)
            values, rec = self._call(mode, trav, scalars, start, own, opp, record=node,
                                     update=update)
            return self._pass_result(node, values, rec)
        tree = self.tree
        count, ht = self._frontier.shape[0], tree.num_hands(trav)
        fronts = (np.zeros((count, ht)), np.zeros((count, tree.num_hands(1 - trav))),
                  np.zeros((count, ht)))
        if frontier is None:  # the solver's leaves: their values at the reaches recorded
            self._call(mode, trav, scalars, start, own, opp, update=False, fronts=fronts,
                       frontier_record=True)
            reach0, reach1 = (fronts[0], fronts[1]) if trav == 0 else (fronts[1], fronts[0])
            fronts[2][:] = self.leaf_values(kind, trav, reach0, reach1, scalars)
        elif not recording:
            given = _float_array(frontier)
            if given is None or given.shape != (count, ht) or not np.all(np.isfinite(given)):
                raise ConfigError(f"frontier values must be a finite [frontier nodes, hands] = "
                                  f"{[count, ht]} array, not {_shape(frontier)}")
            fronts[2][:] = given
        values, rec = self._call(mode, trav, scalars, start, own, opp, record=node,
                                 update=update, fronts=fronts, frontier_record=recording)
        reached = None
        if recording:
            reached = (FrontierReaches(fronts[0], fronts[1]) if trav == 0
                       else FrontierReaches(fronts[1], fronts[0]))
        return self._pass_result(node, values, rec, reached)

    def cfr_pass(self, traverser: int, discounts: Discounts | tuple[Any, ...],
                 **options: Any) -> PassResult:
        """``run_pass("cfr", traverser, discounts=discounts, **options)``: the current
        strategies' values, ``traverser``'s regrets and sums updated (unless ``update=False``)."""
        return self.run_pass("cfr", traverser, discounts=discounts, **options)

    def best_response(self, traverser: int, **options: Any) -> PassResult:
        """``run_pass("best_response", traverser, **options)``: ``traverser``'s best-response
        values against the other's average strategy."""
        return self.run_pass("best_response", traverser, **options)

    def expected_values(self, traverser: int, **options: Any) -> PassResult:
        """``run_pass("average", traverser, **options)``: ``traverser``'s values when both
        play their average strategies."""
        return self.run_pass("average", traverser, **options)

    def frontier_reaches(self, kind: str, traverser: int, **options: Any) -> FrontierReaches:
        """Both players' reaches at ``frontier_nodes`` in a pass of ``kind`` (``run_pass``
        with ``frontier="record"``; ``options``: its ``discounts``, ``start``, ``reaches``)."""
        reached = self.run_pass(kind, traverser, frontier="record", **options).frontier
        assert reached is not None
        return reached

    def _checked_node(self, name: str, node: Any) -> int:
        if isinstance(node, bool) or not isinstance(node, int | np.integer) or not (
            0 <= node < self.tree.num_nodes
        ):
            raise ConfigError(f"{name} must be a node id 0..{self.tree.num_nodes - 1} of the "
                              f"solver's tree, not {node!r}")
        return int(node)

    def _pass_reaches(self, trav: int, kind: str,
                      reaches: tuple[Any, Any] | None) -> tuple[np.ndarray, np.ndarray]:
        """The traverser's and the other's reach at the pass's start, checked."""
        if reaches is None:
            average = kind != "cfr"
            return self.root_reach(trav, average), self.root_reach(1 - trav, average)
        if not isinstance(reaches, tuple | list) or len(reaches) != 2:
            raise ConfigError("reaches must be a pair (reach of player 0, reach of player 1)")
        pair = []
        for p, reach in enumerate(reaches):
            array = _float_array(reach)
            hands = self.tree.num_hands(p)
            if array is None or array.shape != (hands,) or not np.all(np.isfinite(array)) or (
                np.any(array < 0)
            ):
                raise ConfigError(f"the reach of player {p} must be {hands} finite weights "
                                  f">= 0, not {_shape(reach)}")
            pair.append(array)
        return pair[trav], pair[1 - trav]

    def _pass_result(self, node: int, values: np.ndarray,
                     rec: tuple[np.ndarray, ...],
                     reached: FrontierReaches | None = None) -> PassResult:
        if node < 0:
            return PassResult(values, None, reached)
        rows = int(self.tree.num_children[node]) if self.tree.kind[node] == DECISION else 0
        own, opp, value, actions = rec
        return PassResult(values, NodeRecord(own, opp, value, actions[:rows]), reached)


def _discounts_of(scalars: tuple[float, float, bool, float, float]) -> Discounts:
    """``scalars`` as the sweeps' schedule group, each field of one type (so that a tuple of
    ints compiles nothing new)."""
    positive, negative, floor, sum_discount, sum_weight = scalars
    return Discounts(float(positive), float(negative), bool(floor), float(sum_discount),
                     float(sum_weight))


_TRIM_ENTRIES = 1 << 22
"""Storage entries from which a solver first hands freed memory back (hold'em spots; the
small subgames re-solving agents build by the hundred skip it)."""


def _release_freed_memory() -> None:
    """Collect garbage and hand the C heap's free pages back to the system (glibc's
    ``malloc_trim``), so that a tree build's freed temporaries do not stay resident under the
    solver's storage. A no-op where the C library has no ``malloc_trim``."""
    gc.collect()
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError):
        pass


def _size(num_bytes: int) -> str:
    """``num_bytes`` in GiB, MiB or KiB, whichever reads best."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20)):
        if num_bytes >= scale:
            return f"{num_bytes / scale:.2f} {unit}"
    return f"{num_bytes / 2**10:.1f} KiB"


def _known_terminals(
    term: Any, data: tuple[Any, ...]
) -> tuple[int | None, tuple[Any, Any]]:
    """For the terminal kernels this package ships, their kind and ``(dense, holdem)`` data
    as ``sweep_kernel.sweep_cached`` takes them (the other one an empty placeholder of the
    same types), so the cached sweep serves them; ``(None, ...)`` for any other kernel."""
    empty_dense = (np.zeros((0, 0, 0)), np.zeros(0, dtype=np.int64), np.zeros(0))
    if term is kernel.dense_terminal_kernel:
        payoffs, index, scale = data
        dense = (np.ascontiguousarray(payoffs, dtype=np.float64),
                 np.ascontiguousarray(index, dtype=np.int64),
                 np.ascontiguousarray(scale, dtype=np.float64))
        return kernel.TERMINAL_DENSE, (dense, empty_tables())
    if term is holdem_terminal_kernel:
        return kernel.TERMINAL_HOLDEM, (empty_dense, data)
    return None, (empty_dense, empty_tables())


def _subtree_cost(tree: PublicTree) -> np.ndarray:
    """Per node, the work of a sweep below it: the storage entries of its decisions plus both
    players' hands at each terminal (summed from the deepest level up)."""
    hands = np.array([tree.num_hands(0), tree.num_hands(1)], dtype=np.float64)
    cost = np.where(tree.kind == DECISION,
                    tree.num_children * hands[np.maximum(tree.player, 0)], 0.0)
    return _summed_below(tree, cost + np.where(tree.kind >= 2, hands.sum(), 0.0))


def _summed_below(tree: PublicTree, values: np.ndarray) -> np.ndarray:
    """Per node, ``values`` summed over its subtree (itself included), from the deepest level
    up; ``values`` is overwritten."""
    for level in range(int(tree.depth.max(initial=0)), 0, -1):
        nodes = np.flatnonzero(tree.depth == level)
        np.add.at(values, tree.parent[nodes], values[nodes])
    return values


def _guided_chunks(cost: np.ndarray, threads: int, per_thread: int = 2) -> list[np.ndarray]:
    """The task positions, largest ``cost`` first, cut into chunks that each hold about
    ``1 / (per_thread x threads)`` of the work still left (at least one task): big chunks
    while much remains, single tasks at the end, so the threads finish together."""
    order = np.argsort(-cost, kind="stable")
    left = float(cost.sum())
    chunks: list[np.ndarray] = []
    start = 0
    while start < order.size:
        target = left / (per_thread * threads)
        end = start + 1
        taken = float(cost[order[start]])
        while end < order.size and taken < target:
            taken += float(cost[order[end]])
            end += 1
        chunks.append(order[start:end].astype(np.int64))
        left -= taken
        start = end
    return chunks


def _river_layout(
    tree: PublicTree, task_start: np.ndarray, chance_index: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int] | None:
    """For batched rivers (``sweep_kernel.sweep_tasks_rivers``): per subtree below the first
    chance nodes, its chance nodes (``river_nodes[starts[p]:starts[p + 1]]``, each numbered
    from 0 in ``chance_index``, which this writes), and the most terminals below one card of
    one subtree. ``None`` where the layout does not hold: a subtree without chance nodes, a
    chance node below another, or a subtree's chance nodes dealing different cards."""
    if np.count_nonzero(tree.kind == CHANCE) == np.count_nonzero(chance_index >= 0):
        return None  # no chance node below the first ones (trees from the turn or river)
    num_nodes = tree.num_nodes
    task_of = np.full(num_nodes, -1, dtype=np.int64)
    task_of[task_start] = np.arange(task_start.size)
    chance_above = np.zeros(num_nodes, dtype=bool)
    for level in range(1, int(tree.depth.max(initial=0)) + 1):  # one step per level
        nodes = np.flatnonzero(tree.depth == level)
        parents = tree.parent[nodes]
        inherit = task_of[nodes] < 0
        task_of[nodes[inherit]] = task_of[parents[inherit]]
        chance_above[nodes] = chance_above[parents] | (
            (tree.kind[parents] == CHANCE) & (task_of[parents] >= 0))
    rivers = np.flatnonzero((tree.kind == CHANCE) & (task_of >= 0))
    if rivers.size == 0 or chance_above[rivers].any():
        return None
    owner = task_of[rivers]
    order = np.lexsort((rivers, owner))
    rivers, owner = rivers[order], owner[order]
    starts = np.searchsorted(owner, np.arange(task_start.size + 1)).astype(np.int64)
    terminals = _summed_below(tree, (tree.kind >= 2).astype(np.int64))
    max_group = 0
    for p in range(task_start.size):
        nodes = rivers[starts[p]:starts[p + 1]]
        if nodes.size == 0:
            continue
        dealt = [tree.chance_card[tree.first_child[n]:tree.first_child[n]
                                  + tree.num_children[n]] for n in nodes]
        if any(d.shape != dealt[0].shape or not np.array_equal(d, dealt[0]) for d in dealt):
            return None
        below = np.zeros(dealt[0].size, dtype=np.int64)
        for n in nodes:
            below += terminals[tree.first_child[n] + np.arange(tree.num_children[n])]
        max_group = max(max_group, int(below.max(initial=0)))
    # Numbered only once the layout holds (until then the index is the threads' alone).
    chance_index[rivers] = np.arange(rivers.size) - starts[owner]
    return starts, rivers.astype(np.int64), max_group


def _frontier(tree: PublicTree) -> tuple[np.ndarray, np.ndarray]:
    """The chance nodes with no chance node above them, and each one's index in that list
    (-1 for every other node)."""
    below_chance = np.zeros(tree.num_nodes, dtype=bool)
    for level in range(1, int(tree.depth.max(initial=0)) + 1):  # one step per level
        nodes = np.flatnonzero(tree.depth == level)
        parents = tree.parent[nodes]
        below_chance[nodes] = below_chance[parents] | (tree.kind[parents] == CHANCE)
    frontier = np.flatnonzero((tree.kind == CHANCE) & ~below_chance)
    index = np.full(tree.num_nodes, -1, dtype=np.int16 if frontier.size < 2**15 else np.int32)
    index[frontier] = np.arange(frontier.size)
    return frontier, index


def strategy_best_responses(
    tree: PublicTree, strategies: Mapping[int, Any], **overrides: Any
) -> tuple[float, float]:
    """Each player's best-response value (chips) against a given strategy profile
    ``{decision node: [actions, hands]}`` covering every decision node, kept in float64.

    Player ``p``'s value is computed with the other player's nodes locked to the profile and
    its own free (a best response), so the numbers are exact to rounding.
    """
    decisions = set(np.flatnonzero(tree.kind == DECISION).tolist())
    if set(strategies) != decisions:
        raise ConfigError("the profile needs a strategy at every decision node, and only there")
    values = []
    for p in (0, 1):
        theirs = {n: s for n, s in strategies.items() if int(tree.player[n]) != p}
        solver = PublicSolver(tree, locks=theirs, **overrides)
        values.append(solver.best_response_values()[p])
    return values[0], values[1]


PASS_KINDS = ("cfr", "best_response", "average")
"""The passes ``PublicSolver.run_pass`` runs (its ``kind``)."""
_MODE_OF_KIND = {"cfr": kernel.MODE_CFR, "best_response": kernel.MODE_BEST_RESPONSE,
                 "average": kernel.MODE_AVERAGE}
_KIND_OF_MODE = {mode: kind for kind, mode in _MODE_OF_KIND.items()}


class NodeRecord(NamedTuple):
    """What a pass copied at its ``record`` node."""

    own_reach: np.ndarray
    """``[H_traverser]``: the traverser's reach there (its range times its strategies on the
    way, no chance weights)."""
    opp_reach: np.ndarray
    """``[H_other]``: the other player's reach there."""
    values: np.ndarray
    """``[H_traverser]``: the traverser's counterfactual values there."""
    action_values: np.ndarray
    """``[actions, H_traverser]``: its values after each action, at a decision of the
    traverser (zeros at the other player's; no rows at chance and terminal nodes)."""


class FrontierReaches(NamedTuple):
    """Both players' reaches ``[F, H_player]`` at a solver's ``frontier_nodes`` (row ``i``:
    ``frontier_nodes[i]``), indexed by player."""

    reach0: np.ndarray
    reach1: np.ndarray


class PassResult(NamedTuple):
    """What ``PublicSolver.run_pass`` returns."""

    values: np.ndarray
    """``[H_traverser]``: the traverser's counterfactual values at the pass's start."""
    record: NodeRecord | None
    """What the pass copied at its ``record`` node (``None`` without one)."""
    frontier: FrontierReaches | None
    """The reaches at the frontier (only with ``frontier="record"``)."""


def _checked_discounts(discounts: Any) -> Discounts:
    """``discounts`` as ``Discounts`` (any sequence of its fields): finite numbers, the floor
    a bool."""
    try:
        checked = discounts if type(discounts) is Discounts else Discounts(*discounts)
    except TypeError:
        checked = None
    if checked is None or not all(
        isinstance(value, bool | np.bool_) if name == "floor" else (
            isinstance(value, int | float | np.integer | np.floating)
            and not isinstance(value, bool) and math.isfinite(value))
        for name, value in zip(Discounts._fields, checked, strict=True)
    ):
        raise ConfigError(f"discounts must be a pokerzoo.schedule.Discounts (finite numbers, "
                          f"floor a bool), not {discounts!r}")
    return checked


def _float_array(value: Any) -> np.ndarray | None:
    """``value`` as a new float64 array, or ``None`` where it is no array of numbers."""
    try:
        return np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None


def _shape(value: Any) -> str:
    """How a refused array argument looks, for its error message."""
    shape = getattr(value, "shape", None)
    return f"of shape {list(shape)}" if shape is not None else f"a {type(value).__name__}"
