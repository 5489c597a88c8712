"""Compiled sweeps for play off the equilibrium path: beliefs, belief-weighted best responses.

Shared by ``pokerzoo.evaluation.perfect`` (total exploitability) and the fictitious-play family
(``pokerzoo.agents.fictitious``: GXFP's and BUFP's best decisions). All kernels work over a
``GameTree``'s flat breadth-first arrays; nodes of one depth are contiguous, so a forward sweep
depth by depth can normalise beliefs over an information set before descending below it.

A *belief* at a decision node h of information set I (owned by player p) is p's probability of
h given I: the other players' and chance's reach of h, normalised over I. Where that reach is
zero at every history of I, the belief is uniform over I; with ``propagate`` (the default
everywhere), that uniform belief is then carried down by Bayes' rule, so an information set
below an unreached one conditions on it rather than restarting from uniform.

The wide sweeps take the tree as one ``TreeArrays`` named tuple (``pokerzoo.tree.kernels.arrays``).
Every kernel here is a leaf (it calls no compiled function of another file), so ``cache=True`` is
safe: numba's cache is invalidated when this file changes, which covers every callee.
"""

from __future__ import annotations

import numba
import numpy as np

from pokerzoo.games.base import CHANCE, TERMINAL


@numba.njit(cache=True)
def infoset_parents(parent, player, infoset, action, infoset_node, infoset_player, num_players):
    """Each infoset's own previous infoset and the action taken there (-1, -1 at the first).

    By perfect recall every history of an infoset has the same own sequence, so one history
    (``infoset_node``) suffices; BFS numbering makes the parent's id smaller than the child's.
    """
    n = parent.shape[0]
    last_iset = np.full((n, num_players), -1, dtype=np.int64)
    last_act = np.full((n, num_players), -1, dtype=np.int64)
    for node in range(1, n):
        par = parent[node]
        for q in range(num_players):
            last_iset[node, q] = last_iset[par, q]
            last_act[node, q] = last_act[par, q]
        owner = player[par]
        if owner >= 0:
            last_iset[node, owner] = infoset[par]
            last_act[node, owner] = action[node]
    num_infosets = infoset_node.shape[0]
    out_iset = np.empty(num_infosets, dtype=np.int64)
    out_act = np.empty(num_infosets, dtype=np.int64)
    for i in range(num_infosets):
        out_iset[i] = last_iset[infoset_node[i], infoset_player[i]]
        out_act[i] = last_act[infoset_node[i], infoset_player[i]]
    return out_iset, out_act


@numba.njit(cache=True)
def own_reach(infoset_parent, infoset_parent_action, probs, out):
    """``out[I]``: I's owner's own realization weight of I under ``probs`` (sequence form)."""
    for i in range(infoset_parent.shape[0]):
        pi = infoset_parent[i]
        out[i] = 1.0 if pi < 0 else out[pi] * probs[pi, infoset_parent_action[i]]


@numba.njit(cache=True)
def beliefs(tree, probs, propagate, rho, belief, sums, normalise=True, only_player=-1):
    """Fill ``belief[n]`` (acting player's belief at decision nodes) under ``probs``.

    ``rho[n, q]``: the others' and chance's reach of n from player q's point of view, reset to
    the uniform belief below information sets that reach is zero at when ``propagate``.
    Without ``normalise``, reached sets keep the raw reach (counterfactual weights, whose
    rounding matches OpenSpiel's best response where actions tie exactly).
    With ``only_player >= 0`` only that player's beliefs are computed.
    """
    parent, player, infoset, action = tree.parent, tree.player, tree.infoset, tree.action
    chance_prob, depth_offsets = tree.chance_prob, tree.depth_offsets
    infoset_size = tree.infoset_size
    num_players = rho.shape[1]
    for q in range(num_players):
        rho[0, q] = 1.0
    for i in range(sums.shape[0]):
        sums[i] = 0.0  # every infoset lies at one depth, so one reset suffices
    for d in range(depth_offsets.shape[0] - 1):
        lo = depth_offsets[d]
        hi = depth_offsets[d + 1]
        for node in range(lo, hi):
            p = player[node]
            if p == TERMINAL:
                continue  # nothing below a terminal reads its reach
            if node > 0:
                par = parent[node]
                owner = player[par]
                w = chance_prob[node] if owner == CHANCE else probs[infoset[par], action[node]]
                for q in range(num_players):
                    if only_player < 0 or q == only_player:
                        rho[node, q] = rho[par, q] if owner == q else rho[par, q] * w
            if p >= 0 and (only_player < 0 or p == only_player):
                sums[infoset[node]] += rho[node, p]
        for node in range(lo, hi):
            p = player[node]
            if p >= 0 and (only_player < 0 or p == only_player):
                iset = infoset[node]
                s = sums[iset]
                if s > 0.0:
                    belief[node] = rho[node, p] / s if normalise else rho[node, p]
                else:
                    belief[node] = 1.0 / infoset_size[iset]
                    if propagate:
                        rho[node, p] = belief[node]


