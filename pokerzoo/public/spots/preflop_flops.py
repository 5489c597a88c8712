"""Flop subgames of the preflop solver: a declared flop sample, one street of betting.

With ``PreflopSpot.flops`` declared (e.g. ``("AsKd2c", "7h6h2d")``), every preflop line that
sees a flop with chips behind (a call or a check: the ``"flop"`` leaves of
``PreflopSpot.actions``) becomes a chance node dealing one of the declared flops, followed by
one street of betting, and the turn and river are checked down. This is an **abstraction of
the flop**, not the game:

* only the declared flops are dealt (a sample, equally likely or with ``flop_weights``);
* only the flop is bet; the turn and river are checked down, so a showdown after the flop
  pays the pot by the pair's **exact flop equity**: wins plus half the ties over all
  ``C(45, 2) = 990`` (turn, river) runouts the pair and the flop leave, counted with
  ``preflop_equity._accumulate`` over the 1,176 five-card boards that extend the flop;
* a preflop all-in called still runs out every board (the preflop all-in equity).

**Card removal.** A hand pair that holds a card of flop ``f`` cannot see ``f``. The declared
flops' probabilities are therefore renormalised **per hand pair** over the declared flops that
pair does not block: pair ``(i, j)`` sees flop ``f`` with probability
``w_f [f unblocked] / sum_g w_g [g unblocked]``, so every pair's flop probabilities sum to 1
(the weights ``w`` normalised to sum to 1). The chance edge of flop ``f`` carries ``w_f`` and
the factor ``[f unblocked] / sum_g w_g [g unblocked]`` is folded into flop ``f``'s two base
payoff matrices (:func:`flop_factors`). A pair every declared flop blocks (possible with few
flops) has no flop in the abstraction: it gets 0 at such a leaf (its contributions back);
:func:`uncovered_pairs` says how many there are. Declare flops that cover the ranges.

**The chance card.** The engine's chance edges carry one card, and the sweep zeroes the reach
of the hands holding it below the edge (``PublicTree.hands_holding``). Flop ``f``'s edge carries
its highest card; hands holding one of its two other cards keep their reach, which changes no
value: their rows and columns of every payoff matrix below the edge are zero (the factor above
is zero for them), so their counterfactual values are 0 whatever they do, and the strategies
reported per class leave them out.

**Betting** (:func:`flop_actions`): the big blind (player 1) acts first. Bets are percentages
of the pot (``flop_bet``, ``33`` or ``"33%"``; at least one big blind), raises percentages of
the pot after the call, on top of the bet faced (``flop_raise``; at least the minimum raise),
``flop_allin`` adds all-in to every bet and raise, ``flop_cap`` bets and raises in all (the bet
counts) and then only fold and call. Labels are ``check``, ``bet X`` / ``raise X`` (``X`` the
chips, in big blinds, the actor has put in on the flop once it is made), ``allin``, ``call``
and ``fold``; a flop node's line reads e.g. ``"raise 2.5, call, AsKd2c, check, bet 2.5"``.

**Cost.** Each declared flop adds two ``[1326, 1326]`` float64 base matrices (28 MB) and the
flop subtree below every flop leaf of the preflop tree; each terminal costs a dense 1326 x 1326
product per sweep, so an iteration's time grows about linearly in the flops. Measured on the
default 100 bb tree (7 flop leaves) with the default flop betting (a 50% bet, all-in, two bets
and raises), one thread of a shared two-core machine:

=====  =====  ============  =============  ========
flops  nodes  bases         s / iteration  peak RSS
=====  =====  ============  =============  ========
0      46     2 (28 MB)     0.08           251 MB
1      193    4 (56 MB)     0.31           285 MB
3      487    8 (112 MB)    1.2            398 MB
10     1516   22 (308 MB)   3.7            697 MB
=====  =====  ============  =============  ========

(Timings on the shared machine vary by up to 2x; a full solve to 0.01 bb took 175 iterations
in 71 s with one flop and 125 iterations in 173 s with three, exploitability checks included.)

Each flop's equity is built once (about 2 s of one core: 1,176 boards through
``_accumulate``) and cached as a plain ``.npz`` (no pickle, read back checked) beside the
preflop table, keyed by the flop's suit-canonical form (``flop_v1_2c3c4d.npz``): a flop that
is a suit swap of a cached one is read and permuted (0.2 s).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.holdem.cards import CARD_STRINGS, string_to_card
from pokerzoo.public.spots.preflop_equity import (
    _COMBO_INDEX,
    COMBOS,
    NUM_COMBOS,
    SUIT_PERMUTATIONS,
    _accumulate,
    cache_path,
)

FLOP_TABLE_VERSION = 1
MAX_FLOPS = 64
"""Most declared flops (each adds two 14 MB base matrices and a subtree per flop leaf)."""
MAX_FLOP_SIZES = 6
"""Most sizes ``flop_bet`` or ``flop_raise`` may list."""
RUNOUTS_PER_PAIR = 990
"""(turn, river) runouts of the 45 cards a pair and a flop leave: C(45, 2)."""
TURN_RIVER_BOARDS = 1176
"""Five-card boards extending a flop: C(49, 2)."""
_PCT_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")
_FLOP_RE = re.compile(r"^\s*([2-9TJQKAtjqka][cdhsCDHS]\s*){3}$")
FLOP_FORMS = "three cards such as AsKd2c (ranks 23456789TJQKA, suits cdhs)"
PCT_FORMS = "a percentage of the pot: a number (33) or a string (\"33%\")"


# ---------------------------------------------------------------------------------------------
# Input
# ---------------------------------------------------------------------------------------------


def parse_flop(text: object) -> tuple[int, int, int]:
    """The three cards of a flop string, highest card first (``"2cAsKd"`` -> (51, 45, 0))."""
    if not isinstance(text, str) or not _FLOP_RE.match(text):
        raise ConfigError(f"a flop is {FLOP_FORMS}, got {text!r:.40}")
    compact = text.replace(" ", "")
    cards = [string_to_card(compact[k:k + 2]) for k in range(0, 6, 2)]
    if len(set(cards)) != 3:
        raise ConfigError(f"a flop has three different cards, got {text!r}")
    a, b, c = sorted(cards, reverse=True)
    return a, b, c


def flop_name(cards: Sequence[int]) -> str:
    """``"AsKd2c"``: the cards highest first."""
    return "".join(CARD_STRINGS[c] for c in sorted(cards, reverse=True))


def listed(name: str, value: object, what: str, forms: str, most: int,
           suffix: str = "") -> list[Any]:
    """``value`` as a list (one string or number is a list of one), refused in one line
    unless it is a list or tuple of at most ``most`` items."""
    if isinstance(value, str) or (isinstance(value, int | float) and not isinstance(value, bool)):
        value = [value]
    if not isinstance(value, list | tuple):
        raise ConfigError(f"{name} must be a list of {what}, each {forms}; got "
                          f"{type(value).__name__}")
    if len(value) > most:
        raise ConfigError(f"{name} lists {len(value)} {what}; at most {most}{suffix}")
    return list(value)


def _percentages(name: str, value: object) -> tuple[float, ...]:
    out: list[float] = []
    for item in listed(name, value, "sizes", PCT_FORMS, MAX_FLOP_SIZES):
        if isinstance(item, int | float) and not isinstance(item, bool):
            pct = float(item)
        elif isinstance(item, str) and _PCT_RE.match(item):
            pct = float(_PCT_RE.match(item).group(1))  # type: ignore[union-attr]
        else:
            raise ConfigError(f"{name}: each size is {PCT_FORMS}, got {item!r:.40}")
        if not (math.isfinite(pct) and 0 < pct <= 1000):
            raise ConfigError(f"{name}: a size is a percentage of the pot in (0, 1000], "
                              f"got {item!r}")
        if pct not in out:
            out.append(pct)
    return tuple(out)


def checked_flop_fields(spot: Any) -> dict[str, Any]:
    """The spot's flop fields, checked and normalised (``PreflopSpot.__post_init__`` sets
    them): flops as ``"AsKd2c"`` names, weights as floats, sizes as percentages."""
    flops = listed("flops", spot.flops, "flops", FLOP_FORMS, MAX_FLOPS)
    names = tuple(flop_name(parse_flop(f)) for f in flops)
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ConfigError(f"flops lists {twice[0]} twice; each flop once (weights: "
                          "flop_weights)")
    weights = spot.flop_weights
    if isinstance(weights, int | float) and not isinstance(weights, bool):
        weights = [weights]
    if not isinstance(weights, list | tuple) or not all(
            isinstance(w, int | float) and not isinstance(w, bool) for w in weights):
        raise ConfigError("flop_weights must be a list of numbers > 0, one per flop (or empty: "
                          "equally likely)")
    if weights and len(weights) != len(names):
        raise ConfigError(f"flop_weights gives {len(weights)} weights for {len(names)} flops; "
                          "give one per flop or none")
    if not all(math.isfinite(w) and w > 0 for w in weights):
        raise ConfigError(f"flop_weights must be finite numbers > 0, got {list(weights)}")
    bet = _percentages("flop_bet", spot.flop_bet)
    raise_ = _percentages("flop_raise", spot.flop_raise)
    if not isinstance(spot.flop_allin, bool):
        raise ConfigError(f"flop_allin must be true or false, got {spot.flop_allin!r}")
    cap = spot.flop_cap
    if isinstance(cap, bool) or not isinstance(cap, int) or not 0 <= cap <= 6:
        raise ConfigError(f"flop_cap must be an integer from 0 to 6 bets and raises, got "
                          f"{cap!r}")
    if names and (spot.realization_sb != 1.0 or spot.realization_bb != 1.0):
        raise ConfigError("realization_sb and realization_bb must be 1.0 with flops declared "
                          "(the flop subgames pay exact flop equity)")
    return {"flops": names, "flop_weights": tuple(float(w) for w in weights), "flop_bet": bet,
            "flop_raise": raise_, "flop_cap": cap}


def flop_weights(spot: Any) -> np.ndarray:
    """``[F]``: the declared flops' probabilities (the weights normalised to sum to 1)."""
    weights = np.asarray(spot.flop_weights or [1.0] * len(spot.flops), dtype=np.float64)
    return weights / weights.sum()


