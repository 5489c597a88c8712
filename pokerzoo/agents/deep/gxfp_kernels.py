"""Compiled external-sampling traversals for Deep GXFP: sampled action utilities.

A traversal of player p walks a ``GameTree``'s flat arrays: every action of p is explored, one
action of every other player is drawn from the strategy table ``sigma`` (the strategy
network's rows, read once per update, so there is no network call inside the walk) and one
chance outcome from its probabilities. At each of p's nodes it records the *action utilities*
``v(h, a)`` of the walk below each legal action, p's own continuation valued by ``sigma`` too:
the sample whose mean over an information set's histories (drawn by the others' and chance's
reach) is GXFP's ``U^p(I, a; b)`` (Deep GXFP paper Sec. 2.1.2-2.1.3). Deep CFR's kernel
(``kernels.external_traversals``) keeps only the differences ``v(h, a) - v(h)``, which lose
the level that the argmax of a fitted utility network does not need but its regression does.

``utility_share`` runs some traversals from one seed (one worker's share of an iteration);
``tree_utility_samples`` cuts an iteration's traversals into such shares.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from pokerzoo.agents.cfr.mccfr_kernels import _sample_child
from pokerzoo.games.base import CHANCE, TERMINAL
from pokerzoo.parallel import Executor, run_map, split_range
from pokerzoo.tree.kernels.arrays import TreeArrays


@numba.njit(cache=True)
def utility_traversals(rng, tree, sigma, p, count, bound, visited, pending, chosen, values,
                       probs, out_iset, out_utility):
    """Up to ``count`` traversals of player ``p``; returns ``(done, written)``: traversals run
    and rows written to ``out_iset`` (p's information set at each visit of p's nodes) and
    ``out_utility`` (the sampled value of each legal action there, 0 at illegal ones).

    Stops before a traversal when fewer than ``bound`` rows (what one traversal can write at
    most) are left, so the caller can keep the rows and call again."""
    player, infoset, action = tree.player, tree.infoset, tree.action
    first_child, num_children = tree.first_child, tree.num_children
    written = 0
    done = 0
    while done < count and out_iset.shape[0] - written >= bound:
        done += 1
        # Down: collect the visited nodes in pre-order, drawing one child where p does not act.
        n_visited = 0
        n_pending = 1
        pending[0] = 0
        while n_pending > 0:
            n_pending -= 1
            node = pending[n_pending]
            visited[n_visited] = node
            n_visited += 1
            who = player[node]
            if who == TERMINAL:
                continue
            c0 = first_child[node]
            nc = num_children[node]
            if who == p:
                for c in range(c0, c0 + nc):
                    pending[n_pending] = c
                    n_pending += 1
                continue
            for k in range(nc):
                probs[k] = (tree.chance_prob[c0 + k] if who == CHANCE
                            else sigma[infoset[node], action[c0 + k]])
            chosen[node] = _sample_child(rng, c0, nc, probs)
            pending[n_pending] = chosen[node]
            n_pending += 1
        # Up: children come after their parent in pre-order, so reversed order values them
        # first; p's nodes write their utility row on the way.
        for k in range(n_visited - 1, -1, -1):
            node = visited[k]
            who = player[node]
            if who == TERMINAL:
                values[node] = tree.utilities[node, p]
            elif who != p:
                values[node] = values[chosen[node]]
            else:
                iset = infoset[node]
                out_iset[written] = iset
                out_utility[written, :] = 0.0
                total = 0.0
                for c in range(first_child[node], first_child[node] + num_children[node]):
                    out_utility[written, action[c]] = values[c]
                    total += sigma[iset, action[c]] * values[c]
                values[node] = total
                written += 1
    return done, written


@numba.njit(cache=True)
def rows_bound(tree, p):
    """The most rows one traversal of ``p`` can write: p's nodes in the largest subtree that
    explores p's children and one child of everyone else (children follow parents)."""
    player, first_child, num_children = tree.player, tree.first_child, tree.num_children
    most = np.zeros(len(player), dtype=np.int64)
    for node in range(len(player) - 1, -1, -1):
        c0, nc = first_child[node], num_children[node]
        if player[node] == TERMINAL:
            continue
        if player[node] == p:
            most[node] = 1 + most[c0:c0 + nc].sum()
        else:
            most[node] = most[c0:c0 + nc].max()
    return most[0]


@dataclass(frozen=True)
class UtilitySpec:
    """What every share of one player's traversals reads (sent once to each worker)."""

    arrays: TreeArrays
    sigma: np.ndarray
    player: int


def utility_share(spec: UtilitySpec, job: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """``(iset, utility)`` of ``count`` traversals of ``spec.player`` from generator ``seed``
    (``job = (count, seed)``): one worker's share."""
    count, seed = job
    rng = np.random.default_rng(seed)
    tree = spec.arrays
    n = len(tree.player)
    bound = int(rows_bound(tree, spec.player))
    rows = max(bound, min(count * bound, 1 << 16))
    work = (np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
            np.zeros(n, dtype=np.int64), np.zeros(n),
            np.zeros(max(spec.sigma.shape[1], int(np.max(tree.num_children)))))
    isets, utilities = [], []
    while count > 0:
        out_iset = np.zeros(rows, dtype=np.int64)
        out_utility = np.zeros((rows, spec.sigma.shape[1]))
        done, written = utility_traversals(rng, tree, spec.sigma, spec.player, count, bound,
                                           *work, out_iset, out_utility)
        count -= done
        isets.append(out_iset[:written])
        utilities.append(out_utility[:written])
    return np.concatenate(isets), np.concatenate(utilities)


def tree_utility_samples(
    arrays: TreeArrays,
    sigma: np.ndarray,
    player: int,
    traversals: int,
    rng: np.random.Generator,
    workers: int = 1,
    executor: Executor | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(iset, utility)`` of ``traversals`` traversals of ``player`` under ``sigma``, cut into
    ``workers`` shares whose seeds come from ``rng`` (reproducible for a fixed number of
    workers) and run on ``executor`` (default: here), concatenated in share order.

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
    shares = split_range(0, traversals, workers)
    seeds = rng.integers(2**63, size=len(shares))
    jobs = [(b - a, int(s)) for (a, b), s in zip(shares, seeds, strict=True)]
    parts = run_map(executor, utility_share, UtilitySpec(arrays, sigma, player), jobs)
    return (np.concatenate([part[0] for part in parts]),
            np.concatenate([part[1] for part in parts]))
