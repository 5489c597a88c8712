"""``HoldemArrays``: limit and no-limit hold'em (2 to 6 seats) as arrays: the batched rules
beside the object rules, played by ``VectorPokerEnv`` and the deep agents' array traversals.

One row per hand; numba kernels advance every row by one action, deal the next streets, pay
side pots at showdown and write the information-state tensors, following the ``HoldemState``
rules to the chip (``tests/envs/test_holdem_arrays.py`` replays 100,000 hands through them).

Each hand is dealt up front, as the other array backends do: a uniformly random ordered draw
of ``2 * num_players + 5`` cards (hole cards seat by seat, then flop, turn and river), the same
distribution as dealing card by card. The public part of each tensor (board, amounts, the
betting history) is kept per row and updated in place, so an observation is one row copy plus
the observer's seat, position, hole cards and amount to call.

Showdowns use ``hand_value``, a compiled 7-card evaluator written for this module: a larger
value is a stronger hand and equal values tie, the same order as the rules' evaluator
(phevaluator, where a smaller rank is stronger).

>>> from pokerzoo.games import load_game
>>> b = HoldemArrays(load_game("no_limit_holdem"), num_envs=3)
>>> b.reset_rows(np.arange(3), np.random.default_rng(0))
>>> b.current_player().tolist(), b.mask()[0].tolist()
([0, 0, 0], [1, 1, 1, 1, 1])
>>> done, returns = b.apply(np.array([0, 1, 4]))  # fold, call, all-in
>>> done.tolist(), returns[0].tolist()
([True, False, False], [-50.0, 50.0])
"""

from __future__ import annotations

import copy
import dataclasses

import numba
import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.arrays import RowArrays
from pokerzoo.games.holdem.game import HoldemGame

# Per-seat chip arrays ``chips[row, kind, seat]``.
STACK, BET, CONTRIB = 0, 1, 2
# Per-seat flags ``flags[row, kind, seat]``: folded, acted since the last full raise, still to
# act in this round (the rules' ``_folded``, ``_acted``, ``_needs``).
FOLDED, ACTED, NEEDS = 0, 1, 2
# Per-hand scalars ``scal[row, column]``: betting round, seat to act, highest bet of the round,
# size of the last full raise, bets and raises this round, seats not folded, board cards dealt,
# actions logged this round.
RND, CUR, MAX_BET, FULL_RAISE, RAISES, LIVE, NBOARD, NACT = range(8)
# Entries of the constant vector ``cfg``: rules, then tensor offsets.
(C_N, C_LIMIT, C_CAP, C_BB, C_SB, C_ANTE, C_PRE, C_POST, C_ACTIONS, C_ALL_IN, C_SLOTS, C_WIDTH,
 O_PLAYER, O_POSITION, O_ROUND, O_HOLE, O_FLOP, O_TURN, O_RIVER, O_POT, O_TO_CALL, O_FOLDED,
 O_ALL_IN, O_BETTING) = range(24)  # fmt: skip
_CFG_SIZE = 24
_ROUND_OF_BOARD = np.array([0, 0, 0, 1, 2, 3], dtype=np.int64)  # board cards dealt -> round
_FLUSH_RANKS = 5


# ------------------------------------------------------------------------------ hand values


@numba.njit(cache=True)
def _straight_high(ranks: int) -> int:
    """Highest card of the best straight in a 13-bit rank set (3 for the wheel), else -1."""
    # Bit 0 stands for the ace below the deuce, so the wheel is five adjacent bits too.
    bits = (ranks << 1) | ((ranks >> 12) & 1)
    for top in range(13, 3, -1):
        if (bits >> (top - 4)) & 0x1F == 0x1F:
            return top - 1
    return -1


@numba.njit(cache=True)
def _top_ranks(ranks: int, count: int, skip: int) -> int:
    """The ``count`` highest ranks of a rank set outside ``skip``, 4 bits each, highest first."""
    value = 0
    taken = 0
    for r in range(12, -1, -1):
        if taken == count:
            break
        if (ranks >> r) & 1 and not (skip >> r) & 1:
            value = (value << 4) | r
            taken += 1
    return value


