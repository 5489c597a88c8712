"""The compiled sweep over a public tree: one depth-first pass per traversing player.

``sweep`` walks the tree with an explicit stack (numba has no cheap recursion), keeping per
depth the opponent's and the traverser's reach over their hands, the node's strategy
``[actions, hands]`` and, at the traverser's nodes, the value of each action. Memory beyond
the storage is ``O(depth x actions x hands)``. One kernel serves every use:

* ``MODE_CFR``: regret-matching strategies (or locked ones) for both players; at the
  traverser's nodes the regrets are discounted and updated and the strategy sums accumulated
  (CFR+, DCFR, PCFR+ and postflop-solver's schedule differ only in the scalars passed in and,
  for PCFR+, in the prediction the storage keeps).
* ``MODE_BEST_RESPONSE``: the opponent plays its average strategy, the traverser takes the best
  action per hand (except at locked nodes, where it plays the locked strategy).
* ``MODE_AVERAGE``: both play their average strategies (expected values, results).

**Argument groups.** Every entry point takes its arrays in named groups, built once per solver
(per traverser where they differ) rather than as one long positional list: ``TreeArrays`` (the
tree's links and the traverser's and opponent's card masks), ``Storage`` (float32 or 16-bit
regrets and sums, and PCFR+'s predictions), ``Locks``, the iteration's scalars
(``pokerzoo.schedule.Discounts``), ``Record`` (a node whose reaches and values are copied
out), ``Frontier`` (chance nodes as leaves), ``Isomorphism``, the terminals (``Terminals`` for
the kinds this package ships, ``AnyTerminals`` for a kernel of one's own), and for the
threaded passes ``Tasks`` and ``Rivers``. The groups are ``typing.NamedTuple``s: numba passes
them by value as plain structs (after inlining, each field is the same register or pointer a
separate argument was, so they cost nothing at run time), types them by their fields (so a
cached sweep is found again on disk by a new process), and they need no declarations beyond
the class. Numba's structrefs would be mutable and reached through a pointer, but they need
registration boilerplate per type and are not as easily cached.

**Walks.** The general pass (``_walker``) and the batched river pass's two walks keep their own
depth-first stack machines: one skeleton shared by all three (hooks on a state tuple, or a
loop over the walk's events) measured 30-50% (events) to 5x (hooks) slower per pass, because
numba counts references of every array a hook's state holds and the event loop costs a
dispatch per step.

**One update step.** ``_update_node`` serves both storages; the arithmetic of one regret
entry (``_regret_step``) and one strategy-sum entry (``_sum_step``) is written once.
PCFR+ (predictive CFR+: Farina, Kroer and Sandholm, "Faster Game Solving via Predictive
Blackwell Approachability: Connecting Regret Matching and Mirror Descent", AAAI 2021,
arXiv:2007.14358) keeps the regrets as CFR+ does and, per entry, the last instantaneous regret
``m`` (``Storage.predictions``, float32, the regrets' offsets); its strategy is regret
matching on ``max(R + m, 0)``. An empty predictions array means no prediction.

Terminal values come from the tree's compiled terminal kernel (``CompiledTerminals``), called
as ``kernel(node, player, opp_reach, out, data)``. ``Record.node`` copies both reaches, the
node's values and its per-action values (traverser's nodes) out when the sweep passes it.

Two entry points share one body: ``sweep`` takes any terminal kernel (``AnyTerminals``;
compiled once per process and kernel: numba cannot cache a function typed by a dispatcher),
``sweep_cached`` dispatches the two kinds this package ships (``TERMINAL_DENSE``,
``TERMINAL_HOLDEM``) on typed data and is cached on disk, so a new process starts solving at
once. ``sweep_tasks`` / ``sweep_tasks_cached`` run the same body over several subtrees below
the first chance nodes in one call (the solver's threads take them in chunks). Numba keys that
cache on a hash of this file's text alone (touching it is not enough), so after editing the
compiled functions of ``holdem_terminal.py`` the cached sweep keeps the old terminals: bump
``TERMINALS_REVISION`` below with every such edit. What makes a pass fast: reaches kept by
reference (only the acting player's is copied), the opponent's strategy and the terminals
skipped where its reach is all zero (and whole subtrees where nothing below is updated or
recorded), loops over hands innermost, and hold'em terminals that read per-board hand tables
in sequence without allocating.

Storage: float32 ``regrets`` / ``sums`` with ``offset[n]`` per decision node, or, compressed,
int16 regrets and uint16 strategy sums with one float32 scale per node (the largest magnitude
maps to the largest code; postflop-solver's 16-bit storage).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from pokerzoo.public.engine.holdem_terminal import NUM_CARDS, board_tables, holdem_terminal_values
from pokerzoo.schedule import Discounts

MODE_CFR, MODE_BEST_RESPONSE, MODE_AVERAGE = 0, 1, 2
TERMINAL_DENSE, TERMINAL_HOLDEM = 0, 1
# Changes this file's text, and so numba's cache of the sweep, when holdem_terminal.py's
# compiled code changes (2: the showdown in one merge; 3: its first values stored; 4: a
# board's tables picked by ``board_tables``).
TERMINALS_REVISION = 4
DECISION, CHANCE = 0, 1
_I16 = 32767.0
_U16 = 65535.0

__all__ = [
    "AnyTerminals", "Discounts", "Frontier", "Isomorphism", "Locks", "Record", "Rivers",
    "Storage", "Tasks", "Terminals", "TreeArrays", "dense_terminal_kernel",
    "gather_chance_values", "node_strategy", "sweep", "sweep_cached", "sweep_tasks",
    "sweep_tasks_cached", "sweep_tasks_rivers",
]


class TreeArrays(NamedTuple):
    """The tree as one traverser's sweep reads it (``PublicTree``'s arrays of those names)."""

    kind: np.ndarray
    player: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    chance_card: np.ndarray
    chance_weight: np.ndarray
    offset: np.ndarray
    """Each decision node's first entry in the storage."""
    mask_trav: np.ndarray
    """``[cards, H_trav]``: the traverser's hands each card blocks."""
    mask_opp: np.ndarray
    """``[cards, H_opp]``: the opponent's."""
    max_depth: int
    max_actions: int


