"""Hold'em ranges in PioSOLVER's syntax <-> weights over the 1,326 two-card combos.

A range is a comma-separated list of entries, each optionally followed by ``:weight`` (0..1,
default 1); a later entry overrides an earlier one for the combos they share:

* a pair ``"AA"``, ``"88+"`` (eights and better), ``"99-22"``;
* a suited or offsuit class ``"AKs"``, ``"ATo"``, both at once ``"AK"``; ``"A8s+"`` raises the
  lower card up to one below the higher (A8s..AKs); ``"A5s-A2s"`` spans the lower card with the
  higher fixed; ``"T9s-54s"`` spans both ranks together (connectors);
* one combo ``"AsKh"``.

Combos are indexed ``0..1325`` over card pairs ``(lo, hi)``, ``lo < hi``, in lexicographic
order, with card ids of :mod:`pokerzoo.games.holdem.cards` (``4 * rank + suit``).
:func:`format_range` prints weights back in a compact canonical form that parses to the same
weights; :func:`class_grid` aggregates per-combo values into the 13 x 13 chart (pairs on the
diagonal, suited above it, offsuit below, aces first).

>>> w = parse_range("AKs,QQ+:0.5")
>>> int((w > 0).sum()), format_range(w)
(22, 'QQ+:0.5,AKs')
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable

import numpy as np

from pokerzoo.errors import ConfigError, PokerzooWarning
from pokerzoo.games.holdem.cards import RANKS, card_to_string, cards_from_string

NUM_COMBOS = 1326
"""Number of two-card hold'em combos."""

ALLOWED = (
    "entries like 'AA', '88+', '99-22', 'AKs', 'ATo', 'AK', 'A8s+', 'A5s-A2s', 'T9s-54s', "
    "'AsKh', each optionally ':weight' with a weight in 0..1, separated by commas"
)


def _combo_table() -> tuple[np.ndarray, np.ndarray]:
    cards = np.array([(a, b) for a in range(52) for b in range(a + 1, 52)], dtype=np.int32)
    index = np.full((52, 52), -1, dtype=np.int32)
    index[cards[:, 0], cards[:, 1]] = np.arange(NUM_COMBOS, dtype=np.int32)
    index[cards[:, 1], cards[:, 0]] = np.arange(NUM_COMBOS, dtype=np.int32)
    return cards, index


COMBO_CARDS, COMBO_INDEX = _combo_table()
"""``COMBO_CARDS[i]`` the two card ids (low, high) of combo ``i``; ``COMBO_INDEX[a, b]`` the
combo of two different cards in either order (-1 on the diagonal)."""


def _class_of_combos() -> np.ndarray:
    hi_rank = COMBO_CARDS[:, 1] // 4
    lo_rank = COMBO_CARDS[:, 0] // 4
    suited = COMBO_CARDS[:, 0] % 4 == COMBO_CARDS[:, 1] % 4
    row_hi, row_lo = 12 - hi_rank, 12 - lo_rank  # aces in row/column 0
    # suited above the diagonal (row = higher rank), offsuit and pairs below or on it
    return np.where(suited, row_hi * 13 + row_lo, row_lo * 13 + row_hi).astype(np.int32)


COMBO_CLASS = _class_of_combos()
"""The 13 x 13 chart cell (``row * 13 + column``) of each combo: aces first; a pair on the
diagonal, a suited class above it (row of the higher rank), an offsuit class below it."""

CLASS_NAMES: tuple[str, ...] = tuple(
    RANKS[12 - r] * 2 if r == c
    else (RANKS[12 - min(r, c)] + RANKS[12 - max(r, c)] + ("s" if r < c else "o"))
    for r in range(13) for c in range(13)
)  # fmt: skip
"""The name of each chart cell, e.g. ``CLASS_NAMES[0] == "AA"``, ``CLASS_NAMES[1] == "AKs"``."""

_RANK_OF = {r: i for i, r in enumerate(RANKS)}
_CLASS_RE = re.compile(r"^([2-9TJQKA])([2-9TJQKA])([so]?)$")
_COMBO_RE = re.compile(r"^([2-9TJQKA][cdhs])([2-9TJQKA][cdhs])$")


def combo_index(a: int, b: int) -> int:
    """The combo index of two different card ids."""
    if not (0 <= a < 52 and 0 <= b < 52) or a == b:
        raise ConfigError(f"a combo needs two different cards in 0..51, got {a!r}, {b!r}")
    return int(COMBO_INDEX[a, b])


def combo_name(i: int) -> str:
    """``"AsKh"``-style name of combo ``i`` (higher card first)."""
    lo, hi = COMBO_CARDS[i]
    return card_to_string(int(hi)) + card_to_string(int(lo))


