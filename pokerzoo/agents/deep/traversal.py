"""Deep CFR's traversal workers: an iteration's traversals of one player split into shares.

Each share runs ``kernels.external_traversals`` on the tree's arrays and the iteration's
strategy table (the snapshot of the advantage networks that every traversal reads), from its
own seed, and returns its regret and strategy samples; the agent adds them to its memories in
share order. The seeds are drawn from the agent's generator, so a run is reproducible for a
fixed number of workers; across numbers the samples are different draws from the same
distribution. A share is a pure function of its inputs, so a share whose worker dies is simply
run again. Deep GXFP's traversals plug in the same way: a job function and a spec.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pokerzoo.agents.deep import kernels as K
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


def traverse_share(spec: TraversalSpec, job: tuple[int, int]) -> Samples:
    """``count`` traversals of ``spec.player`` from generator ``seed``: one worker's share."""
    count, seed = job
    rng = np.random.default_rng(seed)
    tree = spec.arrays
    n = len(tree.player)
    num_actions = spec.sigma.shape[1]
    width = max(num_actions, int(np.max(tree.num_children)))
    bound = int(np.count_nonzero(np.asarray(tree.player) >= 0))
    capacity = max(bound, min(count * bound, 1 << 18))
    work = (np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n),
            np.zeros(n, dtype=np.int64), np.zeros(width))
    parts: list[Samples] = []
    remaining = count
    while remaining > 0:
        out = (np.zeros(capacity, dtype=np.int64), np.zeros((capacity, num_actions)),
               np.zeros(capacity, dtype=np.int64), np.zeros((capacity, num_actions)))
        done, n_r, n_s = K.external_traversals(
            rng, tree, spec.sigma, spec.player, remaining, bound, *work, *out
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
) -> list[Samples]:
    """``traversals`` traversals of ``player`` in ``workers`` shares (seeds from ``rng``), run
    on ``executor`` (default: here); the shares' samples in share order."""
    shares = split_range(0, traversals, workers)
    seeds = rng.integers(2**63, size=len(shares))
    jobs = [(b - a, int(s)) for (a, b), s in zip(shares, seeds)]
    return run_map(executor, traverse_share, TraversalSpec(arrays, sigma, player), jobs)