@numba.njit(cache=True)
def popcount13(x: int) -> int:
    """The number of set bits of ``x`` (a rank set)."""
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@numba.njit(cache=True)
def hand_value(cards: np.ndarray, counts: np.ndarray) -> int:
    """Strength of the best 5-card hand among 7 cards (``4 * rank + suit``): larger is stronger,
    equal values tie. ``counts`` is scratch space of 13 ints.

    The value is ``category << 20`` (0 high card ... 8 straight flush) plus the ranks that
    break ties inside the category, 4 bits each, most significant first.
    """
    for r in range(13):
        counts[r] = 0
    s0 = s1 = s2 = s3 = 0
    ranks = 0
    for k in range(7):
        c = cards[k]
        r = c >> 2
        counts[r] += 1
        ranks |= 1 << r
        s = c & 3
        if s == 0:
            s0 |= 1 << r
        elif s == 1:
            s1 |= 1 << r
        elif s == 2:
            s2 |= 1 << r
        else:
            s3 |= 1 << r
    suits = (s0, s1, s2, s3)
    # With 7 cards a flush leaves at most 2 other cards, too few for quads or a full house.
    for s in range(4):
        suited = suits[s]
        if popcount13(suited) >= _FLUSH_RANKS:
            return flush_value(suited)
    return rank_value(counts, ranks)


@numba.njit(cache=True)
def flush_value(suited: int) -> int:
    """``hand_value`` of 7 cards holding a flush, from the 13-bit rank set of its suit (a
    flush leaves no room for quads or a full house, so the suit alone decides)."""
    high = _straight_high(suited)
    if high >= 0:
        return (8 << 20) | high
    return (5 << 20) | _top_ranks(suited, 5, 0)


@numba.njit(cache=True)
def rank_value(counts: np.ndarray, ranks: int) -> int:
    """``hand_value`` of 7 cards without a flush, from their count per rank and rank set."""
    quad = trip = trip2 = pair = pair2 = -1
    for r in range(12, -1, -1):
        c = counts[r]
        if c == 4:
            quad = r
        elif c == 3:
            if trip < 0:
                trip = r
            elif trip2 < 0:
                trip2 = r
        elif c == 2:
            if pair < 0:
                pair = r
            elif pair2 < 0:
                pair2 = r
    if quad >= 0:
        return (7 << 20) | (quad << 4) | _top_ranks(ranks, 1, 1 << quad)
    if trip >= 0 and (trip2 >= 0 or pair >= 0):
        return (6 << 20) | (trip << 4) | max(trip2, pair)
    high = _straight_high(ranks)
    if high >= 0:
        return (4 << 20) | high
    if trip >= 0:
        return (3 << 20) | (trip << 8) | _top_ranks(ranks, 2, 1 << trip)
    if pair2 >= 0:
        kicker = _top_ranks(ranks, 1, (1 << pair) | (1 << pair2))
        return (2 << 20) | (pair << 8) | (pair2 << 4) | kicker
    if pair >= 0:
        return (1 << 20) | (pair << 12) | _top_ranks(ranks, 3, 1 << pair)
    return _top_ranks(ranks, 5, 0)


@numba.njit(cache=True)
def hand_values(cards: np.ndarray) -> np.ndarray:
    """``hand_value`` of each row of a ``[k, 7]`` card array.

    >>> int(hand_values(np.array([[48, 49, 50, 51, 44, 0, 5]]))[0] >> 20)  # quad aces
    7
    """
    counts = np.zeros(13, dtype=np.int64)
    out = np.empty(cards.shape[0], dtype=np.int64)
    for i in range(cards.shape[0]):
        out[i] = hand_value(cards[i], counts)
    return out


# ------------------------------------------------------------------------------ kernels


