"""PettingZoo-classic compatible poker envs on pokerzoo's engine.

``leduc_holdem_v4`` here is a drop-in for ``pettingzoo.classic.leduc_holdem_v4`` (RLCard's
Leduc hold'em): code and policies written for PettingZoo's env run unchanged. It plays the
``"rlcard"`` Leduc variant (``pokerzoo.games.leduc.LEDUC_VARIANTS``; blinds 1/2, the small blind
acts first, fold offered at every decision, round two opened by the player after the one who
closed round one), which is replay-checked against RLCard's own game.

``from pokerzoo.integrations.pettingzoo_classic import leduc_holdem_v4`` has the same face as
``from pettingzoo.classic import leduc_holdem_v4``. Registered as
``pokerzoo.make("classic_leduc_holdem_v4")`` and
``pettingzoo.make("aec", "pokerzoo/classic_leduc_holdem-v4")``.

What is the same as PettingZoo's ``leduc_holdem_v4``:

* agents ``"player_0"``, ``"player_1"``; the small blind is drawn at random each hand and acts
  first, so ``agent_selection`` after ``reset`` is either agent;
* ``reset(seed=s)`` deals the same cards and draws the same small blind as PettingZoo's env with
  the same seed (the deck is shuffled by RLCard's seeded generator, in RLCard's deck order);
* observation ``{"observation": float32[36], "action_mask": int8[4]}`` with RLCard's encoding:

  ======  ==========================================================
  index   meaning (one-hot blocks)
  ======  ==========================================================
  0-2     own card's rank (J, Q, K)
  3-5     public card's rank (all zero before it is dealt)
  6-20    chips the observing player has put in (0 to 14)
  21-35   chips all the other players have put in (0 to 14)
  ======  ==========================================================

* actions ``0`` call, ``1`` raise, ``2`` fold, ``3`` check; the mask of every agent shows the
  legal actions of the agent to act (all zero once the hand is over), as in PettingZoo's env;
* rewards at the end of the hand: chips won divided by the big blind (RLCard's payoffs);
* ``env()`` acts as PettingZoo's, whose ``raw_env`` is wrapped in
  ``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper`` and
  ``OrderEnforcingWrapper``: ours does the first two in its own ``step`` (three wrappers cost
  more than the hand) and is wrapped in the third;
* arguments ``render_mode`` (``None``, ``"human"``, ``"rgb_array"``; also ``"ansi"``) and
  ``screen_height`` (kept for compatibility; the text rendering does not use it).

Differences (the whole list):

=============================  ==============================  ====================================
behaviour                      PettingZoo ``leduc_holdem_v4``  pokerzoo ``classic_leduc_holdem_v4``
=============================  ==============================  ====================================
illegal action in ``raw_env``  RLCard plays check (fold when   raises ``IllegalActionError``
                               checking is illegal)            naming the legal actions
``render_mode="human"``        pygame window, card images,     prints the table as text after
                               drawn after each action         reset and after each action
``render_mode="rgb_array"``    pygame card images              the text table drawn as an image
``render_mode="ansi"``         not offered                     returns the table as text
``copy.deepcopy(env)``         fails (RLCard's env)            copies the running hand
``env()``'s wrappers           the three above                 ``OrderEnforcingWrapper`` only
extra attributes               ``env`` (RLCard's env)          ``game``, ``game_state``
=============================  ==============================  ====================================

>>> env = env()
>>> env.reset(seed=0)
>>> env.agent_selection
'player_0'
>>> env.observe("player_0")["action_mask"].tolist()
[1, 1, 1, 0]
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from pokerzoo.games.base import CHANCE, TERMINAL
from pokerzoo.games.leduc import CALL, FOLD, LEDUC_VARIANTS, RAISE, LeducHoldem, LeducState
from pokerzoo.integrations.pettingzoo_classic._base import (
    ClassicPokerEnv,
    classic_env,
    classic_metadata,
    rlcard_deal,
)

# RLCard's action ids (rlcard.envs.leducholdem: ['call', 'raise', 'fold', 'check']).
RL_CALL, RL_RAISE, RL_FOLD, RL_CHECK = 0, 1, 2, 3
NUM_ACTIONS = 4
OBS_SIZE = 36
# RLCard's Leduc deck before shuffling (suit, rank): spades and hearts of J, Q, K. Our card id
# is rank * 2 + suit with suits S=0, H=1, so the deck in RLCard's order is these ids.
_RLCARD_DECK = (0, 1, 2, 3, 4, 5)
_NUM_SUITS = 2
_MY_CHIPS, _OTHER_CHIPS, _PUBLIC = 6, 21, 3


class LeducHoldemV4(ClassicPokerEnv):
    """PettingZoo's ``leduc_holdem_v4`` (RLCard's Leduc) on pokerzoo's engine; see the module."""

    metadata: ClassVar[dict[str, Any]] = classic_metadata("leduc_holdem_v4")

    def __init__(
        self,
        render_mode: str | None = None,
        screen_height: int | None = 1000,
        *,
        illegal_action: str = "raise",
    ) -> None:
        # illegal_action: "raise" (raw_env) or "penalize" (env(): PettingZoo's wrappers).
        EzPickle.__init__(self, render_mode, screen_height, illegal_action=illegal_action)
        self.game = LeducHoldem(**LEDUC_VARIANTS["rlcard"])
        super().__init__(
            2,
            render_mode,
            screen_height,
            spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
            NUM_ACTIONS,
            illegal_action,
        )
        self._big_blind = self.game.config.big_blind
        self._small_blind = 0  # the agent in our seat 0 (the small blind) this hand
        self._deck: list[int] = []
        self.game_state: LeducState = self.game.new_initial_state()
        self._public: dict[str, Any] = self.game_state.public_state()

    # Hooks ---------------------------------------------------------------------------------------

    def _new_hand(self) -> int:
        # RLCard's order of draws: shuffle the deck, deal each player the last card in turn,
        # then draw the small blind; the public card is the next card off the deck.
        hands, self._deck = rlcard_deal(self._rng, _RLCARD_DECK, self.num_players, 1)
        self._small_blind = int(self._rng.randint(0, self.num_players))
        state = self.game.new_initial_state()
        for seat in range(self.num_players):
            state.apply_action(hands[self._agent_index(seat)][0])
        self.game_state = state
        self._public = state.public_state()
        return self._agent_index(state.current_player())

    def _play(self, action: int) -> int:
        state = self.game_state
        acted = self._agent_index(state.current_player())
        state.apply_action(self._to_ours(action))
        if state.current_player() == CHANCE:
            state.apply_action(self._deck.pop())
        # The public view, read once per action: every agent's observation and the mask use it.
        self._public = state.public_state()
        if state.current_player() == TERMINAL:
            # RLCard's turn pointer moves on past the last actor when the hand ends.
            return (acted + 1) % self.num_players
        return self._agent_index(state.current_player())

    def _hand_over(self) -> bool:
        return self.game_state.current_player() == TERMINAL

    def _payoffs(self) -> list[float]:
        returns = self.game_state.returns()
        return [returns[self._seat_of(i)] / self._big_blind for i in range(self.num_players)]

    def _observation(self, agent_index: int) -> np.ndarray:
        seat = self._seat_of(agent_index)
        state = self.game_state
        obs = np.zeros(OBS_SIZE, np.float32)
        obs[state.private_cards()[seat][0] // _NUM_SUITS] = 1
        public = self._public
        if public["public_cards"]:
            obs[_PUBLIC + public["public_cards"][0] // _NUM_SUITS] = 1
        mine = public["contributions"][seat]
        obs[_MY_CHIPS + mine] = 1
        obs[_OTHER_CHIPS + public["pot"] - mine] = 1
        return obs

    def _table_text(self) -> str:
        from pokerzoo.envs.rendering import render_text

        state = self.game_state
        viewer = None if state.is_terminal() else state.current_player()
        names = [self._agent_of(seat) for seat in range(self.num_players)]
        return render_text(self.game, state, viewer, names)

    # Seats ---------------------------------------------------------------------------------------
    # Our seat 0 is the small blind; RLCard's small blind is agent ``_small_blind``.

    def _agent_index(self, seat: int) -> int:
        return (self._small_blind + seat) % self.num_players

    def _agent_of(self, seat: int) -> str:
        return self.possible_agents[self._agent_index(seat)]

    def _seat_of(self, agent_index: int) -> int:
        return (agent_index - self._small_blind) % self.num_players

    # Actions -------------------------------------------------------------------------------------

    def _facing_bet(self) -> bool:
        contributions = self._public["contributions"]
        return contributions[self.game_state.current_player()] < max(contributions)

    def _legal_ids(self) -> list[int]:
        """RLCard's ids of the legal actions, in RLCard's order (call, raise, fold, check)."""
        return sorted(self._to_rlcard(a) for a in self.game_state.legal_actions())

    def _to_rlcard(self, action: int) -> int:
        if action == CALL:
            return RL_CALL if self._facing_bet() else RL_CHECK
        return RL_RAISE if action == RAISE else RL_FOLD

    @staticmethod
    def _to_ours(index: int) -> int:
        if index in (RL_CALL, RL_CHECK):
            return CALL
        return RAISE if index == RL_RAISE else FOLD


def raw_env(render_mode: str | None = None, screen_height: int | None = 1000) -> LeducHoldemV4:
    """The env without wrappers: illegal actions raise ``IllegalActionError``."""
    return LeducHoldemV4(render_mode=render_mode, screen_height=screen_height)


def env(**kwargs: Any) -> AECEnv:
    """``raw_env(**kwargs)`` as PettingZoo's ``leduc_holdem_v4.env()``: an illegal action ends
    the hand with reward -1 for the agent that played it."""
    return classic_env(LeducHoldemV4, raw_env, kwargs)
