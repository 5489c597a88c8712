"""Deep CFR's traversal workers: an iteration's traversals of one player split into shares.

Each share runs ``kernels.external_traversals`` on the tree's arrays and the iteration's
strategy table (the snapshot of the advantage networks that every traversal reads), from its
own seed, and returns its regret and strategy samples; the agent adds them to its memories in
share order. The seeds are drawn from the agent's generator, so a run is reproducible for a
fixed number of workers; across numbers the samples are different draws from the same
distribution. A share is a pure function of its inputs, so a share whose worker dies is simply
run again. Deep GXFP's traversals are the same shares with ``utilities``: rows of sampled action
utilities ``v(h, a)`` instead of regrets (``tree_utility_samples``).

``TreeTraversal`` is what the tree agents hold: one player's traversals under a strategy
table, run here (Deep CFR with one worker, reusing its work arrays) or in shares.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pokerzoo.agents.deep.kernels import external_traversals, samples_bound
from pokerzoo.parallel import Executor, run_map, split_range
from pokerzoo.tree.kernels.arrays import TreeArrays

Samples = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""``(regret_iset, regret_value, strategy_iset, strategy_value)`` of some traversals."""


@dataclass(frozen=True)
class TraversalSpec:
    """What every share of one player's traversals reads (sent once to each worker)."""

    arrays: TreeArrays
    sigma: np.ndarray
    player: int
    utilities: bool = False
    """Rows of action utilities ``v(h, a)`` instead of regrets ``v(h, a) - v(h)``."""


def traverse_share(spec: TraversalSpec, job: tuple[int, int]) -> Samples:
    """``count`` traversals of ``spec.player`` from generator ``seed``: one worker's share."""
    count, seed = job
    rng = np.random.default_rng(seed)
    tree = spec.arrays
    n = len(tree.player)
    num_actions = spec.sigma.shape[1]
    width = max(num_actions, int(np.max(tree.num_children)))
    bound = samples_bound(tree)
    capacity = max(bound, min(count * bound, 1 << 18))
    work = (np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n),
            np.zeros(n, dtype=np.int64), np.zeros(width))
    parts: list[Samples] = []
    remaining = count
    while remaining > 0:
        out = (np.zeros(capacity, dtype=np.int64), np.zeros((capacity, num_actions)),
               np.zeros(capacity, dtype=np.int64), np.zeros((capacity, num_actions)))
        done, n_r, n_s = external_traversals(
            rng, tree, spec.sigma, spec.player, remaining, bound, *work, *out, None,
            spec.utilities,
        )
        remaining -= done
        parts.append((out[0][:n_r], out[1][:n_r], out[2][:n_s], out[3][:n_s]))
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))  # type: ignore[return-value]


def traversal_shares(
    executor: Executor | None,
    arrays: TreeArrays,
    sigma: np.ndarray,
    player: int,
    traversals: int,
    workers: int,
    rng: np.random.Generator,
    utilities: bool = False,
) -> list[Samples]:
    """``traversals`` traversals of ``player`` in ``workers`` shares (seeds from ``rng``), run
    on ``executor`` (default: here); the shares' samples in share order."""
    shares = split_range(0, traversals, workers)
    seeds = rng.integers(2**63, size=len(shares))
    jobs = [(b - a, int(s)) for (a, b), s in zip(shares, seeds)]
    spec = TraversalSpec(arrays, sigma, player, utilities)
    return run_map(executor, traverse_share, spec, jobs)