@numba.njit(cache=True)
def _write_amounts(pub: np.ndarray, chips: np.ndarray, n: int, at: int, scale: np.float32) -> None:
    """Pot, stacks, contributions and round bets of one hand into its public tensor row (the
    same float32 products as the rules' tensor: amount rounded to float32, times the scale)."""
    pot = 0
    for q in range(n):
        pot += chips[CONTRIB, q]
    pub[at] = np.float32(pot) * scale
    for q in range(n):
        pub[at + 1 + q] = np.float32(chips[STACK, q]) * scale
        pub[at + 1 + n + q] = np.float32(chips[CONTRIB, q]) * scale
        pub[at + 1 + 2 * n + q] = np.float32(chips[BET, q]) * scale


@numba.njit(cache=True)
def _new_hands(rows, uniforms, cfg, start_stacks, scale, deal, chips, flags, scal, pub):
    """Deal and post the forced bets in ``rows``: each deal is a partial Fisher-Yates shuffle
    driven by ``uniforms[k]`` (one uniform in [0, 1) per card)."""
    n = cfg[C_N]
    take = deal.shape[1]
    deck = np.empty(52, dtype=np.int64)
    for k in range(rows.shape[0]):
        i = rows[k]
        for c in range(52):
            deck[c] = c
        for j in range(take):
            left = 52 - j
            pick = j + min(np.int64(uniforms[k, j] * left), left - 1)
            card = deck[pick]
            deck[pick] = deck[j]
            deck[j] = card
            deal[i, j] = card
        for q in range(n):
            chips[i, STACK, q] = start_stacks[q] - cfg[C_ANTE]
            chips[i, BET, q] = 0
            chips[i, CONTRIB, q] = cfg[C_ANTE]
            flags[i, FOLDED, q] = False
            flags[i, ACTED, q] = False
            flags[i, NEEDS, q] = True
        for q in range(2):
            blind = cfg[C_SB] if q == 0 else cfg[C_BB]
            chips[i, STACK, q] -= blind
            chips[i, BET, q] = blind
            chips[i, CONTRIB, q] += blind
        scal[i, RND] = 0
        scal[i, CUR] = cfg[C_PRE]
        scal[i, MAX_BET] = cfg[C_BB]
        scal[i, FULL_RAISE] = cfg[C_BB]
        scal[i, RAISES] = 1  # the big blind is the first pre-flop bet (limit raise cap)
        scal[i, LIVE] = n
        scal[i, NBOARD] = 0
        scal[i, NACT] = 0
        pub[i, :] = 0.0
        pub[i, cfg[O_ROUND]] = 1.0
        _write_amounts(pub[i], chips[i], n, cfg[O_POT], scale)


@numba.njit(cache=True)
def _next_actor(needs: np.ndarray, after: int, n: int) -> int:
    for k in range(1, n + 1):
        q = (after + k) % n
        if needs[q]:
            return q
    return -1


@numba.njit(cache=True)
def _raise_target(chips, scal_row, cfg, bet_sizes, fractions, p, action) -> int:
    """Total round bet that a bet/raise ``action`` of seat ``p`` makes."""
    all_in_to = chips[BET, p] + chips[STACK, p]
    mb = scal_row[MAX_BET]
    if cfg[C_LIMIT]:
        return min(mb + bet_sizes[scal_row[RND]], all_in_to)
    if action == cfg[C_ALL_IN]:
        return all_in_to
    pot = 0
    for q in range(cfg[C_N]):
        pot += chips[CONTRIB, q]
    pot_after_call = pot + mb - chips[BET, p]
    target = max(mb + np.int64(fractions[action - 2] * np.float64(pot_after_call)),
                 mb + scal_row[FULL_RAISE])
    return min(target, all_in_to)