class Storage(NamedTuple):
    """Regrets and strategy sums: float32, or 16-bit codes with a float32 scale per node."""

    compressed: bool
    regrets: np.ndarray
    sums: np.ndarray
    regrets16: np.ndarray
    sums16: np.ndarray
    rscale: np.ndarray
    sscale: np.ndarray
    predictions: np.ndarray
    """PCFR+'s last instantaneous regrets (float32, the regrets' offsets); empty otherwise."""


class Locks(NamedTuple):
    """Locked strategies: node ``n``'s at ``values[offset[n]:]`` where ``offset[n] >= 0``
    (``offset`` empty where no node is locked)."""

    offset: np.ndarray
    values: np.ndarray


class Record(NamedTuple):
    """What a pass copies out at ``node`` (-1: nothing): both reaches, the traverser's values
    and, at its own nodes, its values per action."""

    node: int
    own: np.ndarray
    opp: np.ndarray
    value: np.ndarray
    actions: np.ndarray


class Frontier(NamedTuple):
    """With ``on``, chance nodes are leaves: the pass records the reaches there (``record``:
    into ``own[chance_index[n]]`` / ``opp``) or reads their values from ``value``."""

    on: bool
    record: bool
    chance_index: np.ndarray
    own: np.ndarray
    opp: np.ndarray
    value: np.ndarray


class Isomorphism(NamedTuple):
    """Chance child ``c`` stands for the cards ``card[offset[c]:offset[c] + size[c]]``, each
    with the traverser's hands permuted by ``perm[row[k]]`` (``PublicTree``'s ``iso_*``)."""

    offset: np.ndarray
    size: np.ndarray
    card: np.ndarray
    row: np.ndarray
    perm: np.ndarray


class Terminals(NamedTuple):
    """The terminals this package ships: ``TERMINAL_DENSE`` on ``dense`` or
    ``TERMINAL_HOLDEM`` on ``holdem`` (the other an empty placeholder of the same types)."""

    kind: int
    dense: Any
    holdem: Any


class AnyTerminals(NamedTuple):
    """A compiled terminal kernel of one's own, called as ``kernel(node, player, opp_reach,
    out, data)``."""

    kernel: Any
    data: Any


class Tasks(NamedTuple):
    """The subtrees below the first chance nodes: subtree ``p`` starts at ``start[p]``, below
    the frontier chance node numbered ``front[p]``."""

    front: np.ndarray
    start: np.ndarray


class Rivers(NamedTuple):
    """Batched rivers: ``nodes[start[p]:start[p + 1]]`` are subtree ``p``'s river chance nodes;
    ``max_group`` bounds the terminals below one river card of a subtree."""

    start: np.ndarray
    nodes: np.ndarray
    max_group: int


@intrinsic
def _fma(typingctx, a, b, c):
    """``a x b + c`` rounded once (LLVM's ``llvm.fma.f64``; vectorised like any product)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        real = ir.DoubleType()
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(real, [real, real, real]), "llvm.fma.f64")
        return builder.call(fn, args)

    return sig, codegen


@numba.njit(cache=True, nogil=True)
def dense_terminal_kernel(node, player, opp_reach, out, data):
    """The kernel of ``DenseTerminals``: ``data = (payoffs [B, H0, H1], base matrix per node,
    scale per node)``; the node's values are its scale times its base matrix's product (a
    scale of 1.0 leaves every bit as the plain product)."""
    payoffs, base, scale = data
    m = payoffs[base[node]]
    s = scale[node]
    if player == 0:
        for i in range(m.shape[0]):
            acc = 0.0
            for j in range(m.shape[1]):
                acc += m[i, j] * opp_reach[j]
            out[i] = acc * s
    else:
        # Row by row (the matrix is row-major): each out[j] still sums over i in order, so the
        # values are those of a column-by-column loop; rows of hands not reached are skipped.
        for j in range(m.shape[1]):
            out[j] = 0.0
        for i in range(m.shape[0]):
            reach = opp_reach[i]
            if reach == 0.0:
                continue
            for j in range(m.shape[1]):
                out[j] -= m[i, j] * reach
        if s != 1.0:
            for j in range(m.shape[1]):
                out[j] *= s


@numba.njit(cache=True, nogil=True, inline="always")
def _regret_step(r, pos, neg, floor, act, value):
    """One regret entry's step: discounted by its sign, plus the action's value less the
    node's (floored at 0 for regret matching+)."""
    r = r * (pos if r > 0.0 else neg) + act - value
    return max(r, 0.0) if floor else r


@numba.njit(cache=True, nogil=True, inline="always")
def _sum_step(s, sum_discount, sum_weight, reach, strat):
    """One strategy-sum entry's step: discounted, plus the weighted reach times the
    strategy."""
    return s * sum_discount + sum_weight * reach * strat


@numba.njit(cache=True, nogil=True, inline="always")
def _encode(work, size, largest, top, codes, base, scales, n):
    """``work[:size]`` as 16-bit codes at ``codes[base:]``: the largest magnitude maps to
    ``top``, the scale kept in ``scales[n]``."""
    scale = largest / top if largest > 0.0 else 0.0
    scales[n] = scale
    for i in range(size):
        codes[base + i] = np.rint(work[i] / scale) if scale > 0.0 else 0.0


@numba.njit(cache=True, nogil=True, inline="always")
def _update_node(n, hands, actions, strat, act, value, own, offset, storage, sched, work):
    """Discount and add the regrets and strategy sums of the traverser's node ``n`` (and
    PCFR+'s predictions), in either storage. Float32 storage: per action one loop over the
    regrets and one over the sums, on 1-D views, with no scratch (loops the compiler
    vectorises; one loop storing into both tables stayed scalar). 16-bit storage: the new
    values into ``work``, then encoded with the node's new scale."""
    base = offset[n]
    pos, neg, floor = sched.positive, sched.negative, sched.floor
    sum_discount, sum_weight = sched.sum_discount, sched.sum_weight
    if storage.compressed:
        regrets16, rscale = storage.regrets16, storage.rscale
        sums16, sscale = storage.sums16, storage.sscale
        size = actions * hands
        largest = 0.0
        for a in range(actions):
            for h in range(hands):
                r = _regret_step(regrets16[base + a * hands + h] * rscale[n], pos, neg, floor,
                                 act[a, h], value[h])
                work[a * hands + h] = r
                largest = max(largest, abs(r))
        _encode(work, size, largest, _I16, regrets16, base, rscale, n)
        largest = 0.0
        for a in range(actions):
            for h in range(hands):
                s = _sum_step(sums16[base + a * hands + h] * sscale[n], sum_discount,
                              sum_weight, own[h], strat[a, h])
                work[a * hands + h] = s
                largest = max(largest, s)
        _encode(work, size, largest, _U16, sums16, base, sscale, n)
        return
    predictive = storage.predictions.shape[0] > 0
    v = value[:hands]
    w = own[:hands]
    for a in range(actions):
        row = base + a * hands
        reg = storage.regrets[row:row + hands]
        acts = act[a, :hands]
        for h in range(hands):
            reg[h] = _regret_step(np.float64(reg[h]), pos, neg, floor, acts[h], v[h])
        if predictive:
            pred = storage.predictions[row:row + hands]
            for h in range(hands):
                pred[h] = acts[h] - v[h]
        sm = storage.sums[row:row + hands]
        st = strat[a, :hands]
        for h in range(hands):
            sm[h] = _sum_step(sm[h], sum_discount, sum_weight, w[h], st[h])