# ---------------------------------------------------------------------------------------------
# Betting
# ---------------------------------------------------------------------------------------------


def _state(spot: Any, start: float, line: Sequence[str]) -> tuple[list[float], int, float]:
    """``(contributions, bets and raises so far, last increment)`` after flop actions."""
    contrib = [start, start]
    raises, increment = 0, 0.0
    for k, label in enumerate(line):
        player = 1 - k % 2
        if label == "call":
            contrib[player] = contrib[1 - player]
        elif label == "allin" or label.startswith(("bet ", "raise ")):
            to = float(spot.stack) if label == "allin" else start + float(label.split()[1])
            increment = max(increment, to - contrib[1 - player])
            contrib[player] = to
            raises += 1
    return contrib, raises, increment


def flop_contributions(spot: Any, start: float, line: Sequence[str]) -> tuple[float, float]:
    """Each player's chips in the pot after the flop actions ``line`` (from ``start`` each)."""
    contrib, _, _ = _state(spot, start, line)
    return contrib[0], contrib[1]


def flop_actions(spot: Any, start: float, line: Sequence[str]) -> list[tuple[str, str]]:
    """The flop actions after ``line`` as ``(label, what follows)``: ``"node"``, ``"fold"`` or
    ``"showdown"`` (the turn and river checked down), each player having put ``start`` in
    preflop (see the module docstring for the rules)."""
    contrib, raises, increment = _state(spot, start, line)
    player = 1 - len(line) % 2
    own, other = contrib[player], contrib[1 - player]
    stack = float(spot.stack)
    pot = contrib[0] + contrib[1]
    out: list[tuple[str, str]] = []
    if other > own:
        out += [("fold", "fold"), ("call", "showdown")]
        sizes = [other + pct / 100 * (pot + other - own) for pct in spot.flop_raise]
        least = other + max(increment, 1.0)
        sizes = [max(s, least) for s in sizes]
        word = "raise"
    else:
        out.append(("check", "node" if player == 1 else "showdown"))
        sizes = [own + max(pct / 100 * pot, 1.0) for pct in spot.flop_bet]
        word = "bet"
    if raises >= spot.flop_cap or other >= stack:
        return out
    seen: set[float] = set()
    for to in sizes:
        if to >= stack - 1e-9:
            continue
        put = round(to - start, 6)
        if put not in seen:
            seen.add(put)
            out.append((f"{word} {put:g}", "node"))
    if spot.flop_allin or any(to >= stack - 1e-9 for to in sizes):
        out.append(("allin", "node"))
    return out


