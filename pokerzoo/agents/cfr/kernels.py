"""Compiled full-width counterfactual regret minimisation over a tree's sequence form.

One iteration is, per updating player ``p``, three short loops (see
``pokerzoo.tree.sequence_form``): the others' realization plans, one pass over the merged
terminal payoffs that leaves in ``q`` the counterfactual value of every action ending a line of
play, and one bottom-up pass over ``p``'s information sets that completes ``q(I, a)``, forms
``w(I) = sum_a sigma(I, a) q(I, a)`` and applies the regret / average-strategy update and regret
matching at once. This is the same arithmetic as the textbook sweep over histories, in another
order; it reads each terminal once and touches no inner history at all, which is why it runs
several times faster on poker trees (``bench/bench_tree.py``).

Every member of the CFR family (vanilla, CFR+, linear CFR, DCFR, predictive CFR+; alternating
or simultaneous updates) is this kernel with different scalars per iteration, taken from the
schedule (``pokerzoo.schedule``, one row of its table per iteration), so there is one loop to
make fast. Predictive CFR+ adds one inline step (``_match_predicted``): the next strategy is
matched on the regret plus a predicted regret, not on the regret alone.

``run_iterations`` is not cached (``cache=True``): it calls ``fill_realization``, which lives in
``pokerzoo.tree.sequence_form`` because exact best responses use it too, and numba's cache of a
kernel is invalidated only when the kernel's own file changes, so a cached copy would keep an
edited ``fill_realization``'s old code. Compiling it takes well under a second per process; the
helpers below call nothing outside this file and stay cached.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from pokerzoo.tree.sequence_form import SequenceForm, fill_realization


class CFRArrays(NamedTuple):
    """The constant arrays ``run_iterations`` reads (built by ``kernel_arrays``)."""

    player_infosets: np.ndarray
    player_offsets: np.ndarray
    parent_sequence: np.ndarray
    infoset_mask: np.ndarray
    inv_legal: np.ndarray
    """``[num_infosets]``: 1 / the number of legal actions."""
    payoff_sequences: np.ndarray
    payoff_coef: np.ndarray
    sorted_own: np.ndarray
    """Two players: each player's payoff entries sorted by own sequence (else empty)."""
    sorted_opponent: np.ndarray
    sorted_coef: np.ndarray
    sorted_chance_reach: np.ndarray
    """Two players: each entry's chance reach (summed over its merged terminals), in the
    order of ``sorted_coef``; read only when pruning."""


@numba.njit(cache=True)
def _payoffs_two_players(own_sequence, opponent_sequence, coef, chance_reach, prune_below, x, q):
    """``q[own] += coef * x[opponent]`` over entries sorted by ``own`` (one add per run).

    With ``prune_below > 0``, entries whose counterfactual reach (chance times the opponent's
    realization weight) is below it are skipped, as pruned subtrees of a recursive CFR are.
    """
    m = own_sequence.shape[0]
    if m == 0:
        return
    current = own_sequence[0]
    total = 0.0
    prune = prune_below > 0.0
    for k in range(m):
        s = own_sequence[k]
        if s != current:
            q[current] += total
            total = 0.0
            current = s
        reach = x[opponent_sequence[k]]
        if prune and chance_reach[k] * reach < prune_below:
            continue
        total += coef[k] * reach
    q[current] += total


@numba.njit(cache=True)
def _payoffs_many_players(p, sequences, coef, x, q):
    """``q[seq_p] += coef * prod_{r != p} x[seq_r]`` over all entries."""
    num_players = sequences.shape[1]
    for k in range(sequences.shape[0]):
        value = coef[k]
        for r in range(num_players):
            if r != p:
                value *= x[sequences[k, r]]
        q[sequences[k, p]] += value