@numba.njit(cache=True, nogil=True, inline="always")
def _positive(table, row, scale, q_hands, out, total):
    """``out[h] = max(table[row + h] x scale, 0)``, added into ``total[h]``. Two loops over
    1-D views, each of which the compiler vectorises (one loop writing both arrays it
    cannot prove apart, so it stayed scalar)."""
    src = table[row:row + q_hands]
    dst = out[:q_hands]
    for h in range(q_hands):
        x = src[h] * scale
        dst[h] = x if x > 0.0 else 0.0
    acc = total[:q_hands]
    for h in range(q_hands):
        acc[h] += dst[h]


@numba.njit(cache=True, nogil=True, inline="always")
def _positive_predicted(table, predictions, row, q_hands, out, total):
    """``_positive`` of the regrets plus their predictions (PCFR+): ``out[h] =
    max(table[row + h] + predictions[row + h], 0)``, added into ``total[h]``."""
    src = table[row:row + q_hands]
    pred = predictions[row:row + q_hands]
    dst = out[:q_hands]
    for h in range(q_hands):
        x = np.float64(src[h]) + pred[h]
        dst[h] = x if x > 0.0 else 0.0
    acc = total[:q_hands]
    for h in range(q_hands):
        acc[h] += dst[h]


@numba.njit(cache=True, nogil=True, inline="always")
def _locked(locks, n):
    """Whether node ``n``'s strategy is locked."""
    return n < locks.offset.shape[0] and locks.offset[n] >= 0


@numba.njit(cache=True, nogil=True, inline="always")
def node_strategy(n, q_hands, actions, use_average, offset, storage, locks, total, out):
    """Fill ``out[:actions, :q_hands]`` with node ``n``'s strategy: locked, average (strategy
    sums normalised; uniform where they are all 0) or regret matching (on the regrets plus
    their predictions where ``storage`` keeps any; uniform likewise). The loops over hands are
    innermost (contiguous, vectorisable); ``total[:2 * q_hands]`` is scratch."""
    if _locked(locks, n):
        base = locks.offset[n]
        for a in range(actions):
            for h in range(q_hands):
                out[a, h] = locks.values[base + a * q_hands + h]
        return
    base = offset[n]
    for h in range(q_hands):
        total[h] = 0.0
    predictive = storage.predictions.shape[0] > 0
    for a in range(actions):
        row = base + a * q_hands
        if not storage.compressed:
            if use_average:
                _positive(storage.sums, row, 1.0, q_hands, out[a], total)
            elif predictive:
                _positive_predicted(storage.regrets, storage.predictions, row, q_hands, out[a],
                                    total)
            else:
                _positive(storage.regrets, row, 1.0, q_hands, out[a], total)
        elif use_average:
            _positive(storage.sums16, row, storage.sscale[n], q_hands, out[a], total)
        else:
            _positive(storage.regrets16, row, storage.rscale[n], q_hands, out[a], total)
    uniform = 1.0 / actions
    acc = total[:q_hands]
    inv = total[q_hands:2 * q_hands]
    # x / t for every action, bit for bit, with one division per hand instead of one per
    # entry (divisions were most of a strategy's cost): q = x (1/t) rounded, then one
    # correction by the exact residual x - q t (two fused multiply-adds) gives the correctly
    # rounded quotient when 1/t is itself correctly rounded (Markstein's theorem; Muller et
    # al., Handbook of Floating-Point Arithmetic, 2nd ed., sec. 4.9).
    for h in range(q_hands):
        t = acc[h]
        inv[h] = 1.0 / t if t > 0.0 else 0.0
    for a in range(actions):
        row_out = out[a, :q_hands]
        for h in range(q_hands):
            r = inv[h]
            x = row_out[h]
            q = x * r
            row_out[h] = _fma(_fma(-q, acc[h], x), r, q) if r > 0.0 else uniform


@numba.njit(cache=True, nogil=True, inline="always")
def _masked(src, mask, out, size):
    """``out[:size] = src[:size]``, 0 where ``mask`` (the hands a dealt card blocks)."""
    a, m, c = src[:size], mask[:size], out[:size]
    for h in range(size):
        c[h] = 0.0 if m[h] else a[h]


@numba.njit(cache=True, nogil=True, inline="always")
def _any_positive(reach, size):
    """Whether any of ``reach[:size]`` (never negative) is above 0: a count, not a sum, so
    the loop vectorises (a float sum must keep its order)."""
    r = reach[:size]
    count = 0
    for h in range(size):
        count += r[h] > 0.0
    return count > 0


@numba.njit(cache=True, nogil=True, inline="always")
def _scaled_live(src, scale, out, size):
    """``_product`` that also says whether any product is above 0 (``src`` and ``scale`` are
    never negative): one loop instead of a product, then a count."""
    a, b, c = src[:size], scale[:size], out[:size]
    count = 0
    for h in range(size):
        x = a[h] * b[h]
        c[h] = x
        count += x > 0.0
    return count > 0


@numba.njit(cache=True, nogil=True, inline="always")
def _add(a, out, size):
    """``out[:size] += a[:size]``."""
    x, z = a[:size], out[:size]
    for h in range(size):
        z[h] += x[h]


