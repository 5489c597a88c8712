"""Hold'em terminal values and chance steps without H x H work (compiled with numba).

* **Folds** (:func:`fold_reach`): for each of player p's hands, the opponent's reach summed over
  the hands sharing no card with it, by inclusion-exclusion over 52 per-card sums: the total,
  minus the sums over each of p's two cards, plus the reach of the very same combo (subtracted
  twice). O(H) per node.
* **Showdowns** (:func:`showdown_sums`): both players' hands sorted by strength on the node's
  five-card board; one sweep upwards accumulates the reach of strictly weaker opponent hands,
  one downwards that of strictly stronger ones, each keeping 52 per-card sums so the hands
  sharing a card with the current one are removed in O(1). Ties are what is left. O(H) per
  node once the board's order is known (computed once per river board).
* **Chance** (:func:`chance_reach`, :func:`chance_weight`): a dealt card zeroes the reach of the
  hands holding it; its probability is 1/45 on the turn and 1/44 on the river heads-up.

Why 1/45 and 1/44, not 1/47 and 1/46 (TexasSolver's, github.com/bupticybee/TexasSolver/issues/95):
a counterfactual value at a chance node sums, for a fixed pair of hands (h, h'), over the
cards that can come. Given both players' hole cards the deck holds 52 - 3 (flop) - 4 (hole
cards) = 45 cards, each equally likely, so each turn card has probability 1/45 (and each river
card 1/44) *for that pair*. The cards a pair blocks are exactly the children where that pair's
reach is zero, so the weight per child must be 1/45 for every pair; 1/47 counts the two
players' own cards as if they could be dealt, scaling every post-chance value by 45/47 and
biasing the solution toward earlier streets.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.holdem.arrays import hand_value
from pokerzoo.games.holdem.cards import evaluate_7
from pokerzoo.public.engine.tree import FOLD, PublicTree

NUM_CARDS = 52
TURN_WEIGHT = 1.0 / 45.0
"""Probability of each turn card heads-up: 52 - 3 board cards - 4 hole cards = 45 left."""
RIVER_WEIGHT = 1.0 / 44.0
"""Probability of each river card heads-up: 52 - 4 board cards - 4 hole cards = 44 left."""


def chance_weight(board_size: int, num_players: int = 2) -> float:
    """Probability of one public card dealt onto a board of ``board_size`` cards, given every
    player's two hole cards (see the module docstring)."""
    left = NUM_CARDS - board_size - 2 * num_players
    if board_size not in (3, 4) or left <= 0:
        raise ConfigError(f"cards are dealt onto a board of 3 or 4 cards, not {board_size}")
    return 1.0 / left


@numba.njit(cache=True, nogil=True)
def card_sums(
    hands: np.ndarray, reach: np.ndarray, board_mask: np.ndarray, sums: np.ndarray
) -> float:
    """Fill ``sums[52]`` with the reach of the hands holding each card, leaving out hands
    blocked by ``board_mask[52]``; return the total."""
    sums[:] = 0.0
    total = 0.0
    for j in range(hands.shape[0]):
        r = reach[j]
        if r != 0.0 and not (board_mask[hands[j, 0]] or board_mask[hands[j, 1]]):
            total += r
            sums[hands[j, 0]] += r
            sums[hands[j, 1]] += r
    return total


