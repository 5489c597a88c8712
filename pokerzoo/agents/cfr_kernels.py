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


@numba.njit(cache=True, fastmath=False)
def _accumulate(
    p, parent, player, infoset, action, chance_prob, utilities, sigma, own, opp, values,
    q_values, w_values, own_infoset,
):
    """Fill ``q_values``/``w_values``/``own_infoset`` of player ``p``'s infosets under ``sigma``.

    ``q_values[I, a]`` = sum over h in I of others' reach(h) * value(ha);
    ``w_values[I]`` = sum over h in I of others' reach(h) * value(h); ``own_infoset[I]`` = p's
    reach of I (equal at every h in I by perfect recall).
    """
    n = parent.shape[0]
    own[0] = 1.0
    opp[0] = 1.0
    for node in range(1, n):
        par = parent[node]
        owner = player[par]
        if owner == CHANCE:
            own[node] = own[par]
            opp[node] = opp[par] * chance_prob[node]
        elif owner == p:
            own[node] = own[par] * sigma[infoset[par], action[node]]
            opp[node] = opp[par]
        else:
            own[node] = own[par]
            opp[node] = opp[par] * sigma[infoset[par], action[node]]
        if player[node] == p:
            own_infoset[infoset[node]] = own[node]
    for node in range(n):
        if player[node] == TERMINAL:
            values[node] = utilities[node, p]
        else:
            values[node] = 0.0
        if player[node] == p:
            iset = infoset[node]
            for a in range(q_values.shape[1]):
                q_values[iset, a] = 0.0
            w_values[iset] = 0.0
    for node in range(n - 1, 0, -1):
        par = parent[node]
        owner = player[par]
        v = values[node]
        if player[node] == p:
            w_values[infoset[node]] += opp[node] * v
        if owner == CHANCE:
            values[par] += chance_prob[node] * v
        else:
            values[par] += sigma[infoset[par], action[node]] * v
            if owner == p:
                q_values[infoset[par], action[node]] += opp[par] * v
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
def _regret_match_row(iset, infoset_mask, regrets, sigma):
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
            sigma[iset, a] = 0.0
        elif total > 0:
            sigma[iset, a] = max(regrets[iset, a], 0.0) / total
        else:
            sigma[iset, a] = 1.0 / legal


@numba.njit(cache=True)
def _regret_match_all(infoset_mask, regrets, sigma):
    for iset in range(regrets.shape[0]):
        _regret_match_row(iset, infoset_mask, regrets, sigma)


@numba.njit(cache=True)
def run_iterations(
    parent, player, infoset, action, chance_prob, utilities, infoset_player, infoset_mask,
    regrets, strategy_sum, sigma, own, opp, values, q_values, w_values, own_infoset,
    first_iteration, num_iterations, num_players, alternating, rm_plus, linear_averaging,
    alpha, beta, gamma, discounted,
):
    """Run ``num_iterations`` CFR-family iterations in place; iterations count from 1.

    Per iteration t: regrets are discounted (DCFR: positive by t^a/(t^a+1), negative by
    t^b/(t^b+1); else unchanged) before adding the instantaneous regret; CFR+ clips them at 0;
    the average strategy is weighted by t (linear averaging) or discounted by (t/(t+1))^g.
    """
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
                    p, parent, player, infoset, action, chance_prob, utilities, sigma, own,
                    opp, values, q_values, w_values, own_infoset,
                )
                _update(
                    p, infoset_player, infoset_mask, q_values, w_values, own_infoset, regrets,
                    strategy_sum, sigma, pos_d, neg_d, rm_plus, avg_d, avg_w, True,
                )
        else:
            for p in range(num_players):
                _accumulate(
                    p, parent, player, infoset, action, chance_prob, utilities, sigma, own,
                    opp, values, q_values, w_values, own_infoset,
                )
            _update(
                -1, infoset_player, infoset_mask, q_values, w_values, own_infoset, regrets,
                strategy_sum, sigma, pos_d, neg_d, rm_plus, avg_d, avg_w, False,
            )
            _regret_match_all(infoset_mask, regrets, sigma)


def work_arrays(num_nodes: int, num_infosets: int, num_actions: int) -> tuple[np.ndarray, ...]:
    """Scratch arrays for ``run_iterations``: own, opp, values, q_values, w_values, own_infoset."""
    return (
        np.zeros(num_nodes),
        np.zeros(num_nodes),
        np.zeros(num_nodes),
        np.zeros((num_infosets, num_actions)),
        np.zeros(num_infosets),
        np.zeros(num_infosets),
    )
