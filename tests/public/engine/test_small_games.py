"""The public trees of Kuhn and Leduc against ``pokerzoo.tree.build``, node for node."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.games import load_game
from pokerzoo.games.base import CHANCE, TERMINAL
from pokerzoo.games.leduc import LEDUC_VARIANTS
from pokerzoo.public.engine.small_games import public_game_tree
from pokerzoo.public.engine.tree import CHANCE as PUBLIC_CHANCE
from pokerzoo.public.engine.tree import DECISION, FOLD, SHOWDOWN
from pokerzoo.tree import build

GAMES = [("kuhn_poker", {}), ("leduc_holdem", {}), ("leduc_holdem", {"num_ranks": 4}),
         ("leduc_holdem", LEDUC_VARIANTS["rlcard"]), ("leduc_holdem", LEDUC_VARIANTS["leduc4"])]


def _history_table(tree):
    """Every history past the private deals: public-state key -> {history: (prob, node)}."""
    prob = np.ones(tree.num_nodes)
    table: dict[str, dict[tuple[int, ...], tuple[float, int]]] = {}
    for n in range(1, tree.num_nodes):
        prob[n] = prob[tree.parent[n]] * tree.chance_prob[n]
    for n in range(tree.num_nodes):
        state = tree.state(n)
        if not all(state.private_cards()):
            continue
        key = json.dumps(state.public_state(), sort_keys=True)
        table.setdefault(key, {})[tuple(tree.history(n))] = (float(prob[n]), n)
    return table


@pytest.mark.parametrize(("name", "params"), GAMES)
def test_public_nodes_group_exactly_the_games_histories(name, params):
    game = load_game(name, **params)
    small = public_game_tree(game)
    tree, full = small.tree, build(game)
    table = _history_table(full)
    seen = 0
    for n in range(tree.num_nodes):
        histories = small.histories[n]
        assert histories, f"public node {n} groups no history"
        state = small.state(n, histories[0][0], histories[0][1])
        key = json.dumps(state.public_state(), sort_keys=True)
        expected = table[key]
        assert {h for _, _, h in histories} == set(expected)
        seen += len(histories)
        weight = tree.path_weight(n) / tree.pair_mass
        for i0, i1, h in histories:
            prob, row = expected[h]
            assert prob == pytest.approx(weight)  # deal and public cards, card removal included
            player = full.player[row]
            kind = int(tree.kind[n])
            if player == TERMINAL:
                assert kind in (FOLD, SHOWDOWN)
                assert tree.terminals.payoffs[tree.terminal_data[n]][i0, i1] == pytest.approx(
                    full.utilities[row, 0])
            elif player == CHANCE:
                assert kind == PUBLIC_CHANCE
            else:
                assert kind == DECISION and tree.player[n] == player
    assert seen == sum(len(v) for v in table.values())


def test_kuhn_tree_shape_and_labels():
    small = public_game_tree(load_game("kuhn_poker"))
    tree = small.tree
    assert tree.summary()["nodes"] == 9 and tree.pair_mass == 6.0
    assert small.deal_probability == pytest.approx(1 / 6)
    assert tree.line(5) == ["pass", "bet", "pass"] and tree.folder[5] == 0
    assert list(tree.hand_names[0]) == ["J", "Q", "K"]
    for n in range(tree.num_nodes):  # children contiguous and after their parent
        for c in tree.children(n):
            assert tree.parent[c] == n and c > n


def test_leduc_chance_weights_and_boards():
    tree = public_game_tree(load_game("leduc_holdem")).tree
    chance = np.flatnonzero(tree.kind == PUBLIC_CHANCE)
    for n in chance:
        kids = list(tree.children(int(n)))
        assert len(kids) == 6
        assert all(tree.chance_weight[c] == pytest.approx(0.25) for c in kids)
        assert all(tree.board_cards(c) == [int(tree.chance_card[c])] for c in kids)


def test_refuses_games_it_cannot_hold():
    with pytest.raises(ConfigError, match="heads-up"):
        public_game_tree(load_game("kuhn_poker", num_players=3))
    with pytest.raises(ConfigError, match="Game"):
        public_game_tree("kuhn_poker")  # type: ignore[arg-type]
