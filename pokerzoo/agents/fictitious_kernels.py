"""Compiled full-width fictitious-play iterations over a ``GameTree`` (XFP, GXFP, BUFP).

One iteration, per updating player (all at once unless alternating): beliefs of every
information set under the current profile (forward sweep), the action values below it (reverse
sweep: the current profile for best *decisions*, a best response for XFP), the argmax row per
information set, then the step towards it. Every member of the family is this loop with
different flags, so there is one loop to make fast.

Not cached (``cache=True``): both kernels call the shared belief kernels of
``pokerzoo.tree.kernels.beliefs``, and numba's cache of a kernel is invalidated only when the
kernel's own file changes, so a cached copy would keep running an edited callee's old code.
Compiling them takes about a second per process; the callees themselves stay cached.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from pokerzoo.tree.kernels import beliefs as K


class FPWork(NamedTuple):
    """Scratch arrays of ``run_iterations`` (built by ``work_arrays``)."""

    rho: np.ndarray
    belief: np.ndarray
    sums: np.ndarray
    values: np.ndarray
    """``[num_nodes, num_players]``; terminal rows preset to the utilities."""
    q_values: np.ndarray
    best_action: np.ndarray
    x_pi: np.ndarray
    x_best: np.ndarray


@numba.njit
def _step(
    p, infoset_player, infoset_mask, infoset_parent, infoset_parent_action, probs, best, alpha,
    realization, x_pi, x_best,
):
    """Move ``p``'s rows (all rows if p < 0) of ``probs`` towards ``best`` by ``alpha``.

    ``realization``: XFP's sequence-form mixture, pi + alpha*x_b*(b - pi) / ((1-alpha)*x_pi
    + alpha*x_b) with own realization weights x (rows no one's own play reaches keep pi);
    otherwise EFFP's behavioural step (1-alpha)*pi + alpha*b at every row.
    """
    num_infosets, num_actions = probs.shape
    if realization:
        # Both weights from the old rows: compute before any row changes.
        K.own_reach(infoset_parent, infoset_parent_action, probs, x_pi)
        K.own_reach(infoset_parent, infoset_parent_action, best, x_best)
    for i in range(num_infosets):
        if p >= 0 and infoset_player[i] != p:
            continue
        if realization:
            denom = (1.0 - alpha) * x_pi[i] + alpha * x_best[i]
            if denom <= 0.0:
                continue
            w = alpha * x_best[i] / denom
        else:
            w = alpha
        for a in range(num_actions):
            if infoset_mask[i, a]:
                probs[i, a] += w * (best[i, a] - probs[i, a])


@numba.njit
def run_iterations(
    tree, infoset_parent, infoset_parent_action, probs, best, first_iteration, num_iterations,
    alternating, best_response_below, realization, propagate, normalise, tie_uniform, tie_tol,
    work,
):
    """Run ``num_iterations`` fictitious-play iterations in place; iterations count from 1.

    ``tree`` is a ``TreeArrays``, ``work`` an ``FPWork``. Iteration t steps by alpha = 1/(t+1)
    (so pi_t is the average of the uniform start and t-1 best rows under the behavioural step).
    ``best`` ends holding the last best rows.
    """
    infoset_player, infoset_mask = tree.infoset_player, tree.infoset_mask
    num_players = tree.utilities.shape[1]
    for t in range(first_iteration, first_iteration + num_iterations):
        alpha = 1.0 / (t + 1.0)
        rounds = num_players if alternating else 1
        for r in range(rounds):
            p = r if alternating else -1
            K.beliefs(tree, probs, propagate, work.rho, work.belief, work.sums, normalise, p)
            if best_response_below:
                K.belief_best_response(
                    tree, probs, work.belief, work.values, work.q_values, work.best_action, p
                )
            else:
                K.decision_values(tree, probs, work.belief, work.values, work.q_values, p)
            K.choose(work.q_values, infoset_mask, infoset_player, p, tie_uniform, tie_tol, best)
            _step(
                p, infoset_player, infoset_mask, infoset_parent, infoset_parent_action, probs,
                best, alpha, realization, work.x_pi, work.x_best,
            )


def work_arrays(utilities: np.ndarray, num_infosets: int, num_actions: int) -> FPWork:
    """Scratch arrays for ``run_iterations`` (``values`` has its terminal rows preset to the
    utilities)."""
    num_nodes, num_players = utilities.shape
    return FPWork(
        np.zeros((num_nodes, num_players)),
        np.zeros(num_nodes),
        np.zeros(num_infosets),
        utilities.copy(),
        np.zeros((num_infosets, num_actions)),
        np.zeros(num_infosets, dtype=np.int64),
        np.zeros(num_infosets),
        np.zeros(num_infosets),
    )