@numba.njit(cache=True)
def _bottom_up_update(
    infosets, parent_sequence, infoset_mask, inv_legal, q, x, regrets, strategy_sum, sigma,
    pos_discount, neg_discount, rm_plus, avg_discount, avg_weight, predictive, predicted,
):
    """Children before parents: finish ``q(I, .)``, pass ``w(I)`` up, update ``I``'s regrets,
    average strategy and (regret matching) ``sigma``; leaves ``q`` of these infosets zeroed.

    ``sigma(I)`` changes only after ``w(I)`` has been passed up, and a parent reads only its
    own row, so the whole pass sees the strategy of this iteration. With ``predictive``
    (PCFR+) the new ``sigma(I)`` comes from ``_match_predicted`` (``predicted``: its scratch
    array, indexed by sequence, zero between calls).
    """
    num_actions = regrets.shape[1]
    for k in range(infosets.shape[0] - 1, -1, -1):
        iset = infosets[k]
        row = iset * num_actions
        w = 0.0
        for a in range(num_actions):
            w += sigma[row + a] * q[row + a]
        parent = parent_sequence[iset]
        q[parent] += w
        reach = x[parent]
        total = 0.0
        for a in range(num_actions):
            if not infoset_mask[iset, a]:
                continue
            r = regrets[iset, a]
            r *= pos_discount if r > 0 else neg_discount
            r += q[row + a] - w
            if rm_plus and r < 0:
                r = 0.0
            regrets[iset, a] = r
            if r > 0:
                total += r
            strategy_sum[iset, a] = (
                strategy_sum[iset, a] * avg_discount + avg_weight * reach * sigma[row + a]
            )
            if not predictive:
                q[row + a] = 0.0
        if predictive:
            _match_predicted(iset, row, parent, infoset_mask, inv_legal, q, predicted, regrets,
                             sigma, w)
        elif total > 0:
            for a in range(num_actions):
                r = regrets[iset, a]
                sigma[row + a] = r / total if r > 0 else 0.0
        else:
            for a in range(num_actions):
                sigma[row + a] = inv_legal[iset] if infoset_mask[iset, a] else 0.0


@numba.njit(cache=True)
def _match_predicted(iset, row, parent, infoset_mask, inv_legal, q, predicted, regrets, sigma,
                     w):
    """PCFR+'s new ``sigma(I)``: regret matching on ``R(I) + m(I)``, leaving ``q`` and
    ``predicted`` of ``I``'s sequences zeroed.

    The prediction of the next values is this iteration's, so ``m(I, a)`` is the regret of
    ``a`` against the strategy just played at ``I`` when the values of ``a``'s subtree are
    this iteration's payoffs under the subtree's *next* strategy (already matched: children
    come first). ``predicted[s]`` collects, per sequence, how much those predicted subtree
    values exceed the played ones; ``I`` passes its own excess up to its parent sequence
    (Farina, Kroer and Sandholm, AAAI 2021, arXiv:2007.14358: predictive regret matching+
    at every decision point, the predictions composed through the tree).
    """
    num_actions = regrets.shape[1]
    played = 0.0
    for a in range(num_actions):
        value = q[row + a] + predicted[row + a]
        predicted[row + a] = value
        played += sigma[row + a] * value
    total = 0.0
    for a in range(num_actions):
        if infoset_mask[iset, a]:
            target = regrets[iset, a] + predicted[row + a] - played
            q[row + a] = target  # q(I, a) is spent: it holds what is matched
            if target > 0:
                total += target
    following = 0.0
    for a in range(num_actions):
        if total > 0:
            p = q[row + a] / total if q[row + a] > 0 else 0.0
        else:
            p = inv_legal[iset] if infoset_mask[iset, a] else 0.0
        sigma[row + a] = p
        following += p * predicted[row + a]
        q[row + a] = 0.0
        predicted[row + a] = 0.0
    predicted[parent] += following - w


