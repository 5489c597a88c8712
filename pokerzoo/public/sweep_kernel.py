"""The compiled sweep over a public tree: one depth-first pass per traversing player.

``sweep`` walks the tree with an explicit stack (numba has no cheap recursion), keeping per
depth the opponent's and the traverser's reach over their hands, the node's strategy
``[actions, hands]`` and, at the traverser's nodes, the value of each action. Memory beyond
the storage is ``O(depth x actions x hands)``. One kernel serves every use:

* ``MODE_CFR``: regret-matching strategies (or locked ones) for both players; at the
  traverser's nodes the regrets are discounted and updated and the strategy sums accumulated
  (CFR+, DCFR and postflop-solver's schedule differ only in the scalars passed in).
* ``MODE_BEST_RESPONSE``: the opponent plays its average strategy, the traverser takes the best
  action per hand (except at locked nodes, where it plays the locked strategy).
* ``MODE_AVERAGE``: both play their average strategies (expected values, results).

Terminal values come from the tree's compiled terminal kernel (``CompiledTerminals``), called
as ``kernel(node, player, opp_reach, out, data)``. ``record_node`` copies both reaches, the
node's values and its per-action values (traverser's nodes) out when the sweep passes it.

Compiling ``sweep`` takes a few seconds once per process (see the note above it); the helpers
it calls are cached.

Storage: float32 ``regrets`` / ``sums`` with ``offset[n]`` per decision node, or, compressed,
int16 regrets and uint16 strategy sums with one float32 scale per node (the largest magnitude
maps to the largest code; postflop-solver's 16-bit storage).
"""

from __future__ import annotations

import numba
import numpy as np

MODE_CFR, MODE_BEST_RESPONSE, MODE_AVERAGE = 0, 1, 2
DECISION, CHANCE = 0, 1
_I16 = 32767.0
_U16 = 65535.0


@numba.njit(cache=True, nogil=True)
def dense_terminal_kernel(node, player, opp_reach, out, data):
    """The kernel of ``DenseTerminals``: ``data = (payoffs [T, H0, H1], terminal_data)``."""
    payoffs, terminal_data = data
    m = payoffs[terminal_data[node]]
    if player == 0:
        for i in range(m.shape[0]):
            acc = 0.0
            for j in range(m.shape[1]):
                acc += m[i, j] * opp_reach[j]
            out[i] = acc
    else:
        for j in range(m.shape[1]):
            acc = 0.0
            for i in range(m.shape[0]):
                acc -= m[i, j] * opp_reach[i]
            out[j] = acc


@numba.njit(cache=True, nogil=True)
def _read(n, a, h, hands, offset, compressed, flat, flat16, scale):
    idx = offset[n] + a * hands + h
    if compressed:
        return flat16[idx] * scale[n]
    return flat[idx]


@numba.njit(cache=True, nogil=True)
def node_strategy(n, q_hands, actions, use_average, offset, compressed, regrets, sums,
                  regrets16, sums16, rscale, sscale, lock_offset, lock_values, out):
    """Fill ``out[:actions, :q_hands]`` with node ``n``'s strategy: locked, average (strategy
    sums normalised; uniform where they are all 0) or regret matching (uniform likewise)."""
    if lock_offset[n] >= 0:
        base = lock_offset[n]
        for a in range(actions):
            for h in range(q_hands):
                out[a, h] = lock_values[base + a * q_hands + h]
        return
    for h in range(q_hands):
        total = 0.0
        for a in range(actions):
            if use_average:
                x = _read(n, a, h, q_hands, offset, compressed, sums, sums16, sscale)
            else:
                x = _read(n, a, h, q_hands, offset, compressed, regrets, regrets16, rscale)
            x = x if x > 0.0 else 0.0
            out[a, h] = x
            total += x
        if total > 0.0:
            for a in range(actions):
                out[a, h] /= total
        else:
            for a in range(actions):
                out[a, h] = 1.0 / actions


@numba.njit(cache=True, nogil=True)
def _update(n, hands, actions, strat, act, value, own, offset, compressed, regrets, sums,
            regrets16, sums16, rscale, sscale, pos, neg, floor, sum_discount, sum_weight, work):
    """Discount and add the regrets and strategy sums of the traverser's node ``n``."""
    base = offset[n]
    size = actions * hands
    largest = 0.0
    for a in range(actions):
        for h in range(hands):
            idx = base + a * hands + h
            r = regrets16[idx] * rscale[n] if compressed else regrets[idx]
            r = r * (pos if r > 0.0 else neg) + act[a, h] - value[h]
            if floor and r < 0.0:
                r = 0.0
            work[a * hands + h] = r
            largest = max(largest, abs(r))
    if compressed:
        scale = largest / _I16 if largest > 0.0 else 0.0
        rscale[n] = scale
        for i in range(size):
            regrets16[base + i] = np.int16(np.rint(work[i] / scale)) if scale > 0.0 else 0
    else:
        for i in range(size):
            regrets[base + i] = work[i]
    largest = 0.0
    for a in range(actions):
        for h in range(hands):
            idx = base + a * hands + h
            s = sums16[idx] * sscale[n] if compressed else sums[idx]
            s = s * sum_discount + sum_weight * own[h] * strat[a, h]
            work[a * hands + h] = s
            largest = max(largest, s)
    if compressed:
        scale = largest / _U16 if largest > 0.0 else 0.0
        sscale[n] = scale
        for i in range(size):
            sums16[base + i] = np.uint16(np.rint(work[i] / scale)) if scale > 0.0 else 0
    else:
        for i in range(size):
            sums[base + i] = work[i]


