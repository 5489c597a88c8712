"""OpenSpiel policies and RLCard agents the judge's tests load by ``openspiel:`` and ``rlcard:``
specs."""

from __future__ import annotations

from typing import Any


def uniform(game: Any) -> Any:
    """A factory taking the pyspiel game: OpenSpiel's uniform random policy of it."""
    from open_spiel.python.policy import UniformRandomPolicy

    return UniformRandomPolicy(game)


def random_agent() -> Any:
    """A factory of no arguments: RLCard's random agent for Leduc (four action ids)."""
    from rlcard.agents import RandomAgent

    return RandomAgent(num_actions=4)


def not_a_policy() -> int:
    """A factory that returns something else than a policy."""
    return 7


def kuhn_uniform() -> Any:
    """A factory of no arguments: OpenSpiel's uniform random policy of its two-player Kuhn."""
    import pyspiel
    from open_spiel.python.policy import UniformRandomPolicy

    return UniformRandomPolicy(pyspiel.load_game("kuhn_poker"))
