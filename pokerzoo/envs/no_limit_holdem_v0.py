"""No-limit Texas hold'em (2-6 players, discrete bet sizes) as a PettingZoo AEC env.

Game parameters pass straight through:
``num_players``, ``small_blind``, ``big_blind``, ``ante``, ``stacks``,
``bet_fractions``.
Env options: ``render_mode``, ``illegal_action`` and ``illegal_reward`` (``env`` only).

>>> from pokerzoo.envs import no_limit_holdem_v0
>>> env = no_limit_holdem_v0.env()
>>> env.reset(seed=0)
>>> env.agent_selection
'player_0'
"""

from __future__ import annotations

from typing import Any

from pokerzoo.envs.poker_env import PokerEnv, make_env

GAME = "no_limit_holdem"


def env(**kwargs: Any) -> PokerEnv:
    """The env: illegal actions end the hand with ``illegal_reward`` (default -1)."""
    return make_env(GAME, raw=False, **kwargs)


def raw_env(**kwargs: Any) -> PokerEnv:
    """The env without penalties: illegal actions raise ``IllegalActionError``."""
    return make_env(GAME, raw=True, **kwargs)