@numba.njit(cache=True, nogil=True, inline="always")
def _product(a, b, out, size):
    """``out[:size] = a[:size] * b[:size]`` (a reach times one action's strategy; a strategy
    times its action's values)."""
    x, y, z = a[:size], b[:size], out[:size]
    for h in range(size):
        z[h] = x[h] * y[h]


@numba.njit(cache=True, nogil=True, inline="always")
def _add_product(a, b, out, size):
    """``out[:size] += a[:size] * b[:size]``."""
    x, y, z = a[:size], b[:size], out[:size]
    for h in range(size):
        z[h] += x[h] * y[h]


@numba.njit(cache=True, nogil=True, inline="always")
def _add_unmasked(w, src, mask, out, size):
    """``out[h] += w * src[h]`` where not ``mask[h]`` (a chance child's values)."""
    x, m, z = src[:size], mask[:size], out[:size]
    for h in range(size):
        if not m[h]:
            z[h] += w * x[h]


@numba.njit(cache=True, nogil=True, inline="always")
def _mixed_values(strat, act, out, actions, size):
    """``out[:size]`` = the actions' values weighted by the strategy (a traverser's node)."""
    _product(strat[0], act[0], out, size)
    for a in range(1, actions):
        _add_product(strat[a], act[a], out, size)


@numba.njit(cache=True, nogil=True, inline="always")
def _into_decision_parent(val, act, d, i, traverser_acts, size):
    """Child ``i``'s values (``val[d]``) into its decision parent one level up: the action's
    values at the traverser's nodes; summed at the opponent's (its reach is in them)."""
    if traverser_acts:
        act[d - 1, i, :] = val[d]
    elif i == 0:
        val[d - 1, :] = val[d]
    else:
        _add(val[d], val[d - 1], size)


@numba.njit(cache=True, nogil=True, inline="always")
def _add_chance_child(c, child, out, size, tree, iso):
    """Chance child ``c``'s values (``child``) into its chance node's (``out``): weighted,
    over the hands its card leaves, then once more for each isomorphic card it stands for,
    with the hands permuted."""
    w = tree.chance_weight[c]
    mask_trav = tree.mask_trav
    _add_unmasked(w, child, mask_trav[tree.chance_card[c]], out, size)
    for j in range(iso.offset[c], iso.offset[c] + iso.size[c]):
        other = iso.card[j]
        perm = iso.perm[iso.row[j]]
        for h in range(size):
            if not mask_trav[other, h]:
                out[h] += w * child[perm[h]]


@numba.njit(cache=True, nogil=True, inline="always")
def _task_reaches(own, opp, mask_own, mask_opp, reach_own, reach_opp):
    """A subtree's reaches below its chance node: those recorded there (``own`` / ``opp``)
    times 0 where its card blocks the hand, 1 elsewhere (a product, as the numpy expression
    this replaced computed it)."""
    for h in range(reach_own.shape[0]):
        reach_own[h] = own[h] * (0.0 if mask_own[h] else 1.0)
    for h in range(reach_opp.shape[0]):
        reach_opp[h] = opp[h] * (0.0 if mask_opp[h] else 1.0)



