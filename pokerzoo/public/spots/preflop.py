"""A heads-up preflop range solver on the public-state engine.

A :class:`PreflopSpot` is a preflop tree as users write it: the effective stack and an optional
ante, the small blind's open sizes and whether it may limp, the big blind's raise sizes over a
limp, the 3-bet, 4-bet and 5-bet sizes, whether all-in is offered at every raise, and a cap on
the raises. Player 0 is the small blind (the button, first to act preflop), player 1 the big
blind; chips are big blinds (small blind 0.5, big blind 1); the stack is counted before
posting, antes come out of it and are dead money (as in :mod:`pokerzoo.public.spots.pushfold`).

Sizes are *raise-to* amounts: a number of big blinds (``2.5``, ``11``) or a multiple of the bet
faced (``"3x"``: three times what the raiser faces, ``"2.5x"`` of an unopened pot is 2.5 bb).
A raise below the no-limit minimum (the bet faced plus the last raise, at least one big blind)
is refused in one line; a size at or above the stack is the all-in.

Raise number ``r`` (0 for the first raise) picks its sizes: the small blind's first raise uses
``open``; the big blind's raise over a limp uses ``limp_raise``; the raises after the first use
``threebet``, ``fourbet`` and ``fivebet`` (``r = 1, 2, 3``); later raises are all-in only.
``cap`` raises in all (the all-in counts), then only fold and call.

What happens after the last call is the **postflop model**, as the preflop tools state it:

* an all-in called: both hands run out, the exact all-in equity of the two combos
  (:mod:`pokerzoo.public.spots.preflop_equity`, every board counted);
* a call or a check that sees a flop with chips behind: the pot is shared by *realised*
  equity. With the realisation factors ``realization_sb`` and ``realization_bb`` (``R_0``,
  ``R_1``; 1.0 by default, which is chip EV at 100% realisation) player 0's share of the pot
  against a hand of all-in equity ``e`` is ``R_0 e / (R_0 e + R_1 (1 - e))``. Tools quote a
  factor as realised equity over raw equity; a product ``R e`` alone would not keep the two
  shares summing to the pot, so the factors are normalised, which keeps the game zero-sum and
  the chips in the pot (our choice: the tools that publish factors do not say how they keep
  the sum). The in-position player (the small blind, who acts last after the flop) usually
  realises more, e.g. ``realization_sb = 1.1``, ``realization_bb = 0.9``.

* with ``flops`` declared, a flop seen with chips behind is instead dealt from the declared
  flops and bet for one street, the turn and river checked down
  (:mod:`pokerzoo.public.spots.preflop_flops`: the abstraction, its card removal and cost).

Hands are the 1,326 combos with card removal (``tree.hands[p]`` in ``ranges.COMBO_CARDS``
order); terminal values are dense ``[1326, 1326]`` payoff matrices (``PreflopTerminals``), each
a scale times one of a few shared base matrices (a fold: the chips times the live-pair mask;
a showdown: the pot times the share less one half), so the default tree keeps 2 matrices
(28 MB) where one per distinct terminal took 21. The solver is
:class:`~pokerzoo.public.engine.solver.PublicSolver` (CFR+, DCFR, postflop-solver's schedule).
:func:`class_best_response` is an independent check of its exploitability: a best response
on the 169-class game in numpy, from the spot's rules, not from the engine's tree.

>>> spot = PreflopSpot(stack=10, open=(), limp=False)
>>> [label for label, _ in spot.actions(())]
['fold', 'allin']
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError, TreeTooLargeError
from pokerzoo.public.engine.small_games import DenseTerminals
from pokerzoo.public.engine.tree import FOLD, SHOWDOWN, PublicTree
from pokerzoo.public.engine.tree_builder import PublicTreeBuilder
from pokerzoo.public.spots.preflop_equity import COMBOS, NUM_COMBOS, EquityTable
from pokerzoo.public.spots.ranges import CLASS_NAMES, COMBO_CLASS, combo_name, parse_range

SMALL_BLIND = 0.5
BIG_BLIND = 1.0
MAX_TERMINAL_TABLES = 400
"""Most distinct terminal payoff matrices a tree may need (14 MB each: 5.6 GB)."""
MAX_SIZES = 8
"""Most sizes one raise level may list."""
ALLIN = "allin"
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*x\s*$")
_SIZE_FIELDS = ("open", "limp_raise", "threebet", "fourbet", "fivebet")
_SIZE_FORMS = ("a raise-to amount in big blinds (2.5, 11) or a multiple of the bet faced "
               "(\"3x\")")

Size = float | str


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _checked_sizes(name: str, value: object) -> tuple[Size, ...]:
    from pokerzoo.public.spots.preflop_flops import listed

    out: list[Size] = []
    for item in listed(name, value, "sizes", _SIZE_FORMS, MAX_SIZES, " per raise"):
        if _is_number(item):
            number = float(item)
            if not (math.isfinite(number) and number > 0):
                raise ConfigError(f"{name}: a size must be a finite number of big blinds > 0, "
                                  f"got {item!r}")
            out.append(number)
        elif isinstance(item, str) and _SIZE_RE.match(item):
            factor = float(_SIZE_RE.match(item).group(1))  # type: ignore[union-attr]
            if not factor > 1:
                raise ConfigError(f"{name}: a multiple of the bet faced must be over 1x, got "
                                  f"{item!r}")
            out.append(f"{factor:g}x")
        else:
            raise ConfigError(f"{name}: each size is {_SIZE_FORMS}, got {item!r:.40}")
    return tuple(out)


@dataclass(frozen=True)
class PreflopSpot:
    """A heads-up preflop tree (see the module docstring for the rules and the model).

    >>> PreflopSpot(stack=100, threebet=(3,))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pokerzoo.errors.ConfigError: threebet size 3 bb is below the minimum raise to 7 bb at ...
    """

    stack: float = 100.0
    """Effective stack in big blinds, before the blinds and the ante are posted."""
    ante: float = 0.0
    """Each player's ante in big blinds (dead money)."""
    open: tuple[Size, ...] = (2.5,)
    """The small blind's open raise-to sizes."""
    limp: bool = True
    """Whether the small blind may limp (call the big blind)."""
    limp_raise: tuple[Size, ...] = (4.0,)
    """The big blind's raise-to sizes over a limp."""
    threebet: tuple[Size, ...] = (11.0,)
    """Raise-to sizes of the second raise (the 3-bet, or a raise over a limp-raise)."""
    fourbet: tuple[Size, ...] = (25.0,)
    """Raise-to sizes of the third raise."""
    fivebet: tuple[Size, ...] = ()
    """Raise-to sizes of the fourth raise (later raises are all-in only)."""
    allin: bool = True
    """Whether every raise level also offers all-in."""
    cap: int = 5
    """Most raises in all (all-in included); then only fold and call."""
    sb_range: str = ""
    """The small blind's range (PioSOLVER syntax, ``ranges.parse_range``); empty: every combo."""
    bb_range: str = ""
    """The big blind's range; empty: every combo."""
    realization_sb: float = 1.0
    """The small blind's equity realisation factor after a flop is seen with chips behind."""
    realization_bb: float = 1.0
    """The big blind's factor."""
    flops: tuple[str, ...] = ()
    """Declared flops (``"AsKd2c"``): each flop leaf becomes flop subgames on these
    (:mod:`pokerzoo.public.spots.preflop_flops`); empty: the realised-equity model."""
    flop_weights: tuple[float, ...] = ()
    """The flops' weights (one per flop, normalised); empty: equally likely."""
    flop_bet: tuple[float, ...] = (50.0,)
    """Flop bet sizes in percent of the pot."""
    flop_raise: tuple[float, ...] = ()
    """Flop raise sizes in percent of the pot after the call."""
    flop_allin: bool = True
    """Whether every flop bet and raise level also offers all-in."""
    flop_cap: int = 2
    """Most bets and raises on the flop (the bet included); then fold and call."""

    def __post_init__(self) -> None:
        for name in ("stack", "ante", "realization_sb", "realization_bb"):
            value = getattr(self, name)
            if not _is_number(value) or not math.isfinite(value):
                raise ConfigError(f"{name} must be a finite number, got {value!r}")
            object.__setattr__(self, name, float(value))
        if not 0 <= self.ante < 10:
            raise ConfigError(f"the ante is 0 or more big blinds (less than 10), got {self.ante}")
        if not 1 + self.ante <= self.stack <= 10_000:
            raise ConfigError(f"the stack must cover the big blind and the ante "
                              f"(>= {1 + self.ante:g} bb) and be at most 10,000 bb, got "
                              f"{self.stack:g}")
        for name in ("realization_sb", "realization_bb"):
            if not 0 < getattr(self, name) <= 10:
                raise ConfigError(f"{name} must be in (0, 10], got {getattr(self, name)}")
        for name in _SIZE_FIELDS:
            object.__setattr__(self, name, _checked_sizes(name, getattr(self, name)))
        for name in ("limp", "allin"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if isinstance(self.cap, bool) or not isinstance(self.cap, int) or not 1 <= self.cap <= 8:
            raise ConfigError(f"cap must be an integer from 1 to 8 raises, got {self.cap!r}")
        for name in ("sb_range", "bb_range"):
            if not isinstance(getattr(self, name), str):
                raise ConfigError(f"{name} must be a range string, got "
                                  f"{type(getattr(self, name)).__name__}")
            self.range_weights(0 if name == "sb_range" else 1)
        if not self.open and not self.limp and not self.allin:
            raise ConfigError("the small blind needs an action besides fold: give open sizes, "
                              "limp = true or allin = true")
        self._check_sizes((), [])
        from pokerzoo.public.spots.preflop_flops import checked_flop_fields

        for name, value in checked_flop_fields(self).items():
            object.__setattr__(self, name, value)

    # -- the rules ------------------------------------------------------------------------------

    @property
    def max_bet(self) -> float:
        """The most a player can bet (raise to): the stack less the ante."""
        return self.stack - self.ante

    def range_weights(self, player: int) -> np.ndarray:
        """``[1326]`` initial weights of ``player``'s combos."""
        text = self.sb_range if player == 0 else self.bb_range
        return np.ones(NUM_COMBOS) if not text.strip() else parse_range(text)

    def bets(self, line: Sequence[str]) -> tuple[float, float, int, float]:
        """``(bet of player 0, bet of player 1, raises so far, last raise increment)`` after
        the actions ``line`` (labels of :meth:`actions`), blinds included, antes not."""
        bet = [SMALL_BLIND, BIG_BLIND]
        raises, increment = 0, BIG_BLIND
        for k, label in enumerate(line):
            player = k % 2
            if label in ("call", "check"):
                bet[player] = bet[1 - player]
            elif label == ALLIN or label.startswith("raise "):
                to = self.max_bet if label == ALLIN else float(label.split()[1])
                increment = max(increment, to - bet[1 - player])
                bet[player] = to
                raises += 1
        return bet[0], bet[1], raises, increment

    def _level_sizes(self, line: Sequence[str], raises: int) -> tuple[str, tuple[Size, ...]]:
        if raises == 0:
            return ("open", self.open) if not line else ("limp_raise", self.limp_raise)
        names = ("threebet", "fourbet", "fivebet")
        if raises <= 3:
            return names[raises - 1], getattr(self, names[raises - 1])
        return "", ()

    def _raise_to(self, size: Size, facing: float) -> float:
        if isinstance(size, str):
            return float(size[:-1]) * facing
        return float(size)

    def actions(self, line: Sequence[str]) -> list[tuple[str, str]]:
        """The actions after ``line`` as ``(label, what follows)``: ``"node"`` (the other player
        acts), ``"fold"``, ``"allin-showdown"`` or ``"flop"`` (a call or check that ends the
        betting)."""
        line = tuple(line)
        player = len(line) % 2
        b0, b1, raises, increment = self.bets(line)
        own, facing = (b0, b1) if player == 0 else (b1, b0)
        out: list[tuple[str, str]] = []
        if facing > own:
            out.append(("fold", "fold"))
        if facing >= self.max_bet:  # facing all-in: call it
            out.append(("call", "allin-showdown"))
            return out
        if facing > own:
            first_limp = not line  # the small blind completing
            if first_limp and not self.limp:
                pass
            else:
                out.append(("call", "node" if first_limp else "flop"))
        else:
            out.append(("check", "flop"))
        if raises >= self.cap:
            return out
        _, sizes = self._level_sizes(line, raises)
        least = facing + max(increment, BIG_BLIND)
        seen: set[float] = set()
        for size in sizes:
            to = self._raise_to(size, facing)
            if to >= self.max_bet or to < least - 1e-9:
                continue  # the all-in, or refused by __post_init__'s check
            to = round(to, 6)
            if to not in seen:
                seen.add(to)
                out.append((f"raise {to:g}", "node"))
        if self.allin or (sizes and any(self._raise_to(s, facing) >= self.max_bet
                                        for s in sizes)):
            out.append((ALLIN, "node"))
        return out

    def _check_sizes(self, line: tuple[str, ...], seen_levels: list[str]) -> None:
        """Refuse sizes below the minimum raise anywhere in the tree (one line)."""
        b0, b1, raises, increment = self.bets(line)
        player = len(line) % 2
        facing = b1 if player == 0 else b0
        if facing < self.max_bet and raises < self.cap:
            name, sizes = self._level_sizes(line, raises)
            least = facing + max(increment, BIG_BLIND)
            for size in sizes:
                to = self._raise_to(size, facing)
                if to < least - 1e-9 and to < self.max_bet:
                    shown = f"{size:g} bb" if isinstance(size, float) else f"{size} (to {to:g} bb)"
                    where = ", ".join(line) or "the root"
                    raise ConfigError(
                        f"{name} size {shown} is below the minimum raise to {least:g} bb "
                        f"at {where!r} (facing {facing:g} bb after a raise of "
                        f"{increment:g} bb)")
        for label, follows in self.actions(line):
            if follows == "node":
                self._check_sizes(line + (label,), seen_levels)

    def lines(self) -> list[tuple[str, ...]]:
        """Every decision point's line, root first, depth first."""
        out: list[tuple[str, ...]] = []
        stack: list[tuple[str, ...]] = [()]
        while stack:
            line = stack.pop()
            out.append(line)
            for label, follows in reversed(self.actions(line)):
                if follows == "node":
                    stack.append(line + (label,))
        return out

    def contributions(self, line: Sequence[str]) -> tuple[float, float]:
        """Each player's chips in the pot after ``line`` (blinds, bets and the ante)."""
        b0, b1, _, _ = self.bets(line)
        return b0 + self.ante, b1 + self.ante

    # -- files ----------------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PreflopSpot:
        """A spot from plain data (the keys are the field names); unknown keys are refused."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"a preflop spot is a table of fields, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        extra = sorted(set(data) - known)
        if extra:
            raise ConfigError(f"unknown preflop key(s) {extra}; allowed: {sorted(known)}")
        values = dict(data)
        for name in ("stack", "ante", "realization_sb", "realization_bb"):
            if name in values and not _is_number(values[name]):
                raise ConfigError(f"{name} must be a number, got {values[name]!r:.40}")
        for name in ("cap", "flop_cap"):
            if name in values and (isinstance(values[name], bool)
                                   or not isinstance(values[name], int)):
                raise ConfigError(f"{name} must be an integer, got {values[name]!r:.40}")
        return cls(**values)

    @classmethod
    def from_toml(cls, path: str | Path) -> PreflopSpot:
        """A spot from a TOML file: its ``[preflop]`` table, read in checked steps (a regular
        file of at most 1 MiB, UTF-8, TOML)."""
        from pokerzoo.public.spots.spot_file import read_spot_document

        data = read_spot_document(path)
        table = data.get("preflop")
        if not isinstance(table, dict):
            raise ConfigError(f"preflop file {str(path)!r} needs a [preflop] table of fields")
        return cls.from_dict(table)

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain data (``from_dict`` reads it back)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


def decision_lines(spot: PreflopSpot) -> list[tuple[str, ...]]:
    """Every decision's line: the preflop ones (:meth:`PreflopSpot.lines`), then, with flops
    declared, each flop subgame's (``("raise 2.5", "call", "AsKd2c", "check")``)."""
    out = spot.lines()
    if not spot.flops:
        return out
    from pokerzoo.public.spots import preflop_flops as pf

    for line in spot.lines():
        for label, follows in spot.actions(line):
            if follows == "flop":
                leaf = line + (label,)
                start = spot.contributions(leaf)[0]
                for flop in spot.flops:
                    out.extend(leaf + (flop,) + rest for rest in pf.flop_lines(spot, start))
    return out


def is_preflop_file(path: str | Path) -> bool:
    """Whether a TOML file holds a ``[preflop]`` table (read in checked steps)."""
    from pokerzoo.public.spots.spot_file import read_spot_document

    return isinstance(read_spot_document(path).get("preflop"), dict)


# ---------------------------------------------------------------------------------------------
# The tree
# ---------------------------------------------------------------------------------------------


def _live_pairs() -> np.ndarray:
    cards = np.zeros((NUM_COMBOS, 52), dtype=np.float64)
    cards[np.arange(NUM_COMBOS), COMBOS[:, 0]] = 1
    cards[np.arange(NUM_COMBOS), COMBOS[:, 1]] = 1
    return (cards @ cards.T) == 0


def realised_share(equity: np.ndarray, realization_sb: float, realization_bb: float
                   ) -> np.ndarray:
    """Player 0's share of the pot by realised equity: ``R_0 e / (R_0 e + R_1 (1 - e))``
    (``e`` itself where the factors are equal).

    >>> realised_share(np.array([0.5, 0.0, 1.0]), 1.1, 0.9).round(3).tolist()
    [0.55, 0.0, 1.0]
    """
    e = np.asarray(equity, dtype=np.float64)
    if realization_sb == realization_bb:
        return e.copy()
    num = realization_sb * e
    den = num + realization_bb * (1.0 - e)
    return np.divide(num, den, out=np.zeros_like(e), where=den > 0)


class PreflopTerminals(DenseTerminals):
    """Dense preflop payoffs (``DenseTerminals``) that also know the all-in equity."""

    def __init__(self, payoffs: np.ndarray, equity: np.ndarray | None = None,
                 table: np.ndarray | None = None, scale: np.ndarray | None = None) -> None:
        super().__init__(payoffs, table, scale)
        self.allin_equity = None if equity is None else np.ascontiguousarray(equity)

    def equity(self, tree: PublicTree, node: int, player: int, opp_reach: np.ndarray
               ) -> np.ndarray:
        """Preflop all-in equity of ``player``'s hands against the opponent's reach (NaN where
        no opponent hand is live, and at flop nodes, whose flop tables are not kept here)."""
        if self.allin_equity is None or tree.board_cards(node):
            return np.full(tree.num_hands(player), np.nan)
        live = tree.compatible if player == 0 else tree.compatible.T
        matrix = self.allin_equity if player == 0 else (live - self.allin_equity.T)
        num = matrix @ opp_reach
        den = live.astype(np.float64) @ opp_reach
        return np.divide(num, den, out=np.full(num.shape, np.nan), where=den > 0)

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        if self.allin_equity is not None:
            state["equity"] = self.allin_equity
        return state

    @classmethod
    def from_state(cls, tree: PublicTree, state: dict[str, Any]) -> PreflopTerminals:
        return cls(state["payoffs"], state.get("equity"), state.get("table"),
                   state.get("scale"))


@dataclass(frozen=True)
class PreflopTree:
    """A preflop spot's public tree and where each of its decision lines is."""

    spot: PreflopSpot
    tree: PublicTree
    node_of: dict[tuple[str, ...], int]
    """The tree node of each decision line (and of each terminal line)."""

    def node(self, line: str | Sequence[str]) -> int:
        """The node of a line such as ``"raise 2.5, raise 11"`` (``""``: the root), or of a
        flop line such as ``"raise 2.5, call, AsKd2c, check"``."""
        labels = _parse_line(line)
        if labels not in self.node_of:
            raise ConfigError(f"no node at line {', '.join(labels)!r}; lines start with one "
                              f"of {[a for a, _ in self.spot.actions(())]}")
        return self.node_of[labels]

    def flop_cards(self, line: str | Sequence[str]) -> list[int]:
        """The cards of the declared flop on ``line`` (empty on a preflop line)."""
        return self.tree.board_cards(self.node(line))


def _parse_line(line: str | Sequence[str]) -> tuple[str, ...]:
    if isinstance(line, str):
        return tuple(part.strip() for part in line.split(",") if part.strip())
    return tuple(str(part) for part in line)


def count_terminal_tables(spot: PreflopSpot) -> int:
    """How many ``[1326, 1326]`` base payoff matrices :func:`build_preflop_tree` will
    allocate: the live-pair mask (folds), the all-in share less one half (called all-ins, and
    flops seen at equal realisation factors), the realised share less one half (flops seen,
    when no flops are declared and the factors differ), and two per declared flop."""
    realised = (not spot.flops and spot.realization_sb != spot.realization_bb
                and any(key[0] == "flop" for key in _terminal_keys(spot)))
    return 2 + int(realised) + 2 * len(spot.flops)


def _terminal_keys(spot: PreflopSpot) -> dict[tuple[Any, ...], int]:
    keys: dict[tuple[Any, ...], int] = {}
    for line in spot.lines():
        for label, follows in spot.actions(line):
            if follows != "node":
                key = _terminal_key(spot, line + (label,), follows)
                keys.setdefault(key, len(keys))
    return keys


MAX_TREE_NODES = 2_000_000
"""Most nodes a preflop tree with flop subgames may have."""
MAX_STORAGE_ENTRIES = 60_000_000
"""Most per-decision storage entries (actions x 1326 per decision; 480 MB per solver array)."""


def _terminal_key(spot: PreflopSpot, line: tuple[str, ...], follows: str) -> tuple[Any, ...]:
    c0, c1 = spot.contributions(line)
    if follows == "fold":
        folder = (len(line) - 1) % 2
        return ("fold", folder, c0, c1)
    return (follows, c0, c1)


def build_preflop_tree(spot: PreflopSpot, table: EquityTable, *,
                       flop_progress: bool = False) -> PreflopTree:
    """The public tree of ``spot`` with its terminal payoffs from ``table``.

    Every terminal's payoff matrix is a scale times one of a few shared base matrices
    (``DenseTerminals``' ``table`` and ``scale``): a fold for ``c`` chips is ``+-c`` times the
    live-pair mask ``L``; a showdown (both contributions equal, ``pot / 2``) is ``pot`` times
    ``S - L / 2`` with ``S`` player 0's share of the pot per pair (all-in equity, realised
    equity, or a declared flop's exact equity). With ``spot.flops`` the flop leaves become
    flop subgames (:mod:`pokerzoo.public.spots.preflop_flops`; ``flop_progress`` shows each
    flop's equity build).

    Raises:
        TreeTooLargeError: the tree needs more than ``MAX_TERMINAL_TABLES`` base matrices,
            ``MAX_TREE_NODES`` nodes or ``MAX_STORAGE_ENTRIES`` storage entries (counted
            before any is allocated).
    """
    from pokerzoo.public.spots import preflop_flops as pf

    bases = count_terminal_tables(spot)
    if bases > MAX_TERMINAL_TABLES:
        raise TreeTooLargeError(
            f"this preflop tree needs {bases} base payoff matrices of 14 MB, over the "
            f"{MAX_TERMINAL_TABLES} allowed; declare fewer flops",
            estimated_nodes=bases)
    if spot.flops:
        leaves = [spot.contributions(line + (label,))[0] for line in spot.lines()
                  for label, follows in spot.actions(line) if follows == "flop"]
        nodes, entries = pf.estimated_flop_nodes(spot, leaves, MAX_TREE_NODES)
        entries += sum(len(spot.actions(line)) for line in spot.lines()) * NUM_COMBOS
        if nodes > MAX_TREE_NODES or entries > MAX_STORAGE_ENTRIES:
            raise TreeTooLargeError(
                f"the flop subgames would add {nodes:,} nodes and {entries:,} storage "
                f"entries (at most {MAX_TREE_NODES:,} and {MAX_STORAGE_ENTRIES:,}); declare "
                "fewer flops or flop sizes", estimated_nodes=nodes)
    reach = [spot.range_weights(0), spot.range_weights(1)]
    names = [combo_name(i) for i in range(NUM_COMBOS)]
    builder = PublicTreeBuilder(hands=[COMBOS, COMBOS], initial_reach=reach, num_cards=52,
                                starting_pot=sum(spot.contributions(())),
                                hand_names=[names, names])
    provisional: dict[tuple[str, ...], int] = {}
    realised = spot.realization_sb != spot.realization_bb
    base_of = {"fold": 0, "allin-showdown": 1, "flop": 2 if realised else 1}
    first_flop_base = 2  # flops refuse realisation factors other than 1
    rows: dict[tuple[int, float], int] = {}

    def row(base: int, scale: float) -> int:
        return rows.setdefault((base, float(scale)), len(rows))

    def terminal(parent: int, line: tuple[str, ...], kind: str, c0: float, c1: float,
                 folder: int, base: int, board: tuple[int, ...] = ()) -> None:
        if kind == "fold":
            data = row(base, -c0 if folder == 0 else c1)
            provisional[line] = builder.add_terminal(parent, line[-1], FOLD, c0 + c1,
                                                     (c0, c1), board=board, folder=folder,
                                                     data=data)
        else:
            if abs(c0 - c1) > 1e-9:
                raise AssertionError(f"a showdown with unequal contributions at {line}")
            provisional[line] = builder.add_terminal(parent, line[-1], SHOWDOWN, c0 + c1,
                                                     (c0, c1), board=board,
                                                     data=row(base, c0 + c1))

    def add_flop(parent: int, line: tuple[str, ...], c: float, f: int, weight: float) -> None:
        cards = pf.parse_flop(spot.flops[f])
        head = line + (spot.flops[f],)

        def walk(parent: int, flop_line: tuple[str, ...]) -> None:
            c0, c1 = pf.flop_contributions(spot, c, flop_line)
            player = 1 - len(flop_line) % 2
            if flop_line:
                node = builder.add_decision(parent, flop_line[-1], player, c0 + c1, (c0, c1),
                                            board=cards)
            else:  # the chance edge: its card zeroes the hands holding it below
                node = builder.add_decision(parent, spot.flops[f], player, c0 + c1, (c0, c1),
                                            board=cards, card=cards[0], weight=weight)
            provisional[head + flop_line] = node
            for child, then in pf.flop_actions(spot, c, flop_line):
                after = flop_line + (child,)
                if then == "node":
                    walk(node, after)
                    continue
                d0, d1 = pf.flop_contributions(spot, c, after)
                if then == "fold":
                    terminal(node, head + after, "fold", d0, d1, player,
                             first_flop_base + 2 * f, cards)
                else:
                    terminal(node, head + after, "showdown", d0, d1, -1,
                             first_flop_base + 2 * f + 1, cards)

        walk(parent, ())

    def add(parent: int, line: tuple[str, ...], follows: str) -> None:
        c0, c1 = spot.contributions(line)
        label = line[-1] if line else ""
        if follows == "node":
            provisional[line] = builder.add_decision(parent, label, len(line) % 2, c0 + c1,
                                                     (c0, c1))
            for child, then in spot.actions(line):
                add(provisional[line], line + (child,), then)
            return
        if follows == "flop" and spot.flops:
            provisional[line] = chance = builder.add_chance(parent, label, c0 + c1, (c0, c1))
            for f, weight in enumerate(pf.flop_weights(spot)):
                add_flop(chance, line, c0, f, float(weight))
            return
        folder = (len(line) - 1) % 2 if follows == "fold" else -1
        terminal(parent, line, "fold" if follows == "fold" else "showdown", c0, c1, folder,
                 base_of[follows])

    add(-1, (), "node")
    tables = [pf.flop_equity(name, progress=flop_progress) for name in spot.flops]
    live = _live_pairs()
    equity = np.where(live, table.equity, 0.0)
    payoffs = np.empty((bases, NUM_COMBOS, NUM_COMBOS))
    payoffs[0] = live
    np.subtract(equity, 0.5 * live, out=payoffs[1])
    if bases - 2 * len(spot.flops) == 3:
        shared = realised_share(equity, spot.realization_sb, spot.realization_bb) * live
        np.subtract(shared, 0.5 * live, out=payoffs[2])
    if spot.flops:
        pf.flop_bases(spot, live, tables, payoffs[first_flop_base:])
    ordered = sorted(rows.items(), key=lambda item: item[1])
    table_of = np.array([base for (base, _), _ in ordered], dtype=np.int64)
    scale = np.array([value for (_, value), _ in ordered], dtype=np.float64)
    tree, final = builder.build(PreflopTerminals(payoffs, equity, table_of, scale))
    return PreflopTree(spot, tree, {line: int(final[i]) for line, i in provisional.items()})


# ---------------------------------------------------------------------------------------------
# Solving and results
# ---------------------------------------------------------------------------------------------


@dataclass
class PreflopSolution:
    """A solved preflop tree: strategies, EVs, charts and exploitability in big blinds."""

    built: PreflopTree
    solver: Any
    seconds: float = 0.0

    @property
    def spot(self) -> PreflopSpot:
        return self.built.spot

    @property
    def tree(self) -> PublicTree:
        return self.built.tree

    def exploitability_bb(self) -> float:
        """``(BR_0 + BR_1) / 2`` in big blinds per hand (the engine's best responses)."""
        return float(self.solver.exploitability())

    def game_value_bb(self) -> float:
        """The small blind's expected winnings per hand in big blinds."""
        return float(self.solver.game_value()[0])

    def actions(self, line: str | Sequence[str] = "") -> list[str]:
        """The action labels at a decision line."""
        node = self.built.node(line)
        return [self.tree.label(c) for c in self.tree.children(node)]

    def strategy(self, line: str | Sequence[str] = "") -> np.ndarray:
        """``[actions, 1326]``: the acting player's average strategy per combo."""
        return np.asarray(self.solver.strategy(self.built.node(line)))

    def class_strategy(self, line: str | Sequence[str] = "") -> np.ndarray:
        """``[actions, 169]``: per hand class (``CLASS_NAMES``), the combos' strategies
        weighted by how often each combo reaches the node (NaN for a class that never does).
        At a flop node (``"raise 2.5, call, AsKd2c, check"``) the combos holding a flop card
        are left out."""
        from pokerzoo.public.engine.results import node_result

        node = self.built.node(line)
        result = node_result(self.solver, node)
        own = result.reach[result.player]
        board = self.built.flop_cards(line)
        if board:
            own = own * ~np.isin(COMBOS, board).any(axis=1)
        strategy = result.strategy
        assert strategy is not None
        return _class_average(strategy, own)

    def ev(self, line: str | Sequence[str] = "") -> tuple[np.ndarray, np.ndarray]:
        """Each player's EV per combo at the node, in big blinds net of what the player has
        put in since the deal (NaN for combos with no live opponent hand)."""
        from pokerzoo.public.engine.results import node_result

        result = node_result(self.solver, self.built.node(line))
        return result.ev

    def chart(self, line: str | Sequence[str], path: str | Path) -> Path:
        """A 13 x 13 chart of each action's frequency per class at the line, with the class's
        frequency written in each cell."""
        from pokerzoo.public.spots.class_chart import draw_class_chart

        labels = _parse_line(line)
        strategy = self.class_strategy(labels)
        actor = "SB" if len(labels) % 2 == 0 else "BB"
        panels, texts = [], []
        for label, row in zip(self.actions(labels), strategy):
            grid = row.reshape(13, 13)
            panels.append((label, grid))
            texts.append(np.vectorize(lambda f: "" if not np.isfinite(f) else f"{f:.2f}")(grid))
        where = ", ".join(labels) or "the root"
        return draw_class_chart(panels, path, f"{actor} at {where}: {self.spot.stack:g} bb",
                                note=f"exploitability {self.exploitability_bb():.4f} bb",
                                cell_text=texts)

    def to_json(self, lines: Sequence[str | Sequence[str]] | None = None) -> dict[str, Any]:
        """The spot, the value, the exploitability and every decision's strategy per class
        (``{line: {action: {class: frequency}}}``; NaN classes left out)."""
        nodes: dict[str, Any] = {}
        chosen = self.spot.lines() if lines is None else [_parse_line(x) for x in lines]
        for line in chosen:
            strategy = self.class_strategy(line)
            nodes[", ".join(line)] = {
                label: {CLASS_NAMES[k]: round(float(f), 6) for k, f in enumerate(row)
                        if np.isfinite(f)}
                for label, row in zip(self.actions(line), strategy)}
        return {"spot": self.spot.to_dict(), "iterations": int(self.solver.iterations),
                "seconds": self.seconds, "game_value_bb": self.game_value_bb(),
                "exploitability_bb": self.exploitability_bb(), "strategy": nodes}


def _class_average(strategy: np.ndarray, reach: np.ndarray) -> np.ndarray:
    owner = COMBO_CLASS.astype(np.int64)
    weight = np.bincount(owner, weights=reach, minlength=len(CLASS_NAMES))
    out = np.full((strategy.shape[0], len(CLASS_NAMES)), np.nan)
    for a in range(strategy.shape[0]):
        total = np.bincount(owner, weights=strategy[a] * reach, minlength=len(CLASS_NAMES))
        np.divide(total, weight, out=out[a], where=weight > 0)
    return out


def solve_preflop(spot: PreflopSpot, table: EquityTable, *, target_bb: float = 0.01,
                  max_iterations: int = 2000, check_every: int = 10,
                  progress: bool | Callable[[int, float], None] = False,
                  config: Any = None, **overrides: Any) -> PreflopSolution:
    """Solve ``spot`` until its exploitability is at most ``target_bb`` big blinds per hand
    (checked every ``check_every`` iterations) or ``max_iterations``.

    ``config`` and ``overrides`` are the engine's ``SolverConfig`` (default: postflop-solver's
    DCFR schedule, ``algorithm="postflop"``, which reached 0.01 bb on the 100 bb tree in 55
    iterations against DCFR's 60 and CFR+'s 165). ``progress``: ``True`` for a tqdm bar, or a
    callback ``progress(iterations, exploitability in % of the starting pot)``.
    """
    import time

    from pokerzoo.public.engine.solver import PublicSolver

    if not _is_number(target_bb) or not target_bb > 0:
        raise ConfigError(f"target_bb must be a number > 0, got {target_bb!r}")
    start = time.perf_counter()
    built = build_preflop_tree(spot, table)
    overrides.setdefault("algorithm", "postflop")
    solver = PublicSolver(built.tree, config, **overrides)
    pot = built.tree.starting_pot
    bar = None
    report = progress if callable(progress) else None
    if progress is True:
        from tqdm import tqdm

        bar = tqdm(total=max_iterations, desc="preflop", unit="it")

        def report(iterations: int, pct: float) -> None:
            assert bar is not None
            bar.update(iterations - bar.n)
            bar.set_postfix(exploitability_bb=f"{pct * pot / 100:.4f}")

    try:
        solver.solve(max_iterations=max_iterations, target_pct=100.0 * target_bb / pot,
                     check_every=check_every, progress=report)
    finally:
        if bar is not None:
            bar.close()
    return PreflopSolution(built, solver, time.perf_counter() - start)


# ---------------------------------------------------------------------------------------------
# The independent check: a best response on the class game
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClassPayoffs:
    """Class-level sums over unblocked combo pairs (SB's class first): pair counts, all-in
    equity and realised share."""

    pairs: np.ndarray
    equity: np.ndarray
    share: np.ndarray


def class_payoffs(spot: PreflopSpot, table: EquityTable) -> ClassPayoffs:
    """The class sums that :func:`class_best_response` plays on."""
    live = _live_pairs()
    owner = COMBO_CLASS.astype(np.int64)
    onehot = np.zeros((NUM_COMBOS, len(CLASS_NAMES)))
    onehot[np.arange(NUM_COMBOS), owner] = 1.0
    equity = np.where(live, table.equity, 0.0)
    share = realised_share(equity, spot.realization_sb, spot.realization_bb) * live
    return ClassPayoffs(onehot.T @ live.astype(np.float64) @ onehot,
                        onehot.T @ equity @ onehot, onehot.T @ share @ onehot)


def class_best_response(spot: PreflopSpot, payoffs: ClassPayoffs,
                        strategies: Mapping[tuple[str, ...], np.ndarray]
                        ) -> tuple[float, float, float]:
    """``(value of player 0, BR_0, BR_1)`` in big blinds per hand: each player's best response
    to the other's class strategies ``{line: [actions, 169]}``, walked over the spot's rules on
    the 169-class game (every card-removal effect kept in the class sums). Exact for ranges
    and strategies that treat the combos of a class alike; independent of the engine's tree,
    terminals and sweeps. Exploitability is ``(BR_0 + BR_1) / 2``."""
    if spot.flops:
        raise ConfigError("class_best_response plays the preflop model without flops; this "
                          "spot declares flops (the flop subgames are not class games)")
    weights = [_class_weights(spot.range_weights(p)) for p in (0, 1)]
    mass = float(weights[0] @ payoffs.pairs @ weights[1])

    def terminal(line: tuple[str, ...], follows: str, player: int, opp: np.ndarray
                 ) -> np.ndarray:
        c0, c1 = spot.contributions(line)
        if follows == "fold":
            folder = (len(line) - 1) % 2
            u0 = -c0 if folder == 0 else c1
            matrix = u0 * payoffs.pairs
        else:
            share = payoffs.equity if follows == "allin-showdown" else payoffs.share
            matrix = (c0 + c1) * share - c0 * payoffs.pairs
        return matrix @ opp if player == 0 else -(opp @ matrix)

    def walk(line: tuple[str, ...], player: int, opp: np.ndarray, best: bool) -> np.ndarray:
        actor = len(line) % 2
        values = []
        strategy = strategies[line] if (actor != player or not best) else None
        for k, (label, follows) in enumerate(spot.actions(line)):
            child = line + (label,)
            reach = opp * strategy[k] if (strategy is not None and actor != player) else opp
            if follows == "node":
                values.append(walk(child, player, reach, best))
            else:
                values.append(terminal(child, follows, player, reach))
        stacked = np.stack(values)
        if actor != player:
            return stacked.sum(axis=0)
        if best:
            return stacked.max(axis=0)
        assert strategy is not None
        return (np.nan_to_num(strategy) * stacked).sum(axis=0)

    value = float(weights[0] @ walk((), 0, weights[1], False)) / mass
    br0 = float(weights[0] @ walk((), 0, weights[1], True)) / mass
    br1 = float(weights[1] @ walk((), 1, weights[0], True)) / mass
    return value, br0, br1


def _class_weights(weights: np.ndarray) -> np.ndarray:
    owner = COMBO_CLASS.astype(np.int64)
    counts = np.bincount(owner, minlength=len(CLASS_NAMES))
    per_class = np.bincount(owner, weights=weights, minlength=len(CLASS_NAMES)) / counts
    if not np.allclose(weights, per_class[owner]):
        raise ConfigError("the class-game check needs ranges that weight the combos of each "
                          "class alike")
    return per_class


def solution_class_strategies(solution: PreflopSolution) -> dict[tuple[str, ...], np.ndarray]:
    """Every decision line's class strategy (reach-weighted; a class that never reaches the
    node gets its combos' plain average, which no value depends on)."""
    out = {}
    for line in solution.spot.lines():
        strategy = solution.class_strategy(line)
        plain = _class_average(solution.strategy(line), np.ones(NUM_COMBOS))
        out[line] = np.where(np.isfinite(strategy), strategy, plain)
    return out


EXAMPLE = """\
# A heads-up preflop tree for `python solve.py FILE.toml` (pokerzoo.public.spots.preflop).
# Chips are big blinds (small blind 0.5, big blind 1); sizes are raise-to amounts or
# multiples of the bet faced ("3x").
[preflop]
stack = 100          # effective stack before posting
ante = 0.0
open = [2.5]         # the small blind's open
limp = true          # the small blind may complete
limp_raise = [4]     # the big blind's raise over a limp
threebet = [11]
fourbet = [25]
fivebet = []         # later raises: all-in only
allin = true         # all-in at every raise
cap = 5              # raises in all
sb_range = ""        # empty: every combo
bb_range = ""
realization_sb = 1.0 # equity realisation after a flop seen with chips behind
realization_bb = 1.0
flops = []           # declared flops ("AsKd2c"): flop subgames instead of realised equity
flop_weights = []    # one per flop; empty: equally likely
flop_bet = [50]      # flop bets in % of the pot (the big blind acts first)
flop_raise = []      # flop raises in % of the pot after the call
flop_allin = true
flop_cap = 2         # bets and raises on the flop; turn and river are checked down
"""


__all__ = [
    "EXAMPLE", "ClassPayoffs", "PreflopSolution", "PreflopSpot", "PreflopTerminals",
    "PreflopTree", "build_preflop_tree", "class_best_response", "class_payoffs",
    "count_terminal_tables", "decision_lines", "is_preflop_file", "realised_share",
    "solution_class_strategies", "solve_preflop",
]
