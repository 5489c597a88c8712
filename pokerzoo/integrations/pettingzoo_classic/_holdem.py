"""The hold'em env behind ``texas_holdem_v4`` and ``texas_holdem_no_limit_v6``: RLCard's seeded
deals, card encoding and action ids over either pokerzoo's rules (``EngineHand``, the default)
or RLCard's (``_rlcard_rules``, ``rules="rlcard"``)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import CHANCE, TERMINAL, check_int
from pokerzoo.games.holdem import (
    LimitHoldem,
    LimitHoldemConfig,
    NoLimitHoldem,
    NoLimitHoldemConfig,
)
from pokerzoo.games.holdem.config import MAX_PLAYERS
from pokerzoo.games.holdem.game import HoldemGame
from pokerzoo.integrations.pettingzoo_classic._base import ClassicPokerEnv, rlcard_deal
from pokerzoo.integrations.pettingzoo_classic._rlcard_rules import (
    BIG_BLIND,
    L_CALL,
    L_CHECK,
    L_FOLD,
    L_RAISE,
    SMALL_BLIND,
    RLCardLimitHand,
    RLCardNoLimitHand,
)

RULES = ("pokerzoo", "rlcard")
RLCARD_STACK = 100
"""RLCard's no-limit stack (``chips_for_each``): 50 big blinds."""
STACK = 200
"""pokerzoo's no-limit stack: 100 big blinds, the standard depth."""
# RLCard's 52-card deck before shuffling (spades, hearts, diamonds, clubs; A, 2, ..., K) as our
# card ids (4 * rank + suit, ranks 2..A, suits c d h s); position i is RLCard's card index i,
# the position of the card in the observation.
RLCARD_DECK = tuple(
    4 * "23456789TJQKA".index(rank) + "cdhs".index(suit)
    for suit in "shdc"
    for rank in "A23456789TJQK"
)
OBS_INDEX = np.argsort(RLCARD_DECK)
"""Our card id -> its entry in RLCard's observation."""
_BOARD_ROUND = {0: 0, 3: 1, 4: 2, 5: 3}
# pokerzoo's limit ids (0 fold, 1 check/call, 2 bet/raise) -> RLCard's (call, raise, fold, check).
_FOLD, _CALL, _RAISE = 0, 1, 2


class EngineHand:
    """A hand of pokerzoo's hold'em with RLCard's faces: agents for seats (the small blind,
    our seat 0, is agent ``small_blind``), RLCard's action ids, cards dealt off RLCard's deck."""

    def __init__(
        self,
        game: HoldemGame,
        hands: list[list[int]],
        deck: list[int],
        small_blind: int,
    ) -> None:
        n = self.num_players = game.num_players
        self.limit = game.is_limit
        self.hands = hands
        self._deck = deck
        self._sb = small_blind
        self.state = state = game.new_initial_state()
        for seat in range(n):
            for card in hands[(small_blind + seat) % n]:
                state.apply_action(card)
        self.raise_nums = [0, 0, 0, 0]
        self.to_act = (small_blind + state.current_player()) % n
        # What observations read, kept here per agent as the hand goes (cheaper than the
        # state's public view at every step): chips put in, folds, the board.
        cfg = game.config
        self.in_chips = [cfg.ante] * n
        self.in_chips[small_blind] += cfg.small_blind
        self.in_chips[(small_blind + 1) % n] += cfg.big_blind
        self.folded = [False] * n
        self.board: list[int] = []

    def legal_ids(self) -> list[int]:
        ours = self.state.legal_actions()
        if not self.limit:
            return ours  # the same ids: fold, check/call, half pot, pot, all-in
        call = L_CALL if self.state.amount_to_call() > 0 else L_CHECK
        named = {_FOLD: L_FOLD, _CALL: call, _RAISE: L_RAISE}
        return sorted(named[a] for a in ours)

    def apply(self, action: int) -> None:
        state = self.state
        if self.limit:
            if action == L_RAISE:
                self.raise_nums[_BOARD_ROUND[len(self.board)]] += 1
            action = {L_FOLD: _FOLD, L_RAISE: _RAISE}.get(action, _CALL)
        acted = self.to_act
        pot = state.pot()
        state.apply_action(action)
        self.in_chips[acted] += state.pot() - pot
        if action == _FOLD:
            self.folded[acted] = True
        while state.current_player() == CHANCE:
            card = self._deck.pop()
            state.apply_action(card)
            self.board.append(card)
        n = self.num_players
        if state.current_player() == TERMINAL:
            # RLCard's turn pointer moves on to the next player who has not folded.
            nxt = (acted + 1) % n
            while self.folded[nxt]:
                nxt = (nxt + 1) % n
            self.to_act = nxt
        else:
            self.to_act = (self._sb + state.current_player()) % n

    def over(self) -> bool:
        return self.state.current_player() == TERMINAL

    def payoffs(self) -> list[float]:
        returns = self.state.returns()
        n = self.num_players
        return [returns[(i - self._sb) % n] for i in range(n)]

    def text(self, game: HoldemGame, agents: list[str]) -> str:
        from pokerzoo.envs.rendering import render_text

        state = self.state
        viewer = None if state.is_terminal() else state.current_player()
        names = [agents[(self._sb + seat) % self.num_players] for seat in range(self.num_players)]
        return render_text(game, state, viewer, names)


Hand = EngineHand | RLCardLimitHand | RLCardNoLimitHand