@numba.njit(cache=True, nogil=True)
def fold_reach(
    hands: np.ndarray,
    same: np.ndarray,
    opp_hands: np.ndarray,
    opp_reach: np.ndarray,
    board_mask: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[i]``: the opponent's reach over hands sharing no card with ``hands[i]`` nor with
    the board ``board_mask[52]`` (0 for a hand blocked by the board). ``same[i]``: the
    opponent's index of the same combo, or -1."""
    sums = np.empty(NUM_CARDS)
    total = card_sums(opp_hands, opp_reach, board_mask, sums)
    for i in range(hands.shape[0]):
        a, b = hands[i, 0], hands[i, 1]
        if board_mask[a] or board_mask[b]:
            out[i] = 0.0
            continue
        v = total - sums[a] - sums[b]
        if same[i] >= 0:
            v += opp_reach[same[i]]
        out[i] = v


@numba.njit(cache=True, nogil=True)
def _sweep(
    hands: np.ndarray,
    order: np.ndarray,
    strength: np.ndarray,
    opp_hands: np.ndarray,
    opp_order: np.ndarray,
    opp_strength: np.ndarray,
    opp_reach: np.ndarray,
    upwards: bool,
    coef: float,
    out: np.ndarray,
) -> None:
    """``out[i] += coef * R``: R the opponent's reach over compatible hands strictly weaker
    (``upwards``) or strictly stronger than ``hands[i]``, in one pass over both sorted lists."""
    sums = np.zeros(NUM_CARDS)
    total = 0.0
    m = opp_order.shape[0]
    n = order.shape[0]
    j = 0 if upwards else m - 1
    for step in range(n):
        i = order[step] if upwards else order[n - 1 - step]
        s = strength[i]
        while 0 <= j < m and (
            opp_strength[opp_order[j]] < s if upwards else opp_strength[opp_order[j]] > s
        ):
            h = opp_order[j]
            r = opp_reach[h]
            total += r
            sums[opp_hands[h, 0]] += r
            sums[opp_hands[h, 1]] += r
            j += 1 if upwards else -1
        out[i] += coef * (total - sums[hands[i, 0]] - sums[hands[i, 1]])


@numba.njit(cache=True, nogil=True)
def showdown_sums(
    hands: np.ndarray,
    order: np.ndarray,
    strength: np.ndarray,
    opp_hands: np.ndarray,
    opp_order: np.ndarray,
    opp_strength: np.ndarray,
    opp_reach: np.ndarray,
    win: np.ndarray,
    lose: np.ndarray,
) -> None:
    """Two sweeps: ``win[i]`` / ``lose[i]`` the opponent's reach over compatible hands strictly
    weaker / stronger than ``hands[i]``. ``order`` / ``opp_order`` list the hands not blocked by
    the board in increasing ``strength`` (larger is stronger); others get 0."""
    win[:] = 0.0
    lose[:] = 0.0
    _sweep(hands, order, strength, opp_hands, opp_order, opp_strength, opp_reach, True, 1.0,
           win)
    _sweep(hands, order, strength, opp_hands, opp_order, opp_strength, opp_reach, False, 1.0,
           lose)


@numba.njit(cache=True, nogil=True)
def showdown_values(
    hands: np.ndarray,
    same: np.ndarray,
    order: np.ndarray,
    strength: np.ndarray,
    opp_hands: np.ndarray,
    opp_order: np.ndarray,
    opp_strength: np.ndarray,
    opp_reach: np.ndarray,
    board_mask: np.ndarray,
    win_amount: float,
    lose_amount: float,
    tie_amount: float,
    out: np.ndarray,
) -> None:
    """``out[i] = win_amount * W + lose_amount * L + tie_amount * T`` with W, L the reach of
    compatible weaker / stronger opponent hands and T that of compatible ties (with ties, the
    compatible total is taken once and the sweeps add ``amount - tie_amount``)."""
    if tie_amount == 0.0:
        out[:] = 0.0
    else:
        fold_reach(hands, same, opp_hands, opp_reach, board_mask, out)
        for i in range(out.shape[0]):
            out[i] *= tie_amount
    _sweep(hands, order, strength, opp_hands, opp_order, opp_strength, opp_reach, True,
           win_amount - tie_amount, out)
    _sweep(hands, order, strength, opp_hands, opp_order, opp_strength, opp_reach, False,
           lose_amount - tie_amount, out)


@numba.njit(cache=True, nogil=True)
def chance_reach(hands: np.ndarray, reach: np.ndarray, card: int, out: np.ndarray) -> None:
    """``out``: ``reach`` with the hands holding the dealt ``card`` zeroed."""
    for i in range(hands.shape[0]):
        out[i] = 0.0 if hands[i, 0] == card or hands[i, 1] == card else reach[i]


def same_combo_index(hands: np.ndarray, opp_hands: np.ndarray) -> np.ndarray:
    """For each hand, the index of the same two cards in ``opp_hands`` (-1 if absent)."""
    where = np.full((NUM_CARDS, NUM_CARDS), -1, dtype=np.int64)
    lo = np.minimum(opp_hands[:, 0], opp_hands[:, 1])
    hi = np.maximum(opp_hands[:, 0], opp_hands[:, 1])
    where[lo, hi] = np.arange(opp_hands.shape[0])
    a, b = np.minimum(hands[:, 0], hands[:, 1]), np.maximum(hands[:, 0], hands[:, 1])
    return where[a, b]


def board_mask(board: np.ndarray | list[int]) -> np.ndarray:
    """Bool ``[52]`` of the cards on a board (-1 entries ignored)."""
    mask = np.zeros(NUM_CARDS, dtype=np.bool_)
    cards = np.asarray(board, dtype=np.int64)
    mask[cards[cards >= 0]] = True
    return mask


def hand_strengths(hands: np.ndarray, board: list[int]) -> np.ndarray:
    """Strength (larger is stronger; -1 for a hand blocked by the board) of each two-card hand
    on a five-card board, from :func:`pokerzoo.games.holdem.cards.evaluate_7`."""
    if len(board) != 5:
        raise ConfigError(f"a showdown needs a five-card board, got {len(board)} cards")
    b0, b1, b2, b3, b4 = (int(c) for c in board)
    blocked = set(board)
    out = np.empty(hands.shape[0], dtype=np.int32)
    for i, (a, b) in enumerate(hands.tolist()):
        out[i] = -1 if a in blocked or b in blocked else 7463 - evaluate_7(a, b, b0, b1, b2, b3, b4)
    return out


@numba.njit(cache=True, nogil=True)
def _board_values(hands: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """``hand_value`` of each hand on each five-card board (``[B, H]``; -1 where the board
    blocks the hand)."""
    out = np.empty((boards.shape[0], hands.shape[0]), dtype=np.int64)
    cards = np.empty(7, dtype=np.int64)
    counts = np.empty(13, dtype=np.int64)
    for b in range(boards.shape[0]):
        for k in range(5):
            cards[2 + k] = boards[b, k]
        for i in range(hands.shape[0]):
            cards[0], cards[1] = hands[i, 0], hands[i, 1]
            blocked = False
            for k in range(5):
                blocked |= boards[b, k] == cards[0] or boards[b, k] == cards[1]
            out[b, i] = -1 if blocked else hand_value(cards, counts)
    return out


def board_strengths(hands: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """:func:`hand_strengths` of ``hands`` on each row of ``boards`` (``[B, 5]``), as
    ``[B, H]`` int32: the same numbers, from the compiled evaluator.

    The compiled ``hand_value`` orders hands as phevaluator does (equal values tie), so one
    phevaluator call per distinct value turns values into strengths; were a value to map to
    a strength out of order, the hands are evaluated one by one instead."""
    hands = np.ascontiguousarray(hands, dtype=np.int64)
    boards = np.ascontiguousarray(boards, dtype=np.int64).reshape(-1, 5)
    values = _board_values(hands, boards)
    out = np.full(values.shape, -1, dtype=np.int32)
    seen = values >= 0
    distinct, first, inverse = np.unique(values[seen], return_index=True, return_inverse=True)
    where = np.argwhere(seen)[first]
    strength = np.array([7463 - evaluate_7(*hands[i].tolist(), *boards[b].tolist())
                         for b, i in where.tolist()], dtype=np.int32)
    if np.any(np.diff(strength) <= 0):
        return np.stack([hand_strengths(hands, row) for row in boards.tolist()])
    out[seen] = strength[inverse.reshape(-1)]
    return out


def strength_order(strength: np.ndarray) -> np.ndarray:
    """The unblocked hands (strength >= 0) in increasing strength."""
    idx = np.flatnonzero(strength >= 0)
    return idx[np.argsort(strength[idx], kind="stable")].astype(np.int64)


@numba.njit(cache=True, nogil=True)
def _fold_pass(cnt, idx, cards, same, ocnt, oidx, ocards, opp_reach, scale, sums, out):
    """``out[idx[k]] = scale x`` the opponent's reach over hands sharing no card with hand
    ``idx[k]`` (``fold_reach`` over the board's unblocked hands)."""
    sums[:] = 0.0
    total = 0.0
    for k in range(ocnt):
        r = opp_reach[oidx[k]]
        total += r
        sums[ocards[k, 0]] += r
        sums[ocards[k, 1]] += r
    for k in range(cnt):
        i = idx[k]
        v = total - sums[cards[k, 0]] - sums[cards[k, 1]]
        s = same[i]
        if s >= 0:
            v += opp_reach[s]
        out[i] = scale * v


@numba.njit(cache=True, nogil=True)
def _showdown_pass(cnt, idx, strn, cards, ocnt, oidx, ostr, ocards, opp_reach, win, lose, sums,
                   below, out, first):
    """``out[idx[k]] += win x W + lose x L``: W / L the opponent's reach over compatible hands
    strictly weaker / stronger. One merge of the two strength orders: per strength class of
    the own hands, W is read before the opponent's equal hands are added and ``below[k]``
    (weaker or equal, blocked pairs taken out) after; once every opponent hand is in the
    sums, L is the compatible total minus ``below[k]`` (the identical combo, equal in
    strength, cancels). Half the merges of a sweep from each end, and no gathered copy of
    the reach."""
    sums[:] = 0.0
    total = 0.0
    j = 0
    k = 0
    while k < cnt:
        s = strn[k]
        while j < ocnt and ostr[j] < s:
            r = opp_reach[oidx[j]]
            total += r
            sums[ocards[j, 0]] += r
            sums[ocards[j, 1]] += r
            j += 1
        g = k
        while g < cnt and strn[g] == s:
            v = win * (total - sums[cards[g, 0]] - sums[cards[g, 1]])
            # ``first``: nothing was written for these hands yet (a store, not an addition).
            out[idx[g]] = v if first else out[idx[g]] + v
            g += 1
        while j < ocnt and ostr[j] == s:
            r = opp_reach[oidx[j]]
            total += r
            sums[ocards[j, 0]] += r
            sums[ocards[j, 1]] += r
            j += 1
        for m in range(k, g):
            below[m] = total - sums[cards[m, 0]] - sums[cards[m, 1]]
        k = g
    while j < ocnt:
        r = opp_reach[oidx[j]]
        total += r
        sums[ocards[j, 0]] += r
        sums[ocards[j, 1]] += r
        j += 1
    for m in range(cnt):
        out[idx[m]] += lose * (total - sums[cards[m, 0]] - sums[cards[m, 1]] - below[m])


@numba.njit(cache=True, nogil=True, inline="always")
def board_tables(data, player, b):
    """``player``'s tables of board ``b`` in ``compiled()``'s ``data``: its identical-combo
    index, count of unblocked hands, those hands in hand order with their cards, in strength
    order with strengths and cards; then the opponent's count and the same four tables."""
    (_, _, _, _, same0, same1, cnt0, cnt1, fidx0, fidx1, fcards0, fcards1, sidx0, sidx1, sstr0,
     sstr1, scards0, scards1) = data
    if player == 0:
        return (same0, cnt0[b], fidx0[b], fcards0[b], sidx0[b], sstr0[b], scards0[b], cnt1[b],
                fidx1[b], fcards1[b], sidx1[b], sstr1[b], scards1[b])
    return (same1, cnt1[b], fidx1[b], fcards1[b], sidx1[b], sstr1[b], scards1[b], cnt0[b],
            fidx0[b], fcards0[b], sidx0[b], sstr0[b], scards0[b])


@numba.njit(cache=True, nogil=True)
def holdem_terminal_values(node, player, opp_reach, out, data, scratch):
    """:meth:`HoldemTerminals.values` on the compiled tables of ``compiled()`` (``data``), with
    ``scratch`` a float64 array of at least ``52 + H_player`` entries (nothing allocated).

    Per board of the tree, each player's hands not blocked by it are listed with their cards,
    in hand order (folds: the sums come out bit for bit as ``fold_reach``'s) and, on five-card
    boards, in increasing strength (showdowns), so both read their hands in sequence. No
    branch on the reach: sparse reaches would defeat the branch predictor."""
    kind, folder, contrib, board_of = data[0], data[1], data[2], data[3]
    opp = 1 - player
    mine = contrib[node, player]
    theirs = contrib[node, opp]
    (same, cnt, fidx, fcards, sidx, sstr, scards, ocnt, ofidx, ofcards, osidx, osstr,
     oscards) = board_tables(data, player, board_of[node])
    out[:] = 0.0
    sums = scratch[:NUM_CARDS]
    if kind[node] == 2:  # FOLD
        scale = theirs if folder[node] == opp else -mine
        _fold_pass(cnt, fidx, fcards, same, ocnt, ofidx, ofcards, opp_reach, scale, sums, out)
        return
    tie = (theirs - mine) / 2.0
    if tie != 0.0:
        _fold_pass(cnt, fidx, fcards, same, ocnt, ofidx, ofcards, opp_reach, tie, sums, out)
    # Compacting the nonzero reaches first was tried: slower (the merge's comparisons and
    # the own hands dominate), so the zeros are added like any reach.
    _showdown_pass(cnt, sidx, sstr, scards, ocnt, osidx, osstr, oscards, opp_reach,
                   theirs - tie, -mine - tie, sums, scratch[NUM_CARDS:NUM_CARDS + cnt], out,
                   tie == 0.0)


@numba.njit(cache=True, nogil=True)
def holdem_terminal_kernel(
    node: int, player: int, opp_reach: np.ndarray, out: np.ndarray, data: tuple
) -> None:
    """The compiled form of :meth:`HoldemTerminals.values` (``data`` from ``compiled()``);
    allocates its scratch (the solver's own sweep passes one instead)."""
    scratch = np.empty(NUM_CARDS + max(data[4].shape[0], data[5].shape[0]))
    holdem_terminal_values(node, player, opp_reach, out, data, scratch)


def empty_tables() -> tuple[Any, ...]:
    """A ``compiled()`` data tuple of no tree (the typed placeholder of trees without hold'em
    terminals in ``sweep_kernel.sweep_cached``)."""
    i8, i32, i64 = np.zeros(0, np.int8), np.zeros(0, np.int32), np.zeros(0, np.int64)
    i16, cards = np.zeros((0, 0), np.int16), np.zeros((0, 0, 2), np.uint8)
    return (i8, i8, np.zeros((0, 2)), i32, i64, i64, i64, i64, i16, i16, cards, cards, i16, i16,
            i16, i16, cards, cards)


class HoldemTerminals:
    """The :class:`~pokerzoo.public.engine.tree.TerminalValues` of a hold'em public tree.

    Built from both players' hand lists and the five-card boards its showdowns are on;
    ``showdown_board(board)`` gives the index a showdown terminal stores in ``terminal_data``.
    Strengths and sorted orders are computed once per river board.
    """

    def __init__(self, hands: tuple[np.ndarray, np.ndarray]) -> None:
        self.hands = tuple(np.ascontiguousarray(h, dtype=np.int64) for h in hands)
        self.same = (
            same_combo_index(self.hands[0], self.hands[1]),
            same_combo_index(self.hands[1], self.hands[0]),
        )
        self._boards: dict[tuple[int, ...], int] = {}
        self._strength: list[tuple[np.ndarray, np.ndarray]] = []
        self._order: list[tuple[np.ndarray, np.ndarray]] = []
        self._masks: dict[int, np.ndarray] = {}
        self._data: tuple[Any, ...] | None = None
        self._data_tree: PublicTree | None = None
        self.spot: dict[str, Any] | None = None
        """The fields of the ``HoldemSpot`` the tree was built from (saved with it)."""

    def state_dict(self) -> dict[str, Any]:
        """What :meth:`from_state` needs (strengths are recomputed, in the same order)."""
        boards = np.array(sorted(self._boards, key=self._boards.__getitem__), dtype=np.int64)
        return {"hands": [np.array(h) for h in self.hands],
                "showdown_boards": boards.reshape(-1, 5), "spot": self.spot}

    @classmethod
    def from_state(cls, tree: PublicTree, state: dict[str, Any]) -> HoldemTerminals:
        """The terminals :meth:`state_dict` describes, attached to ``tree``."""
        hands = tuple(np.asarray(h, dtype=np.int64) for h in state["hands"])
        if len(hands) != 2 or any(h.ndim != 2 or h.shape[1] != 2 for h in hands):
            raise ConfigError("saved hold'em terminals need two [H, 2] hand arrays")
        out = cls((hands[0], hands[1]))
        for row in np.asarray(state["showdown_boards"], dtype=np.int64).reshape(-1, 5):
            out.showdown_board(row.tolist())
        out.spot = state.get("spot")
        out.attach(tree)
        return out

    def _board_tables(self, board: list[int]) -> tuple[np.ndarray, ...]:
        """Strengths and orders of both players on a five-card board (cached)."""
        t = self.showdown_board(board)
        return self._strength[t] + self._order[t]

    def equity(
        self, tree: PublicTree, node: int, player: int, opp_reach: np.ndarray
    ) -> np.ndarray:
        """Showdown equity of ``player``'s hands at ``node`` against the opponent's reach,
        over every runout of the node's board (the share of the pot won, ties half; NaN where
        no opponent hand is compatible). It does not depend on the strategies below."""
        board = tree.board_cards(node)
        o = 1 - player
        deck = [c for c in range(52) if c not in board]
        if len(board) == 5:
            runouts: list[tuple[tuple[int, ...], float]] = [((), 1.0)]
        elif len(board) == 4:
            runouts = [((c,), 1.0 / 44.0) for c in deck]
        else:  # unordered turn-river pairs: each is two of the 45 * 44 ordered deals
            runouts = [((a, b), 2.0 / (45.0 * 44.0))
                       for i, a in enumerate(deck) for b in deck[i + 1:]]
        reach = np.ascontiguousarray(opp_reach, dtype=np.float64)
        hands, opp_hands = self.hands[player], self.hands[o]
        num = np.zeros(hands.shape[0])
        out = np.empty(hands.shape[0])
        for extra, weight in runouts:
            full = board + list(extra)
            s0, s1, o0, o1 = self._board_tables(full)
            strength, order = (s0, o0) if player == 0 else (s1, o1)
            opp_strength, opp_order = (s1, o1) if player == 0 else (s0, o0)
            showdown_values(hands, self.same[player], order, strength, opp_hands, opp_order,
                            opp_strength, reach, board_mask(full), 1.0, 0.0, 0.5, out)
            num += weight * out
        den = np.empty(hands.shape[0])
        fold_reach(hands, self.same[player], opp_hands, reach, board_mask(board), den)
        result = np.full(hands.shape[0], np.nan)
        ok = den > 0
        result[ok] = num[ok] / den[ok]
        return result

    def showdown_board(self, board: list[int] | tuple[int, ...]) -> int:
        """The table index of a five-card board (its hand strengths computed on first use)."""
        key = tuple(sorted(int(c) for c in board))
        index = self._boards.get(key)
        if index is None:
            strength = (hand_strengths(self.hands[0], list(key)),
                        hand_strengths(self.hands[1], list(key)))
            self._strength.append(strength)
            self._order.append((strength_order(strength[0]), strength_order(strength[1])))
            index = self._boards[key] = len(self._strength) - 1
        return index

    def showdown_boards(self, boards: np.ndarray) -> np.ndarray:
        """:meth:`showdown_board` of each row of ``boards`` (``[B, 5]``), in row order: the
        table indices, the strengths of new boards computed together."""
        keys = [tuple(sorted(row)) for row in np.asarray(boards, dtype=np.int64).tolist()]
        new = list(dict.fromkeys(k for k in keys if k not in self._boards))
        if new:
            cards = np.array(new, dtype=np.int64).reshape(-1, 5)
            # Both players' hands evaluated once each (the ranges share most combos).
            both = np.concatenate(self.hands)
            combos, which = np.unique(both[:, 0] * NUM_CARDS + both[:, 1], return_inverse=True)
            strength = board_strengths(np.stack([combos // NUM_CARDS, combos % NUM_CARDS], 1),
                                       cards)[:, which.reshape(-1)]
            size = self.hands[0].shape[0]
            per_player = (strength[:, :size], strength[:, size:])
            # The unblocked hands (strength >= 0) of each board in increasing strength, as
            # strength_order gives them: a stable sort puts the blocked ones (-1) first.
            orders = [np.argsort(s, axis=1, kind="stable") for s in per_player]
            blocked = [np.count_nonzero(s < 0, axis=1) for s in per_player]
            for b, key in enumerate(new):
                self._strength.append((np.ascontiguousarray(per_player[0][b]),
                                       np.ascontiguousarray(per_player[1][b])))
                self._order.append((orders[0][b, blocked[0][b]:],
                                    orders[1][b, blocked[1][b]:]))
                self._boards[key] = len(self._strength) - 1
        return np.array([self._boards[k] for k in keys], dtype=np.int32)

    def attach(self, tree: PublicTree) -> None:
        """Keep the node arrays of the built ``tree`` for :meth:`compiled`."""
        self._tree = tree

    def compiled(self, tree: PublicTree | None = None) -> tuple[Any, tuple[Any, ...]]:
        """``(holdem_terminal_kernel, data)``: the compiled sweep's terminal call (see
        ``pokerzoo.public.engine.tree.CompiledTerminals``) for ``tree`` (default: the attached
        one)."""
        if tree is None:
            tree = getattr(self, "_tree", None)
        if tree is None:
            raise ConfigError("HoldemTerminals.compiled() needs the tree (or attach(tree))")
        if self._data is None or self._data_tree is not tree:
            self._data_tree = tree
            self._data = self._tables(tree)
        return holdem_terminal_kernel, self._data

    def _tables(self, tree: PublicTree) -> tuple[Any, ...]:
        """``compiled()``'s data: per board of ``tree`` and player, the count of hands the
        board does not block, those hands in hand order (``fidx``) and, on five-card boards, in
        increasing strength (``sidx``, with ``sstr`` their strengths), each with its cards."""
        boards = np.asarray(tree.boards, dtype=np.int64)
        num_boards = boards.shape[0]
        # Per board the cards on it, with a 53rd column taking the -1 padding.
        mask = np.zeros((num_boards, NUM_CARDS + 1), dtype=np.bool_)
        mask[np.arange(num_boards)[:, None], boards] = True
        rivers = np.flatnonzero(np.all(boards >= 0, axis=1))
        river_tables = self.showdown_boards(boards[rivers]) if rivers.size else rivers
        tables = []
        for p in range(2):
            hands = self.hands[p]
            size = hands.shape[0]
            blocked = mask[:, hands[:, 0]] | mask[:, hands[:, 1]]
            count = size - np.count_nonzero(blocked, axis=1)
            unused = np.arange(size)[None, :] >= count[:, None]
            # int16: hand indices (at most 1,326) and strengths (at most 7,462) fit, in half
            # the bytes of int32 (these tables grow with boards x hands). A stable sort puts
            # a board's unblocked hands first, in hand order; the rest of a row is 0.
            fidx = np.argsort(blocked, axis=1, kind="stable").astype(np.int16)
            fidx[unused] = 0
            sidx = np.zeros((num_boards, size), dtype=np.int16)
            sstr = np.zeros((num_boards, size), dtype=np.int16)
            if rivers.size:
                st = np.stack([self._strength[t][p] for t in river_tables.tolist()])
                # Blocked hands last, the others by strength, ties in hand order.
                key = np.where(blocked[rivers], np.iinfo(np.int32).max, st)
                ordered = np.argsort(key, axis=1, kind="stable")
                ordered[unused[rivers]] = 0
                strengths = np.take_along_axis(st, ordered, axis=1)
                strengths[unused[rivers]] = 0
                sidx[rivers] = ordered
                sstr[rivers] = strengths
            tables.append((count.astype(np.int64), fidx, hands[fidx].astype(np.uint8), sidx,
                           sstr, hands[sidx].astype(np.uint8)))
        (c0, f0, fc0, s0, st0, sc0), (c1, f1, fc1, s1, st1, sc1) = tables
        return (
            np.asarray(tree.kind, dtype=np.int8), np.asarray(tree.folder, dtype=np.int8),
            np.ascontiguousarray(tree.contrib, dtype=np.float64),
            np.asarray(tree.board, dtype=np.int32), self.same[0], self.same[1], c0, c1, f0, f1,
            fc0, fc1, s0, s1, st0, st1, sc0, sc1,
        )

    def _mask(self, tree: PublicTree, node: int) -> np.ndarray:
        b = int(tree.board[node])
        mask = self._masks.get(b)
        if mask is None:
            mask = self._masks[b] = board_mask(tree.boards[b])
        return mask

    def values(
        self, tree: PublicTree, node: int, player: int, opp_reach: np.ndarray
    ) -> np.ndarray:
        opp = 1 - player
        mine, theirs = float(tree.contrib[node, player]), float(tree.contrib[node, opp])
        out = np.empty(self.hands[player].shape[0])
        reach = np.ascontiguousarray(opp_reach, dtype=np.float64)
        mask = self._mask(tree, node)
        if tree.kind[node] == FOLD:
            fold_reach(self.hands[player], self.same[player], self.hands[opp], reach, mask, out)
            out *= theirs if int(tree.folder[node]) == opp else -mine
            return out
        t = int(tree.terminal_data[node])
        showdown_values(
            self.hands[player], self.same[player], self._order[t][player],
            self._strength[t][player], self.hands[opp], self._order[t][opp],
            self._strength[t][opp], reach, mask, theirs, -mine, (theirs - mine) / 2.0, out,
        )
        return out


__all__ = [
    "HoldemTerminals", "RIVER_WEIGHT", "TURN_WEIGHT", "board_mask", "board_strengths", "card_sums",
    "chance_reach",
    "chance_weight", "fold_reach", "hand_strengths", "holdem_terminal_kernel", "same_combo_index",
    "showdown_sums", "showdown_values", "strength_order",
]  # fmt: skip