def flop_lines(spot: Any, start: float) -> list[tuple[str, ...]]:
    """Every flop decision's line (root first, depth first)."""
    out: list[tuple[str, ...]] = []
    stack: list[tuple[str, ...]] = [()]
    while stack:
        line = stack.pop()
        out.append(line)
        for label, follows in reversed(flop_actions(spot, start, line)):
            if follows == "node":
                stack.append(line + (label,))
    return out


def flop_terminal_keys(spot: Any, start: float) -> list[tuple[Any, ...]]:
    """``("fold", folder, c0, c1)`` or ``("showdown", c0, c1)`` of every flop terminal."""
    keys: list[tuple[Any, ...]] = []
    for line in flop_lines(spot, start):
        for label, follows in flop_actions(spot, start, line):
            if follows == "node":
                continue
            c0, c1 = flop_contributions(spot, start, line + (label,))
            if follows == "fold":
                keys.append(("fold", 1 - len(line) % 2, c0, c1))
            else:
                keys.append(("showdown", c0, c1))
    return keys


# ---------------------------------------------------------------------------------------------
# Flop equity
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FlopEquity:
    """Wins and ties of combo ``i`` against ``j`` over the 990 (turn, river) runouts of one
    flop (0 where the pair shares a card or holds a flop card)."""

    cards: tuple[int, int, int]
    wins: np.ndarray
    ties: np.ndarray

    @property
    def live(self) -> np.ndarray:
        """``[1326, 1326]`` bool: the pairs that share no card with each other nor the flop."""
        return (self.wins + self.wins.T + self.ties) > 0

    @property
    def equity(self) -> np.ndarray:
        """``[1326, 1326]`` float64: combo ``i``'s share of the pot against ``j``."""
        return (self.wins + 0.5 * self.ties) / RUNOUTS_PER_PAIR


