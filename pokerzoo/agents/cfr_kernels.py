"""Compiled sweeps of full-width counterfactual regret minimisation over a ``GameTree``.

One iteration is, per updating player, a forward pass (own reach, others' reach including
chance) and a reverse pass (values, counterfactual action values ``Q`` and infoset values ``W``
for that player's infosets), followed by the regret / average-strategy update and regret
matching. Every member of the CFR family (vanilla, CFR+, linear CFR, DCFR; alternating or
simultaneous updates) is this kernel with different scalars per iteration, so there is one
loop to make fast.
"""

from __future__ import annotations

import numba
import numpy as np

from pokerzoo.games.base import CHANCE, TERMINAL


@numba.njit(cache=True)
def _accumulate(
    p, inner, terminal, edge_probs, own, opp, values, q_flat, w_values, own_infoset,
):
    """Fill ``q_flat``/``w_values``/``own_infoset`` of player ``p``'s infosets.

    ``inner`` holds the non-terminal nodes in breadth-first order as rows (parent, owner,
    edge, player, infoset) and ``terminal`` the terminals as rows (parent, owner, edge) with
    ``terminal_utility``; parents index ``inner``. ``edge_probs[edge]`` is the probability of
    the action leading to a node (the policy's for decision parents, chance's otherwise).
    Terminals are swept once on their own: they need no reach, and adding their values to their
    parents before the reverse sweep over inner nodes keeps that sweep short.

    ``q_flat[I * A + a]`` = sum over h in I of others' reach(h) * value(ha);
    ``w_values[I]`` = sum over h in I of others' reach(h) * value(h); ``own_infoset[I]`` = p's
    reach of I (equal at every h in I by perfect recall).
    """
    parent, owner, edge, player, infoset = inner
    t_parent, t_owner, t_edge, t_utility = terminal
    n = parent.shape[0]
    num_actions = q_flat.shape[0] // w_values.shape[0]
    own[0] = 1.0
    opp[0] = 1.0
    for node in range(n):
        if node > 0:
            par = parent[node]
            prob = edge_probs[edge[node]]
            if owner[node] == p:
                own[node] = own[par] * prob
                opp[node] = opp[par]
            else:
                own[node] = own[par]
                opp[node] = opp[par] * prob
        values[node] = 0.0
        if player[node] == p:
            iset = infoset[node]
            own_infoset[iset] = own[node]
            w_values[iset] = 0.0
            for a in range(num_actions):
                q_flat[iset * num_actions + a] = 0.0
    utility_p = t_utility[p]
    for k in range(t_parent.shape[0]):
        par = t_parent[k]
        v = utility_p[k]
        e = t_edge[k]
        values[par] += edge_probs[e] * v
        if t_owner[k] == p:
            q_flat[e] += opp[par] * v
    for node in range(n - 1, 0, -1):
        par = parent[node]
        v = values[node]
        e = edge[node]
        values[par] += edge_probs[e] * v
        if owner[node] == p:
            q_flat[e] += opp[par] * v
        if player[node] == p:
            w_values[infoset[node]] += opp[node] * v
    if player[0] == p:
        w_values[infoset[0]] += values[0]


@numba.njit(cache=True)
def _update(
    p, infoset_player, infoset_mask, q_values, w_values, own_infoset, regrets, strategy_sum,
    sigma, pos_discount, neg_discount, rm_plus, avg_discount, avg_weight, update_sigma,
):
    """Regret and average-strategy update of player ``p``'s infosets (all players if p < 0)."""
    num_infosets, num_actions = regrets.shape
    for iset in range(num_infosets):
        if p >= 0 and infoset_player[iset] != p:
            continue
        reach = own_infoset[iset]
        for a in range(num_actions):
            if not infoset_mask[iset, a]:
                continue
            r = regrets[iset, a]
            r *= pos_discount if r > 0 else neg_discount
            r += q_values[iset, a] - w_values[iset]
            if rm_plus and r < 0:
                r = 0.0
            regrets[iset, a] = r
            strategy_sum[iset, a] = (
                strategy_sum[iset, a] * avg_discount + avg_weight * reach * sigma[iset, a]
            )
        if update_sigma:
            _regret_match_row(iset, infoset_mask, regrets, sigma)


@numba.njit(cache=True)
def regret_match(regrets, infoset_mask, iset, out):
    """``out[:]``: regret matching of ``regrets[iset]`` (uniform when no regret is positive)."""
    num_actions = regrets.shape[1]
    total = 0.0
    legal = 0
    for a in range(num_actions):
        if infoset_mask[iset, a]:
            legal += 1
            if regrets[iset, a] > 0:
                total += regrets[iset, a]
    for a in range(num_actions):
        if not infoset_mask[iset, a]:
            out[a] = 0.0
        elif total > 0:
            out[a] = max(regrets[iset, a], 0.0) / total
        else:
            out[a] = 1.0 / legal


@numba.njit(cache=True)
def _regret_match_row(iset, infoset_mask, regrets, sigma):
    regret_match(regrets, infoset_mask, iset, sigma[iset])


@numba.njit(cache=True)
def _regret_match_all(infoset_mask, regrets, sigma):
    for iset in range(regrets.shape[0]):
        _regret_match_row(iset, infoset_mask, regrets, sigma)


