"""Compiled full-width fictitious-play iterations over a ``GameTree`` (XFP, GXFP, BUFP).

One iteration, per updating player (all at once unless alternating): beliefs of every
information set under the current profile (forward sweep), the action values below it (reverse
sweep: the current profile for best *decisions*, a best response for XFP), the argmax row per
information set, then the step towards it. Every member of the family is this loop with
different flags, so there is one loop to make fast.
"""

from __future__ import annotations

import numba
import numpy as np

from pokerzoo.tree.kernels import beliefs as K


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def run_iterations(
    parent, player, infoset, action, chance_prob, utilities, first_child, num_children,
    depth_offsets, infoset_player, infoset_mask, infoset_size, infoset_parent,
    infoset_parent_action, probs, best, first_iteration, num_iterations, alternating,
    best_response_below, realization, propagate, normalise, tie_uniform, tie_tol,
    rho, belief, sums, values, q_values, best_action, x_pi, x_best,
):
    """Run ``num_iterations`` fictitious-play iterations in place; iterations count from 1.

    Iteration t steps by alpha = 1/(t+1) (so pi_t is the average of the uniform start and t-1
    best rows under the behavioural step). ``best`` ends holding the last best rows.
    """
    num_players = utilities.shape[1]
    for t in range(first_iteration, first_iteration + num_iterations):
        alpha = 1.0 / (t + 1.0)
        rounds = num_players if alternating else 1
        for r in range(rounds):
            p = r if alternating else -1
            K.beliefs(
                parent, player, infoset, action, chance_prob, depth_offsets, infoset_size,
                probs, propagate, rho, belief, sums, normalise, p,
            )
            if best_response_below:
                K.belief_best_response(
                    player, infoset, action, first_child, num_children, depth_offsets,
                    chance_prob, utilities, probs, belief, infoset_mask, values, q_values,
                    best_action, p,
                )
            else:
                K.decision_values(
                    player, infoset, action, first_child, num_children, chance_prob, probs,
                    belief, values, q_values, p,
                )
            K.choose(q_values, infoset_mask, infoset_player, p, tie_uniform, tie_tol, best)
            _step(
                p, infoset_player, infoset_mask, infoset_parent, infoset_parent_action, probs,
                best, alpha, realization, x_pi, x_best,
            )


def work_arrays(utilities: np.ndarray, num_infosets: int, num_actions: int) -> tuple:
    """Scratch arrays for ``run_iterations``: rho, belief, sums, values (terminal rows preset
    to the utilities), q_values, best_action, x_pi, x_best."""
    num_nodes, num_players = utilities.shape
    return (
        np.zeros((num_nodes, num_players)),
        np.zeros(num_nodes),
        np.zeros(num_infosets),
        utilities.copy(),
        np.zeros((num_infosets, num_actions)),
        np.zeros(num_infosets, dtype=np.int64),
        np.zeros(num_infosets),
        np.zeros(num_infosets),
    )