def canonical_flop(cards: Sequence[int]) -> tuple[tuple[int, int, int], np.ndarray]:
    """The flop's suit-canonical form (the smallest sorted cards over the 24 suit
    permutations) and the permutation (``[4]``, suit -> suit) taking the flop to it."""
    best: tuple[int, ...] | None = None
    chosen = SUIT_PERMUTATIONS[0]
    for perm in SUIT_PERMUTATIONS:
        image = tuple(sorted(int((c & ~3) | perm[c & 3]) for c in cards))
        if best is None or image < best:
            best, chosen = image, perm
    assert best is not None
    return (best[0], best[1], best[2]), chosen


def _turn_river_boards(cards: Sequence[int]) -> np.ndarray:
    rest = [c for c in range(52) if c not in cards]
    boards = [(*cards, a, b) for k, a in enumerate(rest) for b in rest[k + 1:]]
    return np.array(boards, dtype=np.int64)


def build_flop_equity(cards: Sequence[int], progress: bool = False) -> FlopEquity:
    """Count one flop's wins and ties from scratch (about a second of one core)."""
    from tqdm import tqdm

    flop = tuple(sorted(int(c) for c in cards))
    boards = _turn_river_boards(flop)
    packed = np.zeros((NUM_COMBOS, NUM_COMBOS), dtype=np.int64)
    step = 64
    with tqdm(total=len(boards), disable=not progress, desc=f"flop {flop_name(flop)}",
              unit="board") as bar:
        for first in range(0, len(boards), step):
            _accumulate(boards[first:first + step], COMBOS, packed)
            bar.update(min(step, len(boards) - first))
    free = ~np.isin(COMBOS, flop).any(axis=1)
    cards_of = np.zeros((NUM_COMBOS, 52), dtype=np.int64)
    cards_of[np.arange(NUM_COMBOS), COMBOS[:, 0]] = 1
    cards_of[np.arange(NUM_COMBOS), COMBOS[:, 1]] = 1
    live = ((cards_of @ cards_of.T) == 0) & np.outer(free, free)
    upper = np.triu(live, 1)
    win = np.where(upper, packed >> 32, 0)
    tie = np.where(upper, packed & 0xFFFFFFFF, 0)
    lose = np.where(upper, RUNOUTS_PER_PAIR - win - tie, 0)
    wins = win + lose.T
    ties = tie + tie.T
    return FlopEquity((flop[0], flop[1], flop[2]), wins.astype(np.int32), ties.astype(np.int32))


