"""Which seat an env turn belongs to, for the agents that play any PettingZoo AEC env.

A pokerzoo env names the acting agent in ``info`` (``info["agent"]``, ``info["player"]``); a
foreign env's plain ``env.last()`` does not. So that the standard PettingZoo loop works as
written, an agent can be told the env it plays in once (``agent.attach(env)``): a turn whose
``info`` names no agent is then the env's ``agent_selection``. Both ways are explicit; a turn
with neither is a ``ConfigError``, never a guess.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any

from pokerzoo.errors import ConfigError

__all__ = ["AECSeatMixin", "seat_from_info"]


def seat_from_info(info: Mapping[str, Any] | None, agents: Sequence[str],
                   env: Any = None) -> int:
    """The seat (index in ``agents``) of the turn described by ``info``.

    ``info["player"]`` (an index) or ``info["agent"]`` (a name) decide; without them the
    ``agent_selection`` of ``env`` (an attached env) does.

    >>> seat_from_info({"agent": "b"}, ["a", "b"])
    1
    >>> class Env:
    ...     agent_selection = "a"
    >>> seat_from_info({}, ["a", "b"], Env())
    0
    """
    if info and "player" in info:
        seat = info["player"]
        try:
            index = operator.index(seat)  # ints and numpy integers; not floats
        except TypeError:
            index = -1
        if isinstance(seat, bool) or not 0 <= index < len(agents):
            raise ConfigError(f"info['player'] must be a seat index in 0..{len(agents) - 1}, "
                              f"got {seat!r}")
        return index
    if info and info.get("agent") in agents:
        return list(agents).index(info["agent"])
    selected = getattr(env, "agent_selection", None) if env is not None else None
    if isinstance(selected, str) and selected in agents:
        return list(agents).index(selected)
    raise ConfigError(
        "name the acting agent: info['agent'] (its name) or info['player'] (its index in "
        f"{list(agents)}), or call agent.attach(env) once so that a plain env.last() loop "
        "reads env.agent_selection"
    )


class AECSeatMixin:
    """``attach(env)``: the env whose ``agent_selection`` names a turn's seat (see the module)."""

    _attached_env: Any = None

    def attach(self, env: Any) -> Any:
        """Play in ``env``: a turn whose ``info`` names no agent is ``env.agent_selection``.

        Returns ``self``, so ``agent.attach(env).act(obs, info)`` reads as it runs.

        Raises:
            ConfigError: if ``env`` has no ``possible_agents``, or other ones
                than the env the agent learned on.
        """
        agents = list(self._seat_agents())
        if not hasattr(env, "possible_agents"):  # agent_selection may come only with reset
            raise ConfigError(f"attach takes a PettingZoo AEC env, got {type(env).__name__}")
        if list(env.possible_agents) != agents:
            raise ConfigError(f"attach: the env's possible_agents {list(env.possible_agents)} "
                              f"are not the agents this agent learned ({agents})")
        self._attached_env = env
        return self

    def _seat_agents(self) -> Sequence[str]:
        raise NotImplementedError

    def _seat_of_turn(self, info: Mapping[str, Any] | None) -> int:
        return seat_from_info(info, self._seat_agents(), self._attached_env)
