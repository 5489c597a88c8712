"""evaluate.py --spot-decision's engine (pokerzoo.evaluation.spot_decision): one decision scored."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.spot_decision import (
    agent_decision_locks,
    evaluate_decision,
    line_locks,
    node_at,
    scored_nodes,
)
from pokerzoo.evaluation.spot_eval import own_ranges
from pokerzoo.games import load_game
from pokerzoo.public.engine.solver import PublicSolver
from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree, spot_seats

# no_limit_holdem's defaults (blinds 50/100, 10,000 stacks, half pot, pot, all-in): a limped
# pot checked to the river holds 200 chips with 9,900 behind; OOP bets half pot (100) and IP,
# facing it, can fold, call, raise half pot (to 300), pot (to 500) or all-in, as the game can.
SPOT = HoldemSpot(board="QsJh2h7c3d", starting_pot=200, effective_stack=9900,
                  oop_range="AA,QQ,JJ,AQs,KQs,T9s,65s", ip_range="KK,AQ,QJs,T9s,87s,54s",
                  river_sizes=(("50%,100%,a", "a"), ("50%,100%,a", "50%,100%,a")),
                  suit_isomorphism=False)
LINE = ["bet 100"]
ITERATIONS, TARGET = 400, 0.05


def mixed(cards, actions) -> dict[int, float]:
    """A fixed, hand-dependent mix over ``actions``."""
    a, b = sorted(int(c) for c in cards)
    w = np.array([(7 * a + 13 * b + 5 * k) % 11 + 1.0 for k in range(len(actions))])
    return {int(x): float(v) for x, v in zip(actions, w / w.sum(), strict=True)}


class FakePolicy:
    """Mixes over every legal action by its hole cards."""

    def action_probabilities(self, state):
        return mixed(state.private_cards()[state.current_player()], state.legal_actions())


@pytest.fixture(scope="module")
def game():
    return load_game("no_limit_holdem")


@pytest.fixture(scope="module")
def tree():
    return build_spot_tree(SPOT)


@pytest.fixture(scope="module")
def equilibrium(tree):
    solver = PublicSolver(tree, locks=line_locks(tree, node_at(tree, LINE)))
    solver.solve(ITERATIONS, target_pct=TARGET)
    return solver


def test_decision_loss_equals_a_hand_built_lock(game, tree, equilibrium):
    r = evaluate_decision(game, FakePolicy(), SPOT, tree, LINE, exploitability_pct=TARGET,
                          max_iterations=ITERATIONS, equilibrium=equilibrium)
    node = node_at(tree, LINE)
    assert r.labels == ["fold", "call", "raise 300", "raise 500", "allin 9900"]
    # By hand: the game's actions 0-4 are the spot's five, in order.
    lock = np.array([[mixed(h, range(5))[k] for h in tree.hands[1]] for k in range(5)])
    solver = PublicSolver(tree, locks={**line_locks(tree, node), node: lock})
    solver.regrets[:], solver.sums[:] = equilibrium.regrets, equilibrium.sums
    solver.iterations = equilibrium.iterations  # the warm start: from the equilibrium
    at_equilibrium = equilibrium.game_value()[1] - solver.game_value()[1]
    solver.solve(equilibrium.iterations + ITERATIONS, target_pct=TARGET)
    expected = equilibrium.game_value()[1] - solver.game_value()[1]
    assert r.equilibrium_value - r.agent_value_at_equilibrium == pytest.approx(at_equilibrium,
                                                                               abs=1e-9)
    assert r.player == 1 and r.nodes == 1 and r.off_tree_mass == 0.0
    assert r.ev_loss_chips == pytest.approx(expected, abs=1e-9)
    assert r.ev_loss_pct_pot == pytest.approx(100 * expected / 200, abs=1e-9)
    assert np.allclose(r.agent_strategy, lock)
    low, high = r.ev_loss_bounds_chips
    assert low <= r.ev_loss_chips <= high
    assert low > 0  # folding strong hands and calling weak ones costs, whatever the solve


@pytest.mark.parametrize("warm", [True, False])
def test_the_equilibrium_loses_nothing(game, tree, equilibrium, warm):
    node = node_at(tree, LINE)
    strategy = equilibrium.strategy(node)
    hands = [tuple(sorted(int(c) for c in h)) for h in tree.hands[1]]

    class Equilibrium:
        def action_probabilities(self, state):
            h = hands.index(tuple(sorted(state.private_cards()[state.current_player()])))
            return {a: float(strategy[a, h]) for a in range(5)}

    r = evaluate_decision(game, Equilibrium(), SPOT, tree, LINE, exploitability_pct=TARGET,
                          max_iterations=ITERATIONS, equilibrium=equilibrium, warm=warm)
    assert abs(r.equilibrium_value - r.agent_value_at_equilibrium) < 1e-5  # f32 sums
    slack = (r.equilibrium_exploitability_pct + r.locked_exploitability_pct) * 2.0
    assert abs(r.ev_loss_pct_pot) <= slack
    low, high = r.ev_loss_bounds_chips
    assert low <= 1e-9 and high >= -1e-9


def test_street_scope_locks_every_node_of_the_player_on_the_street(tree):
    node = node_at(tree, LINE)
    nodes = scored_nodes(tree, node, "street")
    # facing the bet, and facing the all-in after each of its two raises
    assert nodes[0] == node and len(nodes) == 3
    assert all(int(tree.player[n]) == 1 for n in nodes)


def test_a_size_the_spot_lacks_goes_to_the_nearest_raise(game):
    spot = HoldemSpot.from_dict({**SPOT.to_dict(), "river_sizes": (("50%", "a"),
                                                                    ("50%", "100%,a"))})
    small = build_spot_tree(spot)
    node = node_at(small, LINE)

    class RaisesHalfPot:
        def action_probabilities(self, state):
            return {1: 0.25, 2: 0.75}  # the game's half-pot raise, to 300

    for mode, raised in (("nearest", 0.75), ("drop", 0.0)):
        locks, off, queries = agent_decision_locks(game, spot, small, RaisesHalfPot(), [node],
                                                   mode)
        labels = [small.label(c) for c in small.children(node)]
        assert labels == ["fold", "call", "raise 500", "allin 9900"]
        column = locks[node][:, 0]
        assert off == pytest.approx(0.75) and queries == small.num_hands(1)
        assert column == pytest.approx([0.0, 1.0 - raised, raised, 0.0])


def test_own_ranges_through_the_line_weigh_the_bettors_range(game):
    class BetsAcesOnly:
        """Calls and checks everything; on the river the first to act bets half pot with aces
        only."""

        def action_probabilities(self, state):
            ps = state.public_state()
            hole = state.private_cards()[state.current_player()]
            if ps["round"] == 3 and ps["round_bets"] == [0, 0] and 2 in state.legal_actions():
                return {2: 1.0} if any(c // 4 == 12 for c in hole) else {1: 1.0}
            return {1: 1.0}

    own = own_ranges(game, BetsAcesOnly(), SPOT, through=LINE)
    bettor = spot_seats(game).index(spot_seats(game)[0])
    w = own.weights(bettor)
    assert np.count_nonzero(w) == 4 * 43 + 6  # one ace and another card, or two aces
    assert np.count_nonzero(own.weights(1 - bettor)) == 1081


def test_bad_lines_are_refused(tree):
    with pytest.raises(ConfigError, match="no action 'bet 7'"):
        node_at(tree, ["bet 7"])
    with pytest.raises(ConfigError, match="scope must be"):
        scored_nodes(tree, node_at(tree, LINE), "tree")