def _permuted(table: FlopEquity, perm: np.ndarray, cards: tuple[int, int, int]) -> FlopEquity:
    """The table of the flop ``perm`` takes to ``table``'s (pair ``(i, j)`` there is pair
    ``(perm i, perm j)`` of ``table``)."""
    image = _COMBO_INDEX[(COMBOS[:, 0] & ~3) | perm[COMBOS[:, 0] & 3],
                         (COMBOS[:, 1] & ~3) | perm[COMBOS[:, 1] & 3]]
    grid = np.ix_(image, image)
    return FlopEquity(cards, np.ascontiguousarray(table.wins[grid]),
                      np.ascontiguousarray(table.ties[grid]))


def flop_cache_path(cards: Sequence[int]) -> Path:
    """Where a flop's table is kept: beside the preflop table, by the canonical flop."""
    canonical, _ = canonical_flop(cards)
    name = "".join(CARD_STRINGS[c] for c in canonical)
    return cache_path().parent / f"flop_v{FLOP_TABLE_VERSION}_{name}.npz"


def _check_flop_table(wins: np.ndarray, ties: np.ndarray, cards: tuple[int, int, int],
                      source: Path) -> FlopEquity:
    ok = (wins.shape == ties.shape == (NUM_COMBOS, NUM_COMBOS)
          and wins.dtype == ties.dtype == np.int32)
    if ok:
        free = ~np.isin(COMBOS, cards).any(axis=1)
        cards_of = np.zeros((NUM_COMBOS, 52), dtype=np.int64)
        cards_of[np.arange(NUM_COMBOS), COMBOS[:, 0]] = 1
        cards_of[np.arange(NUM_COMBOS), COMBOS[:, 1]] = 1
        live = ((cards_of @ cards_of.T) == 0) & np.outer(free, free)
        total = wins.astype(np.int64) + wins.T + ties
        ok = (bool((wins >= 0).all() and (ties >= 0).all() and (ties == ties.T).all())
              and bool((total[live] == RUNOUTS_PER_PAIR).all())
              and bool((total[~live] == 0).all()))
    if not ok:
        raise ConfigError(f"{source} is not a flop equity table (delete it to rebuild)")
    return FlopEquity(cards, wins, ties)


def flop_equity(flop: str | Sequence[int], progress: bool = False,
                folder: Path | None = None) -> FlopEquity:
    """One flop's exact equity table: its suit-canonical flop's table read from the cache
    (checked) or built and cached (atomically), then permuted to this flop's suits."""
    from pokerzoo.atomic import write_atomically

    cards = parse_flop(flop) if isinstance(flop, str) else tuple(int(c) for c in flop)
    if len(cards) != 3 or len(set(cards)) != 3 or not all(0 <= c < 52 for c in cards):
        raise ConfigError(f"a flop is {FLOP_FORMS}, got cards {list(cards)}")
    canonical, perm = canonical_flop(cards)
    path = flop_cache_path(cards)
    if folder is not None:
        path = Path(folder) / path.name
    if path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                if set(data.files) != {"wins", "ties", "version", "flop"}:
                    raise ValueError("unexpected arrays")
                if (int(data["version"]) != FLOP_TABLE_VERSION
                        or tuple(int(c) for c in data["flop"]) != canonical):
                    raise ValueError("another version or flop")
                table = _check_flop_table(data["wins"], data["ties"], canonical, path)
        except (OSError, ValueError, KeyError) as exc:
            raise ConfigError(f"{path} is not a readable flop equity table ({exc}); delete it "
                              "to rebuild") from None
    else:
        table = build_flop_equity(canonical, progress)
        import io

        buffer = io.BytesIO()
        np.savez_compressed(buffer, wins=table.wins, ties=table.ties,
                            version=np.array(FLOP_TABLE_VERSION),
                            flop=np.array(canonical, dtype=np.int64))
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, buffer.getvalue(), what="flop equity table")
    ordered = tuple(sorted(cards, reverse=True))
    return _permuted(table, perm, (ordered[0], ordered[1], ordered[2]))