def class_combos(high: int, low: int, kind: str) -> list[int]:
    """Combos of one hand class: ranks 0..12 (2..A), ``kind`` ``"p"``, ``"s"``, ``"o"`` or
    ``""`` (suited and offsuit)."""
    out = []
    for s1 in range(4):
        for s2 in range(4):
            a, b = 4 * high + s1, 4 * low + s2
            if a == b or (high == low and s1 >= s2):
                continue
            if high != low and ((kind == "s" and s1 != s2) or (kind == "o" and s1 == s2)):
                continue
            out.append(int(COMBO_INDEX[a, b]))
    return out


def _norm(token: str) -> str:
    """Ranks upper case, suits and suffixes lower case (``"aks"`` -> ``"AKs"``)."""
    return "".join(ch.upper() if ch.upper() in RANKS else ch.lower() for ch in token)


def _classes(token: str) -> list[tuple[int, int, str]]:
    """The hand classes ``(high, low, kind)`` an entry without weight stands for."""
    if _COMBO_RE.match(token):
        return []
    plus = token.endswith("+")
    body = token[:-1] if plus else token
    parts = body.split("-")
    if len(parts) > 2 or (plus and len(parts) == 2):
        raise ConfigError(f"cannot parse range entry {token!r}; allowed: {ALLOWED}")
    parsed = []
    for part in parts:
        m = _CLASS_RE.match(part)
        if m is None:
            raise ConfigError(f"cannot parse range entry {token!r}; allowed: {ALLOWED}")
        hi, lo, kind = _RANK_OF[m[1]], _RANK_OF[m[2]], m[3]
        if hi < lo:
            hi, lo = lo, hi
        if hi == lo:
            if kind:
                raise ConfigError(f"a pair has no suited/offsuit form: {token!r}")
            kind = "p"
        parsed.append((hi, lo, kind))
    hi, lo, kind = parsed[0]
    if len(parsed) == 1:
        if not plus:
            return [(hi, lo, kind)]
        if kind == "p":
            return [(r, r, "p") for r in range(lo, 13)]
        return [(hi, k, kind) for k in range(lo, hi)]
    hi2, lo2, kind2 = parsed[1]
    if kind2 != kind:
        raise ConfigError(f"both ends of {token!r} must be of one kind (pair, s, o or both)")
    if kind == "p":
        a, b = sorted((hi, hi2))
        return [(r, r, "p") for r in range(a, b + 1)]
    if hi == hi2:
        a, b = sorted((lo, lo2))
        return [(hi, k, kind) for k in range(a, b + 1)]
    if hi - lo == hi2 - lo2:
        a, b = sorted((lo, lo2))
        return [(k + hi - lo, k, kind) for k in range(a, b + 1)]
    raise ConfigError(
        f"range {token!r} must keep the higher card fixed ('A5s-A2s') or the gap ('T9s-54s')"
    )


def parse_range(text: str, board: Iterable[int] = ()) -> np.ndarray:
    """Weights ``[1326]`` (float64) of a range string; combos touching ``board`` get weight 0.

    Raises :class:`ConfigError` for an entry it cannot parse, a weight outside 0..1, a single
    combo that overlaps the board, or a range with no combo left.
    """
    if not isinstance(text, str):
        raise ConfigError(f"a range must be a string, got {type(text).__name__}")
    board_cards = set(int(c) for c in board)
    weights = np.zeros(NUM_COMBOS, dtype=np.float64)
    entries = [e.strip() for e in text.split(",")]
    if not any(entries):
        raise ConfigError(f"empty range {text!r}; allowed: {ALLOWED}")
    seen = np.zeros(NUM_COMBOS, dtype=bool)
    repeated: list[str] = []
    for entry in entries:
        if not entry:
            raise ConfigError(f"empty entry in range {text!r} (a doubled or trailing comma)")
        token, _, weight_text = entry.partition(":")
        token = _norm(token.strip())
        weight = 1.0
        if weight_text:
            try:
                weight = float(weight_text)
            except ValueError:
                raise ConfigError(f"weight {weight_text!r} of {entry!r} is not a number") from None
            if not 0.0 <= weight <= 1.0:
                raise ConfigError(f"weight of {entry!r} must be in 0..1, got {weight!r}")
        if _COMBO_RE.match(token):
            a, b = cards_from_string(token)
            if a == b:
                raise ConfigError(f"combo {entry!r} repeats a card")
            if a in board_cards or b in board_cards:
                raise ConfigError(f"combo {entry!r} overlaps the board")
            combos = np.array([COMBO_INDEX[a, b]], dtype=np.int64)
        else:
            combos = np.array([c for hi, lo, kind in _classes(token)
                               for c in class_combos(hi, lo, "" if kind == "p" else kind)],
                              dtype=np.int64)
        again = combos[seen[combos]]
        if again.size:
            classes = dict.fromkeys(CLASS_NAMES[k] for k in COMBO_CLASS[again].tolist())
            repeated.append(f"{entry.strip()} ({', '.join(classes)})")
        seen[combos] = True
        weights[combos] = weight
    if repeated:
        warnings.warn(f"range {text!r} names combos twice: {'; '.join(repeated)} repeat "
                      "earlier entries; the last weight given is used", PokerzooWarning,
                      stacklevel=2)
    if board_cards:
        weights[blocked_by(board_cards)] = 0.0
    if not weights.any():
        raise ConfigError(f"range {text!r} holds no combo (with weight > 0) off the board")
    return weights


