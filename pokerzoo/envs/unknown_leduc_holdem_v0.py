"""Leduc hold'em with a hidden chance and reward model d* as a PettingZoo AEC env.

The setting of PSRLCFR and VCFR.

Game parameters: ``base`` (``"leduc4"``, ``"leduc5"``, ``"5leduc"``, ``"leduc"`` or a dict of
``leduc_holdem`` parameters), ``prior`` (``"psrlcfr"``, ``"poker_payoffs"``, a dict or a
``Prior``) and ``seed`` (the draw of d*). Env options: ``render_mode``, ``illegal_action``,
``illegal_reward`` (``env`` only) and ``episode_info``. Finished hands are reported in
``infos[agent]["episode"]`` (see ``pokerzoo.envs.unknown_env``).

>>> from pokerzoo.envs import unknown_leduc_holdem_v0
>>> env = unknown_leduc_holdem_v0.env(seed=0)
>>> env.reset(seed=0)
>>> env.agent_selection
'player_0'
"""

from __future__ import annotations

from typing import Any

from pokerzoo.envs.unknown_env import UnknownPokerEnv, make_unknown_env

GAME = "unknown_leduc_holdem"


def env(**kwargs: Any) -> UnknownPokerEnv:
    """The env: illegal actions end the hand with ``illegal_reward`` (default -1)."""
    return make_unknown_env(GAME, raw=False, **kwargs)


def raw_env(**kwargs: Any) -> UnknownPokerEnv:
    """The env without penalties: illegal actions raise ``IllegalActionError``."""
    return make_unknown_env(GAME, raw=True, **kwargs)