def tree_utility_samples(
    arrays: TreeArrays,
    sigma: np.ndarray,
    player: int,
    traversals: int,
    rng: np.random.Generator,
    workers: int = 1,
    executor: Executor | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(iset, utility)`` of ``traversals`` traversals of ``player`` under ``sigma`` (Deep
    GXFP's samples): at each visit of the player's nodes, its information set and the sampled
    utility of every legal action (0 at illegal ones), the player's own continuation valued by
    ``sigma`` too; their mean over an information set's histories is GXFP's ``U^p(I, a; b)``
    (Deep GXFP paper Sec. 2.1.2-2.1.3). Cut into ``workers`` shares as ``traversal_shares``.

    >>> from pokerzoo import load_game
    >>> from pokerzoo.tree import build
    >>> from pokerzoo.tree.kernels.arrays import tree_arrays
    >>> tree = build(load_game("kuhn_poker"))
    >>> uniform = tree.infoset_mask / tree.infoset_mask.sum(axis=1, keepdims=True)
    >>> iset, utility = tree_utility_samples(tree_arrays(tree), uniform, 1, 10,
    ...                                      np.random.default_rng(0))
    >>> len(iset) == 10 and bool((tree.infoset_player[iset] == 1).all())
    True
    """
    return traverser_rows(traversal_shares(executor, arrays, sigma, player, traversals,
                                           workers, rng, utilities=True))


def traverser_rows(parts: list[Samples]) -> tuple[np.ndarray, np.ndarray]:
    """``(iset, value)``: the traverser's rows of ``parts``, one after another."""
    return (np.concatenate([part[0] for part in parts]),
            np.concatenate([part[1] for part in parts]))


class TreeTraversal:
    """External-sampling traversals over a compiled tree's arrays, reading a strategy table
    ``sigma[num_infosets, num_actions]`` (the ``Traversal`` of the tree agents).

    Deep CFR's regret rows with one worker run in this process on work and sample arrays
    kept across calls, from the agent's generator itself, and count the nodes they touch.
    Otherwise, with ``workers`` > 1 or for Deep GXFP's ``utilities`` rows (always drawn as
    seeded shares, even for one worker, so that their runs keep their random streams), the
    traversals run in shares on ``executor`` (``traversal_shares``), which count no nodes.

    Args:
        arrays: the compiled tree's arrays (``tree_arrays``).
        num_actions: the width of the strategy table's rows.
        traversals: traversals per call the in-process sample arrays are sized for.
        workers, executor: the shares (see ``traversal_shares``).
        utilities: rows of action utilities ``v(h, a)`` instead of regrets.
    """

    def __init__(self, arrays: TreeArrays, num_actions: int, traversals: int, workers: int = 1,
                 executor: Executor | None = None, utilities: bool = False) -> None:
        self.arrays = arrays
        self.workers, self.executor, self.utilities = workers, executor, utilities
        self.in_process = workers == 1 and not utilities
        self.bound = samples_bound(arrays)
        self._work: tuple[np.ndarray, ...] = ()
        self._samples: tuple[np.ndarray, ...] = ()
        if self.in_process:
            n, width = len(arrays.player), max(num_actions, int(np.max(arrays.num_children)))
            capacity = max(self.bound, min(traversals * self.bound, 1 << 18))
            self._work = (np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n),
                          np.zeros(n, dtype=np.int64), np.zeros(width))
            self._samples = (np.zeros(capacity, dtype=np.int64), np.zeros((capacity, num_actions)),
                             np.zeros(capacity, dtype=np.int64), np.zeros((capacity, num_actions)))
        self._nodes = np.zeros(1, dtype=np.int64)

    @property
    def nodes_touched(self) -> int:
        """Tree nodes touched by the traversals run in this process (not by shares)."""
        return int(self._nodes[0])

    def __call__(self, sigma: np.ndarray, player: int, count: int,
                 rng: np.random.Generator) -> list[Samples]:
        """``count`` traversals of ``player`` under ``sigma``: their samples in parts, in the
        order drawn (copies, so the caller may keep them)."""
        if not self.in_process:
            return traversal_shares(self.executor, self.arrays, sigma, player, count,
                                    self.workers, rng, self.utilities)
        parts: list[Samples] = []
        remaining = count
        while remaining > 0:
            done, n_r, n_s = external_traversals(
                rng, self.arrays, sigma, player, remaining, self.bound,
                *self._work, *self._samples, self._nodes,
            )
            remaining -= done
            r_iset, r_value, s_iset, s_value = self._samples
            parts.append((r_iset[:n_r].copy(), r_value[:n_r].copy(), s_iset[:n_s].copy(),
                          s_value[:n_s].copy()))
        return parts

    def warm_up(self, sigma: np.ndarray) -> None:
        """Compile the traversal kernel (or load it from numba's cache) with one traversal on
        scratch copies of the work arrays, leaving this traversal as it was (benchmarks do
        it off the clock)."""
        if self.in_process:
            work = [a.copy() for a in (*self._work, *self._samples)]
            external_traversals(np.random.default_rng(0), self.arrays, sigma, 0, 1, self.bound,
                                *work, np.zeros(1, dtype=np.int64))
