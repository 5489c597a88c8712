"""RLCard's hold'em betting, for ``rules="rlcard"``: the hands PettingZoo's ``texas_holdem_v4``
and ``texas_holdem_no_limit_v6`` play, rule for rule, so that replays agree step by step.

pokerzoo's engine plays standard rules and cannot take these (fold offered when checking is
free, raises below the minimum, a pot "raise" that puts in the pot without calling first, the
small blind acting first after the flop, players all-in still given turns), so they are written
here as small state machines in RLCard's indexing (agent ``i`` is RLCard's player ``i``). Hands
are ranked by pokerzoo's evaluator, which agrees with RLCard's ``compare_hands`` (checked on
random showdowns in the tests); pots are split RLCard's way, odd chips by RLCard's generator.

Both machines offer what ``_holdem.HoldemClassicEnv`` reads: ``to_act``, ``legal_ids()``,
``apply(id)``, ``over()``, ``payoffs()``, ``hands``, ``board``, ``in_chips``, ``raise_nums``
and, for the text rendering, the ``State`` methods ``render_text`` uses.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerzoo.games.holdem.cards import evaluate_7

SMALL_BLIND, BIG_BLIND = 1, 2
# Limit: RLCard's ids (rlcard.envs.limitholdem: ['call', 'raise', 'fold', 'check']).
L_CALL, L_RAISE, L_FOLD, L_CHECK = 0, 1, 2, 3
LIMIT_RAISES = 4  # raises per round, the big blind not counted
# No-limit: rlcard.games.nolimitholdem.round.Action.
N_FOLD, N_CALL, N_HALF_POT, N_POT, N_ALL_IN = 0, 1, 2, 3, 4
_NAMES = {
    True: ("call", "raise", "fold", "check"),
    False: ("fold", "check/call", "half-pot", "pot", "all-in"),
}


class _RLCardHand:
    """What RLCard's limit and no-limit games share: cards, chips, statuses, the payoffs."""

    limit: bool

    def __init__(self, hands: list[list[int]], deck: list[int], rng: np.random.RandomState):
        n = self.num_players = len(hands)
        self.hands = hands
        self.board: list[int] = []
        self._deck = deck
        self._rng = rng
        self.in_chips = [0] * n
        self.folded = [False] * n
        self.to_act = 0
        self.round_counter = 0
        self.raise_nums = [0, 0, 0, 0]  # raises per round (limit: its observation shows them)
        self._log: list[list[str]] = [[]]
        self._paid: list[float] | None = None

    def _deal(self, count: int) -> None:
        self.board.extend(self._deck.pop() for _ in range(count))

    def _next_unfolded(self, p: int) -> int:
        n = self.num_players
        p = (p + 1) % n
        while self.folded[p]:
            p = (p + 1) % n
        return p

    def _record(self, p: int, action: int) -> None:
        self._log[-1].append(f"{p}:{_NAMES[self.limit][action]}")

    def _showdown(self) -> list[int]:
        """RLCard's judge: one set of winners (the best hand among those still in), then each
        layer of the pot is shared by the winners in it, or handed back to everyone in it when
        none or all of them won; an odd chip goes to a winner drawn by RLCard's generator."""
        n = self.num_players
        live = [i for i in range(n) if not self.folded[i]]
        if len(live) == 1:
            winners = live
        else:
            rank = {i: evaluate_7(*self.hands[i], *self.board) for i in live}
            best = min(rank.values())
            winners = [i for i in live if rank[i] == best]
        left, won = list(self.in_chips), [0] * n
        while any(left):
            in_pot = [i for i in range(n) if left[i] > 0]
            winning = [i for i in in_pot if i in winners]
            if not winning or len(winning) == len(in_pot):
                return [won[i] + left[i] - self.in_chips[i] for i in range(n)]
            level = min(left[i] for i in in_pot)
            share, odd = divmod(level * len(in_pot), len(winning))
            for i in winning:
                won[i] += share
            for i in in_pot:
                left[i] -= level
            if odd:
                won[int(self._rng.choice(winning))] += odd
        return [won[i] - self.in_chips[i] for i in range(n)]

    def payoffs(self) -> list[float]:
        """Chips won per agent (computed once: an odd chip draws from the generator)."""
        if self._paid is None:
            self._paid = [float(x) for x in self._showdown()]
        return list(self._paid)

    # What pokerzoo.envs.rendering.render_text reads (agents are the seats here).

    def current_player(self) -> int:
        return -4 if self.over() else self.to_act

    def is_terminal(self) -> bool:
        return self.over()

    def private_cards(self) -> list[list[int]]:
        return [list(h) for h in self.hands]

    def returns(self) -> list[float]:
        return self.payoffs() if self.over() else [0.0] * self.num_players

    def public_state(self) -> dict[str, Any]:
        return {
            "pot": sum(self.in_chips),
            "contributions": list(self.in_chips),
            "public_cards": list(self.board),
            "round": min(self.round_counter, 3),
            "folded": list(self.folded),
            "betting": [list(r) for r in self._log],
            **self._extra_public(),
        }

    def _extra_public(self) -> dict[str, Any]:
        return {}

    def over(self) -> bool:
        raise NotImplementedError

    def _new_round(self) -> None:
        self._log.append([])


