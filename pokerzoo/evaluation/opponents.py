"""Built-in opponents: reference state policies that matches and tournaments seat by name.

A built-in opponent is a *state policy* (it answers ``action_probabilities(state)``), made for a
given game by a factory in the ``OPPONENTS`` table. ``register_opponent`` adds one (e.g. a rule
agent adapted from RLCard), and ``evaluate.py --opponents`` seats them next to trained runs.

>>> from pokerzoo import load_game
>>> game = load_game("kuhn_poker")
>>> opponent_names()
['always-call', 'random']
>>> state = game.new_initial_state()
>>> state.apply_action(0); state.apply_action(1); state.apply_action(1)  # cards, then a bet
>>> make_opponent("always-call", game).action_probabilities(state)
{1: 1.0}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game, State
from pokerzoo.policy import StatePolicy, UniformRandomPolicy

_CALL_NAMES = ("call", "check", "check/call", "check_call")
"""Action names that mean "match the highest bet, add nothing" in the shipped games."""


class AlwaysCallPolicy:
    """Checks when nothing is to call, calls otherwise: never folds, never bets or raises.

    The call is the legal action named ``call``/``check`` where the game names one (Leduc,
    hold'em); otherwise (Kuhn's ``pass``/``bet``) the action after which the acting player's
    contribution equals the highest contribution on the table.
    """

    def action_probabilities(self, state: State) -> dict[int, float]:
        return {self.call_action(state): 1.0}

    @staticmethod
    def call_action(state: State) -> int:
        """The check/call action at ``state`` (see the class docstring)."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        for a in legal:
            if state.action_to_string(a).lower() in _CALL_NAMES:
                return a
        contributions = state.public_state().get("contributions")
        if contributions is not None:
            player = state.current_player()
            target = max(contributions)
            for a in legal:
                if state.child(a).public_state()["contributions"][player] == target:
                    return a
        raise ConfigError(
            f"always-call cannot tell the call in {type(state.game).__name__} (legal actions "
            f"{[state.action_to_string(a) for a in legal]}): it needs an action named call or "
            "check, or a public state with 'contributions'"
        )


@dataclass(frozen=True)
class OpponentSpec:
    """One row of the opponents table."""

    name: str
    doc: str
    """One line on how it plays (``evaluate.py --help`` lists it)."""
    factory: Callable[[Game], StatePolicy]
    """Builds the opponent for a game."""


OPPONENTS: dict[str, OpponentSpec] = {}
"""Built-in opponents by name."""


def register_opponent(
    name: str, factory: Callable[[Game], StatePolicy], doc: str, *, replace: bool = False
) -> None:
    """Add a built-in opponent ``name`` built by ``factory(game)`` (a state policy).

    Raises:
        ConfigError: a name that is empty, has a comma (``--opponents`` splits on commas) or is
            taken (unless ``replace``), or a factory that is not callable.
    """
    if not isinstance(name, str) or not name or "," in name or name != name.strip():
        raise ConfigError(f"an opponent name must be a non-empty word without commas, got {name!r}")
    if not callable(factory):
        raise ConfigError(f"the factory of opponent {name!r} must be callable, got {factory!r}")
    if name in OPPONENTS and not replace:
        raise ConfigError(f"opponent {name!r} is already registered (pass replace=True)")
    OPPONENTS[name] = OpponentSpec(name, doc, factory)


def opponent_names() -> list[str]:
    """The registered built-in opponents, sorted."""
    return sorted(OPPONENTS)


def make_opponent(name: str, game: Game) -> StatePolicy:
    """Built-in opponent ``name`` for ``game``.

    Raises:
        ConfigError: an unknown name (the error lists the registered ones).
    """
    spec = OPPONENTS.get(name) if isinstance(name, str) else None
    if spec is None:
        raise ConfigError(f"unknown opponent {name!r}; built-in opponents are {opponent_names()}")
    return spec.factory(game)


def parse_opponents(
    spec: str | Sequence[str] | None, known: Sequence[str] | None = None
) -> list[str]:
    """``"random,always-call"`` (or a list; ``""``/``"none"``/``None``: no opponents) -> names,
    checked against the table (or against ``known``: e.g. the AEC env opponents of
    ``pokerzoo.evaluation.aec_opponents``) and without repeats."""
    if spec is None:
        return []
    parts = spec.split(",") if isinstance(spec, str) else list(spec)
    if not all(isinstance(p, str) for p in parts):
        raise ConfigError(f"opponents must be names, got {spec!r}")
    names = [p.strip() for p in parts if p.strip()]
    if names == ["none"]:
        return []
    table = sorted(known) if known is not None else opponent_names()
    unknown = [n for n in names if n not in table]
    if unknown:
        raise ConfigError(
            f"unknown opponents {unknown}; built-in opponents are {table} (or 'none')"
        )
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ConfigError(f"opponents {repeated} are named more than once")
    return names


register_opponent(
    "random", lambda game: UniformRandomPolicy(), "every legal action with equal probability"
)
register_opponent(
    "always-call", lambda game: AlwaysCallPolicy(), "checks or calls, never folds, bets or raises"
)
