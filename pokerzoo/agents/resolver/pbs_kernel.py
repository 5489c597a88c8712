"""A compiled DCFR over many public belief states of one small public tree, one after another.

Each state is a subgame: the nodes below ``root`` of a dense public tree (Kuhn, the Leduc
family: ``public_game_tree``) and one range per player there. One compiled loop solves them
all, so a batch of thousands costs no Python per state or iteration. The tree's layout makes
the passes plain loops: node ids grow from parent to child (``pokerzoo.public.engine.tree``), so
reaches flow forward over a subtree's ids in increasing order and values flow back in
decreasing order. Regrets and strategy sums are kept per child node (the edge into it), for
the acting player's hands. Alternating updates, DCFR's discounts per iteration
(``pokerzoo.schedule.schedule_table``); chance weights enter on the way back, card removal as
in the engine's sweep (a hand holding a dealt card gets no reach and no value there).

``solve`` returns, per state, each player's best-response values to the other's average
strategy and both players' values when both play their averages (chips, with the ranges as
given; the caller normalises).
"""

from __future__ import annotations

import numba
import numpy as np

from pokerzoo.public.engine.tree import CHANCE, DECISION, PublicTree

_BR, _AVERAGE, _CFR = 0, 1, 2


def subtree_nodes(tree: PublicTree, roots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The nodes of each root's subtree in increasing order, concatenated: ``(nodes,
    starts)`` with root ``k``'s nodes at ``nodes[starts[k]:starts[k + 1]]``."""
    first = np.asarray(tree.first_child)
    count = np.asarray(tree.num_children)
    parts = []
    for root in np.asarray(roots, dtype=np.int64).tolist():
        level = np.array([root], dtype=np.int64)
        found = [level]
        while level.size:  # one step per depth: all children of a level at once
            level = level[count[level] > 0]
            sizes = count[level]
            level = np.repeat(first[level], sizes) + (
                np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes))
            found.append(level)
        parts.append(np.sort(np.concatenate(found)))
    starts = np.zeros(len(parts) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([p.size for p in parts])
    return np.concatenate(parts).astype(np.int64), starts


@numba.njit(cache=True, nogil=True)
def _policy(n, q, hands, first_child, num_children, regrets, sums, use_average, sigma):
    """Fill ``sigma[child, :hands]`` for decision ``n``'s children: regret matching, or the
    average strategy (uniform where the weights are all 0)."""
    start = first_child[n]
    k = num_children[n]
    for h in range(hands):
        total = 0.0
        for c in range(start, start + k):
            x = sums[c, h] if use_average else max(regrets[c, h], 0.0)
            sigma[c, h] = x
            total += x
        for c in range(start, start + k):
            sigma[c, h] = sigma[c, h] / total if total > 0.0 else 1.0 / k


@numba.njit(cache=True, nogil=True)
def _pass(mode, trav, nodes, kind, player, parent, first_child, num_children, chance_card,
          chance_weight, terminal_data, payoffs, masks, range0, range1, regrets, sums, sigma,
          reach, value, pos, neg, sum_discount, sum_weight):
    """One forward-and-back pass over ``nodes`` (a subtree, increasing ids) for ``trav``.

    ``mode``: ``_CFR`` (both play regret matching; ``trav``'s regrets and sums updated),
    ``_BR`` (the opponent plays its average, ``trav`` the best action) or ``_AVERAGE``. Returns
    nothing: ``value[nodes[0]]`` holds ``trav``'s values at the root."""
    h0, h1 = range0.shape[0], range1.shape[0]
    root = nodes[0]
    reach[0, root, :h0] = range0
    reach[1, root, :h1] = range1
    sizes = (h0, h1)
    for i in range(nodes.shape[0]):
        n = nodes[i]
        if kind[n] == DECISION:
            q = player[n]
            average = mode == _AVERAGE or (mode == _BR and q != trav)
            _policy(n, q, sizes[q], first_child, num_children, regrets[q], sums[q], average,
                    sigma)
            for c in range(first_child[n], first_child[n] + num_children[n]):
                for p in range(2):
                    for h in range(sizes[p]):
                        reach[p, c, h] = reach[p, n, h] * (sigma[c, h] if p == q else 1.0)
        elif kind[n] == CHANCE:
            for c in range(first_child[n], first_child[n] + num_children[n]):
                card = chance_card[c]
                for p in range(2):
                    for h in range(sizes[p]):
                        reach[p, c, h] = 0.0 if masks[p][card, h] else reach[p, n, h]
    ht = sizes[trav]
    opp = 1 - trav
    for i in range(nodes.shape[0] - 1, -1, -1):
        n = nodes[i]
        k = kind[n]
        if k >= 2:  # a terminal: player 0's payoffs against the opponent's reach
            m = payoffs[terminal_data[n]]
            for h in range(ht):
                acc = 0.0
                for j in range(sizes[opp]):
                    acc += (m[h, j] if trav == 0 else -m[j, h]) * reach[opp, n, j]
                value[n, h] = acc
            continue
        start = first_child[n]
        stop = start + num_children[n]
        for h in range(ht):
            value[n, h] = 0.0
        if k == CHANCE:
            for c in range(start, stop):
                card = chance_card[c]
                for h in range(ht):
                    if not masks[trav][card, h]:
                        value[n, h] += chance_weight[c] * value[c, h]
        elif player[n] != trav:
            for c in range(start, stop):
                for h in range(ht):
                    value[n, h] += value[c, h]
        elif mode == _BR:
            for h in range(ht):
                best = value[start, h]
                for c in range(start + 1, stop):
                    best = max(best, value[c, h])
                value[n, h] = best
        else:
            for c in range(start, stop):
                for h in range(ht):
                    value[n, h] += sigma[c, h] * value[c, h]
            if mode == _CFR:
                r = regrets[trav]
                s = sums[trav]
                for c in range(start, stop):
                    for h in range(ht):
                        old = r[c, h]
                        r[c, h] = old * (pos if old > 0.0 else neg) + value[c, h] - value[n, h]
                        s[c, h] = s[c, h] * sum_discount + sum_weight * reach[trav, n, h] * (
                            sigma[c, h])


@numba.njit(cache=True, nogil=True)
def _iteration(t, sub, kind, player, parent, first_child, num_children, chance_card,
               chance_weight, terminal_data, payoffs, masks, range0, range1, scalars, regrets,
               sums, sigma, reach, value):
    """DCFR iteration ``t`` (0-based) on subtree ``sub``: player 0's pass, then player 1's."""
    pos, neg, floor = scalars[t, 0], scalars[t, 1], scalars[t, 2]
    sum_discount, sum_weight = scalars[t, 3], scalars[t, 4]
    for trav in range(2):
        _pass(_CFR, trav, sub, kind, player, parent, first_child, num_children, chance_card,
              chance_weight, terminal_data, payoffs, masks, range0, range1, regrets, sums,
              sigma, reach, value, pos, neg, sum_discount, sum_weight)
        if floor > 0.5:
            for n in sub:
                for h in range(regrets.shape[2]):
                    regrets[trav, n, h] = max(regrets[trav, n, h], 0.0)


@numba.njit(cache=True, nogil=True)
def solve(nodes, starts, kind, player, parent, first_child, num_children, chance_card,
          chance_weight, terminal_data, payoffs, mask0, mask1, ranges0, ranges1, scalars,
          best0, best1, average0, average1):
    """DCFR with ``scalars[t] = (positive, negative, floor, sum discount, sum weight)`` on
    state ``b``'s subtree ``nodes[starts[b]:starts[b + 1]]`` from ``ranges0[b]`` /
    ``ranges1[b]``; writes the root values (see the module docstring)."""
    num_nodes = kind.shape[0]
    width = max(ranges0.shape[1], ranges1.shape[1])
    regrets = np.zeros((2, num_nodes, width))
    sums = np.zeros((2, num_nodes, width))
    sigma = np.zeros((num_nodes, width))
    reach = np.zeros((2, num_nodes, width))
    value = np.zeros((num_nodes, width))
    masks = (mask0, mask1)
    h0, h1 = ranges0.shape[1], ranges1.shape[1]
    for b in range(starts.shape[0] - 1):
        sub = nodes[starts[b]:starts[b + 1]]
        root = sub[0]
        for n in sub:
            regrets[:, n, :] = 0.0
            sums[:, n, :] = 0.0
        for t in range(scalars.shape[0]):
            _iteration(t, sub, kind, player, parent, first_child, num_children, chance_card,
                       chance_weight, terminal_data, payoffs, masks, ranges0[b], ranges1[b],
                       scalars, regrets, sums, sigma, reach, value)
        for trav in range(2):
            _pass(_BR, trav, sub, kind, player, parent, first_child, num_children, chance_card,
                  chance_weight, terminal_data, payoffs, masks, ranges0[b], ranges1[b],
                  regrets, sums, sigma, reach, value, 1.0, 1.0, 1.0, 0.0)
            out = best0 if trav == 0 else best1
            out[b, :] = value[root, :(h0 if trav == 0 else h1)]
            _pass(_AVERAGE, trav, sub, kind, player, parent, first_child, num_children,
                  chance_card, chance_weight, terminal_data, payoffs, masks, ranges0[b],
                  ranges1[b], regrets, sums, sigma, reach, value, 1.0, 1.0, 1.0, 0.0)
            out = average0 if trav == 0 else average1
            out[b, :] = value[root, :(h0 if trav == 0 else h1)]


@numba.njit(cache=True, nogil=True)
def trace(sub, kind, player, parent, first_child, num_children, chance_card, chance_weight,
          terminal_data, payoffs, mask0, mask1, range0, range1, scalars, snapshot, out):
    """DCFR on one subtree; after iteration ``t`` with ``snapshot[t] >= 0`` the current
    strategies go to ``out[snapshot[t]]`` (``[nodes, hands]``: each child node's probability
    per hand of the player acting above it), and the average strategies at the end to
    ``out[-1]``."""
    num_nodes = kind.shape[0]
    width = max(range0.shape[0], range1.shape[0])
    regrets = np.zeros((2, num_nodes, width))
    sums = np.zeros((2, num_nodes, width))
    sigma = np.zeros((num_nodes, width))
    reach = np.zeros((2, num_nodes, width))
    value = np.zeros((num_nodes, width))
    masks = (mask0, mask1)
    sizes = (range0.shape[0], range1.shape[0])
    for t in range(scalars.shape[0] + 1):
        if t < scalars.shape[0]:
            _iteration(t, sub, kind, player, parent, first_child, num_children, chance_card,
                       chance_weight, terminal_data, payoffs, masks, range0, range1, scalars,
                       regrets, sums, sigma, reach, value)
            k = snapshot[t]
            average = False
        else:
            k = out.shape[0] - 1
            average = True
        if k < 0:
            continue
        for n in sub:
            if kind[n] == DECISION:
                q = player[n]
                _policy(n, q, sizes[q], first_child, num_children, regrets[q], sums[q],
                        average, sigma)
                for c in range(first_child[n], first_child[n] + num_children[n]):
                    out[k, c, :] = sigma[c, :]