# Not cached: its terminal kernel arrives as an argument, which numba types by the kernel
# dispatcher's identity, so every process would compile it again and add one more cache file.
@numba.njit(nogil=True)
def sweep(mode, trav, kind, player, first_child, num_children, chance_card, chance_weight,
          offset, mask_trav, mask_opp, reach_trav, reach_opp, compressed, regrets, sums,
          regrets16, sums16, rscale, sscale, lock_offset, lock_values, pos, neg, floor,
          sum_discount, sum_weight, max_depth, max_actions, record_node, rec_own, rec_opp,
          rec_value, rec_actions, kernel, data, start, update, frontier, frontier_record,
          chance_index, front_own, front_opp, front_value, iso_offset, iso_count, iso_card,
          iso_perm):
    """One pass for traverser ``trav`` over the subtree of ``start`` (its reaches given);
    returns its counterfactual values at ``start``.

    ``update``: whether ``MODE_CFR`` updates regrets and sums. With ``frontier``, chance nodes
    are leaves: the pass records the reaches there (``frontier_record``: into
    ``front_own[chance_index[n]]`` / ``front_opp``) or reads their values from
    ``front_value``, so that the subtrees below can be swept apart (in parallel) in between.
    A chance child standing for isomorphic cards adds, for each, its values with the
    traverser's hands permuted (``iso_perm``: the traverser's ``[K, H]`` permutations).
    """
    ht = reach_trav.shape[0]
    ho = reach_opp.shape[0]
    depth = max_depth + 1
    width = max(ht, ho)
    own_r = np.empty((depth, ht))
    opp_r = np.empty((depth, ho))
    val = np.zeros((depth, ht))
    strat = np.empty((depth, max_actions, width))
    act = np.empty((depth, max_actions, ht))
    work = np.empty(max_actions * width)
    node_at = np.zeros(depth, dtype=np.int64)
    child_i = np.zeros(depth, dtype=np.int64)
    own_r[0, :] = reach_trav
    opp_r[0, :] = reach_opp
    d = 0
    node_at[0] = start
    entering = True
    while True:
        n = node_at[d]
        k = kind[n]
        if entering:
            entering = False
            child_i[d] = 0
            if n == record_node:
                rec_own[:] = own_r[d]
                rec_opp[:] = opp_r[d]
            if k >= 2:
                kernel(n, trav, opp_r[d], val[d], data)
            elif k == CHANCE and frontier:
                ci = chance_index[n]
                if frontier_record:
                    front_own[ci, :] = own_r[d]
                    front_opp[ci, :] = opp_r[d]
                    val[d, :] = 0.0
                else:
                    val[d, :] = front_value[ci]
            else:
                val[d, :] = 0.0
                if k == DECISION:
                    q = player[n]
                    use_average = mode != MODE_CFR
                    node_strategy(n, ht if q == trav else ho, num_children[n], use_average,
                                  offset, compressed, regrets, sums, regrets16, sums16, rscale,
                                  sscale, lock_offset, lock_values, strat[d])
        if k < 2 and child_i[d] < num_children[n] and not (frontier and k == CHANCE):
            i = child_i[d]
            c = first_child[n] + i
            if k == DECISION:
                if player[n] == trav:
                    for h in range(ht):
                        own_r[d + 1, h] = own_r[d, h] * strat[d, i, h]
                    opp_r[d + 1, :] = opp_r[d]
                else:
                    for h in range(ho):
                        opp_r[d + 1, h] = opp_r[d, h] * strat[d, i, h]
                    own_r[d + 1, :] = own_r[d]
            else:
                card = chance_card[c]
                for h in range(ht):
                    own_r[d + 1, h] = 0.0 if mask_trav[card, h] else own_r[d, h]
                for h in range(ho):
                    opp_r[d + 1, h] = 0.0 if mask_opp[card, h] else opp_r[d, h]
            d += 1
            node_at[d] = c
            entering = True
            continue
        if k == DECISION and player[n] == trav:
            actions = num_children[n]
            locked = lock_offset[n] >= 0
            for h in range(ht):
                v = 0.0
                if mode == MODE_BEST_RESPONSE and not locked:
                    v = act[d, 0, h]
                    for a in range(1, actions):
                        v = max(v, act[d, a, h])
                else:
                    for a in range(actions):
                        v += strat[d, a, h] * act[d, a, h]
                val[d, h] = v
            if mode == MODE_CFR and update and not locked:
                _update(n, ht, actions, strat[d], act[d], val[d], own_r[d], offset, compressed,
                        regrets, sums, regrets16, sums16, rscale, sscale, pos, neg, floor,
                        sum_discount, sum_weight, work)
            if n == record_node:
                rec_actions[:actions, :] = act[d, :actions, :]
        if n == record_node:
            rec_value[:] = val[d]
        if d == 0:
            break
        parent = node_at[d - 1]
        i = child_i[d - 1]
        if kind[parent] == DECISION:
            if player[parent] == trav:
                act[d - 1, i, :] = val[d]
            else:
                for h in range(ht):
                    val[d - 1, h] += val[d, h]
        else:
            w = chance_weight[n]
            card = chance_card[n]
            for h in range(ht):
                if not mask_trav[card, h]:
                    val[d - 1, h] += w * val[d, h]
            for k in range(iso_offset[n], iso_offset[n] + iso_count[n]):
                other = iso_card[k]
                for h in range(ht):
                    if not mask_trav[other, h]:
                        val[d - 1, h] += w * val[d, iso_perm[k, h]]
        child_i[d - 1] = i + 1
        d -= 1
    return val[0].copy()
