"""Hand evaluation: phevaluator (used by the games) agrees with eval7 on 100,000 random hands."""

from __future__ import annotations

import eval7
import numpy as np

from pokerzoo.games.holdem.cards import (
    CARD_STRINGS,
    card_to_string,
    cards_from_string,
    hand_rank,
    string_to_card,
)

HANDS = 100_000


def test_agrees_with_eval7_on_random_seven_card_hands() -> None:
    """Both evaluators must order every pair of hands the same way: the map from our rank
    (smaller is stronger) to eval7's value (larger is stronger) is strictly decreasing."""
    rng = np.random.default_rng(2024)
    deck = [eval7.Card(s) for s in CARD_STRINGS]
    keys = rng.random((HANDS, 52)).argsort(axis=1)[:, :7].tolist()
    ours_to_theirs: dict[int, int] = {}
    for hand in keys:
        ours = hand_rank(hand)
        theirs = eval7.evaluate([deck[c] for c in hand])
        assert ours_to_theirs.setdefault(ours, theirs) == theirs, hand
    ranks = sorted(ours_to_theirs)
    values = [ours_to_theirs[r] for r in ranks]
    assert all(a > b for a, b in zip(values, values[1:]))
    assert len(ranks) > 4000  # most of the 4,824 seven-card classes were hit


def test_known_hands() -> None:
    royal = hand_rank(cards_from_string("AsKsQsJsTs2c3d"))
    quads = hand_rank(cards_from_string("AcAdAhAsKc2c3d"))
    wheel = hand_rank(cards_from_string("As2d3h4c5s9cJd"))
    six_high = hand_rank(cards_from_string("2d3h4c5s6sJdQc"))
    pair = hand_rank(cards_from_string("2c2dKhQsJd9c7s"))
    assert royal == 1 and royal < quads < six_high < wheel < pair
    assert hand_rank(cards_from_string("AsKs7h8h9cTdJd")) == hand_rank(
        cards_from_string("2s3s7h8h9cTdJd")
    )  # both play the board's straight


def test_card_strings_round_trip() -> None:
    assert [card_to_string(c) for c in (0, 1, 2, 3, 51)] == ["2c", "2d", "2h", "2s", "As"]
    assert all(string_to_card(card_to_string(c)) == c for c in range(52))
    assert string_to_card("td") == 33
