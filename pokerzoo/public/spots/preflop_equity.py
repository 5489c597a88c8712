"""Exact all-in equities of every pair of hole-card combos, over all 1,712,304 boards.

``equity_table()`` returns the wins and ties of each of the 1,326 combos against each other one
(card removal exact: a pair sharing a card has none), counted over every five-card board of the
48 cards left, with no sampling. It is built once by compiled code and cached on disk as a
plain ``.npz`` (no pickle; read back with ``allow_pickle=False`` and checked), in
``$POKERZOO_CACHE/preflop`` or ``~/.cache/pokerzoo/preflop``.

How it is counted, and why it is fast enough:

* **Suit isomorphism over boards.** The 2,598,960 boards fall into 134,459 classes under the
  24 permutations of the suits. Each canonical board ``B'`` is evaluated once: the 7-card
  strength of every combo live on it, then
  every pair of live combos compared, the comparison weighted by ``B'``'s class size and added
  to an upper-triangular table ``A``
  (``pokerzoo.games.holdem.arrays.hand_value``, the batched rules' evaluator, checked against
  phevaluator). The true count is the average of ``A`` over the suit
  permutations of the *pair*: ``sum_B C_B[i, j] = (1/24) sum_s A[s(i), s(j)]`` (each board of a
  class is ``s(B')`` for ``24 / |class|`` permutations ``s``), an exact integer identity.
* **Sorted sweeps would not help here**: unlike a range-against-range showdown (what the public
  engine sweeps), the table keeps every pair apart, so each board costs one compare per pair;
  the isomorphism is what brings it down from 2.6 million boards to 134 thousand.
* The number of boards each pair's ``A`` counted comes from a matrix product of the live-combo
  indicators (exact in float64), so wins and ties are packed into one 64-bit add per pair and
  losses follow.

>>> table = equity_table(progress=False)                   # doctest: +SKIP
>>> round(class_equity(table, "AA", "KK"), 4)               # doctest: +SKIP
0.8195
"""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.holdem.arrays import hand_value

NUM_COMBOS = 1326
BOARDS_PER_MATCHUP = 1_712_304
"""Five-card boards of the 48 cards two disjoint combos leave: C(48, 5)."""
COMBOS = np.array([(a, b) for a in range(52) for b in range(a + 1, 52)], dtype=np.int64)
"""``COMBOS[k] = (low card, high card)``, cards ``4 * rank + suit`` (``2c`` = 0, ``As`` = 51)."""
SUIT_PERMUTATIONS = np.array(list(itertools.permutations(range(4))), dtype=np.int64)
TABLE_VERSION = 1
NUM_BOARD_CLASSES = 134_459
"""Five-card boards up to suit permutation (checked when they are enumerated)."""
RANK_NAMES = "23456789TJQKA"

_COMBO_INDEX = np.full((52, 52), -1, dtype=np.int64)
_COMBO_INDEX[COMBOS[:, 0], COMBOS[:, 1]] = np.arange(NUM_COMBOS)
_COMBO_INDEX[COMBOS[:, 1], COMBOS[:, 0]] = np.arange(NUM_COMBOS)


# ---------------------------------------------------------------------------------------------
# Canonical boards
# ---------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def canonical_boards(perms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The boards that are the smallest of their class under the suit permutations, and each
    class's size (``[k, 5]`` sorted cards, ``[k]``)."""
    boards = np.empty((NUM_BOARD_CLASSES, 5), dtype=np.int64)
    sizes = np.empty(NUM_BOARD_CLASSES, dtype=np.int64)
    k = 0
    mapped = np.empty(5, dtype=np.int64)
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                for d in range(c + 1, 52):
                    for e in range(d + 1, 52):
                        board = (a, b, c, d, e)
                        smallest = True
                        fixed = 0
                        for p in range(perms.shape[0]):
                            for i in range(5):
                                card = board[i]
                                mapped[i] = (card & ~3) | perms[p, card & 3]
                            mapped.sort()
                            order = 0
                            for i in range(5):
                                if mapped[i] != board[i]:
                                    order = -1 if mapped[i] < board[i] else 1
                                    break
                            if order < 0:
                                smallest = False
                                break
                            if order == 0:
                                fixed += 1
                        if smallest:
                            if k == NUM_BOARD_CLASSES:
                                raise ValueError("more board classes than expected")
                            for i in range(5):
                                boards[k, i] = board[i]
                            sizes[k] = perms.shape[0] // fixed
                            k += 1
    return boards[:k], sizes[:k]