class HoldemClassicEnv(ClassicPokerEnv):
    """PettingZoo's RLCard hold'em envs on pokerzoo's engine; see the modules of the two
    named envs.

    Args:
        num_players: players at the table, 2 to 6 (pokerzoo's hold'em seats at most six).
        render_mode: ``"human"``, ``"ansi"`` or ``None``, as in PettingZoo.
        screen_height: kept for PettingZoo's signature; the text rendering does not use it.
        rules: ``"pokerzoo"`` (the default: standard hold'em rules, stacks and raise sizes) or
            ``"rlcard"``: RLCard's rules and stacks, which is what PettingZoo's env plays.
            Migrating from PettingZoo and wanting its behaviour hand for hand (the same
            rewards, the same legal actions, a policy trained there playing the same game):
            pass ``rules="rlcard"``. The module's docstring lists every difference.
        stack: chips each player starts a hand with; ``None``: 200 chips with
            ``rules="pokerzoo"``, RLCard's 100 with ``rules="rlcard"``.
        illegal_action: ``"raise"`` (``raw_env``: an illegal action raises) or
            ``"penalize"`` (``env()``: PettingZoo's wrappers, the offender gets -1 and the
            hand ends).
    """

    limit: ClassVar[bool]
    metadata: ClassVar[dict[str, Any]]

    def __init__(
        self,
        num_players: int = 2,
        render_mode: str | None = None,
        screen_height: int | None = 1000,
        *,
        rules: str = "pokerzoo",
        stack: int | None = None,
        illegal_action: str = "raise",
    ) -> None:
        # illegal_action: "raise" (raw_env) or "penalize" (env(): PettingZoo's wrappers).
        EzPickle.__init__(
            self, num_players, render_mode, screen_height,
            rules=rules, stack=stack, illegal_action=illegal_action,
        )  # fmt: skip
        n = check_int("num_players", num_players, 2, MAX_PLAYERS)
        if rules not in RULES:
            raise ConfigError(f"rules must be one of {list(RULES)}, got {rules!r}")
        self.rules = rules
        self.game = self._make_game(n, rules, stack)
        num_actions = 4 if self.limit else 5
        super().__init__(
            n, render_mode, screen_height, self._box(), num_actions, illegal_action
        )
        self._dealer: int | None = None
        self.hand: Hand = self._deal()

    def _make_game(self, n: int, rules: str, stack: int | None) -> HoldemGame:
        blinds: dict[str, Any] = {
            "num_players": n, "small_blind": SMALL_BLIND, "big_blind": BIG_BLIND
        }
        self.stack = stack
        if self.limit:
            if stack is not None:
                raise ConfigError(
                    "texas_holdem_v4 takes no stack: limit stacks never run out (RLCard's "
                    "have no bottom; pokerzoo's hold 100 big blinds, more than a capped hand "
                    "can bet)"
                )
            return LimitHoldem(LimitHoldemConfig(**blinds, stacks=STACK))
        if stack is None:
            stack = RLCARD_STACK if rules == "rlcard" else STACK
        self.stack = stack
        return NoLimitHoldem(
            NoLimitHoldemConfig(**blinds, stacks=stack, bet_fractions=(0.5, 1.0))
        )

    def _box(self) -> spaces.Box:
        if self.limit:
            return spaces.Box(0.0, 1.0, (72,), np.float32)
        stack = self.game.starting_stacks[0]
        high = np.append(np.ones(52, np.float32), np.array([stack, stack], np.float32))
        return spaces.Box(np.zeros(54, np.float32), high, dtype=np.float32)

    def _deal(self) -> Hand:
        n, rng = self.num_players, self._rng
        if self.limit:  # RLCard shuffles and deals, then draws the small blind
            hands, deck = rlcard_deal(rng, RLCARD_DECK, n, 2)
            small_blind = int(rng.randint(0, n))
            if self.rules == "rlcard":
                return RLCardLimitHand(hands, deck, rng, small_blind)
            return EngineHand(self.game, hands, deck, small_blind)
        # RLCard's no-limit draws the dealer once per seeding, before the first shuffle.
        if self._seeded or self._dealer is None:
            self._dealer = int(rng.randint(0, n))
        hands, deck = rlcard_deal(rng, RLCARD_DECK, n, 2)
        if self.rules == "rlcard":
            stack = self.game.starting_stacks[0]
            return RLCardNoLimitHand(hands, deck, rng, self._dealer, stack)
        return EngineHand(self.game, hands, deck, (self._dealer + 1) % n)

    # Hooks ---------------------------------------------------------------------------------------

    def _new_hand(self) -> int:
        self.hand = self._deal()
        return self.hand.to_act

    def _play(self, action: int) -> int:
        self.hand.apply(action)
        return self.hand.to_act

    def _hand_over(self) -> bool:
        return self.hand.over()

    def _legal_ids(self) -> list[int]:
        return self.hand.legal_ids()

    def _payoffs(self) -> list[float]:
        chips = self.hand.payoffs()
        return [c / BIG_BLIND for c in chips] if self.limit else chips

    def _observation(self, agent_index: int) -> np.ndarray:
        hand = self.hand
        if self.limit:
            obs = np.zeros(72, np.float32)
            obs[[52 + 5 * r + k for r, k in enumerate(hand.raise_nums)]] = 1
        else:
            obs = np.zeros(54, np.float32)
            obs[52] = hand.in_chips[agent_index]
            obs[53] = max(hand.in_chips)
        obs[OBS_INDEX[[*hand.hands[agent_index], *hand.board]]] = 1
        return obs

    def _table_text(self) -> str:
        hand = self.hand
        if isinstance(hand, EngineHand):
            return hand.text(self.game, self.possible_agents)
        from pokerzoo.envs.rendering import render_text

        viewer = None if hand.over() else hand.to_act
        return render_text(self.game, hand, viewer, self.possible_agents)  # type: ignore[arg-type]