def _walker(term: Any) -> Any:
    """The general pass (the body of ``sweep``) and its run over several subtrees, compiled
    around the terminal call ``term(node, player, opp_reach, out, terminals, scratch)`` (a
    global of the compiled code, so that it can be cached)."""

    @numba.njit(nogil=True)
    def walk(mode, trav, tree, storage, locks, sched, record, terminals, scratch, start,
             update, frontier, iso, reach_trav, reach_opp):
        """The body of ``sweep`` (see there), with ``scratch`` for the terminal call.

        Reaches are kept by reference: ``trow[d]`` / ``orow[d]`` name the depth whose row holds
        the traverser's / opponent's reach at depth ``d``, so a decision copies only the acting
        player's reach. ``live[d]``: the opponent's reach at depth ``d`` is not all zero; where it
        is, terminals are 0 without a call, the opponent's strategy is not computed, and whole
        subtrees are skipped when nothing below is updated or recorded (every value of the
        traverser is linear in the opponent's reach)."""
        kind, player, num_children = tree.kind, tree.player, tree.num_children
        first_child, offset = tree.first_child, tree.offset
        ht = reach_trav.shape[0]
        ho = reach_opp.shape[0]
        # Allocated here, not passed in: fresh arrays let the compiler know that they alias
        # nothing (buffers passed in and reused were measured 2.5% slower).
        depth = tree.max_depth + 1
        width = max(ht, ho)
        own_r = np.empty((depth, ht))
        opp_r = np.empty((depth, ho))
        val = np.zeros((depth, ht))
        strat = np.empty((depth, tree.max_actions, width))
        act = np.empty((depth, tree.max_actions, ht))
        work = np.empty(tree.max_actions * width)
        total = np.empty(2 * width)
        node_at = np.zeros(depth + 1, dtype=np.int64)
        child_i = np.zeros(depth + 1, dtype=np.int64)
        trow = np.zeros(depth, dtype=np.int64)
        orow = np.zeros(depth, dtype=np.int64)
        live = np.zeros(depth, dtype=np.bool_)
        record_node = record.node
        prune = mode != MODE_CFR or not update
        prune = prune and not frontier.on and record_node < 0
        own_r[0, :] = reach_trav
        opp_r[0, :] = reach_opp
        for h in range(ho):
            if reach_opp[h] != 0.0:
                live[0] = True
                break
        d = 0
        node_at[0] = start
        entering = True
        while True:
            n = node_at[d]
            k = kind[n]
            skip = False
            if entering:
                entering = False
                child_i[d] = 0
                if n == record_node:
                    record.own[:] = own_r[trow[d]]
                    record.opp[:] = opp_r[orow[d]]
                if k >= 2:
                    if live[d]:
                        term(n, trav, opp_r[orow[d]], val[d], terminals, scratch)
                    else:
                        val[d, :] = 0.0
                elif k == CHANCE and frontier.on:
                    ci = frontier.chance_index[n]
                    if frontier.record:
                        frontier.own[ci, :] = own_r[trow[d]]
                        frontier.opp[ci, :] = opp_r[orow[d]]
                        val[d, :] = 0.0
                    else:
                        val[d, :] = frontier.value[ci]
                elif not live[d] and prune:
                    val[d, :] = 0.0
                    skip = True
                else:
                    if k == CHANCE:
                        val[d, :] = 0.0
                    if k == DECISION and (player[n] == trav or live[d]):
                        node_strategy(n, ht if player[n] == trav else ho, num_children[n],
                                      mode != MODE_CFR, offset, storage, locks, total, strat[d])
            if (k < 2 and not skip and child_i[d] < num_children[n]
                    and not (frontier.on and k == CHANCE)):
                i = child_i[d]
                c = first_child[n] + i
                e = d + 1
                if k == DECISION:
                    if player[n] == trav:
                        _product(own_r[trow[d]], strat[d, i], own_r[e], ht)
                        trow[e] = e
                        orow[e] = orow[d]
                        live[e] = live[d]
                    elif live[d]:
                        live[e] = _scaled_live(opp_r[orow[d]], strat[d, i], opp_r[e], ho)
                        orow[e] = e
                        trow[e] = trow[d]
                    else:
                        orow[e] = orow[d]
                        trow[e] = trow[d]
                        live[e] = False
                else:
                    card = tree.chance_card[c]
                    _masked(own_r[trow[d]], tree.mask_trav[card], own_r[e], ht)
                    _masked(opp_r[orow[d]], tree.mask_opp[card], opp_r[e], ho)
                    trow[e] = e
                    orow[e] = e
                    live[e] = _any_positive(opp_r[e], ho)
                d = e
                node_at[d] = c
                entering = True
                continue
            if k == DECISION and player[n] == trav and not skip:
                actions = num_children[n]
                locked = _locked(locks, n)
                if mode == MODE_BEST_RESPONSE and not locked:
                    for h in range(ht):
                        val[d, h] = act[d, 0, h]
                    for a in range(1, actions):
                        for h in range(ht):
                            val[d, h] = max(val[d, h], act[d, a, h])
                else:
                    _mixed_values(strat[d], act[d], val[d], actions, ht)
                if mode == MODE_CFR and update and not locked:
                    _update_node(n, ht, actions, strat[d], act[d], val[d], own_r[trow[d]],
                                 offset, storage, sched, work)
                if n == record_node:
                    record.actions[:actions, :] = act[d, :actions, :]
            if n == record_node:
                record.value[:] = val[d]
            if d == 0:
                break
            parent = node_at[d - 1]
            i = child_i[d - 1]
            if kind[parent] == DECISION:
                _into_decision_parent(val, act, d, i, player[parent] == trav, ht)
            else:
                _add_chance_child(n, val[d], val[d - 1], ht, tree, iso)
            child_i[d - 1] = i + 1
            d -= 1
        return val[0].copy()

    @numba.njit(nogil=True)
    def walk_tasks(mode, trav, tree, storage, locks, sched, record, terminals, scratch,
                   frontier, iso, tasks, positions, values):
        """The CFR passes of the subtrees ``tasks.start[p]`` for ``p`` in ``positions``, one
        after another: each from the reaches recorded at its frontier chance node
        ``tasks.front[p]`` less the hands its card blocks, its values into ``values[p]``."""
        reach_trav = np.empty(frontier.own.shape[1])
        reach_opp = np.empty(frontier.opp.shape[1])
        below = Frontier(False, False, frontier.chance_index, frontier.own, frontier.opp,
                         frontier.own)
        for p in positions:
            c = tasks.start[p]
            card = tree.chance_card[c]
            _task_reaches(frontier.own[tasks.front[p]], frontier.opp[tasks.front[p]],
                          tree.mask_trav[card], tree.mask_opp[card], reach_trav, reach_opp)
            values[p, :] = walk(mode, trav, tree, storage, locks, sched, record, terminals,
                                scratch, c, True, below, iso, reach_trav, reach_opp)

    return walk, walk_tasks


@numba.njit(cache=True, nogil=True)
def gather_chance_values(tasks, values, tree, iso, front_value):
    """Each frontier chance node's values for the traverser: ``front_value[tasks.front[p]]``
    gets ``chance_weight x values[p]`` over the hands the card leaves, plus the same for each
    isomorphic card with the hands permuted; summed in task order, that is child order, as a
    single sweep sums them."""
    mask_trav = tree.mask_trav
    for p in range(tasks.front.shape[0]):
        i = tasks.front[p]
        c = tasks.start[p]
        w = tree.chance_weight[c]
        card = tree.chance_card[c]
        for h in range(front_value.shape[1]):
            front_value[i, h] += w * (values[p, h] * (0.0 if mask_trav[card, h] else 1.0))
        for k in range(iso.offset[c], iso.offset[c] + iso.size[c]):
            other = iso.card[k]
            perm = iso.perm[iso.row[k]]
            for h in range(front_value.shape[1]):
                front_value[i, h] += w * (values[p, perm[h]]
                                          * (0.0 if mask_trav[other, h] else 1.0))


@numba.njit(cache=True, nogil=True)
def _known_terminal(node, player, opp_reach, out, terminals, scratch):
    """The terminals this package ships, by kind (``Terminals``)."""
    if terminals.kind == TERMINAL_DENSE:
        dense_terminal_kernel(node, player, opp_reach, out, terminals.dense)
    else:
        holdem_terminal_values(node, player, opp_reach, out, terminals.holdem, scratch)


@numba.njit(nogil=True)
def _any_terminal(node, player, opp_reach, out, terminals, scratch):
    """The terminal kernel of ``AnyTerminals`` on its own data."""
    terminals.kernel(node, player, opp_reach, out, terminals.data)


_walk_known, _walk_tasks_known = _walker(_known_terminal)
_walk_any, _walk_tasks_any = _walker(_any_terminal)


# ---------------------------------------------------------------------------------------------
# River batching: one hold'em subtree below the first chance nodes (a turn card's betting),
# with the terminals of each river board evaluated together.
#
# A river board is reached by several turn lines of the same subtree (on the flop benchmark
# about 14 showdowns and 10 folds per board and subtree; a showdown is in a group of 26 on
# average). One showdown is a merge of the two strength orders with a scatter into 52
# per-card sums; evaluated together, each step of the merge serves every showdown of the
# board at once (a loop over lanes the compiler vectorises): 2.2x less work per showdown.
# Folds likewise. Each lane does exactly the arithmetic of ``_showdown_pass`` / ``_fold_pass``,
# in the same order, so the values, and every regret, are the same bits.
#
# The subtree is swept in three steps: the turn betting with the river chance nodes as
# frontier leaves (their reaches recorded); then river card by river card, every turn line's
# river subtree for that card: opponent reaches down to the terminals (recorded), the board's
# terminals together, and the traverser's pass back up with those values (regrets and sums
# updated); the river chance values summed in child order; then the turn betting again with
# those values, updating the turn's regrets.