# ---------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------


BOARD_BLOCK = 16
WIN_UNIT = np.int64(1) << 32
"""Boards compared together: each pass over the table adds 16 boards' comparisons, so the
table (14 MB) streams through memory once per 16 boards instead of once per board."""


@numba.njit(cache=True, nogil=True)
def _accumulate(boards, combos, packed):
    """Add every board's pairwise comparisons into ``packed[i, j]`` (``i < j``): wins of
    ``i`` in the high 32 bits, ties in the low (unweighted: the caller passes boards of one
    class size at a time and weights the sum, which keeps the inner loop to bit operations)."""
    n = combos.shape[0]
    block = BOARD_BLOCK
    values = np.empty((block, n), dtype=np.int64)
    live = np.zeros((block, n), dtype=np.int64)  # -1 (all bits) where the combo is live
    seven = np.empty(7, dtype=np.int64)
    scratch = np.zeros(13, dtype=np.int64)
    for first in range(0, boards.shape[0], block):
        live[:] = 0
        values[:] = -1
        for k in range(min(block, boards.shape[0] - first)):
            board = boards[first + k]
            used = np.int64(0)
            for m in range(5):
                used |= np.int64(1) << board[m]
                seven[m] = board[m]
            for i in range(n):
                a, b = combos[i, 0], combos[i, 1]
                if (used >> a) & 1 or (used >> b) & 1:
                    continue
                live[k, i] = -1
                seven[5] = a
                seven[6] = b
                values[k, i] = hand_value(seven, scratch)
        for i in range(n):
            row = packed[i]
            for k in range(block):
                vi = values[k, i]
                li = live[k, i]
                if li == 0:
                    continue
                vk = values[k]
                lk = live[k]
                for j in range(i + 1, n):  # contiguous, sign-bit arithmetic: it vectorises
                    below = vk[j] - vi  # < 0 where combo i wins
                    differ = (below | -below) >> 63  # -1 unless they tie
                    row[j] += lk[j] & (((below >> 63) & WIN_UNIT) | (~differ & 1))


@numba.njit(cache=True)
def _symmetrize(packed, counted, perms, combo_index, combos, wins, ties):
    """Average the canonical boards' table over the suit permutations of each pair."""
    n = combos.shape[0]
    for p in range(perms.shape[0]):
        image = np.empty(n, dtype=np.int64)
        for i in range(n):
            a, b = combos[i, 0], combos[i, 1]
            image[i] = combo_index[(a & ~3) | perms[p, a & 3], (b & ~3) | perms[p, b & 3]]
        for i in range(n):
            for j in range(i + 1, n):
                x, y = image[i], image[j]
                if x < y:
                    cell = packed[x, y]
                    win, tie = cell >> 32, cell & 0xFFFFFFFF
                    lose = counted[x, y] - win - tie
                else:
                    cell = packed[y, x]
                    lose, tie = cell >> 32, cell & 0xFFFFFFFF
                    win = counted[y, x] - lose - tie
                wins[i, j] += win
                wins[j, i] += lose
                ties[i, j] += tie
                ties[j, i] += tie


@dataclass(frozen=True)
class EquityTable:
    """Wins and ties of combo ``i`` against combo ``j`` over all boards (0 where they share a
    card); ``equity[i, j] = (wins + ties / 2) / 1,712,304``."""

    wins: np.ndarray
    ties: np.ndarray

    @property
    def equity(self) -> np.ndarray:
        """``[1326, 1326]`` float64: combo ``i``'s all-in equity against ``j`` (0 if blocked)."""
        return (self.wins + 0.5 * self.ties) / BOARDS_PER_MATCHUP

    def of(self, hand: str, other: str) -> tuple[int, int, int]:
        """``(wins, ties, losses)`` of one combo against another, e.g. ``("AsKs", "QhQd")``."""
        i, j = combo_of(hand), combo_of(other)
        if set(COMBOS[i]) & set(COMBOS[j]):
            raise ConfigError(f"{hand} and {other} share a card")
        w, t = int(self.wins[i, j]), int(self.ties[i, j])
        return w, t, BOARDS_PER_MATCHUP - w - t