@numba.njit
def run_iterations(
    arrays, regrets, strategy_sum, sigma, x, q, schedule, alternating, predicted,
    prune_below=0.0,
):
    """Run one CFR-family iteration per row of ``schedule`` in place.

    ``arrays`` is a ``CFRArrays``; ``sigma`` is the flat current strategy, ``x``/``q`` scratch
    arrays indexed by sequence. ``schedule`` is ``[num_iterations, 5]``: each iteration's
    ``(positive, negative, floor, sum_discount, sum_weight)`` (``pokerzoo.schedule``'s table):
    regrets are scaled by ``positive`` / ``negative`` before the instantaneous regret is added,
    floored at 0 if ``floor``; the strategy sums are scaled by ``sum_discount`` before
    ``sum_weight`` times the reach-weighted strategy is added. ``predicted`` is empty, or for
    PCFR+ a zeroed scratch array like ``q``: then the next strategy is matched on regret plus
    a predicted regret (``_match_predicted``).
    With alternating updates each player's pass sees the others' newest strategy; with
    simultaneous updates every pass sees the strategy the iteration started with.
    ``prune_below`` (two players only) skips terminal entries whose chance-times-opponent
    reach is below it (0: no pruning).
    """
    player_infosets, player_offsets = arrays.player_infosets, arrays.player_offsets
    parent_sequence, infoset_mask = arrays.parent_sequence, arrays.infoset_mask
    num_players = player_offsets.shape[0] - 1
    num_actions = regrets.shape[1]
    predictive = predicted.shape[0] > 0
    empty = x.shape[0] - 1
    x[empty] = 1.0
    q[empty] = 0.0
    for r in range(num_players):
        fill_realization(
            player_infosets[player_offsets[r] : player_offsets[r + 1]], parent_sequence, sigma,
            num_actions, x,
        )
    for k in range(schedule.shape[0]):
        pos_d = schedule[k, 0]
        neg_d = schedule[k, 1]
        rm_plus = schedule[k, 2] != 0.0
        avg_d = schedule[k, 3]
        avg_w = schedule[k, 4]
        for p in range(num_players):
            if num_players == 2:
                _payoffs_two_players(
                    arrays.sorted_own[p], arrays.sorted_opponent[p], arrays.sorted_coef[p],
                    arrays.sorted_chance_reach[p], prune_below, x, q,
                )
            else:
                _payoffs_many_players(p, arrays.payoff_sequences, arrays.payoff_coef[p], x, q)
            infosets = player_infosets[player_offsets[p] : player_offsets[p + 1]]
            _bottom_up_update(
                infosets, parent_sequence, infoset_mask, arrays.inv_legal, q, x, regrets,
                strategy_sum, sigma, pos_d, neg_d, rm_plus, avg_d, avg_w, predictive, predicted,
            )
            q[empty] = 0.0  # the root's value, which no regret needs
            if predictive:
                predicted[empty] = 0.0
            if alternating:
                fill_realization(infosets, parent_sequence, sigma, num_actions, x)
        if not alternating:
            for r in range(num_players):
                fill_realization(
                    player_infosets[player_offsets[r] : player_offsets[r + 1]],
                    parent_sequence, sigma, num_actions, x,
                )


def kernel_arrays(
    form: SequenceForm, infoset_mask: np.ndarray, entry_chance_reach: np.ndarray | None = None
) -> CFRArrays:
    """The constant arrays ``run_iterations`` reads.

    For two players the payoff entries are laid out once per player, sorted by that player's
    sequence, so the payoff loop adds one run of equal sequences at a time.
    ``entry_chance_reach`` (``[num_entries]``) is needed only for pruning.
    """
    inv_legal = 1.0 / infoset_mask.sum(axis=1)
    arrays = CFRArrays(
        form.player_infosets, form.player_offsets, form.parent_sequence, infoset_mask, inv_legal,
        form.payoff_sequences, form.payoff_coef, np.zeros((0, 0), dtype=np.int64),
        np.zeros((0, 0), dtype=np.int64), np.zeros((0, 0)), np.zeros((0, 0)),
    )
    if form.num_players == 2:
        order = form.sorted_entries
        arrays = arrays._replace(
            sorted_own=np.stack([form.payoff_sequences[order[p], p] for p in range(2)]),
            sorted_opponent=np.stack([form.payoff_sequences[order[p], 1 - p] for p in range(2)]),
        )
    return with_payoffs(arrays, form, form.payoff_coef, entry_chance_reach)


def with_payoffs(
    arrays: CFRArrays,
    form: SequenceForm,
    payoff_coef: np.ndarray,
    entry_chance_reach: np.ndarray | None = None,
) -> CFRArrays:
    """``arrays`` with other terminal payoffs (``[num_players, num_entries]`` coefficients over
    ``form``'s entries: chance reach times utility), e.g. another model of an unknown game."""
    if form.num_players != 2:
        return arrays._replace(payoff_coef=payoff_coef)
    order = form.sorted_entries
    reach = (
        np.zeros((2, order.shape[1])) if entry_chance_reach is None
        else np.stack([entry_chance_reach[order[p]] for p in range(2)])
    )
    return arrays._replace(
        payoff_coef=payoff_coef,
        sorted_coef=np.stack([payoff_coef[p, order[p]] for p in range(2)]),
        sorted_chance_reach=reach,
    )
