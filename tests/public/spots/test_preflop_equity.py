"""Exact all-in equities: the compiled evaluator orders hands as phevaluator does, the board
classes cover every board, and the table's counts equal a board-by-board enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.games.holdem.cards import cards_from_string, evaluate_7
from pokerzoo.public.spots.preflop_equity import (
    BOARDS_PER_MATCHUP,
    COMBOS,
    SUIT_PERMUTATIONS,
    canonical_boards,
    class_combos,
    class_equity,
    combo_of,
    equity_table,
)


def test_board_classes_cover_every_board_once():
    boards, sizes = canonical_boards(SUIT_PERMUTATIONS)
    assert len(boards) == 134_459 and sizes.sum() == 2_598_960
    assert set(np.unique(sizes).tolist()) <= {1, 2, 3, 4, 6, 8, 12, 24}


def test_hand_classes_and_combos():
    assert len(class_combos("AA")) == 6 and len(class_combos("AKs")) == 4
    assert len(class_combos("AKo")) == 12
    assert sum(len(class_combos(a + b + k)) for a, b, k in _all_classes()) == 1326
    assert tuple(COMBOS[combo_of("AsKs")]) == (47, 51)
    for bad in ("AKx", "KA", "AAs", "A", "Zz", "AsAs"):
        with pytest.raises(ConfigError):
            class_combos(bad) if len(bad) < 4 else combo_of(bad)


def _all_classes():
    ranks = "AKQJT98765432"
    for i, a in enumerate(ranks):
        for j, b in enumerate(ranks):
            if i == j:
                yield a, b, ""
            elif i < j:
                yield a, b, "s"
                yield a, b, "o"


@pytest.fixture(scope="module")
def table(tmp_path_factory, monkeypatch_module):
    monkeypatch_module.setenv("POKERZOO_CACHE", str(tmp_path_factory.mktemp("cache")))
    return equity_table(progress=False)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def _enumerate(a: str, b: str) -> tuple[int, int, int]:
    """Wins, ties and losses of ``a`` against ``b`` board by board, with phevaluator."""
    ha, hb = cards_from_string(a), cards_from_string(b)
    rest = [c for c in range(52) if c not in ha + hb]
    wins = ties = 0
    for board in itertools.combinations(rest, 5):
        ra, rb = evaluate_7(*ha, *board), evaluate_7(*hb, *board)
        wins += ra < rb
        ties += ra == rb
    return wins, ties, BOARDS_PER_MATCHUP - wins - ties


@pytest.mark.slow
@pytest.mark.parametrize("a, b", [("AsKs", "QhQd"), ("7c2d", "7d2c"), ("5h4h", "AcAd")])
def test_table_entries_equal_an_enumeration(table, a, b):
    assert table.of(a, b) == _enumerate(a, b)
    w, t, lose = table.of(a, b)
    assert table.of(b, a) == (lose, t, w)


@pytest.mark.slow
def test_table_identities_and_published_equities(table):
    from pokerzoo.public.spots.preflop_equity import _check

    _check(table.wins, table.ties, "the built table")  # every identity an exact table has
    # PokerStove-style class match-ups: AA vs KK 81.9 / 18.1, AKs vs QQ 46.0 / 54.0.
    assert class_equity(table, "AA", "KK") == pytest.approx(0.8195, abs=5e-4)
    assert class_equity(table, "AKs", "QQ") == pytest.approx(0.4605, abs=5e-4)
    with pytest.raises(ConfigError, match="share a card"):
        table.of("AsKs", "AsQd")


@pytest.mark.slow
def test_a_damaged_cache_file_is_one_line(table, tmp_path):
    bad = tmp_path / "equity.npz"
    np.savez(bad, wins=table.wins, ties=table.ties + 1, version=np.array(1))
    with pytest.raises(ConfigError, match="not a preflop equity table"):
        equity_table(progress=False, path=bad)
    bad.write_bytes(b"not a zip")
    with pytest.raises(ConfigError, match="not a readable preflop equity table"):
        equity_table(progress=False, path=bad)
