"""Bet-size strings and the betting of one street (postflop-solver's grammar and rules)."""

from __future__ import annotations

import math

import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.public.spots.bet_sizes import (
    BetSize,
    Betting,
    StreetSizes,
    TreeOptions,
    parse_size,
    parse_sizes,
    street_sequences,
)


@pytest.mark.parametrize(
    ("text", "size"),
    [("0%", BetSize("pot", 0.0)), ("75%", BetSize("pot", 0.75)),
     ("112.5%", BetSize("pot", 1.125)), ("1.001x", BetSize("prev", 1.001)),
     ("3.5X", BetSize("prev", 3.5)), ("123C", BetSize("add", 123.0)),
     ("0c1r", BetSize("add", 0.0, 1)), ("e", BetSize("geom", math.inf)),
     ("2e", BetSize("geom", math.inf, 2)), ("E37.5%", BetSize("geom", 0.375)),
     ("a", BetSize("allin"))],
)
def test_parse(text: str, size: BetSize) -> None:
    assert parse_size(text, is_raise=True) == size
    assert parse_size(str(size), is_raise=True) == size


@pytest.mark.parametrize(
    "text",
    ["", "0", "1.23", "%", "+42%", "-30%", "x", "0x", "1x", "c", "12.3c", "10c10", "42cr", "c3r",
     "0c0r", "123c101r", "0e", "2.7e", "101e", "3e7", "E%", "1e2e3", "bet", "1a", "a1"],
)
def test_bad_sizes(text: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_size(text, is_raise=True)
    assert "\n" not in str(err.value)


def test_bet_only_forms() -> None:
    with pytest.raises(ConfigError, match="raises only"):
        parse_size("2.5x", is_raise=False)
    assert parse_sizes("70%, 30%, a,", False) == (
        BetSize("allin"), BetSize("pot", 0.3), BetSize("pot", 0.7))


def _labels(state: Betting, opts: TreeOptions | None = None) -> list[str]:
    return [a.label for a in state.actions(opts or TreeOptions())]


def test_pio_flop_sequences() -> None:
    sizes = StreetSizes.parse("52%", "45%")
    start = Betting.start(pot=180, stack=910, street=0, sizes=sizes)
    assert _labels(start) == ["check", "bet 94"]
    seqs = street_sequences(start, TreeOptions())
    lines = [" ".join(a.label for a in line) for line, _ in seqs]
    assert "bet 94 raise 260 raise 575 allin 910 call" in lines
    assert len(lines) == 17
    end = dict(zip(lines, (s for _, s in seqs)))
    assert end["bet 94 raise 260 raise 575 allin 910 call"].all_in()
    assert end["check bet 94 call"].contrib == (94, 94)
    assert end["bet 94 fold"].closed == "fold"


def test_options() -> None:
    sizes = StreetSizes.parse("50%, 60%, e", "2.5x")
    s = Betting.start(pot=100, stack=1000, street=2, sizes=sizes)
    # river geometric: all-in in one street = 1000; merging keeps it apart from 50% / 60%
    assert _labels(s) == ["check", "bet 50", "bet 60", "allin 1000"]
    merged = _labels(s, TreeOptions(merging_threshold=0.1))
    assert merged == ["check", "bet 60", "allin 1000"]  # 50% is within 10% of 60%
    s = Betting.start(pot=100, stack=120, street=2, sizes=StreetSizes.parse("100%"))
    assert _labels(s, TreeOptions(force_allin_threshold=0.15)) == ["check", "allin 120"]
    assert _labels(s, TreeOptions(add_allin_threshold=1.5)) == ["check", "bet 100", "allin 120"]
    bet = s.after(s.actions(TreeOptions())[1])
    assert _labels(bet) == ["fold", "call"]  # no raise sizes given
    capped = Betting.start(pot=100, stack=10_000, street=0, sizes=StreetSizes.parse("50%", "50%"))
    seqs = street_sequences(capped, TreeOptions(raise_cap=2))
    assert max(sum(a.kind in ("bet", "raise") for a in line) for line, _ in seqs) == 2


def test_donk_and_geometric() -> None:
    sizes = StreetSizes.parse("50%", "e")
    s = Betting.start(pot=100, stack=1000, street=1, sizes=sizes,
                      donk=parse_sizes("25%", False), oop_called=True)
    assert _labels(s) == ["check", "bet 25"]
    s = Betting.start(pot=100, stack=1000, street=1, sizes=sizes)
    bet = s.after(s.actions(TreeOptions())[1])
    # geometric over max(2 streets - 1 bet + 1, 1) = 2: pot after call 200, 950 behind,
    # ratio ((2 * 4.75 + 1) ** 0.5 - 1) / 2 = 1.120 -> 50 + 224
    assert _labels(bet) == ["fold", "call", "raise 274"]


def test_bad_options() -> None:
    with pytest.raises(ConfigError):
        TreeOptions(merging_threshold=-1)
    with pytest.raises(ConfigError):
        TreeOptions(raise_cap=0)


def test_exact_halves_round_away_from_zero() -> None:
    # 0.35 * 170 is 59.49999999999999 in float64; the size as written is exactly 59.5.
    bet = Betting.start(pot=170, stack=1000, street=0, sizes=StreetSizes.parse("35%", "2.5x"))
    assert _labels(bet) == ["check", "bet 60"]
    faced = bet.after(bet.actions(TreeOptions())[1])
    assert _labels(faced) == ["fold", "call", "raise 150"]  # 2.5 x 60, exact
    assert BetSize("pot", 0.35).times(170) == 60  # built from the float: its shortest decimal
    assert parse_size("1.15x", is_raise=True).times(50) == 58  # 57.5; float64: 57.49999999999999