RIVER_MIN_LANES = 6
"""Showdowns (or folds) of one board below which they are evaluated one by one (a vectorised
loop over fewer lanes costs more than it saves)."""
RIVER_MAX_LANES = 32
"""Terminals evaluated in one pass over the hands (the scratch grows with it; 24-32 lanes are
within 1% of the asymptote)."""


@numba.njit(cache=True, nogil=True, inline="always")
def _gathered_lanes(rows, slots, lanes, oidx, ocnt):
    """``out[k, q] = rows[slots[q], oidx[k]]``: the lanes' opponent reaches in the order of
    ``oidx``, one row of lanes per hand (a fresh array: it aliases nothing)."""
    out = np.empty((ocnt, lanes))
    for k in range(ocnt):
        o = oidx[k]
        for q in range(lanes):
            out[k, q] = rows[slots[q], o]
    return out


@numba.njit(cache=True, nogil=True, inline="always")
def _add_lanes(r, total, a, c, lanes):
    """One opponent hand into every lane: its reach ``r`` added to the total and to both of
    its cards' sums."""
    for q in range(lanes):
        total[q] += r[q]
        a[q] += r[q]
        c[q] += r[q]


@numba.njit(cache=True, nogil=True, inline="always")
def _scattered_lanes(values, rows, slots, lanes, idx, cnt):
    """``rows[slots[q]]``: 0, then ``values[k, q]`` at hand ``idx[k]``."""
    hands = rows.shape[1]
    for q in range(lanes):
        row = rows[slots[q]]
        for h in range(hands):
            row[h] = 0.0
        for k in range(cnt):
            row[idx[k]] = values[k, q]


@numba.njit(cache=True, nogil=True)
def _showdown_lanes(lanes, slots, rows, cnt, idx, strn, cards, ocnt, oidx, ostr, ocards, win,
                    lose):
    """``_showdown_pass`` (first values stored) for ``lanes`` showdowns of one board at once:
    lane ``q`` reads the opponent's reach from ``rows[slots[q]]`` and writes its values there
    (0 for the hands the board blocks), with ``win[q]`` / ``lose[q]``. The scratch is
    allocated here: fresh arrays alias nothing, so the loops over lanes vectorise."""
    reach = _gathered_lanes(rows, slots, lanes, oidx, ocnt)
    sums = np.zeros((NUM_CARDS, lanes))
    total = np.zeros(lanes)
    below = np.empty((cnt, lanes))
    first = np.empty((cnt, lanes))
    j = 0
    k = 0
    while k < cnt:
        s = strn[k]
        while j < ocnt and ostr[j] < s:
            _add_lanes(reach[j], total, sums[ocards[j, 0]], sums[ocards[j, 1]], lanes)
            j += 1
        g = k
        while g < cnt and strn[g] == s:
            a = sums[cards[g, 0]]
            c = sums[cards[g, 1]]
            f = first[g]
            for q in range(lanes):
                f[q] = win[q] * (total[q] - a[q] - c[q])
            g += 1
        while j < ocnt and ostr[j] == s:
            _add_lanes(reach[j], total, sums[ocards[j, 0]], sums[ocards[j, 1]], lanes)
            j += 1
        for m in range(k, g):
            a = sums[cards[m, 0]]
            c = sums[cards[m, 1]]
            b = below[m]
            for q in range(lanes):
                b[q] = total[q] - a[q] - c[q]
        k = g
    while j < ocnt:
        _add_lanes(reach[j], total, sums[ocards[j, 0]], sums[ocards[j, 1]], lanes)
        j += 1
    for m in range(cnt):
        a = sums[cards[m, 0]]
        c = sums[cards[m, 1]]
        b = below[m]
        f = first[m]
        for q in range(lanes):
            f[q] = f[q] + lose[q] * (total[q] - a[q] - c[q] - b[q])
    _scattered_lanes(first, rows, slots, lanes, idx, cnt)


@numba.njit(cache=True, nogil=True)
def _fold_lanes(lanes, slots, rows, cnt, idx, cards, same, ocnt, oidx, ocards, scale):
    """``_fold_pass`` for ``lanes`` folds of one board at once (as ``_showdown_lanes``):
    lane ``q`` reads the opponent's reach from ``rows[slots[q]]`` and writes its values,
    times ``scale[q]``, there."""
    reach = _gathered_lanes(rows, slots, lanes, oidx, ocnt)
    sums = np.zeros((NUM_CARDS, lanes))
    total = np.zeros(lanes)
    for k in range(ocnt):
        _add_lanes(reach[k], total, sums[ocards[k, 0]], sums[ocards[k, 1]], lanes)
    value = np.empty((cnt, lanes))
    for k in range(cnt):
        a = sums[cards[k, 0]]
        c = sums[cards[k, 1]]
        v = value[k]
        for q in range(lanes):
            v[q] = total[q] - a[q] - c[q]
        s = same[idx[k]]
        if s >= 0:  # the identical combo: blocked twice, added back once
            for q in range(lanes):
                v[q] += rows[slots[q], s]
        for q in range(lanes):
            v[q] = scale[q] * v[q]
    _scattered_lanes(value, rows, slots, lanes, idx, cnt)


