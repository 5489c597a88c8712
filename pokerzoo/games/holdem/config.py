"""Parameters of limit and no-limit Texas hold'em, validated on construction.

Seats: seat 0 posts the small blind and seat 1 the big blind. With three or more players the
button is the last seat (``num_players - 1``); heads-up the button is seat 0, which posts the
small blind, acts first before the flop and last after it (standard heads-up rules).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pokerzoo.games.base import ConfigError, GameConfig

MAX_PLAYERS = 6


def _check_int(name: str, value: object, low: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ConfigError(f"{name} must be an integer >= {low}, got {value!r}")


@dataclass(frozen=True)
class HoldemConfig(GameConfig):
    """Parameters shared by limit and no-limit hold'em (all amounts in integer chips)."""

    num_players: int = 2
    """Number of seats, 2 to 6."""

    small_blind: int = 50
    """Small blind, posted by seat 0 (the button heads-up)."""

    big_blind: int = 100
    """Big blind, posted by seat 1; the unit of bb/100 and of the minimum bet."""

    ante: int = 0
    """Ante posted by every seat before the blinds (0: no antes)."""

    stacks: int | tuple[int, ...] | None = None
    """Starting stack of every seat, or a tuple with one stack per seat; ``None`` means 100 big
    blinds each. Every stack must exceed ``ante + big_blind`` so that no one is all-in from the
    forced bets."""

    def __post_init__(self) -> None:
        n = self.num_players
        if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= MAX_PLAYERS:
            raise ConfigError(f"num_players must be an integer from 2 to {MAX_PLAYERS}, got {n!r}")
        _check_int("big_blind", self.big_blind, 1)
        _check_int("small_blind", self.small_blind, 1)
        _check_int("ante", self.ante, 0)
        if self.small_blind > self.big_blind:
            raise ConfigError(
                f"small_blind ({self.small_blind}) must not exceed big_blind ({self.big_blind})"
            )
        stacks = self.seat_stacks()
        if len(stacks) != n:
            raise ConfigError(f"stacks has {len(stacks)} entries but num_players is {n}")
        for seat, s in enumerate(stacks):
            _check_int(f"stacks[{seat}]", s, 1)
            if s <= self.ante + self.big_blind:
                raise ConfigError(
                    f"stacks[{seat}] = {s} must exceed ante + big_blind = "
                    f"{self.ante + self.big_blind}"
                )

    def seat_stacks(self) -> tuple[int, ...]:
        """The starting stack of each seat."""
        if self.stacks is None:
            return (100 * self.big_blind,) * self.num_players
        if isinstance(self.stacks, int) and not isinstance(self.stacks, bool):
            return (self.stacks,) * self.num_players
        if isinstance(self.stacks, tuple):
            return self.stacks
        raise ConfigError(f"stacks must be an int, a tuple of ints or None, got {self.stacks!r}")


@dataclass(frozen=True)
class LimitHoldemConfig(HoldemConfig):
    """Limit hold'em: bets and raises of one small bet (the big blind) before the flop and on the
    flop, and one big bet (two big blinds) on the turn and river."""

    raise_cap: int = 4
    """Most bets plus raises in a betting round; before the flop the big blind counts as the
    first bet, so the default 4 is "a bet and three raises" on every street (ACPC limit)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_int("raise_cap", self.raise_cap, 1)


@dataclass(frozen=True)
class NoLimitHoldemConfig(HoldemConfig):
    """No-limit hold'em with a discrete action abstraction."""

    bet_fractions: tuple[float, ...] = (0.5, 1.0)
    """Bet/raise sizes as fractions of the pot, strictly increasing (Deep GXFP's half pot and
    pot by default). A raise of fraction ``f`` is to ``max_bet + f * (pot + to_call)`` chips
    (rounded down): the pot is measured after the player calls, the usual pot-raise rule."""

    def __post_init__(self) -> None:
        super().__post_init__()
        fr = self.bet_fractions
        if not isinstance(fr, tuple) or not all(
            isinstance(f, int | float) and not isinstance(f, bool) for f in fr
        ):
            raise ConfigError(f"bet_fractions must be a tuple of numbers, got {fr!r}")
        if any(not math.isfinite(f) or f <= 0 for f in fr):
            raise ConfigError(f"bet_fractions must be finite and > 0, got {fr!r}")
        if any(b <= a for a, b in zip(fr, fr[1:])):
            raise ConfigError(f"bet_fractions must be strictly increasing, got {fr!r}")
