"""Compiled external-sampling traversals for Deep CFR and Deep GXFP over a ``GameTree``'s flat
arrays.

The strategy of every information set is read from a table ``sigma[num_infosets, num_actions]``
that the caller computes once per iteration from the advantage networks, so a traversal is a
walk over arrays with no network call inside. Each traversal of player p explores all of p's
actions and samples one action of every other player (from sigma) and of chance (from its
probabilities, so unknown-environment games are sampled right); it records one regret sample
per visit of p's information sets and one strategy sample per visit of the next player's.
"""

from __future__ import annotations

import numba
import numpy as np

from pokerzoo.agents.cfr.mccfr_kernels import _sample_child
from pokerzoo.games.base import CHANCE, TERMINAL


@numba.njit(cache=True)
def external_traversals(
    rng, tree, sigma, p, num_traversals, max_samples,
    order, stack, values, chosen, buf,
    regret_iset, regret_value, strategy_iset, strategy_value, nodes=None, keep_level=False,
):
    """Up to ``num_traversals`` traversals of player ``p``; returns ``(done, n_regret,
    n_strategy)``.

    ``nodes``, when given (an int64 array of one element), is increased by the number of nodes
    the traversals touched (every chance, decision and terminal node visited).

    Stops before a traversal when fewer than ``max_samples`` rows (a bound on what one traversal
    writes) are left in the sample arrays, so the caller can drain them and call again.
    Regret samples are ``v(I, a) - v(I)`` over the legal actions (0 elsewhere); with
    ``keep_level`` the rows keep the level, ``v(I, a)`` itself: the action utilities Deep
    GXFP's networks regress (the argmax does not need the level, the regression does).
    """
    player, infoset, action, chance_prob = tree.player, tree.infoset, tree.action, tree.chance_prob
    utilities, first_child, num_children = tree.utilities, tree.first_child, tree.num_children
    num_players = utilities.shape[1]
    num_actions = sigma.shape[1]
    capacity = regret_iset.shape[0]
    averaging = (p + 1) % num_players
    n_regret = 0
    n_strategy = 0
    done = 0
    while done < num_traversals:
        if capacity - max(n_regret, n_strategy) < max_samples:
            break
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
                for k in range(nc):
                    buf[k] = sigma[iset, action[c0 + k]]
                if pl == averaging:
                    strategy_iset[n_strategy] = iset
                    for a in range(num_actions):
                        strategy_value[n_strategy, a] = sigma[iset, a]
                    n_strategy += 1
            child = _sample_child(rng, c0, nc, buf)
            chosen[node] = child
            top += 1
            stack[top] = child
        if nodes is not None:
            nodes[0] += count
        for k in range(count - 1, -1, -1):
            node = order[k]
            pl = player[node]
            if pl == TERMINAL:
                values[node] = utilities[node, p]
            elif pl != p:
                values[node] = values[chosen[node]]
            else:
                iset = infoset[node]
                c0 = first_child[node]
                v = 0.0
                for c in range(c0, c0 + num_children[node]):
                    v += sigma[iset, action[c]] * values[c]
                values[node] = v
                regret_iset[n_regret] = iset
                for a in range(num_actions):
                    regret_value[n_regret, a] = 0.0
                level = 0.0 if keep_level else v
                for c in range(c0, c0 + num_children[node]):
                    regret_value[n_regret, action[c]] = values[c] - level
                n_regret += 1
        done += 1
    return done, n_regret, n_strategy


def samples_bound(tree) -> int:
    """Rows one traversal can write at most: the tree's decision nodes."""
    return int(np.count_nonzero(np.asarray(tree.player) >= 0))