@numba.njit(cache=True, nogil=True)
def _board_terminals(count, term_node, term_live, rows, trav, holdem, scratch, single, lanes_at):
    """The values of the ``count`` terminals recorded in ``rows`` (each row: the opponent's
    reach in, the traverser's values out): the showdowns with equal stakes and the folds of
    the board of the first live terminal in batches of lanes, every other terminal alone
    (``holdem_terminal_values``), 0 where the opponent's reach was all zero."""
    kind, folder, contrib, board_of = holdem[0], holdem[1], holdem[2], holdem[3]
    opp = 1 - trav
    ht = holdem[4].shape[0] if trav == 0 else holdem[5].shape[0]
    ho = holdem[5].shape[0] if trav == 0 else holdem[4].shape[0]
    width = max(ht, ho)
    showdowns = 0  # slots from the front of lanes_at
    folds = 0  # slots from its back
    board = -1
    for s in range(count):
        if not term_live[s]:
            rows[s, :ht] = 0.0
            continue
        n = term_node[s]
        if board < 0:
            board = board_of[n]
        if board_of[n] == board:
            if kind[n] == 2:
                folds += 1
                lanes_at[lanes_at.shape[0] - folds] = s
                continue
            if contrib[n, 0] == contrib[n, 1]:
                lanes_at[showdowns] = s
                showdowns += 1
                continue
        holdem_terminal_values(n, trav, rows[s, :ho], single, holdem, scratch)
        rows[s, :ht] = single[:ht]
    if board < 0:  # no terminal had any opponent reach
        return
    (same, cnt, fidx, fcards, sidx, sstr, scards, ocnt, ofidx, ofcards, osidx, osstr,
     oscards) = board_tables(holdem, trav, board)
    if folds >= RIVER_MIN_LANES:
        end = lanes_at.shape[0]
        for start in range(end - folds, end, RIVER_MAX_LANES):
            lanes = min(RIVER_MAX_LANES, end - start)
            slots = lanes_at[start:start + lanes]
            scale = np.empty(lanes)
            for q in range(lanes):
                n = term_node[slots[q]]
                scale[q] = contrib[n, opp] if folder[n] == opp else -contrib[n, trav]
            _fold_lanes(lanes, slots, rows[:, :width], cnt, fidx, fcards, same, ocnt, ofidx,
                        ofcards, scale)
    else:
        for q in range(lanes_at.shape[0] - folds, lanes_at.shape[0]):
            s = lanes_at[q]
            holdem_terminal_values(term_node[s], trav, rows[s, :ho], single, holdem, scratch)
            rows[s, :ht] = single[:ht]
    if showdowns < RIVER_MIN_LANES:
        for q in range(showdowns):
            s = lanes_at[q]
            holdem_terminal_values(term_node[s], trav, rows[s, :ho], single, holdem, scratch)
            rows[s, :ht] = single[:ht]
        return
    for start in range(0, showdowns, RIVER_MAX_LANES):
        lanes = min(RIVER_MAX_LANES, showdowns - start)
        slots = lanes_at[start:start + lanes]
        win = np.empty(lanes)
        lose = np.empty(lanes)
        for q in range(lanes):
            n = term_node[slots[q]]
            win[q] = contrib[n, opp]
            lose[q] = -contrib[n, trav]
        _showdown_lanes(lanes, slots, rows[:, :width], cnt, sidx, sstr, scards, ocnt, osidx,
                        osstr, oscards, win, lose)


@numba.njit(cache=True, nogil=True)
def sweep_tasks_rivers(mode, trav, tree, storage, locks, sched, record, holdem, frontier, iso,
                       tasks, rivers, positions, values):
    """``sweep_tasks_cached``'s ``MODE_CFR`` passes (hold'em terminals ``holdem``;
    ``record`` is the turn sweeps' unused record) with each river board's showdowns and folds
    evaluated together (see above): the same values, regrets and sums, bit for bit.
    ``rivers.nodes[rivers.start[p]:rivers.start[p + 1]]`` are the river chance nodes of
    subtree ``p``, each at its row ``frontier.chance_index[n]`` of the subtree's frontier, all
    dealing the same cards in the same order."""
    ht = frontier.own.shape[1]
    ho = frontier.opp.shape[1]
    width = max(ht, ho)
    scratch = np.empty(NUM_CARDS + width)
    reach_trav = np.empty(ht)
    reach_opp = np.empty(ho)
    dense = (np.zeros((0, 0, 0)), np.zeros(0, dtype=np.int64), np.zeros(0))
    terminals = Terminals(TERMINAL_HOLDEM, dense, holdem)
    river_start, river_nodes = rivers.start, rivers.nodes
    kind, player, offset = tree.kind, tree.player, tree.offset
    first_child, num_children = tree.first_child, tree.num_children
    chance_card, mask_trav, mask_opp = tree.chance_card, tree.mask_trav, tree.mask_opp
    most = 1
    for p in positions:
        most = max(most, river_start[p + 1] - river_start[p])
    r_own = np.zeros((most, ht))
    r_opp = np.zeros((most, ho))
    r_val = np.zeros((most, ht))
    recording = Frontier(True, True, frontier.chance_index, r_own, r_opp, r_val)
    valued = Frontier(True, False, frontier.chance_index, r_own, r_opp, r_val)
    group = max(rivers.max_group, 1)
    rows = np.empty((group, width))
    term_node = np.empty(group, dtype=np.int64)
    term_live = np.empty(group, dtype=np.bool_)
    lanes_at = np.empty(group, dtype=np.int64)
    single = np.empty(width)
    depth = tree.max_depth + 1
    own_r = np.empty((depth, ht))
    opp_r = np.empty((depth, ho))
    val = np.zeros((depth, ht))
    strat = np.empty((depth, tree.max_actions, width))
    act = np.empty((depth, tree.max_actions, ht))
    total = np.empty(2 * width)
    work = np.empty(tree.max_actions * width)
    node_at = np.zeros(depth + 1, dtype=np.int64)
    child_i = np.zeros(depth + 1, dtype=np.int64)
    row_at = np.zeros(depth, dtype=np.int64)
    live = np.zeros(depth, dtype=np.bool_)
    for p in positions:
        c = tasks.start[p]
        _task_reaches(frontier.own[tasks.front[p]], frontier.opp[tasks.front[p]],
                      mask_trav[chance_card[c]], mask_opp[chance_card[c]], reach_trav, reach_opp)
        # 1. The turn betting, recording the reaches at its river chance nodes.
        _walk_known(mode, trav, tree, storage, locks, sched, record, terminals, scratch, c,
                    False, recording, iso, reach_trav, reach_opp)
        first = river_start[p]
        count_rivers = river_start[p + 1] - first
        r_val[:count_rivers, :] = 0.0
        cards_dealt = num_children[river_nodes[first]] if count_rivers > 0 else 0
        # 2. River card by river card: every turn line's subtree for that card.
        for j in range(cards_dealt):
            count = 0
            for q in range(count_rivers):
                s = first_child[river_nodes[first + q]] + j
                _masked(r_opp[q], mask_opp[chance_card[s]], opp_r[0], ho)
                live[0] = _any_positive(opp_r[0], ho)
                row_at[0] = 0
                d = 0
                node_at[0] = s
                entering = True
                while True:  # the opponent's reaches down to the terminals, recorded
                    n = node_at[d]
                    if entering:
                        entering = False
                        child_i[d] = 0
                        if kind[n] >= 2:
                            term_node[count] = n
                            term_live[count] = live[d]
                            if live[d]:
                                rows[count, :ho] = opp_r[row_at[d]]
                            count += 1
                        elif player[n] != trav and live[d]:
                            node_strategy(n, ho, num_children[n], False, offset, storage, locks,
                                          total, strat[d])
                    if kind[n] < 2 and child_i[d] < num_children[n]:
                        e = d + 1
                        if player[n] == trav or not live[d]:
                            row_at[e] = row_at[d]
                            live[e] = live[d]
                        else:
                            live[e] = _scaled_live(opp_r[row_at[d]], strat[d, child_i[d]],
                                                   opp_r[e], ho)
                            row_at[e] = e
                        node_at[e] = first_child[n] + child_i[d]
                        d = e
                        entering = True
                        continue
                    if d == 0:
                        break
                    child_i[d - 1] += 1
                    d -= 1
            _board_terminals(count, term_node, term_live, rows, trav, holdem, scratch, single,
                             lanes_at)
            count = 0
            for q in range(count_rivers):
                s = first_child[river_nodes[first + q]] + j
                _masked(r_own[q], mask_trav[chance_card[s]], own_r[0], ht)
                row_at[0] = 0
                d = 0
                node_at[0] = s
                entering = True
                while True:  # the traverser's pass back up, with the terminals' values
                    n = node_at[d]
                    if entering:
                        entering = False
                        child_i[d] = 0
                        if kind[n] >= 2:
                            val[d, :] = rows[count, :ht]
                            count += 1
                        elif player[n] == trav:
                            node_strategy(n, ht, num_children[n], False, offset, storage, locks,
                                          total, strat[d])
                    if kind[n] < 2 and child_i[d] < num_children[n]:
                        e = d + 1
                        if player[n] == trav:
                            _product(own_r[row_at[d]], strat[d, child_i[d]], own_r[e], ht)
                            row_at[e] = e
                        else:
                            row_at[e] = row_at[d]
                        node_at[e] = first_child[n] + child_i[d]
                        d = e
                        entering = True
                        continue
                    if kind[n] < 2 and player[n] == trav:
                        actions = num_children[n]
                        _mixed_values(strat[d], act[d], val[d], actions, ht)
                        if not _locked(locks, n):
                            _update_node(n, ht, actions, strat[d], act[d], val[d],
                                         own_r[row_at[d]], offset, storage, sched, work)
                    if d == 0:
                        break
                    a = child_i[d - 1]
                    _into_decision_parent(val, act, d, a, player[node_at[d - 1]] == trav, ht)
                    child_i[d - 1] = a + 1
                    d -= 1
                _add_chance_child(s, val[0], r_val[q], ht, tree, iso)
        # 3. The turn betting again, with the river chance values: its regrets and sums.
        values[p, :] = _walk_known(mode, trav, tree, storage, locks, sched, record, terminals,
                                   scratch, c, True, valued, iso, reach_trav, reach_opp)