def combo_of(text: str) -> int:
    """The index in ``COMBOS`` of a two-card string such as ``"AsKd"``."""
    from pokerzoo.games.holdem.cards import cards_from_string

    try:
        cards = cards_from_string(text)
    except ConfigError:
        cards = []
    if len(cards) != 2 or cards[0] == cards[1]:
        raise ConfigError(f"a combo is two different cards such as AsKd, got {text!r}")
    return int(_COMBO_INDEX[cards[0], cards[1]])


def class_combos(name: str) -> np.ndarray:
    """The combo indices of a hand class: ``"AA"`` (6), ``"AKs"`` (4), ``"AKo"`` (12)."""
    bad = ConfigError(f"a hand class is like AA, AKs or AKo (ranks {RANK_NAMES}), got {name!r}")
    if not isinstance(name, str) or len(name) not in (2, 3):
        raise bad
    hi, lo = RANK_NAMES.find(name[0]), RANK_NAMES.find(name[1])
    kind = name[2:] or ("p" if hi == lo else "")
    if hi < 0 or lo < 0 or (hi == lo) != (kind == "p") or (hi != lo and kind not in "so") \
            or (hi != lo and not kind) or hi < lo:
        raise bad
    out = []
    for k, (a, b) in enumerate(COMBOS):
        ra, rb = sorted((int(a) >> 2, int(b) >> 2), reverse=True)
        suited = (a & 3) == (b & 3)
        if (ra, rb) == (hi, lo) and (kind == "p" or suited == (kind == "s")):
            out.append(k)
    return np.array(out, dtype=np.int64)


def class_equity(table: EquityTable, hand: str, other: str) -> float:
    """The all-in equity of class ``hand`` against class ``other``, every unblocked pair of
    their combos equally likely (e.g. ``AA`` vs ``KK`` 0.8195)."""
    a, b = class_combos(hand), class_combos(other)
    wins = table.wins[np.ix_(a, b)].astype(np.float64)
    ties = table.ties[np.ix_(a, b)].astype(np.float64)
    live = ~np.array([[bool(set(COMBOS[i]) & set(COMBOS[j])) for j in b] for i in a])
    return float(((wins + 0.5 * ties) * live).sum() / (live.sum() * BOARDS_PER_MATCHUP))


def cache_path() -> Path:
    """Where the table is kept: ``$POKERZOO_CACHE/preflop`` or ``~/.cache/pokerzoo/preflop``."""
    root = os.environ.get("POKERZOO_CACHE")
    folder = (Path(root) if root else Path.home() / ".cache" / "pokerzoo") / "preflop"
    return folder / f"equity_v{TABLE_VERSION}.npz"


