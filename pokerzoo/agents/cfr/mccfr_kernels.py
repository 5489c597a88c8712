"""Compiled Monte Carlo CFR traversals over a ``GameTree`` (Lanctot et al. 2009).

Both samplers walk the tree's flat arrays with explicit stacks (no recursion, no ``State``
objects) and draw every random number from a seeded ``numpy.random.Generator`` passed in, so
runs are reproducible and no global random state is touched. One iteration is one traversal
per player, each updating that player's regrets (as OpenSpiel's samplers do).
"""

from __future__ import annotations

import numba
import numpy as np

from pokerzoo.games.base import CHANCE, TERMINAL


# Defined here, next to its only compiled callers, so that ``cache=True`` stays safe: numba's
# cache of a kernel is invalidated only when the kernel's own file changes.
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
def _sample_child(rng, first, count, probs_of_child):
    """Index of a child in ``first .. first+count-1`` drawn by ``probs_of_child(c)``."""
    u = rng.random()
    acc = 0.0
    for k in range(count):
        acc += probs_of_child[k]
        if u < acc:
            return first + k
    # Rounding can leave u just above the total: take the last child with probability > 0.
    for k in range(count - 1, -1, -1):
        if probs_of_child[k] > 0.0:
            return first + k
    return first + count - 1


@numba.njit(cache=True)
def outcome_sampling(
    rng, tree, regrets, strategy_sum, num_iterations, exploration,
    path_node, path_child, path_sigma, path_sample, path_reach, buf,
):
    """``num_iterations`` outcome-sampling iterations in place over ``tree`` (``TreeArrays``).

    Per update player p: sample one terminal history, p's actions from the epsilon-greedy mix
    ``exploration*uniform + (1-exploration)*sigma``, the others' from sigma, chance from its
    distribution; then, back up the path, add the importance-weighted sampled counterfactual
    regrets to p's information sets and ``my_reach * sigma / sample_reach`` to their average
    (the estimator of Lanctot et al. 2009 with baseline 0).
    ``path_reach[k]`` holds (own reach, others' and chance's reach, sampling reach) at step k.
    """
    player, infoset, action, chance_prob = tree.player, tree.infoset, tree.action, tree.chance_prob
    utilities, first_child, num_children = tree.utilities, tree.first_child, tree.num_children
    infoset_mask = tree.infoset_mask
    num_players = utilities.shape[1]
    num_actions = infoset_mask.shape[1]
    for _ in range(num_iterations):
        for p in range(num_players):
            node = 0
            steps = 0
            my_r = 1.0
            opp_r = 1.0
            smp_r = 1.0
            while player[node] != TERMINAL:
                c0 = first_child[node]
                nc = num_children[node]
                if player[node] == CHANCE:
                    for k in range(nc):
                        buf[k] = chance_prob[c0 + k]
                    child = _sample_child(rng, c0, nc, buf)
                    opp_r *= chance_prob[child]
                    smp_r *= chance_prob[child]
                    node = child
                    continue
                iset = infoset[node]
                sigma = path_sigma[steps]
                regret_match(regrets, infoset_mask, iset, sigma)
                for k in range(nc):
                    a = action[c0 + k]
                    if player[node] == p:
                        buf[k] = exploration / nc + (1.0 - exploration) * sigma[a]
                    else:
                        buf[k] = sigma[a]
                child = _sample_child(rng, c0, nc, buf)
                a = action[child]
                path_node[steps] = node
                path_child[steps] = child
                path_sample[steps] = buf[child - c0]
                path_reach[steps, 0] = my_r
                path_reach[steps, 1] = opp_r
                path_reach[steps, 2] = smp_r
                if player[node] == p:
                    my_r *= sigma[a]
                else:
                    opp_r *= sigma[a]
                smp_r *= buf[child - c0]
                steps += 1
                node = child
            value = utilities[node, p]
            for k in range(steps - 1, -1, -1):
                nd = path_node[k]
                a = action[path_child[k]]
                sigma = path_sigma[k]
                corrected = value / path_sample[k]  # the sampled action's value estimate
                estimate = sigma[a] * corrected
                if player[nd] == p:
                    iset = infoset[nd]
                    w = path_reach[k, 1] / path_reach[k, 2]
                    avg_w = path_reach[k, 0] / path_reach[k, 2]
                    for b in range(num_actions):
                        if infoset_mask[iset, b]:
                            q = corrected if b == a else 0.0
                            regrets[iset, b] += w * (q - estimate)
                            strategy_sum[iset, b] += avg_w * sigma[b]
                value = estimate


@numba.njit(cache=True)
def external_sampling(
    rng, tree, regrets, strategy_sum, num_iterations, order, stack, values, chosen, sigma, buf,
):
    """``num_iterations`` external-sampling iterations in place over ``tree`` (``TreeArrays``).

    Per update player p: every action of p is explored, one action of every other player
    (from sigma) and of chance is sampled; p's regrets get ``v(I, a) - v(I)`` of the sampled
    values (sampling probabilities cancel the others' reach). The next player's sampled
    information sets add sigma to their average ("simple" averaging, as OpenSpiel's default).
    Pass 1 lists the visited nodes parents-first; pass 2 backs values up in reverse.
    """
    player, infoset, action, chance_prob = tree.player, tree.infoset, tree.action, tree.chance_prob
    utilities, first_child, num_children = tree.utilities, tree.first_child, tree.num_children
    infoset_mask = tree.infoset_mask
    num_players = utilities.shape[1]
    num_actions = infoset_mask.shape[1]
    for _ in range(num_iterations):
        for p in range(num_players):
            averaging = (p + 1) % num_players
            top = 0
            stack[0] = 0
            count = 0
            while top >= 0:
                node = stack[top]
                top -= 1
                order[count] = node
                count += 1
                pl = player[node]
                if pl == TERMINAL:
                    continue
                c0 = first_child[node]
                nc = num_children[node]
                if pl == p:
                    for k in range(nc):
                        top += 1
                        stack[top] = c0 + k
                    continue
                if pl == CHANCE:
                    for k in range(nc):
                        buf[k] = chance_prob[c0 + k]
                else:
                    iset = infoset[node]
                    regret_match(regrets, infoset_mask, iset, sigma)
                    for k in range(nc):
                        buf[k] = sigma[action[c0 + k]]
                    if pl == averaging:
                        for a in range(num_actions):
                            strategy_sum[iset, a] += sigma[a]
                child = _sample_child(rng, c0, nc, buf)
                chosen[node] = child
                top += 1
                stack[top] = child
            for k in range(count - 1, -1, -1):
                node = order[k]
                pl = player[node]
                if pl == TERMINAL:
                    values[node] = utilities[node, p]
                elif pl != p:
                    values[node] = values[chosen[node]]
                else:
                    iset = infoset[node]
                    regret_match(regrets, infoset_mask, iset, sigma)
                    c0 = first_child[node]
                    v = 0.0
                    for c in range(c0, c0 + num_children[node]):
                        v += sigma[action[c]] * values[c]
                    values[node] = v
                    for c in range(c0, c0 + num_children[node]):
                        regrets[iset, action[c]] += values[c] - v


def max_depth(depth: np.ndarray) -> int:
    """Longest root-to-leaf path, for the outcome sampler's path buffers."""
    return int(depth.max()) + 1