@numba.njit(cache=True)
def run_iterations(
    inner, terminal, infoset_player, infoset_mask,
    regrets, strategy_sum, edge_probs, own, opp, values, q_flat, w_values, own_infoset,
    first_iteration, num_iterations, num_players, alternating, rm_plus, linear_averaging,
    alpha, beta, gamma, discounted,
):
    """Run ``num_iterations`` CFR-family iterations in place; iterations count from 1.

    Per iteration t: regrets are discounted (DCFR: positive by t^a/(t^a+1), negative by
    t^b/(t^b+1); else unchanged) before adding the instantaneous regret; CFR+ clips them at 0;
    the average strategy is weighted by t (linear averaging) or discounted by (t/(t+1))^g.
    """
    num_infosets, num_actions = regrets.shape
    # The policy is the head of edge_probs (chance probabilities follow it), so regret
    # matching writes straight into the array the sweeps read.
    sigma = edge_probs[: num_infosets * num_actions].reshape(num_infosets, num_actions)
    q_values = q_flat.reshape(num_infosets, num_actions)
    for t in range(first_iteration, first_iteration + num_iterations):
        pos_d = 1.0
        neg_d = 1.0
        avg_d = 1.0
        avg_w = 1.0
        if discounted:
            # DCFR discounts what was accumulated over iterations 1..t-1 at iteration t.
            # (At t = 1 nothing has accumulated, so the factors do not matter.)
            tm = float(t - 1)
            if tm > 0:
                pos_d = tm**alpha / (tm**alpha + 1.0)
                neg_d = tm**beta / (tm**beta + 1.0)
                avg_d = (tm / (tm + 1.0)) ** gamma
        if linear_averaging:
            avg_w = float(t)
        if alternating:
            for p in range(num_players):
                _accumulate(
                    p, inner, terminal, edge_probs, own, opp, values, q_flat, w_values,
                    own_infoset,
                )
                _update(
                    p, infoset_player, infoset_mask, q_values, w_values, own_infoset, regrets,
                    strategy_sum, sigma, pos_d, neg_d, rm_plus, avg_d, avg_w, True,
                )
        else:
            for p in range(num_players):
                _accumulate(
                    p, inner, terminal, edge_probs, own, opp, values, q_flat, w_values,
                    own_infoset,
                )
            _update(
                -1, infoset_player, infoset_mask, q_values, w_values, own_infoset, regrets,
                strategy_sum, sigma, pos_d, neg_d, rm_plus, avg_d, avg_w, False,
            )
            _regret_match_all(infoset_mask, regrets, sigma)


def work_arrays(num_nodes: int, num_infosets: int, num_actions: int) -> tuple[np.ndarray, ...]:
    """Scratch arrays for ``run_iterations``: own, opp, values, q_flat, w_values, own_infoset."""
    return (
        np.zeros(num_nodes),
        np.zeros(num_nodes),
        np.zeros(num_nodes),
        np.zeros(num_infosets * num_actions),
        np.zeros(num_infosets),
        np.zeros(num_infosets),
    )


def sweep_layout(tree) -> tuple[tuple, tuple, np.ndarray]:
    """Arrays for the sweeps: ``inner`` rows, ``terminal`` rows and the ``edge_probs`` vector.

    ``edge_probs`` holds the policy (``num_infosets * num_actions`` entries, uniform to start)
    followed by one entry per chance edge, so every node's incoming probability is
    ``edge_probs[edge]`` with no branch on the parent's kind. ``inner`` is (parent, owner, edge,
    player, infoset) over non-terminal nodes; ``terminal`` is (parent, owner, edge,
    utility[player, k]) over terminals; both index parents by their row in ``inner``.
    """
    num_infosets, num_actions = tree.infoset_mask.shape
    parent = tree.parent
    owner = np.full(tree.num_nodes, CHANCE, dtype=np.int64)
    owner[1:] = tree.player[parent[1:]]
    edge = np.zeros(tree.num_nodes, dtype=np.int64)
    decision = owner >= 0
    decision[0] = False
    edge[decision] = tree.infoset[parent[decision]] * num_actions + tree.action[decision]
    chance = owner == CHANCE
    chance[0] = False
    chance_nodes = np.flatnonzero(chance)
    base = num_infosets * num_actions
    edge[chance_nodes] = base + np.arange(len(chance_nodes))
    edge[0] = base + len(chance_nodes)  # the root's own entry, probability 1
    edge_probs = np.empty(base + len(chance_nodes) + 1)
    mask = tree.infoset_mask
    edge_probs[:base] = (mask / mask.sum(axis=1, keepdims=True)).ravel()
    edge_probs[base:-1] = tree.chance_prob[chance_nodes]
    edge_probs[-1] = 1.0

    is_terminal = tree.player == TERMINAL
    inner_nodes = np.flatnonzero(~is_terminal)
    terminal_nodes = np.flatnonzero(is_terminal)
    row_of = np.full(tree.num_nodes, -1, dtype=np.int64)
    row_of[inner_nodes] = np.arange(len(inner_nodes))
    inner_parent = np.where(inner_nodes > 0, row_of[parent[inner_nodes]], -1)
    inner = (
        inner_parent,
        owner[inner_nodes],
        edge[inner_nodes],
        tree.player[inner_nodes].astype(np.int64),
        tree.infoset[inner_nodes],
    )
    terminal = (
        row_of[parent[terminal_nodes]],
        owner[terminal_nodes],
        edge[terminal_nodes],
        np.ascontiguousarray(tree.utilities[terminal_nodes].T),
    )
    return inner, terminal, edge_probs