def blocked_by(cards: Iterable[int]) -> np.ndarray:
    """Boolean mask ``[1326]`` of the combos holding any of ``cards``."""
    mask = np.zeros(52, dtype=bool)
    mask[[int(c) for c in cards]] = True
    return mask[COMBO_CARDS[:, 0]] | mask[COMBO_CARDS[:, 1]]


def _weight_suffix(w: float) -> str:
    return "" if w == 1.0 else ":" + repr(float(w)).removesuffix(".0")


def _runs(ranks: list[int]) -> list[list[int]]:
    """Maximal runs of consecutive ranks (descending input)."""
    runs: list[list[int]] = []
    for r in ranks:
        if runs and runs[-1][-1] == r + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    return runs


def format_range(weights: np.ndarray, board: Iterable[int] = ()) -> str:
    """The canonical compact string of a weight vector ``[1326]``; it parses back to the same
    weights (with the same ``board``: combos touching it are left out of the comparison). Combos
    of equal weight in a class print as the class, runs of classes of one weight as ``"88+"``,
    ``"A5s-A2s"``, ``"A8s+"``, the rest as single combos."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (NUM_COMBOS,):
        raise ConfigError(f"weights must have shape (1326,), got {w.shape}")
    off_board = ~blocked_by(board)
    out: list[str] = []
    singles: list[str] = []

    def uniform(all_combos: list[int]) -> float | None:
        combos = [i for i in all_combos if off_board[i]]
        if not combos:
            return None
        vals = w[combos]
        if (vals == vals[0]).all():
            return float(vals[0])
        singles.extend(combo_name(i) + _weight_suffix(float(w[i])) for i in combos if w[i] > 0)
        return None

    pair_w = {r: uniform(class_combos(r, r, "")) for r in range(12, -1, -1)}
    _emit(out, [r for r in range(12, -1, -1)], pair_w, lambda r: RANKS[r] * 2, top=12)
    for kind in ("s", "o"):
        for hi in range(12, 0, -1):
            cls_w = {lo: uniform(class_combos(hi, lo, kind)) for lo in range(hi - 1, -1, -1)}
            _emit(out, list(range(hi - 1, -1, -1)), cls_w, _class_namer(hi, kind), top=hi - 1)
    return ",".join(out + singles)


def _class_namer(hi: int, kind: str) -> Callable[[int], str]:
    return lambda lo: RANKS[hi] + RANKS[lo] + kind


def _emit(
    out: list[str],
    ranks: list[int],
    weights: dict[int, float | None],
    name: Callable[[int], str],
    top: int,
) -> None:
    """Append runs of equal positive weight as ``X+`` (reaching ``top``), ``X-Y`` or ``X``."""
    groups: dict[float, list[int]] = {}
    for r in ranks:
        wr = weights[r]
        if wr is not None and wr > 0:
            groups.setdefault(wr, []).append(r)
    items = []
    for wr, rs in groups.items():
        for run in _runs(rs):
            items.append((run[0], run, wr))
    for _, run, wr in sorted(items, key=lambda t: -t[0]):
        if len(run) == 1:
            text = name(run[0])
        elif run[0] == top:
            text = name(run[-1]) + "+"
        else:
            text = name(run[0]) + "-" + name(run[-1])
        out.append(text + _weight_suffix(wr))


def class_grid(values: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """The 13 x 13 chart of per-combo ``values`` ``[1326]``: the ``weights``-weighted mean in
    each class (NaN where the weights sum to 0); without weights, the plain sum per class
    (e.g. the combo count of a range's weights)."""
    v = np.asarray(values, dtype=np.float64)
    if weights is None:
        return np.bincount(COMBO_CLASS, weights=v, minlength=169).reshape(13, 13)
    wt = np.asarray(weights, dtype=np.float64)
    num = np.bincount(COMBO_CLASS, weights=v * wt, minlength=169)
    den = np.bincount(COMBO_CLASS, weights=wt, minlength=169)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan).reshape(13, 13)


def range_combos(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The combos with positive weight: their cards ``[H, 2]`` (int32) and weights ``[H]``."""
    idx = np.flatnonzero(np.asarray(weights) > 0)
    return COMBO_CARDS[idx].copy(), np.asarray(weights, dtype=np.float64)[idx]


__all__ = [
    "ALLOWED", "CLASS_NAMES", "COMBO_CARDS", "COMBO_CLASS", "COMBO_INDEX", "NUM_COMBOS",
    "blocked_by", "class_combos", "class_grid", "combo_index", "combo_name", "format_range",
    "parse_range", "range_combos",
]  # fmt: skip