@numba.njit(cache=True)
def policy_values(tree, probs, values, only_player=-1):
    """``values[n, q]``: player q's expected payoff from n when everyone plays ``probs``
    (only column ``only_player`` when it is >= 0).

    Terminal rows of ``values`` must already hold the utilities (they are never written), so
    the sweep gathers from children without touching the 60% of rows that are terminals.
    """
    player, infoset, action, chance_prob = tree.player, tree.infoset, tree.action, tree.chance_prob
    first_child, num_children = tree.first_child, tree.num_children
    n, num_players = tree.utilities.shape
    q0 = 0 if only_player < 0 else only_player
    q1 = num_players if only_player < 0 else only_player + 1
    for node in range(n - 1, -1, -1):
        p = player[node]
        if p == TERMINAL:
            continue
        c0 = first_child[node]
        for q in range(q0, q1):
            values[node, q] = 0.0
        for c in range(c0, c0 + num_children[node]):
            w = chance_prob[c] if p == CHANCE else probs[infoset[node], action[c]]
            for q in range(q0, q1):
                values[node, q] += w * values[c, q]


@numba.njit(cache=True)
def decision_values(tree, probs, belief, values, q_values, only_player):
    """``policy_values`` and each infoset's belief-weighted action values (Eq. 10) in one sweep.

    ``q_values[I, a]`` = sum over h in I of belief(h) * value of ``ha`` for its owner.

    ``values`` terminal rows must hold the utilities; only column ``only_player`` (all when
    < 0) of ``values`` and that player's rows of ``q_values`` are filled.
    """
    player, infoset, action, chance_prob = tree.player, tree.infoset, tree.action, tree.chance_prob
    first_child, num_children = tree.first_child, tree.num_children
    num_players = values.shape[1]
    q0 = 0 if only_player < 0 else only_player
    q1 = num_players if only_player < 0 else only_player + 1
    for i in range(q_values.shape[0]):
        for a in range(q_values.shape[1]):
            q_values[i, a] = 0.0
    for node in range(player.shape[0] - 1, -1, -1):
        p = player[node]
        if p == TERMINAL:
            continue
        c0 = first_child[node]
        c1 = c0 + num_children[node]
        for q in range(q0, q1):
            values[node, q] = 0.0
        if p == CHANCE:
            for c in range(c0, c1):
                for q in range(q0, q1):
                    values[node, q] += chance_prob[c] * values[c, q]
            continue
        iset = infoset[node]
        for c in range(c0, c1):
            w = probs[iset, action[c]]
            for q in range(q0, q1):
                values[node, q] += w * values[c, q]
        if only_player < 0 or p == only_player:
            b = belief[node]
            for c in range(c0, c1):
                q_values[iset, action[c]] += b * values[c, p]


