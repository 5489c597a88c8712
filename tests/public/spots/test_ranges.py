"""PioSOLVER range strings: parsing, printing back, 13 x 13 classes and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from pokerzoo.errors import ConfigError, PokerzooWarning
from pokerzoo.games.holdem.cards import cards_from_string
from pokerzoo.public.spots.ranges import (
    CLASS_NAMES,
    COMBO_CARDS,
    COMBO_CLASS,
    NUM_COMBOS,
    class_grid,
    combo_index,
    format_range,
    parse_range,
)

OOP = ("88+,A8s+,A5s-A2s:0.5,AJo+,ATo:0.75,K9s+,KQo,KJo:0.75,KTo:0.25,Q9s+,QJo:0.5,J8s+,"
       "JTo:0.25,T8s+,T7s:0.45,97s+,96s:0.45,87s,86s:0.75,85s:0.45,75s+:0.75,74s:0.45,65s:0.75,"
       "64s:0.5,63s:0.45,54s:0.75,53s:0.5,52s:0.45,43s:0.5,42s:0.45,32s:0.45")
IP = ("AA:0.25,99-22,AJs-A2s,AQo-A8o,K2s+,K9o+,Q2s+,Q9o+,J6s+,J9o+,T6s+,T9o,96s+,95s:0.5,98o,"
      "86s+,85s:0.5,75s+,74s:0.5,64s+,63s:0.5,54s,53s:0.5,43s")


def _count(text: str) -> float:
    return float((parse_range(text) > 0).sum())


def test_combo_table() -> None:
    assert COMBO_CARDS.shape == (NUM_COMBOS, 2)
    assert len({tuple(c) for c in COMBO_CARDS.tolist()}) == NUM_COMBOS
    assert combo_index(51, 47) == combo_index(47, 51)
    assert np.bincount(COMBO_CLASS, minlength=169).sum() == NUM_COMBOS
    counts = np.bincount(COMBO_CLASS, minlength=169).reshape(13, 13)
    assert counts[0, 0] == 6 and counts[0, 1] == 4 and counts[1, 0] == 12
    assert CLASS_NAMES[0] == "AA" and CLASS_NAMES[1] == "AKs" and CLASS_NAMES[13] == "AKo"


@pytest.mark.parametrize(
    ("text", "combos"),
    [("AA", 6), ("88+", 42), ("99-22", 48), ("AKs", 4), ("AKo", 12), ("AK", 16), ("A8s+", 24),
     ("A5s-A2s", 16), ("AJo+", 36), ("K9s+", 16), ("T9s-54s", 24), ("AsKh", 1), ("22+", 78),
     ("ak s".replace(" ", ""), 4)],
)
def test_counts(text: str, combos: int) -> None:
    assert _count(text) == combos


def test_weights_and_override() -> None:
    with pytest.warns(PokerzooWarning, match=r"AA:0.25 \(AA\); AsAh \(AA\) repeat"):
        w = parse_range("AA,AA:0.25,AsAh")
    aa = w[[combo_index(a, b) for a in range(48, 52) for b in range(a + 1, 52)]]
    assert sorted(aa.tolist()) == [0.25] * 5 + [1.0]
    w = parse_range("A5s-A2s:0.5,ATo:0.75,T7s:0.45")
    assert set(np.unique(w).tolist()) == {0.0, 0.45, 0.5, 0.75}
    assert w.sum() == pytest.approx(16 * 0.5 + 12 * 0.75 + 4 * 0.45)


@pytest.mark.parametrize("text", [OOP, IP, "AsKh:0.3,KK", "T9s-54s:0.2,AK", "22+:0.125"])
@pytest.mark.parametrize("board", ["", "QsJh2h", "QsJh2hTd5c"])
def test_round_trip(text: str, board: str) -> None:
    cards = cards_from_string(board)
    w = parse_range(text, cards)
    printed = format_range(w, cards)
    assert np.array_equal(parse_range(printed, cards), w)
    assert format_range(parse_range(printed, cards), cards) == printed


def test_round_trip_random_weights() -> None:
    rng = np.random.default_rng(0)
    w = np.where(rng.random(NUM_COMBOS) < 0.3, rng.choice([0.25, 0.5, 1.0], NUM_COMBOS), 0.0)
    w[:10] = 1.0
    assert np.array_equal(parse_range(format_range(w)), w)


def test_canonical_form() -> None:
    assert format_range(parse_range("AA,KK,QQ,JJ")) == "JJ+"
    assert format_range(parse_range("A2s,A3s,A4s:1,A5s")) == "A5s-A2s"
    assert format_range(parse_range("KQs,KJs,KTs")) == "KTs+"


def test_board_removes_combos() -> None:
    board = cards_from_string("QsJh2h")
    w = parse_range("QQ", board)
    assert (w > 0).sum() == 3


def test_class_grid() -> None:
    w = parse_range("AA:0.5,AKs")
    grid = class_grid(w)
    assert grid[0, 0] == pytest.approx(3.0) and grid[0, 1] == 4.0 and grid[1, 0] == 0.0
    mean = class_grid(np.arange(NUM_COMBOS, dtype=float), w)
    assert np.isnan(mean[1, 0]) and np.isfinite(mean[0, 0])


@pytest.mark.parametrize(
    "text",
    ["", "AA,", "AX", "AKs-QJo", "AKx", "AA:1.5", "AA:x", "88+-22", "AA-KQs", "AKs-T8s",
     "QsQs", "QsJd"],
)
def test_errors(text: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_range(text, cards_from_string("QsJh2h"))
    assert "\n" not in str(err.value)


def test_empty_after_board() -> None:
    with pytest.raises(ConfigError, match="no combo"):
        parse_range("22", cards_from_string("2c2d2h"))


def test_duplicate_entries_warn_once_naming_them() -> None:
    with pytest.warns(PokerzooWarning) as record:
        weights = parse_range("AKs:0.5,AcKc,QQ+,KK")
    assert len(record) == 1
    assert str(record[0].message) == (
        "range 'AKs:0.5,AcKc,QQ+,KK' names combos twice: AcKc (AKs); KK (KK) repeat earlier "
        "entries; the last weight given is used")
    ac_kc = combo_index(*cards_from_string("AcKc"))
    assert weights[ac_kc] == 1.0  # the last weight given


def test_distinct_entries_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parse_range("AA,KK,AKs,AKo,T9s:0.5,AcQc")
