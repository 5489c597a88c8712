"""The compiled spot tree builder lays out the same tree, array by array, as a recursive walk
through ``PublicTreeBuilder`` (kept here as the reference), with the same terminal tables."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokerzoo.games.holdem.cards import card_to_string
from pokerzoo.public.engine.holdem_terminal import (
    HoldemTerminals,
    board_strengths,
    chance_weight,
    hand_strengths,
)
from pokerzoo.public.engine.tree import FOLD, SHOWDOWN, PublicTree
from pokerzoo.public.engine.tree_builder import PublicTreeBuilder, first_seen
from pokerzoo.public.spots.bet_sizes import Betting
from pokerzoo.public.spots.holdem_spot import (
    HoldemSpot,
    _board_deals,
    build_spot_tree,
    count_spot_nodes,
)
from pokerzoo.public.spots.ranges import combo_name, range_combos

SPOT = Path(__file__).resolve().parents[3] / "configs" / "spots" / "pio_3betpotfast.toml"


class _ReferenceWalk:
    """The spot tree as it was built before the compiled builder: one ``add_*`` call per
    node, depth first in action order, then ``PublicTreeBuilder.build``."""

    def __init__(self, spot: HoldemSpot) -> None:
        self.spot = spot
        hands, reach, names = [], [], []
        for p in range(2):
            cards, weights = range_combos(spot.weights(p))
            hands.append(cards.astype(np.int64))
            reach.append(weights)
            names.append([combo_name(int(i)) for i in np.flatnonzero(spot.weights(p) > 0)])
        self.hands = hands
        self.builder = PublicTreeBuilder(hands, reach, num_cards=52,
                                         starting_pot=float(spot.starting_pot),
                                         hand_names=names)
        self.terminals = HoldemTerminals((hands[0], hands[1]))

    def tree(self) -> PublicTree:
        self.street(-1, "", -1, 1.0, self.spot._parsed["root"], self.spot.board_cards)
        tree, _ = self.builder.build(self.terminals)
        self.terminals.attach(tree)
        self.terminals.spot = self.spot.to_dict()
        return tree

    def amounts(self, state: Betting) -> tuple[float, tuple[float, float]]:
        half = self.spot.starting_pot / 2.0
        contrib = (half + state.contrib[0], half + state.contrib[1])
        return contrib[0] + contrib[1], contrib

    def street(self, parent: int, label: str, card: int, weight: float, state: Betting,
               board: tuple[int, ...], iso: Sequence[Any] = ()) -> None:
        pot, contrib = self.amounts(state)
        node = self.builder.add_decision(parent, label, state.actor, pot, contrib, board,
                                         card=card, weight=weight, isomorphic=iso)
        for action in state.actions(self.spot.options):
            after = state.after(action)
            if after.closed:
                self.end(node, action.label, -1, 1.0, after, board, state.actor)
            else:
                self.street(node, action.label, -1, 1.0, after, board)

    def end(self, parent: int, label: str, card: int, weight: float, state: Betting,
            board: tuple[int, ...], folder: int, iso: Sequence[Any] = ()) -> None:
        pot, contrib = self.amounts(state)
        b = self.builder
        if state.closed == "fold":
            b.add_terminal(parent, label, FOLD, pot, contrib, board, folder=folder,
                           card=card, weight=weight)
            return
        if len(board) == 5:
            b.add_terminal(parent, label, SHOWDOWN, pot, contrib, board,
                           data=self.terminals.showdown_board(board), card=card,
                           weight=weight, isomorphic=iso)
            return
        node = b.add_chance(parent, label, pot, contrib, board, card=card, weight=weight,
                            isomorphic=iso)
        w = chance_weight(len(board))
        street = len(board) - 2
        parsed = self.spot._parsed
        for c, iso_cards in _board_deals(self.spot, self.hands, board):
            nb = board + (c,)
            if state.all_in():
                self.end(node, card_to_string(c), c, w, state, nb, folder, iso_cards)
            else:
                nxt = Betting.start(self.spot.starting_pot, self.spot.effective_stack, street,
                                    parsed["sizes"][street], parsed["donk"][street],
                                    state.contrib, state.oop_called)
                self.street(node, card_to_string(c), c, w, nxt, nb, iso_cards)


def _assert_same(a: Any, b: Any, where: str) -> None:
    """Equal values of equal types; arrays also of equal dtype and shape."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), where
        assert (a.dtype, a.shape) == (b.dtype, b.shape), where
        assert np.array_equal(a, b), where
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{where}[{k}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _assert_same(a[k], b[k], f"{where}.{k}")
    else:
        assert a == b, where


def _spot(**fields: Any) -> HoldemSpot:
    return HoldemSpot(**{**HoldemSpot.from_toml(SPOT).to_dict(), **fields})


SPOTS: dict[str, dict[str, Any]] = {
    "turn": {"board": "QsJh2h8c"},
    "turn, no isomorphism": {"board": "QsJh2h8c", "suit_isomorphism": False},
    "river": {"board": "QsJh2h8c3d"},
    "small flop, all-in runouts": {
        "board": "QsJh2h", "oop_range": "AA,KK,QJs,T9s", "ip_range": "QQ,JJ,AKs,98s",
        "flop_sizes": ("50%", "a"), "turn_sizes": ("75%", ""), "river_sizes": "a"},
    "flop inside the street": {
        "board": "Ah7c2d", "oop_range": "AA,77,AKo", "ip_range": "KK,QQ,A2s",
        "flop_sizes": ("60%", "2.5x"), "turn_sizes": "a", "river_sizes": "a",
        "street_chips": (0, 40), "street_bets": 1},
}


@pytest.mark.parametrize("name", list(SPOTS))
def test_compiled_build_lays_out_the_reference_tree(name: str) -> None:
    spot = _spot(**SPOTS[name])
    reference = _ReferenceWalk(spot).tree()
    tree = build_spot_tree(spot)
    assert tree.num_nodes == count_spot_nodes(spot)
    for f in dataclasses.fields(PublicTree):
        if f.name != "terminals":
            _assert_same(getattr(tree, f.name), getattr(reference, f.name), f.name)
    ours, theirs = tree.terminals, reference.terminals
    assert isinstance(ours, HoldemTerminals) and isinstance(theirs, HoldemTerminals)
    _assert_same(ours.state_dict(), theirs.state_dict(), "terminals")
    _assert_same(ours._strength, theirs._strength, "strengths")
    _assert_same(ours._order, theirs._order, "orders")
    _assert_same(ours.compiled()[1], theirs.compiled()[1], "terminal tables")


def test_board_strengths_equal_hand_strengths() -> None:
    rng = np.random.default_rng(3)
    hands = np.array([(a, b) for a in range(52) for b in range(a + 1, 52)], dtype=np.int64)
    boards = np.array([rng.choice(52, 5, replace=False) for _ in range(40)], dtype=np.int64)
    batch = board_strengths(hands, boards)
    assert batch.dtype == np.int32 and batch.shape == (40, hands.shape[0])
    for b, row in enumerate(boards.tolist()):
        assert np.array_equal(batch[b], hand_strengths(hands, row))


def test_first_seen_numbers_codes_by_first_occurrence() -> None:
    distinct, index = first_seen(np.array([5, 2, 5, 0, 2, 7], dtype=np.int32), 8)
    assert distinct.tolist() == [5, 2, 0, 7]
    assert index.tolist() == [0, 1, 0, 2, 1, 3]