# Not cached: its terminal kernel arrives in ``terminals``, which numba types by the kernel
# dispatcher's identity (a cache entry could not be found again in the next process). The
# solver calls ``sweep_cached`` for the terminals this package ships.
@numba.njit(nogil=True)
def sweep(mode, trav, tree, storage, locks, sched, record, terminals, start, update,
          frontier, iso, reach_trav, reach_opp):
    """One pass for traverser ``trav`` over the subtree of ``start`` (its reaches given);
    returns its counterfactual values at ``start``.

    Args: the groups of the module's docstring; ``sched`` a ``Discounts``; ``terminals`` an
    ``AnyTerminals``. ``update``: whether ``MODE_CFR`` updates regrets and sums. With
    ``frontier.on``, chance nodes are leaves: the pass records the reaches there
    (``frontier.record``) or reads their values from ``frontier.value``, so that the subtrees
    below can be swept apart (in parallel) in between. A chance child standing for isomorphic
    cards adds, for each, its values with the traverser's hands permuted (``iso``).
    """
    return _walk_any(mode, trav, tree, storage, locks, sched, record, terminals, np.empty(0),
                     start, update, frontier, iso, reach_trav, reach_opp)


@numba.njit(cache=True, nogil=True)
def sweep_cached(mode, trav, tree, storage, locks, sched, record, terminals, start, update,
                 frontier, iso, reach_trav, reach_opp):
    """``sweep`` with the terminals this package ships (``terminals`` a ``Terminals``), always
    typed the same, so the compiled code is cached on disk across processes."""
    scratch = np.empty(NUM_CARDS + max(reach_trav.shape[0], reach_opp.shape[0]))
    return _walk_known(mode, trav, tree, storage, locks, sched, record, terminals, scratch,
                       start, update, frontier, iso, reach_trav, reach_opp)


# The parallel CFR pass's middle step: many subtrees in one call (a dispatch per subtree cost
# more than the Python around it and made the threads hand the interpreter lock back and
# forth several hundred times a pass).
@numba.njit(nogil=True)
def sweep_tasks(mode, trav, tree, storage, locks, sched, record, terminals, frontier, iso,
                tasks, positions, values):
    """``MODE_CFR`` passes of the subtrees ``positions`` of ``tasks``, below the frontier
    chance nodes whose reaches ``frontier`` recorded (``walk_tasks`` in ``_walker``), with any
    terminal kernel (as ``sweep``); their values into ``values[p]``."""
    _walk_tasks_any(mode, trav, tree, storage, locks, sched, record, terminals, np.empty(0),
                    frontier, iso, tasks, positions, values)


@numba.njit(cache=True, nogil=True)
def sweep_tasks_cached(mode, trav, tree, storage, locks, sched, record, terminals, frontier,
                       iso, tasks, positions, values):
    """``sweep_tasks`` with the terminals this package ships (as ``sweep_cached``)."""
    scratch = np.empty(NUM_CARDS + max(frontier.own.shape[1], frontier.opp.shape[1]))
    _walk_tasks_known(mode, trav, tree, storage, locks, sched, record, terminals, scratch,
                      frontier, iso, tasks, positions, values)