def build_equity_table(progress: bool = True, threads: int | None = None,
                       chunks: int = 400) -> EquityTable:
    """Count the table from scratch (about two minutes of one core, split over ``threads``,
    default every core; shows progress)."""
    from concurrent.futures import ThreadPoolExecutor

    from tqdm import tqdm

    threads = os.cpu_count() or 1 if threads is None else int(threads)
    if threads < 1:
        raise ConfigError(f"threads must be at least 1, got {threads}")
    boards, sizes = canonical_boards(SUIT_PERMUTATIONS)
    packed = np.zeros((NUM_COMBOS, NUM_COMBOS), dtype=np.int64)
    bar = tqdm(total=len(boards), disable=not progress, desc="preflop equities",
               unit="board")
    for size in np.unique(sizes):
        group = boards[sizes == size]
        # One table per thread (the kernel releases the GIL), each fed chunks of the group.
        tables = [np.zeros_like(packed) for _ in range(threads)]
        parts = np.array_split(np.arange(len(group)), max(threads, len(group) * chunks
                                                          // len(boards)))

        def work(t: int, group: np.ndarray = group, parts: list = parts,
                 tables: list = tables) -> None:
            for part in parts[t::threads]:
                _accumulate(group[part], COMBOS, tables[t])
                bar.update(len(part))

        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(work, range(threads)))
        for table in tables:
            packed += int(size) * table  # each 32-bit field scales alone: sums stay < 2**31
    bar.close()
    if len(boards) != NUM_BOARD_CLASSES or sizes.sum() != 2_598_960:
        raise RuntimeError(f"{len(boards)} board classes covering {sizes.sum()} boards")
    counted = _counted_boards(boards, sizes)
    wins = np.zeros((NUM_COMBOS, NUM_COMBOS), dtype=np.int64)
    ties = np.zeros((NUM_COMBOS, NUM_COMBOS), dtype=np.int64)
    _symmetrize(packed, counted, SUIT_PERMUTATIONS, _COMBO_INDEX, COMBOS, wins, ties)
    blocked = _blocked()
    if (wins % 24).any() or (ties % 24).any():
        raise RuntimeError("the suit average is not an integer: the board classes are wrong")
    wins, ties = wins // 24, ties // 24
    wins[blocked] = 0
    ties[blocked] = 0
    return EquityTable(wins.astype(np.int32), ties.astype(np.int32))


def _counted_boards(boards: np.ndarray, sizes: np.ndarray, chunk: int = 8192) -> np.ndarray:
    """``[1326, 1326]``: the class-weighted number of canonical boards on which both combos
    are live (what the packed table counted for the pair): a product of live indicators,
    exact in float64."""
    holds = np.zeros((52, NUM_COMBOS), dtype=bool)
    holds[COMBOS[:, 0], np.arange(NUM_COMBOS)] = True
    holds[COMBOS[:, 1], np.arange(NUM_COMBOS)] = True
    counted = np.zeros((NUM_COMBOS, NUM_COMBOS))
    for start in range(0, len(boards), chunk):
        part = boards[start:start + chunk]
        dead = holds[part].any(axis=1)  # [chunk, 1326]: a combo holding a board card
        live = (~dead).astype(np.float64)
        counted += (live * sizes[start:start + chunk, None]).T @ live
    return np.rint(counted).astype(np.int64)


def _blocked() -> np.ndarray:
    cards = np.zeros((NUM_COMBOS, 52), dtype=bool)
    cards[np.arange(NUM_COMBOS), COMBOS[:, 0]] = True
    cards[np.arange(NUM_COMBOS), COMBOS[:, 1]] = True
    return (cards.astype(np.int64) @ cards.T.astype(np.int64)) > 0


def _check(wins: np.ndarray, ties: np.ndarray, source: Path) -> EquityTable:
    """A table read from disk, checked before use: shapes, types, ranges and the identities
    every exact table satisfies."""
    ok = (wins.shape == ties.shape == (NUM_COMBOS, NUM_COMBOS)
          and wins.dtype == ties.dtype == np.int32)
    if ok:
        blocked = _blocked()
        total = wins.astype(np.int64) + wins.T + ties
        ok = (bool((wins >= 0).all() and (ties >= 0).all())
              and bool((wins[blocked] == 0).all() and (ties[blocked] == 0).all())
              and bool((total[~blocked] == BOARDS_PER_MATCHUP).all())
              and bool((ties == ties.T).all()))
    if not ok:
        raise ConfigError(f"{source} is not a preflop equity table (delete it to rebuild)")
    return EquityTable(wins, ties)


def equity_table(progress: bool = True, path: Path | None = None) -> EquityTable:
    """The exact table: read from the cache (checked) or built and cached (atomically)."""
    from pokerzoo.atomic import write_atomically

    path = cache_path() if path is None else Path(path)
    if path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                if set(data.files) != {"wins", "ties", "version"}:
                    raise ValueError("unexpected arrays")
                if int(data["version"]) != TABLE_VERSION:
                    raise ValueError("another version")
                return _check(data["wins"], data["ties"], path)
        except (OSError, ValueError, KeyError) as exc:
            raise ConfigError(f"{path} is not a readable preflop equity table ({exc}); "
                              "delete it to rebuild") from None
    started = time.perf_counter()
    table = build_equity_table(progress)
    import io

    buffer = io.BytesIO()
    np.savez_compressed(buffer, wins=table.wins, ties=table.ties,
                        version=np.array(TABLE_VERSION))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, buffer.getvalue(), what="preflop equity table")
    if progress:
        print(f"preflop equity table built in {time.perf_counter() - started:.0f} s: {path}")
    return table
