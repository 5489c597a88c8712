"""The hold'em history: dealing, betting (limit and no-limit), side pots and showdown.

Kept lean on purpose: envs step these states at tens of thousands of actions per second, so
the state is a handful of plain lists and ints, ``current_player`` is a cached int and the legal
actions are computed once per decision. Information-state keys, tensors and the public view
live in ``holdem_obs`` (they are only needed when someone looks).

Betting rules (no-limit; limit is the same with fixed sizes and a raise cap):

* a raise must add at least the last full raise (at least the big blind) on top of the highest
  bet, unless it puts the player all-in;
* an all-in that raises by less than a full raise does not reopen the betting: a player who has
  already acted since the last full raise may only call or fold, unless the raises since then
  add up to a full raise (TDA rule; PokerKit is more permissive in two corner cases, see
  ``tests/games/test_holdem_pokerkit.py``). In limit a full raise is the street's fixed bet
  (small bet pre-flop and on the flop, big bet on the turn and river), on every street alike:
  PokerKit's rule, stricter than the TDA's limit variant that reopens at half a bet;
* no one may raise when every other player still in the hand is all-in or covered;
* folding is not allowed when the player could check.

Side pots follow PokerKit's construction (layers at each distinct contribution, adjacent layers
with the same eligible players merged) and an odd chip of a split pot goes to the first winner
left of the button, so payoffs agree with PokerKit to the chip.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np

from pokerzoo.games.base import CHANCE, TERMINAL, IllegalActionError, State
from pokerzoo.games.holdem import observation
from pokerzoo.games.holdem.cards import evaluate_7

if TYPE_CHECKING:
    from pokerzoo.games.holdem.game import HoldemGame

FOLD, CALL = 0, 1
_FULL_DECK = (1 << 52) - 1
_BOARD_ROUND = {0: 0, 3: 1, 4: 2, 5: 3}
_NEXT_ROUND = {0: 1, 3: 2, 4: 3}  # board size at the end of a round -> the next round


class HoldemState(State):
    """A hold'em history. Chance deals hole cards (seat 0's two cards first, then seat 1, ...)
    and then the flop (3), turn (1) and river (1) as card ints 0..51."""

    __slots__ = (
        "game", "_n", "_stacks", "_bets", "_contrib", "_folded", "_acted", "_needs", "_hole",
        "_board", "_used", "_history", "_log", "_round", "_cur", "_max_bet", "_full_raise",
        "_raises", "_pending", "_live", "_returns", "_legal", "_public_tensor", "_actions",
    )  # fmt: skip
    game: HoldemGame  # narrows State.game for the type checker (a slot, not a class attribute)

    def __init__(self, game: HoldemGame) -> None:
        self.game = game
        n = self._n = game.num_players
        cfg = game.config
        ante, small, big = cfg.ante, cfg.small_blind, cfg.big_blind
        self._stacks = stacks = [chips - ante for chips in game.starting_stacks]
        self._bets = bets = [0] * n
        self._contrib = contrib = [ante] * n
        for p, blind in ((0, small), (1, big)):
            bets[p] = blind
            contrib[p] += blind
            stacks[p] -= blind
        self._folded = [False] * n
        self._acted = [False] * n
        self._needs = [True] * n
        self._hole: list[list[int]] = [[] for _ in range(n)]
        self._board: list[int] = []
        self._used = 0
        self._history: list[int] = []
        # (round, seat, action, chips put in, pot before, bet-to after) per betting action.
        self._log: list[tuple[int, int, int, int, int, int]] = []
        self._actions: tuple[int, ...] = ()  # the actions of _log, for information-state keys
        self._round = 0
        self._cur = CHANCE
        self._max_bet = cfg.big_blind
        self._full_raise = cfg.big_blind
        self._raises = 1  # the big blind is the first pre-flop bet (limit raise cap)
        self._pending = 2 * n
        self._live = n
        self._returns: list[float] | None = None
        self._legal: list[int] | None = None
        # The seat-independent part of the tensor, updated in place as the hand goes on.
        self._public_tensor: observation.PublicTensor | None = None

    # ------------------------------------------------------------------ protocol: queries

    def current_player(self) -> int:
        return self._cur

    def is_terminal(self) -> bool:
        return self._cur == TERMINAL

    def is_chance_node(self) -> bool:
        return self._cur == CHANCE

    def legal_actions(self, player: int | None = None) -> list[int]:
        p = self._cur
        if p == TERMINAL or (player is not None and player != p):
            return []
        if p == CHANCE:
            used = self._used
            return [c for c in range(52) if not (used >> c) & 1]
        if self._legal is None:
            self._legal = self._compute_legal(p)
        return list(self._legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._cur != CHANCE:
            return []
        used = self._used
        cards = [c for c in range(52) if not (used >> c) & 1]
        prob = 1.0 / len(cards)
        return [(c, prob) for c in cards]

    def sample_chance_outcome(self, rng: np.random.Generator) -> int:
        """A uniformly random undealt card (the fast path of sampling ``chance_outcomes()``)."""
        used = self._used
        while True:
            c = int(rng.random() * 52)
            if not (used >> c) & 1:
                return c

    def pot(self) -> int:
        """Chips in the middle, current-round bets included."""
        return sum(self._contrib)

    def amount_to_call(self) -> int:
        """Chips the player to act must add to call (0: checking is free), before stack caps."""
        p = self._cur
        return self._max_bet - self._bets[p] if p >= 0 else 0

    def raise_to_amount(self, action: int) -> int:
        """Total bet for this round that a bet/raise ``action`` of the player to act makes."""
        p = self._cur
        return self._raise_target(p, action, self._max_bet - self._bets[p])

    def returns(self) -> list[float]:
        if self._cur != TERMINAL:
            return [0.0] * self._n
        if self._returns is None:
            self._returns = self._payoffs()
        return list(self._returns)

    def history(self) -> list[int]:
        return list(self._history)

    def private_cards(self) -> list[list[int]]:
        return [list(h) for h in self._hole]

    def replace_private_cards(self, seat: int, cards: list[int]) -> None:
        """Give ``seat`` other hole cards, in place, for range computations of evaluators
        (local best response): the deck bookkeeping is not updated, so use it on a scratch
        clone whose chance nodes are never played."""
        self._hole[seat] = list(cards)
        self._returns = None

    # ------------------------------------------------------------------ legality

    def _compute_legal(self, p: int) -> list[int]:
        to_call = self._max_bet - self._bets[p]
        stack = self._stacks[p]
        acts = [FOLD, CALL] if to_call > 0 else [CALL]
        if stack <= to_call or (self._acted[p] and to_call < self._full_raise):
            return acts
        mb = self._max_bet
        bets, stacks, folded = self._bets, self._stacks, self._folded
        for q in range(self._n):
            if q != p and not folded[q] and stacks[q] + bets[q] > mb:
                break
        else:
            return acts  # everyone else is all-in or covered: raising cannot win more
        game = self.game
        if game.is_limit:
            if self._raises < game.raise_cap:
                acts.append(2)
            return acts
        all_in_to = self._bets[p] + stack
        floor = mb + self._full_raise  # the minimum raise
        pot_after_call = sum(self._contrib) + to_call
        prev = -1
        for i, frac in enumerate(game.bet_fractions):
            amount = mb + int(frac * pot_after_call)
            if amount < floor:
                amount = floor
            if amount >= all_in_to:
                break  # this size and the larger ones are all-in: the all-in action covers them
            if amount != prev:
                acts.append(2 + i)
                prev = amount
        acts.append(game.all_in_action)
        return acts

    def _raise_target(self, p: int, action: int, to_call: int) -> int:
        game = self.game
        all_in_to = self._bets[p] + self._stacks[p]
        mb = self._max_bet
        if game.is_limit:
            return min(mb + game.bet_sizes[self._round], all_in_to)
        if action == game.all_in_action:
            return all_in_to
        frac = game.bet_fractions[action - 2]
        target = max(mb + int(frac * (sum(self._contrib) + to_call)), mb + self._full_raise)
        return min(target, all_in_to)

    def apply_action(self, action: int) -> None:
        """Apply ``action``; raises ``IllegalActionError`` naming the legal actions otherwise."""
        p = self._cur
        if type(action) is int:  # the common case, checked without conversions
            a, ok = action, True
        else:
            try:
                a = int(action)
                ok = a == action
            except (TypeError, ValueError):
                a, ok = -1, False
        if ok:
            if p == CHANCE:
                if 0 <= a < 52 and not (self._used >> a) & 1:
                    self._history.append(a)
                    self._deal(a)
                    return
                ok = False
            elif p == TERMINAL:
                ok = False
            else:
                if self._legal is None:
                    self._legal = self._compute_legal(p)
                ok = a in self._legal
        if not ok:
            raise IllegalActionError(
                action, self.legal_actions(), f"{self.game.name} at history {self._history}"
            )
        self._history.append(a)
        self._legal = None
        self._bet(p, a)

    # ------------------------------------------------------------------ transitions

    def _apply(self, action: int) -> None:
        self._history.append(action)
        self._legal = None
        if self._cur == CHANCE:
            self._deal(action)
        else:
            self._bet(self._cur, action)

    def _deal(self, card: int) -> None:
        self._used |= 1 << card
        self._pending -= 1
        if len(self._hole[-1]) < 2:  # still dealing hole cards, seat by seat
            self._hole[(2 * self._n - 1 - self._pending) // 2].append(card)
            if self._pending == 0:
                self._cur = self._next_actor(self.game.preflop_first - 1)
            return
        self._board.append(card)
        if self._pending:
            return
        self._round = _BOARD_ROUND[len(self._board)]
        if self._runout():
            if len(self._board) < 5:
                self._pending = 1 if len(self._board) >= 3 else 3
            else:
                self._cur = TERMINAL
            return
        for q in range(self._n):
            self._needs[q] = not self._folded[q] and self._stacks[q] > 0
        self._cur = self._next_actor(self.game.postflop_first - 1)

    def _runout(self) -> bool:
        stacks, folded = self._stacks, self._folded
        return sum(1 for q in range(self._n) if not folded[q] and stacks[q] > 0) <= 1

    def _bet(self, p: int, action: int) -> None:
        self._actions += (action,)
        bets = self._bets
        to_call = self._max_bet - bets[p]
        pot_before = sum(self._contrib)
        if action == FOLD:
            self._folded[p] = True
            self._needs[p] = False
            self._live -= 1
            self._log.append((self._round, p, FOLD, 0, pot_before, bets[p]))
            if self._live == 1:
                self._cur = TERMINAL
                return
        elif action == CALL:
            amount = min(to_call, self._stacks[p])
            self._put(p, amount)
            self._needs[p] = False
            self._acted[p] = True
            self._log.append((self._round, p, CALL, amount, pot_before, bets[p]))
        else:
            target = self._raise_target(p, action, to_call)
            increment = target - self._max_bet
            put = target - bets[p]
            self._put(p, put)
            if increment >= self._full_raise:
                self._full_raise = increment
                self._acted = [False] * self._n
            self._acted[p] = True
            self._raises += 1
            self._max_bet = target
            stacks, folded, needs = self._stacks, self._folded, self._needs
            for q in range(self._n):
                needs[q] = q != p and not folded[q] and stacks[q] > 0
            self._log.append((self._round, p, action, put, pot_before, target))
        nxt = self._next_actor(p)
        if nxt >= 0:
            self._cur = nxt
        else:
            self._end_round()

    def _put(self, p: int, amount: int) -> None:
        self._stacks[p] -= amount
        self._bets[p] += amount
        self._contrib[p] += amount

    def _next_actor(self, after: int) -> int:
        needs, n = self._needs, self._n
        for k in range(1, n + 1):
            q = (after + k) % n
            if needs[q]:
                return q
        return -1

    def _end_round(self) -> None:
        n = self._n
        self._bets = [0] * n
        self._acted = [False] * n
        self._max_bet = 0
        self._raises = 0
        nb = len(self._board)
        if nb == 5:
            self._cur = TERMINAL
            return
        # A full raise is the street's bet: the big blind in no-limit, the fixed bet of the
        # next street in limit (small bet on the flop, big bet on the turn and river), so a
        # short all-in re-opens the betting by the same rule on every street.
        game = self.game
        self._full_raise = (
            game.bet_sizes[_NEXT_ROUND[nb]] if game.is_limit else game.config.big_blind
        )
        self._pending = 3 if nb == 0 else 1
        self._cur = CHANCE

    # ------------------------------------------------------------------ payoffs

    def _payoffs(self) -> list[float]:
        n, contrib, folded = self._n, self._contrib, self._folded
        won = [0] * n
        if self._live == 1:
            won[folded.index(False)] = sum(contrib)
        else:
            board = self._board
            rank = [
                evaluate_7(*self._hole[p], *board) if not folded[p] else 1 << 30 for p in range(n)
            ]
            live = [q for q in self.game.odd_chip_order if not folded[q]]
            top = max(contrib)
            if all(contrib[q] == top for q in live):
                # One pot (no one all-in for less): what the layers below come to, directly.
                best = min(rank)
                winners = [q for q in live if rank[q] == best]
                share, odd = divmod(sum(contrib), len(winners))
                for q in winners:
                    won[q] += share
                won[winners[0]] += odd
                return [float(won[p] - contrib[p]) for p in range(n)]
            # PokerKit's procedure: hands that cannot win a share of any pot are mucked first,
            # then pots are layered among the remaining hands (so their odd chips fall alike).
            contenders: set[int] = set()
            for _, eligible in _layers(contrib, live):
                best = min(rank[q] for q in eligible)
                contenders.update(q for q in eligible if rank[q] == best)
            for amount, eligible in _layers(contrib, [q for q in live if q in contenders]):
                best = min(rank[q] for q in eligible)
                winners = [q for q in eligible if rank[q] == best]
                share, odd = divmod(amount, len(winners))
                for q in winners:
                    won[q] += share
                won[winners[0]] += odd
        return [float(won[p] - contrib[p]) for p in range(n)]

    # ------------------------------------------------------------------ observation hooks

    def information_state_key(self, player: int | None = None) -> Hashable:
        p = self._cur if player is None else player
        if not 0 <= p < self._n:
            p = self._player_or_current(player)  # raises, naming the seats
        return (p, tuple(self._hole[p]), tuple(self._board), self._actions)

    def information_state_tensor(self, player: int | None = None) -> np.ndarray:
        p = self._cur if player is None else player
        if not 0 <= p < self._n:
            p = self._player_or_current(player)  # raises, naming the seats
        return observation.information_state_tensor(self, p)

    def public_state(self) -> dict[str, Any]:
        return observation.public_state(self)

    def clone(self) -> HoldemState:
        c = HoldemState.__new__(HoldemState)
        c.game = self.game
        c._n = self._n
        c._stacks = self._stacks[:]
        c._bets = self._bets[:]
        c._contrib = self._contrib[:]
        c._folded = self._folded[:]
        c._acted = self._acted[:]
        c._needs = self._needs[:]
        c._hole = [h[:] for h in self._hole]
        c._board = self._board[:]
        c._used = self._used
        c._history = self._history[:]
        c._log = self._log[:]
        c._actions = self._actions
        c._round = self._round
        c._cur = self._cur
        c._max_bet = self._max_bet
        c._full_raise = self._full_raise
        c._raises = self._raises
        c._pending = self._pending
        c._live = self._live
        c._returns = self._returns
        c._legal = self._legal
        c._public_tensor = None  # updated in place: never shared
        return c


def _layers(contrib: list[int], live: list[int]) -> list[tuple[int, list[int]]]:
    """Main and side pots: one layer per distinct contribution, with the players in ``live``
    (in odd-chip order) who reach it; adjacent layers with the same players are merged."""
    pots: list[tuple[int, list[int]]] = []
    prev = 0
    for level in sorted(set(contrib)):
        amount = sum(level - prev for c in contrib if c >= level)
        eligible = [q for q in live if contrib[q] >= level]
        while pots and pots[-1][1] == eligible:
            amount += pots.pop()[0]
        if amount and eligible:
            pots.append((amount, eligible))
        prev = level
    return pots
