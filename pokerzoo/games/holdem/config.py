"""Parameters of limit and no-limit Texas hold'em, validated on construction.

Seats: seat 0 posts the small blind and seat 1 the big blind. With three or more players the
button is the last seat (``num_players - 1``); heads-up the button is seat 0, which posts the
small blind, acts first before the flop and last after it (standard heads-up rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from pokerzoo.games.base import ConfigError, GameConfig, check_int, check_number, is_integer

MAX_PLAYERS = 6
"""Most seats at the table."""
MAX_STACK_BIG_BLINDS = 10**6
"""Deepest stack allowed, in big blinds (observations give amounts in 100 big blinds)."""
MAX_CHIPS = 10**12
"""Largest chip amount (blinds, antes, stacks): payoffs stay exact in float64."""
MAX_RAISE_CAP = 100
"""Largest limit raise cap (the tensor holds every action of a round)."""
MAX_BET_FRACTIONS = 16
"""Most pot-fraction sizes of the no-limit abstraction."""


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
        n = check_int("num_players", self.num_players, 2, MAX_PLAYERS)
        self._set("num_players", n)
        self._set("big_blind", check_int("big_blind", self.big_blind, 1, MAX_CHIPS))
        self._set("small_blind", check_int("small_blind", self.small_blind, 1, MAX_CHIPS))
        self._set("ante", check_int("ante", self.ante, 0, MAX_CHIPS))
        if self.small_blind > self.big_blind:
            raise ConfigError(
                f"small_blind ({self.small_blind}) must not exceed big_blind ({self.big_blind})"
            )
        if is_integer(self.stacks):
            self._set("stacks", int(cast(int, self.stacks)))
        elif isinstance(self.stacks, tuple):
            if len(self.stacks) != n:
                raise ConfigError(f"stacks has {len(self.stacks)} entries but num_players is {n}")
            self._set(
                "stacks", tuple(self._stack(f"stacks[{i}]", s) for i, s in enumerate(self.stacks))
            )
        elif self.stacks is not None:
            raise ConfigError(
                f"stacks must be an integer, a tuple of one integer per seat or None, "
                f"got {self.stacks!r}"
            )
        for seat, s in enumerate(self.seat_stacks()):
            self._stack(f"stacks[{seat}]" if isinstance(self.stacks, tuple) else "stacks", s)

    def _stack(self, name: str, value: object) -> int:
        most = min(MAX_CHIPS, MAX_STACK_BIG_BLINDS * self.big_blind)
        stack = check_int(name, value, 1, most)
        if stack <= self.ante + self.big_blind:
            raise ConfigError(
                f"{name} = {stack} must exceed ante + big_blind = {self.ante + self.big_blind}"
                " (no one may be all-in from the forced bets)"
            )
        return stack

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
        self._set("raise_cap", check_int("raise_cap", self.raise_cap, 1, MAX_RAISE_CAP))


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
        if not isinstance(fr, tuple) or not 1 <= len(fr) <= MAX_BET_FRACTIONS:
            raise ConfigError(
                f"bet_fractions must be a tuple of 1 to {MAX_BET_FRACTIONS} pot fractions, "
                f"got {fr!r}"
            )
        fr = tuple(check_number("each bet fraction", f, 0.0, 1000.0, low_open=True) for f in fr)
        self._set("bet_fractions", fr)
        if any(b <= a for a, b in zip(fr, fr[1:])):
            raise ConfigError(f"bet_fractions must be strictly increasing, got {fr!r}")
