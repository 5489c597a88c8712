"""PettingZoo's ``texas_holdem_v4`` (RLCard's limit hold'em) on pokerzoo's engine.

``texas_holdem_v4`` here is a drop-in for ``pettingzoo.classic.texas_holdem_v4``: code and
policies written for PettingZoo's env run unchanged. By default it plays standard limit rules
(pokerzoo's ``limit_holdem``, blinds 1/2); ``rules="rlcard"`` plays RLCard's rules instead, and
then every hand agrees with PettingZoo's env step by step (checked by replaying thousands of
random hands with 2 to 4 players in both). Registered as
``pokerzoo.make("classic_texas_holdem_v4")`` and
``pettingzoo.make("aec", "pokerzoo/classic_texas_holdem-v4")``.

What is the same as PettingZoo's ``texas_holdem_v4``:

* agents ``"player_0"`` ... ``"player_{n-1}"`` (``num_players``, default 2); the small blind is
  drawn at random each hand, the big blind sits after it;
* ``reset(seed=s)`` deals the same cards and draws the same small blind as PettingZoo's env with
  the same seed, and unseeded resets go on dealing alike (RLCard's generator and deck order);
* observation ``{"observation": float32[72], "action_mask": int8[4]}`` with RLCard's encoding:

  ======  ================================================================================
  index   meaning
  ======  ================================================================================
  0-51    ones for the observer's hole cards and the board; 13 per suit (spades, hearts,
          diamonds, clubs), ranks A, 2, ..., K
  52-56   one-hot: raises in the pre-flop round (0 to 4; the big blind is not one)
  57-61   one-hot: bets and raises on the flop (0 to 4)
  62-66   one-hot: bets and raises on the turn (0 to 4)
  67-71   one-hot: bets and raises on the river (0 to 4)
  ======  ================================================================================

* actions ``0`` call, ``1`` raise, ``2`` fold, ``3`` check; bets are one big blind before the
  flop and on the flop, two on the turn and river; every agent's mask shows the legal actions
  of the agent to act (all zero once the hand is over);
* rewards at the end of the hand: chips won divided by the big blind (RLCard's payoffs);
* ``env()`` acts as PettingZoo's, whose ``raw_env`` is wrapped in
  ``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper`` and
  ``OrderEnforcingWrapper``: ours does the first two in its own ``step`` (three wrappers cost
  more than the hand) and is wrapped in the third;
* arguments ``num_players``, ``render_mode`` and ``screen_height`` (kept; the text rendering
  does not use it).

Differences (the whole list; rows marked * are RLCard's rules, which ``rules="rlcard"`` plays):

==============================  ==================================  ===============================
behaviour                       PettingZoo ``texas_holdem_v4``      pokerzoo (default rules)
==============================  ==================================  ===============================
\\* fold                         offered at every decision           offered only facing a bet
\\* raises per round             four raises on every street, so     a bet and three raises (four
                                five bets before the flop           bets, the big blind the first)
\\* first to act after the flop  the player after the one who        heads-up the big blind, else
                                closed the last round (heads-up     the first player still in left
                                often the small blind)              of the button
\\* end of a round (3+ players)  after as many checks and calls      when every player still in has
                                since the last raise as there are   acted and matched the bet
                                players at the table, folded ones
                                counted (the raiser may act again)
\\* odd chip of a split pot      a random winner (RLCard's           the first winner left of the
                                generator, which moves later        button
                                deals)
stacks                          none                                100 big blinds (a hand can bet
                                                                    at most 24)
``num_players``                 2 or more                           2 to 6 (``ConfigError``)
illegal action in ``raw_env``   RLCard plays check (fold when       raises ``IllegalActionError``
                                checking is illegal)                naming the legal actions
``render_mode="human"``         pygame window, card images,         prints the table as text after
                                drawn after each action             reset and after each action
``render_mode="rgb_array"``     pygame card images                  the text table as an image
``render_mode="ansi"``          not offered                         returns the table as text
``copy.deepcopy(env)``          fails (RLCard's env)                copies the running hand
``env()``'s wrappers            the three above                     ``OrderEnforcingWrapper`` only
``agent_selection`` once every  RLCard's turn pointer               the next player still in
agent is done                                                       after the last to act (*)
extra attributes                ``env`` (RLCard's env)              ``game``, ``hand``, ``rules``
==============================  ==================================  ===============================

>>> env = env()
>>> env.reset(seed=0)
>>> env.agent_selection, env.observe("player_0")["action_mask"].tolist()
('player_0', [1, 1, 1, 0])
>>> env.step(2)  # the small blind folds
>>> env.rewards
{'player_0': -0.5, 'player_1': 0.5}
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import AECEnv

from pokerzoo.integrations.pettingzoo_classic._base import classic_env, classic_metadata
from pokerzoo.integrations.pettingzoo_classic._holdem import HoldemClassicEnv


class TexasHoldemV4(HoldemClassicEnv):
    """PettingZoo's ``texas_holdem_v4`` on pokerzoo's engine; see the module."""

    limit = True
    metadata: ClassVar[dict[str, Any]] = classic_metadata("texas_holdem_v4")


def raw_env(
    num_players: int = 2,
    render_mode: str | None = None,
    screen_height: int | None = 1000,
    *,
    rules: str = "pokerzoo",
) -> TexasHoldemV4:
    """The env without wrappers (illegal actions raise ``IllegalActionError``); ``rules`` is
    ``"pokerzoo"`` (standard limit rules) or ``"rlcard"`` (RLCard's, as PettingZoo's env)."""
    return TexasHoldemV4(num_players, render_mode, screen_height, rules=rules)


def env(**kwargs: Any) -> AECEnv:
    """``raw_env(**kwargs)`` wrapped as PettingZoo's ``texas_holdem_v4.env()``: an illegal
    action ends the hand with reward -1 for the agent that played it."""
    return classic_env(TexasHoldemV4, raw_env, kwargs)