class RLCardLimitHand(_RLCardHand):
    """RLCard's limit hold'em (``rlcard.games.limitholdem``): no stacks; four raises in every
    round (so five bets before the flop); fold always offered; a round ends after as many
    checks and calls since the last raise as there are players at the table; the next round
    opens with the player after the one who closed the last."""

    limit = True

    def __init__(
        self,
        hands: list[list[int]],
        deck: list[int],
        rng: np.random.RandomState,
        small_blind: int,
    ):
        super().__init__(hands, deck, rng)
        n = self.num_players
        big = (small_blind + 1) % n
        self.in_chips[big] = BIG_BLIND
        self.in_chips[small_blind] = SMALL_BLIND
        self._raised = list(self.in_chips)
        self.to_act = (big + 1) % n
        self._raises = 0
        self._unraised = 0
        self._raise_amount = BIG_BLIND

    def legal_ids(self) -> list[int]:
        mine, top = self._raised[self.to_act], max(self._raised)
        legal = [L_CALL] if mine < top else []
        if self._raises < LIMIT_RAISES:
            legal.append(L_RAISE)
        legal.append(L_FOLD)
        if mine == top:
            legal.append(L_CHECK)
        return legal

    def apply(self, action: int) -> None:
        p, raised = self.to_act, self._raised
        self._record(p, action)
        if action == L_CALL:
            self.in_chips[p] += max(raised) - raised[p]
            raised[p] = max(raised)
            self._unraised += 1
        elif action == L_RAISE:
            target = max(raised) + self._raise_amount
            self.in_chips[p] += target - raised[p]
            raised[p] = target
            self._raises += 1
            self._unraised = 1
        elif action == L_FOLD:
            self.folded[p] = True
        else:
            self._unraised += 1
        self.to_act = self._next_unfolded(p)
        self.raise_nums[self.round_counter] = self._raises
        if self._unraised >= self.num_players:
            if self.round_counter <= 2:
                self._deal(3 if self.round_counter == 0 else 1)
            if self.round_counter == 1:
                self._raise_amount = 2 * BIG_BLIND
            self.round_counter += 1
            self._raises = self._unraised = 0
            self._raised = [0] * self.num_players
            self._new_round()

    def over(self) -> bool:
        return self.folded.count(False) == 1 or self.round_counter >= 4


class RLCardNoLimitHand(_RLCardHand):
    """RLCard's no-limit hold'em (``rlcard.games.nolimitholdem``): ``stack`` chips each; half
    pot puts in half the pot and pot puts in the pot (no call first, no minimum raise); fold
    always offered; every round after the first opens with the player after the dealer, so
    heads-up the small blind acts first after the flop; all-in players keep their turns."""

    limit = False

    def __init__(
        self,
        hands: list[list[int]],
        deck: list[int],
        rng: np.random.RandomState,
        dealer: int,
        stack: int,
    ):
        super().__init__(hands, deck, rng)
        n = self.num_players
        self.dealer = dealer
        self.stacks = [stack] * n
        self.all_in = [False] * n
        big, small = (dealer + 2) % n, (dealer + 1) % n
        self._bet(big, BIG_BLIND)
        self._bet(small, SMALL_BLIND)
        self._raised = list(self.in_chips)
        self.to_act = (big + 1) % n
        self._unraised = 0
        self._out = 0  # RLCard's not_playing_num: folds and all-ins, counted as they happen

    def _bet(self, p: int, chips: int) -> None:
        put = min(chips, self.stacks[p])
        self.in_chips[p] += put
        self.stacks[p] -= put

    def legal_ids(self) -> list[int]:
        p, raised = self.to_act, self._raised
        stack, pot = self.stacks[p], sum(self.in_chips)
        to_call = max(raised) - raised[p]
        if 0 < to_call >= stack:
            return [N_FOLD, N_CALL]
        legal = [N_FOLD, N_CALL]
        if pot // 2 <= stack and pot // 2 + raised[p] > max(raised):
            legal.append(N_HALF_POT)
        if pot <= stack:
            legal.append(N_POT)
        legal.append(N_ALL_IN)
        return legal

    def apply(self, action: int) -> None:
        n, p, raised = self.num_players, self.to_act, self._raised
        self._record(p, action)
        if action == N_CALL:
            self._bet(p, max(raised) - raised[p])
            raised[p] = max(raised)
            self._unraised += 1
        elif action == N_FOLD:
            self.folded[p] = True
        else:
            pot = sum(self.in_chips)
            put = {N_HALF_POT: pot // 2, N_POT: pot, N_ALL_IN: self.stacks[p]}[action]
            raised[p] += put
            self._bet(p, put)
            self._unraised = 1
        if self.stacks[p] == 0 and not self.folded[p]:
            self.all_in[p] = True
        if self.all_in[p]:  # RLCard counts an all-in player again at each of its turns
            self._out += 1
            self._unraised -= 1
        elif self.folded[p]:
            self._out += 1
        self.to_act = self._next_unfolded(p)
        if self._unraised + self._out < n:
            return
        bypass = [self.folded[i] or self.all_in[i] for i in range(n)]
        if bypass.count(False) == 1:
            last = bypass.index(False)
            bypass[last] = raised[last] >= max(raised)
        runout = all(bypass)
        self.to_act = (self.dealer + 1) % n
        if not runout:
            while bypass[self.to_act]:
                self.to_act = (self.to_act + 1) % n
        # RLCard deals the next street and, when no one can bet any more, the ones after it.
        for street, count in ((0, 3), (1, 1), (2, 1)):
            if self.round_counter == street:
                self._deal(count)
                if runout:
                    self.round_counter += 1
        self.round_counter += 1
        self._unraised = 0
        self._raised = [0] * n
        self._new_round()

    def over(self) -> bool:
        return self.folded.count(False) == 1 or self.round_counter >= 4

    def _extra_public(self) -> dict[str, Any]:
        return {"stacks": list(self.stacks)}
