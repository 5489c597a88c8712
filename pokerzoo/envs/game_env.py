"""The AEC env of any registered game that has no env module of its own.

``pokerzoo.envs.registry`` derives a row for every registered game (``<name>_v<N>``); for a
game without a module of its own here (a game added to ``pokerzoo.games`` or by a plugin) the
row builds its env through this module with ``game=<name>``: a ``PokerEnv``, or an
``UnknownPokerEnv`` for a game whose class declares ``hidden_model``.

>>> env = env(game="kuhn_poker")
>>> env.reset(seed=0)
>>> env.agent_selection
'player_0'
"""

from __future__ import annotations

from typing import Any

from pokerzoo.envs.poker_env import PokerEnv, make_env
from pokerzoo.envs.unknown_env import make_unknown_env
from pokerzoo.games.registry import game_class


def _make(game: str, raw: bool, kwargs: dict[str, Any]) -> PokerEnv:
    if game_class(game).game_type.hidden_model:
        return make_unknown_env(game, raw, **kwargs)
    return make_env(game, raw, **kwargs)


def env(game: str, **kwargs: Any) -> PokerEnv:
    """The env of ``game``: illegal actions end the hand with ``illegal_reward`` (default -1)."""
    return _make(game, False, kwargs)


def raw_env(game: str, **kwargs: Any) -> PokerEnv:
    """The env of ``game`` without penalties: illegal actions raise ``IllegalActionError``."""
    return _make(game, True, kwargs)