@numba.njit(cache=True)
def _masks(cfg, fractions, chips, flags, scal, out):
    """Legal-action mask of the seat to act in every hand (the rules' ``_compute_legal``)."""
    n = cfg[C_N]
    for i in range(out.shape[0]):
        row = out[i]
        row[:] = 0
        p = scal[i, CUR]
        mb = scal[i, MAX_BET]
        to_call = mb - chips[i, BET, p]
        stack = chips[i, STACK, p]
        row[1] = 1
        if to_call > 0:
            row[0] = 1
        if stack <= to_call or (flags[i, ACTED, p] and to_call < scal[i, FULL_RAISE]):
            continue
        opposed = False  # someone else could still call a raise
        for q in range(n):
            if q != p and not flags[i, FOLDED, q] and chips[i, STACK, q] + chips[i, BET, q] > mb:
                opposed = True
        if not opposed:
            continue
        if cfg[C_LIMIT]:
            if scal[i, RAISES] < cfg[C_CAP]:
                row[2] = 1
            continue
        all_in_to = chips[i, BET, p] + stack
        floor = mb + scal[i, FULL_RAISE]
        pot = 0
        for q in range(n):
            pot += chips[i, CONTRIB, q]
        pot_after_call = np.float64(pot + to_call)
        prev = -1
        for j in range(fractions.shape[0]):
            amount = max(mb + np.int64(fractions[j] * pot_after_call), floor)
            if amount >= all_in_to:
                break  # this size and the larger ones are all-in: the all-in action covers them
            if amount != prev:
                row[2 + j] = 1
                prev = amount
        row[cfg[C_ALL_IN]] = 1


@numba.njit(cache=True)
def _layers(contrib, order, members, amounts, eligible) -> int:
    """Main and side pots among the seats of bitmask ``members`` (the rules' ``_layers``): one
    layer per distinct contribution, adjacent layers with the same seats merged; returns how
    many were written to ``amounts`` / ``eligible`` (bitmasks)."""
    n = contrib.shape[0]
    count = 0
    prev = 0
    while True:
        level = -1  # the next distinct contribution above prev
        for q in range(n):
            c = contrib[q]
            if c > prev and (level < 0 or c < level):
                level = c
        if level < 0:
            return count
        amount = 0
        seats = 0
        for q in range(n):
            if contrib[q] >= level:
                amount += level - prev
        for k in range(n):
            q = order[k]
            if (members >> q) & 1 and contrib[q] >= level:
                seats |= 1 << q
        while count > 0 and eligible[count - 1] == seats:
            count -= 1
            amount += amounts[count]
        if amount > 0 and seats != 0:
            amounts[count] = amount
            eligible[count] = seats
            count += 1
        prev = level


@numba.njit(cache=True)
def _payoffs(contrib, folded, deal, order, out, cards, counts, value, amounts, eligible):
    """Chips won minus chips put in per seat at the end of a hand (the rules' ``_payoffs``)."""
    n = contrib.shape[0]
    won = np.zeros(n, dtype=np.int64)
    live = 0
    alive = 0
    for q in range(n):
        if not folded[q]:
            live |= 1 << q
            alive += 1
    if alive == 1:
        total = 0
        winner = 0
        for q in range(n):
            total += contrib[q]
            if not folded[q]:
                winner = q
        won[winner] = total
    else:
        for j in range(5):
            cards[2 + j] = deal[2 * n + j]
        for q in range(n):
            if not folded[q]:
                cards[0] = deal[2 * q]
                cards[1] = deal[2 * q + 1]
                value[q] = hand_value(cards, counts)
        # Hands that cannot win a share of any pot are mucked before the pots are layered
        # among the rest (PokerKit's procedure, which decides where odd chips fall).
        contenders = 0
        for layer in range(_layers(contrib, order, live, amounts, eligible)):
            contenders |= _best_of(eligible[layer], value, n)
        for layer in range(_layers(contrib, order, contenders, amounts, eligible)):
            winners = _best_of(eligible[layer], value, n)
            count = popcount13(winners)
            share = amounts[layer] // count
            odd = amounts[layer] - share * count
            first = True
            for k in range(n):
                q = order[k]
                if (winners >> q) & 1:
                    won[q] += share + (odd if first else 0)
                    first = False
    for q in range(n):
        out[q] = np.float64(won[q] - contrib[q])


@numba.njit(cache=True)
def _best_of(seats: int, value: np.ndarray, n: int) -> int:
    """Bitmask of the seats in ``seats`` with the highest hand value."""
    best = -1
    for q in range(n):
        if (seats >> q) & 1 and value[q] > best:
            best = value[q]
    out = 0
    for q in range(n):
        if (seats >> q) & 1 and value[q] == best:
            out |= 1 << q
    return out


