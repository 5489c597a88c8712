"""Deep CFR's traversal workers: an iteration's traversals of one player split into shares.

Each share runs ``kernels.external_traversals`` on the tree's arrays and the iteration's
strategy table (the snapshot of the advantage networks that every traversal reads), from its
own seed, and returns its regret and strategy samples; the agent adds them to its memories in
share order. The seeds are drawn from the agent's generator, so a run is reproducible for a
fixed number of workers; across numbers the samples are different draws from the same
distribution. A share is a pure function of its inputs, so a share whose worker dies is simply
run again. Deep GXFP's traversals are the same shares with ``utilities``: rows of sampled action
utilities ``v(h, a)`` instead of regrets (``tree_utility_samples``).
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
    parts = traversal_shares(executor, arrays, sigma, player, traversals, workers, rng,
                             utilities=True)
    return (np.concatenate([part[0] for part in parts]),
            np.concatenate([part[1] for part in parts]))
