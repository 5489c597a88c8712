"""Bet and raise sizes as users write them, and the betting of one street they produce.

Size strings (case-insensitive, comma-separated lists), the grammar of postflop-solver's
``bet_size.rs`` (re-implemented here):

* ``"52%"``: a fraction of the pot; for a raise, of the pot after the call, on top of the bet
  faced (the usual pot-raise rule);
* ``"2.5x"``: a multiple (> 1) of the bet faced (raises only);
* ``"a"``: all-in;
* ``"e"``, ``"2e"``, ``"e150%"``: the geometric size that gets all-in over the remaining
  streets (or ``N`` streets), at most the given pot fraction;
* ``"100c"``, ``"100c3r"``: a fixed number of chips added to the bet faced (raises: only while
  at most 3 bets were made on the street).

Tree options (:class:`TreeOptions`) follow postflop-solver's ``TreeConfig``: with all three
thresholds at 0 (its ``Default``, and the 3betpotFAST benchmark's), no all-in is added, forced or
merged; that solver's documentation recommends 1.5 / 0.15 / 0.1.

Amounts follow postflop-solver too: a bet or raise is labelled by the chips the actor has put in
on this street once it is made (``"raise 300"`` = raise to 300 on the street), in integer chips
rounded half away from zero; the smallest bet is one chip, the smallest raise adds the last
increment. Pot fractions and multiples are computed exactly from the size as written
(``fractions.Fraction``), so ``"35%"`` of a 170 pot is 59.5 and rounds to 60, where
postflop-solver's float64 product ``0.35 * 170 = 59.49999999999999`` gives 59; the benchmark
spots' sizes are the same either way.

>>> opts = TreeOptions()
>>> s = Betting.start(pot=180, stack=910, street=0, sizes=StreetSizes.parse("52%", "45%"))
>>> [(a.label, a.chips) for a in s.actions(opts)]
[('check', 0), ('bet 94', 94)]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction

from pokerzoo.errors import ConfigError

ALLOWED = (
    "sizes like '52%' (of the pot), '2.5x' (of the bet faced, raises only), 'a' (all-in), "
    "'e' / '2e' / 'e150%' (geometric), '100c' / '100c3r' (chips added), comma separated"
)
STREETS = ("flop", "turn", "river")


@dataclass(frozen=True, order=True)
class BetSize:
    """One parsed size: ``kind`` is ``"pot"`` (``value`` a pot fraction), ``"prev"`` (a multiple
    of the bet faced), ``"add"`` (chips, ``count`` a raise cap or 0), ``"geom"`` (``count``
    streets or 0 for the remaining ones, ``value`` the largest pot fraction) or ``"allin"``."""

    kind: str
    value: float = 0.0
    count: int = 0
    exact: Fraction | None = field(default=None, compare=False, repr=False)
    """``value`` as the exact rational the user wrote (``"35%"``: 7/20); by default the
    shortest decimal that reads back as ``value``."""

    def __post_init__(self) -> None:
        if self.exact is None and math.isfinite(self.value):
            object.__setattr__(self, "exact", Fraction(repr(float(self.value))))

    def times(self, chips: int) -> int:
        """``chips`` times the size's fraction or multiple, rounded half away from zero in
        exact arithmetic."""
        exact = self.exact if self.exact is not None else Fraction(self.value)
        return math.floor(chips * exact + Fraction(1, 2))

    def __str__(self) -> str:
        if self.kind == "pot":
            return f"{_num(self.value * 100)}%"
        if self.kind == "prev":
            return f"{_num(self.value)}x"
        if self.kind == "add":
            return f"{int(self.value)}c" + (f"{self.count}r" if self.count else "")
        if self.kind == "geom":
            cap = "" if math.isinf(self.value) else f"{_num(self.value * 100)}%"
            return f"{self.count or ''}e{cap}"
        return "a"


def _num(x: float) -> str:
    return repr(float(x)).removesuffix(".0")


def _float(text: str, whole: str) -> float:
    """A plain non-negative decimal (no sign, no exponent), as postflop-solver accepts."""
    if not text or any(ch in text for ch in "+-") or any(ch.isalpha() for ch in text):
        raise ConfigError(f"bad size {whole!r}; allowed: {ALLOWED}")
    try:
        return float(text)
    except ValueError:
        raise ConfigError(f"bad size {whole!r}; allowed: {ALLOWED}") from None


def _count(text: str, whole: str, what: str) -> int:
    value = _float(text, whole)
    if value != int(value) or not 1 <= value <= 100:
        raise ConfigError(f"{what} of size {whole!r} must be an integer in 1..100")
    return int(value)


def parse_size(text: str, is_raise: bool) -> BetSize:
    """One size string; raises :class:`ConfigError` saying what is allowed."""
    s = text.strip().lower()
    if s.endswith("x"):
        if not is_raise:
            raise ConfigError(f"size {text!r}: a multiple of the bet faced is for raises only")
        value = _float(s[:-1], text)
        if value <= 1.0:
            raise ConfigError(f"size {text!r}: the multiple must exceed 1")
        return BetSize("prev", value, 0, Fraction(s[:-1]))
    if "c" in s:
        add, _, cap = s.partition("c")
        chips = _float(add, text)
        if chips != int(chips):
            raise ConfigError(f"size {text!r}: chips added must be an integer")
        if not cap:
            return BetSize("add", chips, 0)
        if not is_raise:
            raise ConfigError(f"size {text!r}: a raise cap is for raises only")
        if not cap.endswith("r"):
            raise ConfigError(f"bad size {text!r}; allowed: {ALLOWED}")
        return BetSize("add", chips, _count(cap[:-1], text, "the raise cap"))
    if "e" in s:
        streets, _, cap = s.partition("e")
        n = _count(streets, text, "the number of streets") if streets else 0
        most = math.inf
        if cap:
            if not cap.endswith("%"):
                raise ConfigError(f"bad size {text!r}; allowed: {ALLOWED}")
            most = _float(cap[:-1], text) / 100.0
        return BetSize("geom", most, n)
    if s.endswith("%"):
        return BetSize("pot", _float(s[:-1], text) / 100.0, 0, Fraction(s[:-1]) / 100)
    if s == "a":
        return BetSize("allin")
    raise ConfigError(f"bad size {text!r}; allowed: {ALLOWED}")


def parse_sizes(text: str, is_raise: bool) -> tuple[BetSize, ...]:
    """A comma-separated list (empty string: no sizes), sorted and without duplicates."""
    if not isinstance(text, str):
        raise ConfigError(f"sizes must be a string such as '52%, a', got {text!r}")
    parts = [p.strip() for p in text.split(",")]
    if parts and not parts[-1]:
        parts.pop()
    return tuple(sorted({parse_size(p, is_raise) for p in parts}))


@dataclass(frozen=True)
class StreetSizes:
    """One player's sizes on one street: bets (first bet of the street) and raises."""

    bet: tuple[BetSize, ...] = ()
    raise_: tuple[BetSize, ...] = ()

    @classmethod
    def parse(cls, bet: str, raise_: str = "") -> StreetSizes:
        return cls(parse_sizes(bet, False), parse_sizes(raise_, True))

    def __str__(self) -> str:
        return f"{', '.join(map(str, self.bet))} / {', '.join(map(str, self.raise_))}"