# ---------------------------------------------------------------------------------------------
# Probabilities and payoffs
# ---------------------------------------------------------------------------------------------


def _unblocked(cards: Sequence[int], live: np.ndarray) -> np.ndarray:
    free = ~np.isin(COMBOS, list(cards)).any(axis=1)
    return live & np.outer(free, free)


def _coverage(spot: Any, live: np.ndarray) -> np.ndarray:
    """``[1326, 1326]``: ``sum_g w_g [pair unblocked by g]``."""
    weights = flop_weights(spot)
    total = np.zeros((NUM_COMBOS, NUM_COMBOS))
    for weight, name in zip(weights, spot.flops):
        total += weight * _unblocked(parse_flop(name), live)
    return total


def flop_factors(spot: Any, live: np.ndarray, index: int,
                 coverage: np.ndarray | None = None) -> np.ndarray:
    """``[1326, 1326]``: ``[pair unblocked by flop index] / sum_g w_g [unblocked by g]``, the
    factor folded into flop ``index``'s payoffs (its chance edge carries ``w_f``), so that a
    pair sees flop ``f`` with probability ``w_f * factor``; 0 where every flop is blocked."""
    coverage = _coverage(spot, live) if coverage is None else coverage
    unblocked = _unblocked(parse_flop(spot.flops[index]), live)
    return np.divide(unblocked, coverage, out=np.zeros_like(coverage),
                     where=unblocked & (coverage > 0))


def pair_flop_probabilities(spot: Any, live: np.ndarray) -> np.ndarray:
    """``[F, 1326, 1326]``: each pair's probability of each declared flop (small F: tests)."""
    coverage = _coverage(spot, live)
    weights = flop_weights(spot)
    return np.stack([weights[f] * flop_factors(spot, live, f, coverage)
                     for f in range(len(spot.flops))])


def uncovered_pairs(spot: Any, live: np.ndarray) -> int:
    """How many live pairs every declared flop blocks (they see no flop)."""
    return int((live & (_coverage(spot, live) == 0)).sum())


def flop_bases(spot: Any, live: np.ndarray, tables: Sequence[FlopEquity],
               out: np.ndarray) -> None:
    """Write each flop's two base matrices into ``out[2 f]`` (folds: the factor; a fold for
    ``c`` chips scales it by +-c) and ``out[2 f + 1]`` (showdowns: the factor times the share
    less one half; scaled by the pot)."""
    coverage = _coverage(spot, live)
    for f, table in enumerate(tables):
        factor = flop_factors(spot, live, f, coverage)
        out[2 * f] = factor
        np.multiply(factor, table.equity - 0.5, out=out[2 * f + 1])
        out[2 * f + 1][factor == 0] = 0.0


def estimated_flop_nodes(spot: Any, flop_leaves: Sequence[float],
                         limit: int = 2_000_000) -> tuple[int, int]:
    """``(nodes, storage entries)`` the flop subtrees add below leaves of these
    contributions (counted from the rules before anything is allocated; the count stops
    soon after ``nodes`` passes ``limit``)."""
    from collections import Counter

    nodes = entries = 0
    for start, leaves in Counter(flop_leaves).items():
        per_flop = len(spot.flops) * leaves
        pending: list[tuple[str, ...]] = [()]
        while pending and nodes <= limit:
            line = pending.pop()
            actions = flop_actions(spot, start, line)
            nodes += per_flop * len(actions)
            entries += per_flop * len(actions) * NUM_COMBOS
            pending += [line + (label,) for label, then in actions if then == "node"]
        nodes += per_flop
    return nodes, entries


__all__ = [
    "FLOP_TABLE_VERSION", "FlopEquity", "MAX_FLOPS", "RUNOUTS_PER_PAIR", "build_flop_equity",
    "canonical_flop", "checked_flop_fields", "estimated_flop_nodes", "flop_actions",
    "flop_bases", "flop_cache_path", "flop_contributions", "flop_equity", "flop_factors",
    "flop_lines", "flop_name", "flop_terminal_keys", "flop_weights", "listed",
    "pair_flop_probabilities", "parse_flop", "uncovered_pairs",
]