@numba.njit(cache=True)
def _deal_street(i, cfg, deal, scal, pub) -> None:
    """Turn over the next street of hand ``i`` and move to its betting round."""
    n = cfg[C_N]
    nb = scal[i, NBOARD]
    if nb == 0:
        for j in range(3):
            pub[i, cfg[O_FLOP] + deal[i, 2 * n + j]] = 1.0
        nb = 3
    else:
        pub[i, cfg[O_TURN if nb == 3 else O_RIVER] + deal[i, 2 * n + nb]] = 1.0
        nb += 1
    scal[i, NBOARD] = nb
    pub[i, cfg[O_ROUND] + scal[i, RND]] = 0.0
    scal[i, RND] = _ROUND_OF_BOARD[nb]
    pub[i, cfg[O_ROUND] + scal[i, RND]] = 1.0


@numba.njit(cache=True)
def _apply(actions, cfg, bet_sizes, fractions, order, scale, deal, chips, flags, scal, pub,
           done, rewards):
    """Apply one legal action per hand, dealing streets and paying finished hands."""
    n = cfg[C_N]
    slots, width = cfg[C_SLOTS], cfg[C_WIDTH]
    cards = np.empty(7, dtype=np.int64)
    counts = np.zeros(13, dtype=np.int64)
    value = np.zeros(n, dtype=np.int64)
    amounts = np.zeros(n, dtype=np.int64)
    eligible = np.zeros(n, dtype=np.int64)
    for i in range(actions.shape[0]):
        a = actions[i]
        p = scal[i, CUR]
        ch = chips[i]
        fl = flags[i]
        pot_before = 0
        for q in range(n):
            pot_before += ch[CONTRIB, q]
        to_call = scal[i, MAX_BET] - ch[BET, p]
        put = 0
        ended = False
        if a == 0:
            fl[FOLDED, p] = True
            fl[NEEDS, p] = False
            scal[i, LIVE] -= 1
            pub[i, cfg[O_FOLDED] + p] = 1.0
            ended = scal[i, LIVE] == 1
        elif a == 1:
            put = min(to_call, ch[STACK, p])
            fl[NEEDS, p] = False
            fl[ACTED, p] = True
        else:
            target = _raise_target(ch, scal[i], cfg, bet_sizes, fractions, p, a)
            increment = target - scal[i, MAX_BET]
            put = target - ch[BET, p]
            if increment >= scal[i, FULL_RAISE]:
                scal[i, FULL_RAISE] = increment
                for q in range(n):
                    fl[ACTED, q] = False
            fl[ACTED, p] = True
            scal[i, RAISES] += 1
            scal[i, MAX_BET] = target
            for q in range(n):
                fl[NEEDS, q] = q != p and not fl[FOLDED, q] and ch[STACK, q] > 0
        ch[STACK, p] -= put
        ch[BET, p] += put
        ch[CONTRIB, p] += put
        if ch[STACK, p] == 0 and not fl[FOLDED, p]:
            pub[i, cfg[O_ALL_IN] + p] = 1.0
        # The betting history: an overflowing round shows its latest action in the last slot.
        k = scal[i, NACT]
        at = cfg[O_BETTING] + (scal[i, RND] * slots + min(k, slots - 1)) * width
        if k >= slots:
            pub[i, at : at + width] = 0.0
        pub[i, at + p] = 1.0
        pub[i, at + n + a] = 1.0
        pub[i, at + width - 1] = np.float32(np.float64(put) / np.float64(pot_before))
        scal[i, NACT] = k + 1
        if not ended:
            nxt = _next_actor(fl[NEEDS], p, n)
            if nxt >= 0:
                scal[i, CUR] = nxt
            else:
                ended = _end_round(i, cfg, bet_sizes, deal, chips, flags, scal, pub)
        _write_amounts(pub[i], ch, n, cfg[O_POT], scale)
        done[i] = ended
        if ended:
            _payoffs(ch[CONTRIB], fl[FOLDED], deal[i], order, rewards[i], cards, counts, value,
                     amounts, eligible)