@dataclass(frozen=True)
class TreeOptions:
    """Options of the betting tree beyond the sizes (postflop-solver's ``TreeConfig``)."""

    add_allin_threshold: float = 0.0
    """Add an all-in when it is at most this many pots (0: never)."""
    force_allin_threshold: float = 0.0
    """Replace a bet by all-in when the stack left after the call is at most this fraction of
    the pot after the call (0: never)."""
    merging_threshold: float = 0.0
    """Drop a size within this relative distance of the next larger one, PioSOLVER's rule:
    ``(1 + X) / (1 + Y) < 1 + threshold`` removes size ``Y`` below the kept ``X`` (0: never)."""
    raise_cap: int | None = None
    """Most bets plus raises per street (None: no cap but the stacks)."""

    def __post_init__(self) -> None:
        for name in ("add_allin_threshold", "force_allin_threshold", "merging_threshold"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < math.inf:
                raise ConfigError(f"{name} must be a number >= 0, got {v!r}")
            object.__setattr__(self, name, float(v))
        cap = self.raise_cap
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
            raise ConfigError(f"raise_cap must be a positive integer or None, got {cap!r}")


def _round(x: float) -> int:
    """Rust's ``f64::round`` for non-negative amounts: half away from zero."""
    return int(math.floor(x + 0.5))


@dataclass(frozen=True)
class Action:
    """A betting action: ``kind`` fold/check/call/bet/raise/allin, ``amount`` the actor's chips
    in on the street after it (bets, raises, all-ins), ``chips`` what it puts in now."""

    kind: str
    amount: int
    chips: int

    @property
    def label(self) -> str:
        return self.kind if self.kind in ("fold", "check", "call") else f"{self.kind} {self.amount}"


_ORDER = {"fold": 0, "check": 1, "call": 2, "bet": 3, "raise": 4, "allin": 5}


@dataclass(frozen=True)
class Betting:
    """The betting state of a heads-up street: player 0 (out of position) acts first.

    ``contrib`` counts each player's chips put in since the spot's start (the starting pot
    excluded); ``street_bet`` those of this street. After :meth:`after` an action, ``closed``
    says the street is over (``"fold"``, ``"call"`` or ``"check"``: both checked).
    """

    pot: int
    stack: int
    street: int
    """0 flop, 1 turn, 2 river."""
    sizes: StreetSizes | tuple[StreetSizes, StreetSizes]
    donk: tuple[BetSize, ...] | None = None
    actor: int = 0
    contrib: tuple[int, int] = (0, 0)
    street_bet: tuple[int, int] = (0, 0)
    num_bets: int = 0
    allin: bool = False
    oop_called: bool = False
    """The previous street ended with player 0 calling (donk bets apply)."""
    first: bool = True
    closed: str = field(default="")

    @classmethod
    def start(
        cls,
        pot: int,
        stack: int,
        street: int,
        sizes: StreetSizes | tuple[StreetSizes, StreetSizes],
        donk: tuple[BetSize, ...] | None = None,
        contrib: tuple[int, int] = (0, 0),
        oop_called: bool = False,
    ) -> Betting:
        """A street's first decision (player 0 to act)."""
        return cls(pot, stack, street, sizes, donk, 0, contrib, (0, 0), 0, False, oop_called)

    @classmethod
    def resume(
        cls,
        pot: int,
        stack: int,
        street: int,
        sizes: StreetSizes | tuple[StreetSizes, StreetSizes],
        donk: tuple[BetSize, ...] | None = None,
        chips: tuple[int, int] = (0, 0),
        bets: int = 0,
        actor: int = 0,
    ) -> Betting:
        """A decision inside a street: each player has put in ``chips`` on it (beyond
        ``pot``), ``bets`` bets and raises were made (raise caps count them), ``actor`` acts
        next. ``(0, 0), 0, 0`` is the street's start (:meth:`start`); ConfigError for a state
        no betting reaches."""
        for name, v in (("street chips", chips[0]), ("street chips", chips[1]),
                        ("street bets", bets)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ConfigError(f"{name} must be integers >= 0, got {v!r}")
        if actor not in (0, 1) or isinstance(actor, bool):
            raise ConfigError(f"the player to act must be 0 (out of position) or 1, got {actor!r}")
        low, high = sorted(chips)
        if high > stack:
            raise ConfigError(f"street chips {tuple(chips)} exceed the effective stack {stack}")
        if low == high:
            if high > 0 or bets > 0:
                raise ConfigError(f"street chips {tuple(chips)} with {bets} bets: a street with "
                                  "equal chips in and a bet made is over (a call closes it)")
        elif chips[actor] != low:
            raise ConfigError(f"player {actor} cannot act with street chips {tuple(chips)}: "
                              "the player facing the bet (fewer chips in) acts")
        elif bets < (2 if low > 0 else 1):
            raise ConfigError(f"street chips {tuple(chips)} need at least "
                              f"{2 if low > 0 else 1} bets and raises, got {bets}")
        if actor == 0 and high == 0:
            return cls.start(pot, stack, street, sizes, donk)
        return cls(pot, stack, street, sizes, donk, actor, (chips[0], chips[1]),
                   (chips[0], chips[1]), bets, high >= stack, False, False)

    def _sizes(self, p: int) -> StreetSizes:
        return self.sizes[p] if isinstance(self.sizes, tuple) else self.sizes

    def actions(self, opts: TreeOptions) -> list[Action]:
        """The actions of the player to act, in postflop-solver's order (fold, check, call,
        bets and raises by size, all-in), after clamping, forcing all-in and merging."""
        p, o = self.actor, 1 - self.actor
        stack_p = self.stack - self.contrib[p]
        stack_o = self.stack - self.contrib[o]
        prev = max(self.street_bet)
        to_call = stack_p - stack_o
        pot = self.pot + 2 * max(self.contrib)  # the pot once the actor has called
        max_amount = stack_o + prev
        min_amount = min(max(prev + to_call, 1), max_amount)
        spr = stack_o / pot
        remaining = 3 - self.street

        def geometric(streets: int, most: float) -> int:
            ratio = ((2.0 * spr + 1.0) ** (1.0 / streets) - 1.0) / 2.0
            return _round(pot * min(ratio, most))

        raw: list[tuple[str, int]] = []
        if max_amount <= prev:  # no chips behind to bet with: check or call only
            raw += [("check", 0)] if prev == 0 else [("fold", 0), ("call", 0)]
        elif prev == 0:
            raw.append(("check", 0))
            use_donk = self.donk is not None and self.first and self.oop_called and p == 0
            sizes = self.donk if use_donk and self.donk is not None else self._sizes(p).bet
            for s in sizes:
                if s.kind == "pot":
                    raw.append(("bet", s.times(pot)))
                elif s.kind == "add":
                    raw.append(("bet", int(s.value)))
                elif s.kind == "geom":
                    raw.append(("bet", geometric(s.count or remaining, s.value)))
                elif s.kind == "allin":
                    raw.append(("allin", max_amount))
            if max_amount <= _round(pot * opts.add_allin_threshold):
                raw.append(("allin", max_amount))
        else:
            raw += [("fold", 0), ("call", 0)]
            capped = opts.raise_cap is not None and self.num_bets >= opts.raise_cap
            if not self.allin and not capped:
                for s in self._sizes(p).raise_:
                    if s.kind == "pot":
                        raw.append(("raise", prev + s.times(pot)))
                    elif s.kind == "prev":
                        raw.append(("raise", s.times(prev)))
                    elif s.kind == "add":
                        if s.count == 0 or self.num_bets <= s.count:
                            raw.append(("raise", prev + int(s.value)))
                    elif s.kind == "geom":
                        n = max((s.count or remaining) - self.num_bets + 1, 1)
                        raw.append(("raise", prev + geometric(n, s.value)))
                    elif s.kind == "allin":
                        raw.append(("allin", max_amount))
                if max_amount <= prev + _round(pot * opts.add_allin_threshold):
                    raw.append(("allin", max_amount))

        def forced(amount: int) -> bool:
            new_pot = pot + 2 * (amount - prev)
            return max_amount <= amount + _round(new_pot * opts.force_allin_threshold)

        clamped: set[tuple[str, int]] = set()
        for kind, amount in raw:
            if kind in ("bet", "raise"):
                amount = min(max(amount, min_amount), max_amount)
                if forced(amount):
                    kind, amount = "allin", max_amount
            clamped.add((kind, amount))
        ordered = sorted(clamped, key=lambda a: (_ORDER[a[0]], a[1]))
        merged = _merge(ordered, pot, prev, opts.merging_threshold)
        own = self.street_bet[p]
        out = []
        for kind, amount in merged:
            chips = {"fold": 0, "check": 0, "call": to_call}.get(kind, amount - own)
            out.append(Action(kind, amount, chips))
        return out

    def after(self, action: Action) -> Betting:
        """The state after ``action`` (``closed`` set when it ends the street)."""
        p, o = self.actor, 1 - self.actor
        contrib = list(self.contrib)
        street_bet = list(self.street_bet)
        contrib[p] += action.chips
        street_bet[p] += action.chips
        new = replace(self, actor=o, contrib=(contrib[0], contrib[1]),
                      street_bet=(street_bet[0], street_bet[1]), first=False)
        if action.kind == "fold":
            return replace(new, closed="fold")
        if action.kind == "call":
            return replace(new, closed="call", oop_called=p == 0)
        if action.kind == "check":
            return replace(new, closed="check" if p == 1 else "", oop_called=False)
        return replace(new, num_bets=self.num_bets + 1, allin=action.kind == "allin")

    def all_in(self) -> bool:
        """Both players have no chips behind (the rest is dealt without betting)."""
        return max(self.contrib) >= self.stack and self.contrib[0] == self.contrib[1]


def _merge(
    actions: list[tuple[str, int]], pot: int, offset: int, threshold: float
) -> list[tuple[str, int]]:
    """PioSOLVER's merging, largest size first: keep a size only when its pot fraction is below
    ``(kept - threshold) / (1 + threshold)`` of the last kept one."""
    eps = 1e-12
    kept: list[tuple[str, int]] = []
    cur = math.inf
    for kind, amount in reversed(actions):
        if kind in ("bet", "raise", "allin"):
            ratio = (amount - offset) / pot
            limit = ((cur - offset) / pot - threshold) / (1.0 + threshold)
            if ratio < limit * (1.0 - eps):
                kept.append((kind, amount))
                cur = amount
        else:
            kept.append((kind, amount))
    return kept[::-1]


def street_sequences(start: Betting, opts: TreeOptions) -> list[tuple[list[Action], Betting]]:
    """Every betting sequence of one street from ``start`` to its end, with the state it ends
    in (``closed`` says how), depth first in action order."""
    out: list[tuple[list[Action], Betting]] = []

    def walk(state: Betting, line: list[Action]) -> None:
        for a in state.actions(opts):
            nxt = state.after(a)
            if nxt.closed:
                out.append((line + [a], nxt))
            else:
                walk(nxt, line + [a])

    walk(start, [])
    return out


__all__ = [
    "ALLOWED", "Action", "BetSize", "Betting", "STREETS", "StreetSizes", "TreeOptions",
    "parse_size", "parse_sizes", "street_sequences",
]  # fmt: skip
