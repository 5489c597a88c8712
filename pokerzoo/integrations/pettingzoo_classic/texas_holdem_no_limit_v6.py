"""PettingZoo's ``texas_holdem_no_limit_v6`` (RLCard's no-limit hold'em) on pokerzoo's engine.

``texas_holdem_no_limit_v6`` here is a drop-in for ``pettingzoo.classic.texas_holdem_no_limit_v6``:
code and policies written for PettingZoo's env run unchanged. By default it plays standard
no-limit rules (pokerzoo's ``no_limit_holdem``, blinds 1/2, 100 big blinds deep, half-pot and
pot raises sized as poker players size them, minimum raises); ``rules="rlcard"`` plays RLCard's
rules and stacks instead, and then every hand agrees with PettingZoo's env step by step
(checked by replaying thousands of random hands with 2 to 4 players in both, all-ins, side
pots and odd chips included). Registered as ``pokerzoo.make("classic_texas_holdem_no_limit_v6")``
and ``pettingzoo.make("aec", "pokerzoo/classic_texas_holdem_no_limit-v6")``.

What is the same as PettingZoo's ``texas_holdem_no_limit_v6``:

* agents ``"player_0"`` ... ``"player_{n-1}"`` (``num_players``, default 2); the dealer is drawn
  at random at the first hand after each seeding and stays for unseeded resets (RLCard's way),
  the small and big blinds sit after it;
* ``reset(seed=s)`` deals the same cards and draws the same dealer as PettingZoo's env with the
  same seed, and unseeded resets go on dealing alike (RLCard's generator and deck order);
* observation ``{"observation": float32[54], "action_mask": int8[5]}`` with RLCard's encoding:

  ======  ================================================================================
  index   meaning
  ======  ================================================================================
  0-51    ones for the observer's hole cards and the board; 13 per suit (spades, hearts,
          diamonds, clubs), ranks A, 2, ..., K
  52      chips the observer has put in this hand
  53      the most chips any player has put in this hand
  ======  ================================================================================

* actions ``0`` fold, ``1`` check/call, ``2`` raise half the pot, ``3`` raise the pot, ``4``
  all-in; every agent's mask shows the legal actions of the agent to act (all zero once the
  hand is over);
* rewards at the end of the hand: chips won (RLCard's payoffs; PettingZoo's page says chips/2,
  its env pays chips);
* ``env()`` acts as PettingZoo's, whose ``raw_env`` is wrapped in
  ``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper`` and
  ``OrderEnforcingWrapper``: ours does the first two in its own ``step`` (three wrappers cost
  more than the hand) and is wrapped in the third;
* arguments ``num_players``, ``render_mode`` and ``screen_height`` (kept; the text rendering
  does not use it); ``rules`` and ``stack`` (chips each, ``None``: 200, or RLCard's 100 with
  ``rules="rlcard"``) are pokerzoo's own.

Differences (the whole list; rows marked * are RLCard's rules, which ``rules="rlcard"`` plays):

===============================  =================================  ===============================
behaviour                        PettingZoo                         pokerzoo (default rules)
===============================  =================================  ===============================
\\* stacks                        100 chips: 50 big blinds (obs.     200 chips: 100 big blinds (obs.
                                 entries 52-53 up to 100)           entries up to ``stack``)
\\* half-pot and pot raises       put in half the pot or the pot,    raise to the bet to call plus
                                 without calling first: the same    that part of the pot after the
                                 bets when not facing one, a        call, at least a minimum raise
                                 smaller raise or none (then not    (the last raise, at least the
                                 offered) when facing one           big blind); a size that would
                                                                    be all-in is not offered
\\* all-in                        offered unless calling takes the   also not offered when no one
                                 whole stack; any all-in reopens    else can call more, or to a
                                 the betting                        player the betting has not
                                                                    reopened for (an all-in short
                                                                    of a full raise)
\\* fold                          offered at every decision          offered only facing a bet
\\* first to act after the flop   the player after the dealer:       heads-up the big blind, else
                                 heads-up the small blind           the small blind
\\* all-in players (3+ players)   keep their turns (fold, call or    skipped
                                 all-in of no chips)
\\* a fold to an all-in           RLCard deals the rest of the       the hand ends there
                                 board (in the last observations)
\\* side pots                     a pot the overall winner is not    won by the best hand among
                                 in goes back to its players        those in it
\\* odd chip of a split pot       a random winner (RLCard's          the first winner left of the
                                 generator, which moves later       button
                                 deals)
``num_players``                  2 or more                          2 to 6 (``ConfigError``)
illegal action in ``raw_env``    RLCard plays check (fold when      raises ``IllegalActionError``
                                 checking is illegal)               naming the legal actions
``render_mode="human"``          pygame window, card images,        prints the table as text after
                                 drawn after each action            reset and after each action
``render_mode="rgb_array"``      pygame card images                 the text table as an image
``render_mode="ansi"``           not offered                        returns the table as text
``copy.deepcopy(env)``           fails (RLCard's env)               copies the running hand
``env()``'s wrappers             the three above                    ``OrderEnforcingWrapper`` only
``agent_selection`` once every   RLCard's turn pointer              the next player still in
agent is done                                                       after the last to act (*)
extra attributes                 ``env`` (RLCard's env)             ``game``, ``hand``, ``rules``,
                                                                    ``stack``
===============================  =================================  ===============================

>>> env = env()
>>> env.reset(seed=0)
>>> small_blind = env.agent_selection  # PettingZoo's env with seed 0 draws the same
>>> small_blind, env.observe(small_blind)["action_mask"].tolist()
('player_1', [1, 1, 1, 1, 1])
>>> env.step(4)  # all-in: 200 chips
>>> env.observe("player_0")["observation"][52:].tolist()
[2.0, 200.0]
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import AECEnv

from pokerzoo.integrations.pettingzoo_classic._base import classic_env, classic_metadata
from pokerzoo.integrations.pettingzoo_classic._holdem import HoldemClassicEnv


class TexasHoldemNoLimitV6(HoldemClassicEnv):
    """PettingZoo's ``texas_holdem_no_limit_v6`` on pokerzoo's engine; see the module."""

    limit = False
    metadata: ClassVar[dict[str, Any]] = classic_metadata("texas_holdem_no_limit_v6")


def raw_env(
    num_players: int = 2,
    render_mode: str | None = None,
    screen_height: int | None = 1000,
    *,
    rules: str = "pokerzoo",
    stack: int | None = None,
) -> TexasHoldemNoLimitV6:
    """The env without wrappers (illegal actions raise ``IllegalActionError``); ``rules`` is
    ``"pokerzoo"`` (standard no-limit rules) or ``"rlcard"`` (RLCard's, as PettingZoo's env),
    ``stack`` the chips each player starts with (blinds 1/2)."""
    return TexasHoldemNoLimitV6(num_players, render_mode, screen_height, rules=rules, stack=stack)


def env(**kwargs: Any) -> AECEnv:
    """``raw_env(**kwargs)`` wrapped as PettingZoo's ``texas_holdem_no_limit_v6.env()``: an
    illegal action ends the hand with reward -1 for the agent that played it."""
    return classic_env(TexasHoldemNoLimitV6, raw_env, kwargs)