@numba.njit(cache=True)
def choose(q_values, infoset_mask, infoset_player, only_player, tie_uniform, tie_tol, out):
    """Rows of ``out``: the argmax action of ``q_values`` (ties within ``tie_tol``: the first
    legal action, or uniform over the tied ones when ``tie_uniform``)."""
    num_actions = q_values.shape[1]
    for i in range(q_values.shape[0]):
        if only_player >= 0 and infoset_player[i] != only_player:
            continue
        best = -np.inf
        for a in range(num_actions):
            if infoset_mask[i, a] and q_values[i, a] > best:
                best = q_values[i, a]
        ties = 0
        first = -1
        for a in range(num_actions):
            out[i, a] = 0.0
            if infoset_mask[i, a] and q_values[i, a] >= best - tie_tol:
                ties += 1
                if first < 0:
                    first = a
        if tie_uniform:
            for a in range(num_actions):
                if infoset_mask[i, a] and q_values[i, a] >= best - tie_tol:
                    out[i, a] = 1.0 / ties
        else:
            out[i, first] = 1.0


@numba.njit(cache=True)
def belief_best_response(tree, probs, belief, vstar, q_values, best_action, only_player=-1):
    """Every player's best response below every infoset, chosen under the beliefs.

    ``vstar[n, q]`` is q's payoff from n when q best-responds below n (others play ``probs``),
    choosing at each own infoset the action with the highest belief-weighted value;
    ``q_values[I, a]`` is that belief-weighted value of a at I. Ties go to the first action.
    With ``only_player >= 0`` only that player's best response is computed. Terminal rows of
    ``vstar`` must already hold the utilities (they are never written).
    """
    player, infoset, action, chance_prob = tree.player, tree.infoset, tree.action, tree.chance_prob
    first_child, num_children = tree.first_child, tree.num_children
    depth_offsets, infoset_mask = tree.depth_offsets, tree.infoset_mask
    num_players = tree.utilities.shape[1]
    num_actions = infoset_mask.shape[1]
    for i in range(q_values.shape[0]):
        for a in range(num_actions):
            q_values[i, a] = 0.0
    for d in range(depth_offsets.shape[0] - 2, -1, -1):
        lo = depth_offsets[d]
        hi = depth_offsets[d + 1]
        for node in range(lo, hi):
            p = player[node]
            if p == TERMINAL:
                continue
            if p >= 0:
                best_action[infoset[node]] = -1
            c0 = first_child[node]
            c1 = c0 + num_children[node]
            for q in range(num_players):
                if only_player >= 0 and q != only_player:
                    continue
                if q == p:
                    iset = infoset[node]
                    b = belief[node]
                    for c in range(c0, c1):
                        q_values[iset, action[c]] += b * vstar[c, q]
                    continue
                total = 0.0
                for c in range(c0, c1):
                    w = chance_prob[c] if p == CHANCE else probs[infoset[node], action[c]]
                    total += w * vstar[c, q]
                vstar[node, q] = total
        for node in range(lo, hi):
            p = player[node]
            if p < 0 or (only_player >= 0 and p != only_player):
                continue
            iset = infoset[node]
            best = best_action[iset]
            if best < 0:  # once per infoset, not per history
                for a in range(num_actions):
                    if infoset_mask[iset, a] and (
                        best < 0 or q_values[iset, a] > q_values[iset, best]
                    ):
                        best = a
                best_action[iset] = best
            for c in range(first_child[node], first_child[node] + num_children[node]):
                if action[c] == best:
                    vstar[node, p] = vstar[c, p]


@numba.njit(cache=True)
def infoset_gains(player, infoset, belief, values, q_values, infoset_mask, gains):
    """``gains[I]``: max_a q_values[I, a] minus the belief-weighted policy value of I."""
    num_actions = infoset_mask.shape[1]
    for i in range(gains.shape[0]):
        best = -np.inf
        for a in range(num_actions):
            if infoset_mask[i, a] and q_values[i, a] > best:
                best = q_values[i, a]
        gains[i] = best
    for node in range(player.shape[0]):
        p = player[node]
        if p >= 0:
            gains[infoset[node]] -= belief[node] * values[node, p]