@numba.njit(cache=True)
def _end_round(i, cfg, bet_sizes, deal, chips, flags, scal, pub) -> bool:
    """Close the betting round of hand ``i`` and deal on; True when the hand is over."""
    n = cfg[C_N]
    for q in range(n):
        chips[i, BET, q] = 0
        flags[i, ACTED, q] = False
    scal[i, MAX_BET] = 0
    scal[i, RAISES] = 0
    scal[i, NACT] = 0
    if scal[i, NBOARD] == 5:
        return True
    # A full raise is the street's bet: the big blind in no-limit, the next street's fixed bet
    # in limit, so a short all-in re-opens the betting by the same rule on every street.
    scal[i, FULL_RAISE] = bet_sizes[scal[i, RND] + 1] if cfg[C_LIMIT] else cfg[C_BB]
    while True:
        _deal_street(i, cfg, deal, scal, pub)
        able = 0  # seats that can still bet
        for q in range(n):
            if not flags[i, FOLDED, q] and chips[i, STACK, q] > 0:
                able += 1
        if able > 1:
            for q in range(n):
                flags[i, NEEDS, q] = not flags[i, FOLDED, q] and chips[i, STACK, q] > 0
            scal[i, CUR] = _next_actor(flags[i, NEEDS], cfg[C_POST] - 1, n)
            return False
        if scal[i, NBOARD] == 5:  # no more betting: the board runs out to a showdown
            return True


@numba.njit(cache=True)
def _observe(seats, rows, cfg, deal, chips, scal, pub, out):
    """Information-state tensor of ``seats[k]`` in hand ``rows[k]`` into ``out[k]``."""
    n = cfg[C_N]
    for k in range(rows.shape[0]):
        i = rows[k]
        p = seats[k]
        out[k, :] = pub[i]
        out[k, cfg[O_PLAYER] + p] = 1.0
        out[k, cfg[O_POSITION] + (p - cfg[C_POST]) % n] = 1.0
        out[k, cfg[O_HOLE] + deal[i, 2 * p]] = 1.0
        out[k, cfg[O_HOLE] + deal[i, 2 * p + 1]] = 1.0
        pot = 0
        for q in range(n):
            pot += chips[i, CONTRIB, q]
        to_call = scal[i, MAX_BET] - chips[i, BET, p]
        out[k, cfg[O_TO_CALL]] = np.float32(np.float64(to_call) / np.float64(pot))


# ------------------------------------------------------------------------------ the backend


