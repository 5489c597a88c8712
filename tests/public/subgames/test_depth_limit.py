"""Depth-limited public subgames: the trunk with oracle leaves is the whole game's solve."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.games import load_game
from pokerzoo.public.engine.solver import PublicSolver, strategy_best_responses
from pokerzoo.public.engine.tree import DECISION
from pokerzoo.public.subgames.depth_limit import DepthLimitedSolver, LeafValues
from pokerzoo.public.subgames.leaf_values import OracleLeaves
from pokerzoo.public.subgames.multi_valued import MultiValuedLeaves
from pokerzoo.public.subgames.resolve import node_beliefs
from pokerzoo.public.subgames.subgame import full_tree, public_line, public_subgame

LEDUC_VALUE = -0.0856


@pytest.fixture(scope="module")
def leduc():
    return load_game("leduc_holdem")


def _trunk_loss(game, solver: DepthLimitedSolver, iterations: int = 600,
                algorithm: str = "cfr+") -> float:
    """Each player's loss in the whole game from playing the trunk's average strategy
    (the rest of the game and the other player free, both solved by ``algorithm``), summed:
    0 exactly when the trunk is part of an equilibrium, whatever the leaf values."""
    full = full_tree(game).tree
    sub = solver.subgame
    whole = PublicSolver(full, algorithm=algorithm)
    whole.iterate(iterations)
    value = whole.game_value()[0]
    loss = 0.0
    for p in (0, 1):
        locks = {int(sub.full_node[n]): solver.strategy(n)
                 for n in np.flatnonzero(sub.tree.kind == DECISION).tolist()
                 if sub.tree.player[n] == p}
        locked = PublicSolver(full, algorithm=algorithm, locks=locks)
        locked.iterate(iterations)
        v = locked.game_value()[0]
        loss += (value - v) if p == 0 else (v - value)
    return loss


def test_oracle_depth_limited_leduc_is_the_whole_solve(leduc):
    sub = public_subgame(leduc, [], [np.ones(6), np.ones(6)], depth="round")
    assert sub.num_leaves == 5
    assert [sub.leaf_state(i)["next"] for i in range(5)] == ["chance"] * 5
    solver = DepthLimitedSolver(sub, OracleLeaves(leduc), algorithm="cfr+")
    solver.iterate(400)
    whole = PublicSolver(full_tree(leduc).tree, algorithm="cfr+")
    whole.iterate(400)
    # The coupled oracle makes trunk + leaves the whole game's CFR, update for update.
    assert solver.game_value()[0] == pytest.approx(whole.game_value()[0], abs=1e-9)
    assert solver.exploitability() == pytest.approx(whole.exploitability(), abs=1e-9)
    assert solver.game_value()[0] == pytest.approx(LEDUC_VALUE, abs=1e-3)
    assert solver.exploitability() < 2e-3
    assert _trunk_loss(leduc, solver) < 5e-3


def test_oracle_values_are_the_rest_of_the_game_solved(leduc):
    small = full_tree(leduc)
    whole = PublicSolver(small.tree, algorithm="cfr+")
    whole.iterate(1000)
    sub = public_subgame(leduc, [], [np.ones(6), np.ones(6)])
    leaf = 1  # call, raise, call
    node = int(sub.leaf_full_nodes[leaf])
    beliefs = node_beliefs(whole, node)
    oracle = OracleLeaves(leduc, tolerance=1e-5, iterations=3000)
    v0, v1 = oracle.values(sub, np.array([leaf]), beliefs["reach0"][None],
                           beliefs["reach1"][None])
    # The rest's value for these beliefs is unique (hands' values need not be: a hand the
    # beliefs give little weight may do better in one equilibrium than in another).
    r0, r1 = beliefs["reach0"], beliefs["reach1"]
    assert float(r0 @ v0[0]) == pytest.approx(float(r0 @ beliefs["br_cfv0"]), abs=2e-3)
    assert float(r1 @ v1[0]) == pytest.approx(float(r1 @ beliefs["br_cfv1"]), abs=2e-3)
    assert float(r0 @ v0[0] + r1 @ v1[0]) == pytest.approx(0.0, abs=2e-3)
    scale = float(r0.sum() + r1.sum())
    # Values scale with the other player's mass, not with the own one.
    w0, w1 = oracle.values(sub, np.array([leaf]), 3.0 * beliefs["reach0"][None],
                           beliefs["reach1"][None])
    np.testing.assert_allclose(w0, v0, atol=1e-3 * scale)
    np.testing.assert_allclose(w1, 3.0 * v1, atol=3e-3 * scale)


class _FixedLeaves:
    """Leaf values of a fixed continuation profile: dense matrices per leaf."""

    def __init__(self, matrices: np.ndarray) -> None:
        self.matrices = matrices  # [L, H0, H1] player 0's expected chips

    def values(self, subgame, leaves, reach0, reach1):
        m = self.matrices[leaves]
        return (np.einsum("lij,lj->li", m, reach1), -np.einsum("lij,li->lj", m, reach0))


def test_action_depth_on_kuhn_and_a_plain_leaf_source():
    kuhn = load_game("kuhn_poker")
    sub = public_subgame(kuhn, [], [np.ones(3), np.ones(3)], depth=1)
    assert sub.num_leaves == 2
    assert [sub.leaf_state(i)["player"] for i in range(2)] == [1, 1]
    solver = DepthLimitedSolver(sub, OracleLeaves(kuhn), algorithm="cfr+")
    solver.iterate(300)
    assert solver.game_value()[0] == pytest.approx(-1 / 18, abs=2e-3)
    # A source that is not coupled: the values of player 1 always calling / checking after
    # player 0's first action (player 0 then best-responds at its later decision).
    full = full_tree(kuhn).tree
    matrices = np.zeros((2, 3, 3))
    for i, node in enumerate(sub.leaf_full_nodes.tolist()):
        first = full.first_child[node]  # player 1's first action: check (bet-less) or call
        child = int(first) if full.kind[node] == DECISION else node
        if full.kind[child] == DECISION:  # check, then player 0 acts: check behind
            child = int(full.first_child[child])
        matrices[i] = full.terminals.payoffs[full.terminal_data[child]]
    source = _FixedLeaves(matrices)
    assert isinstance(source, LeafValues)
    fixed = DepthLimitedSolver(sub, source, algorithm="cfr+")
    fixed.iterate(200)
    assert fixed.exploitability() < 1e-2
    # Against a passive player 1 player 0 gains: it bets its best card and checks the rest.
    assert fixed.game_value()[0] > 0


def test_subgame_from_a_line_and_its_states(leduc):
    state = leduc.new_initial_state()
    for action in (0, 1):  # the two private deals
        state.apply_action(state.legal_actions()[action])
    while state.current_player() != -1:
        state.apply_action(state.legal_actions()[0])  # call, call
    state.apply_action(state.legal_actions()[0])  # the public card
    line = public_line(leduc, state)
    assert line[:2] == ["call", "call"] and len(line) == 3
    sub = public_subgame(leduc, line, [np.ones(6), np.ones(6)], depth=None)
    card = full_tree(leduc).tree.board_cards(sub.root)[0]
    assert sub.num_leaves == 0
    assert sub.tree.initial_reach[0][card] == 0.0  # blocked by the board
    assert sub.with_ranges([np.arange(6.0), np.ones(6)]).tree.initial_reach[0][card] == 0.0


@pytest.mark.parametrize("call, message", [
    (lambda g: public_subgame(load_game("kuhn_poker"), [], [np.ones(3)] * 2), "without later"),
    (lambda g: public_subgame(g, ["call", "fold"], [np.ones(6)] * 2), "not legal"),
    (lambda g: public_subgame(g, ["raise", "fold"], [np.ones(6)] * 2), "terminal"),
    (lambda g: public_subgame(g, [], [np.ones(5), np.ones(6)]), "ranges"),
    (lambda g: public_subgame(g, [], [np.ones(6)] * 2, depth=0), "depth"),
    (lambda g: public_subgame(g, "call", [np.ones(6)] * 2), "sequence"),
    (lambda g: DepthLimitedSolver(public_subgame(g, [], [np.ones(6)] * 2), None), "leaves"),
    (lambda g: OracleLeaves(g, iterations=0), "iterations"),
])
def test_bad_configurations_are_one_line_errors(leduc, call, message):
    with pytest.raises(ConfigError, match=message) as info:
        call(leduc)
    assert "\n" not in str(info.value)


def test_oracle_refuses_another_game(leduc):
    sub = public_subgame(leduc, [], [np.ones(6)] * 2)
    oracle = OracleLeaves(load_game("kuhn_poker"))
    with pytest.raises(ConfigError, match="oracle leaves solve"):
        oracle.values(sub, np.arange(5), np.ones((5, 6)), np.ones((5, 6)))


def test_multi_valued_leaves_make_the_trunk_safe_against_a_changed_continuation(leduc):
    # Brown & Sandholm 2018: a trunk solved against the blueprint's values alone leans on the
    # opponent continuing as the blueprint does; letting the opponent pick biased
    # continuations at the leaves keeps the searcher's trunk near the blueprint's safety.
    full = full_tree(leduc).tree
    blueprint = PublicSolver(full, algorithm="cfr+")
    blueprint.iterate(300)
    base = {n: blueprint.strategy(n) for n in np.flatnonzero(full.kind == DECISION).tolist()}
    _, opp_gain = strategy_best_responses(full, base)
    sub = public_subgame(leduc, [], [np.ones(6), np.ones(6)])
    gains = {}
    for biases in ((), ("fold", "call", "raise")):
        leaves = MultiValuedLeaves(leduc, base, player=0, biases=biases)
        solver = DepthLimitedSolver(sub, leaves, algorithm="cfr+")
        solver.iterate(300)
        profile = dict(base)
        for n in np.flatnonzero(sub.tree.kind == DECISION).tolist():
            if sub.tree.player[n] == 0:
                profile[int(sub.full_node[n])] = solver.strategy(n)
        gains[len(biases)] = strategy_best_responses(full, profile)[1]
        choice = leaves.choices(sub, 0)
        np.testing.assert_allclose(choice.sum(axis=0), 1.0)
    assert gains[0] > opp_gain + 0.05  # single-valued: ~0.18 against the blueprint's ~0.09
    assert gains[3] < opp_gain + 0.01
    with pytest.raises(ConfigError, match="names no action"):
        MultiValuedLeaves(leduc, base, player=0, biases=("check-raise",))