class HoldemArrays(RowArrays):
    """Limit and no-limit hold'em (``LimitHoldem``, ``NoLimitHoldem``, any of their configs) as
    arrays, with the backend interface of ``LeducArrays``."""

    # The config fields these arrays play; a new rule must be added here before it can run.
    HANDLED = frozenset({
        "num_players", "small_blind", "big_blind", "ante", "stacks", "raise_cap", "bet_fractions",
    })

    def __init__(self, game: HoldemGame, num_envs: int) -> None:
        cfg = game.config
        unplayed = sorted({f.name for f in dataclasses.fields(cfg)} - self.HANDLED)
        if unplayed:
            raise ConfigError(
                f"the hold'em array backend does not play {unplayed}; use backend='state'"
            )
        self.game, self.num_envs = game, num_envs
        self.n = n = game.num_players
        self.num_actions = game.num_distinct_actions
        self.obs_size = game.information_state_layout.size
        off = game.layout_offsets
        amounts = [off[name] for name in ("pot", "stacks", "contributions", "round_bets")]
        if amounts != [off["pot"], off["pot"] + 1, off["pot"] + 1 + n, off["pot"] + 1 + 2 * n]:
            raise ConfigError("the hold'em array backend needs the tensor's amounts adjacent")
        slots = game.history_slots
        c = np.zeros(_CFG_SIZE, dtype=np.int64)
        c[[C_N, C_LIMIT, C_CAP, C_BB, C_SB, C_ANTE, C_PRE, C_POST, C_ACTIONS, C_ALL_IN]] = [
            n, game.is_limit, game.raise_cap, cfg.big_blind, cfg.small_blind, cfg.ante,
            game.preflop_first, game.postflop_first, self.num_actions, game.all_in_action,
        ]
        c[C_SLOTS], c[C_WIDTH] = slots, n + self.num_actions + 1
        names = ("player", "position", "round", "hole_cards", "flop", "turn", "river", "pot",
                 "to_call", "folded", "all_in", "betting")  # fmt: skip
        c[O_PLAYER : O_BETTING + 1] = [off[name] for name in names]
        self._cfg = c
        self._bet_sizes = np.asarray(game.bet_sizes, dtype=np.int64)
        self._fractions = np.asarray(game.bet_fractions, dtype=np.float64)  # empty in limit
        self._order = np.asarray(game.odd_chip_order, dtype=np.int64)
        self._stacks = np.asarray(game.starting_stacks, dtype=np.int64)
        self._scale = np.float32(game.tensor_amount_scale)
        N = num_envs
        self.ar = np.arange(N)
        self.deal = np.zeros((N, 2 * n + 5), dtype=np.int64)
        self.chips = np.zeros((N, 3, n), dtype=np.int64)
        self.flags = np.zeros((N, 3, n), dtype=np.bool_)
        self.scal = np.zeros((N, 8), dtype=np.int64)
        self.pub = np.zeros((N, self.obs_size), dtype=np.float32)

    def reset_rows(self, rows: np.ndarray, rng: np.random.Generator) -> None:
        """Deal new hands in ``rows`` (indices)."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) == 0:
            return
        uniforms = rng.random((len(rows), self.deal.shape[1]))
        _new_hands(rows, uniforms, self._cfg, self._stacks, self._scale, self.deal, self.chips,
                   self.flags, self.scal, self.pub)

    def current_player(self) -> np.ndarray:
        """Seat to act in each hand."""
        return self.scal[:, CUR]

    def mask(self) -> np.ndarray:
        """``[N, A]`` int8 legal-action masks."""
        out = np.empty((self.num_envs, self.num_actions), dtype=np.int8)
        _masks(self._cfg, self._fractions, self.chips, self.flags, self.scal, out)
        return out

    def observations(self, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Information-state tensors of ``seats[i]`` in hand ``rows[i]`` (all rows if None)."""
        rows = self.ar if rows is None else np.asarray(rows, dtype=np.int64)
        seats = np.asarray(seats, dtype=np.int64)
        out = np.empty((len(rows), self.obs_size), dtype=np.float32)
        _observe(seats, rows, self._cfg, self.deal, self.chips, self.scal, self.pub, out)
        return out

    def apply(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply one legal action per hand; returns (done, returns of done hands)."""
        done = np.zeros(self.num_envs, dtype=np.bool_)
        rewards = np.zeros((self.num_envs, self.n))
        _apply(np.asarray(actions, dtype=np.int64), self._cfg, self._bet_sizes, self._fractions,
               self._order, self._scale, self.deal, self.chips, self.flags, self.scal, self.pub,
               done, rewards)
        return done, rewards

    def deals(self) -> np.ndarray:
        """Chance outcomes of each current hand in the order the ``State`` rules deal them:
        seat 0's two hole cards, seat 1's, ..., then flop, turn and river."""
        return self.deal.copy()

    def take(self, rows: np.ndarray) -> HoldemArrays:
        """New arrays holding copies of the hands in ``rows`` (indices, repeats allowed), in
        that order; the rules and constants are shared.

        >>> from pokerzoo.games import load_game
        >>> b = HoldemArrays(load_game("no_limit_holdem"), num_envs=2)
        >>> b.reset_rows(np.arange(2), np.random.default_rng(0))
        >>> c = b.take(np.array([1, 1, 0]))
        >>> c.num_envs, bool((c.deal[0] == b.deal[1]).all())
        (3, True)
        """
        rows = np.asarray(rows, dtype=np.int64)
        out = copy.copy(self)
        out.num_envs = len(rows)
        out.ar = np.arange(len(rows))
        for name in self.STATE:
            setattr(out, name, getattr(self, name)[rows])
        return out

    STATE = ("deal", "chips", "flags", "scal", "pub")
    """The arrays that hold the hands in flight (the rest follows from the config)."""
