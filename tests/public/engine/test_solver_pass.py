"""``PublicSolver``'s pass API: ``run_pass`` and its conveniences, records, frontiers, and the
hooks the depth-limited and re-solving solvers use."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.games import load_game
from pokerzoo.public.engine.small_games import public_game_tree
from pokerzoo.public.engine.solver import PASS_KINDS, PublicSolver, discounts
from pokerzoo.public.subgames.depth_limit import DepthLimitedSolver
from pokerzoo.public.subgames.resolve import ResolvingSolver
from pokerzoo.public.subgames.subgame import public_subgame


@pytest.fixture(scope="module")
def kuhn_tree():
    return public_game_tree(load_game("kuhn_poker")).tree


@pytest.fixture(scope="module")
def leduc_tree():
    return public_game_tree(load_game("leduc_holdem")).tree


def _solved(tree, iterations=30, **overrides):
    solver = PublicSolver(tree, **overrides)
    solver.iterate(iterations)
    return solver


def test_root_passes_give_the_game_value_and_the_best_responses(leduc_tree):
    solver = _solved(leduc_tree)
    tree = solver.tree
    v0 = solver.expected_values(0).values
    assert tree.initial_reach[0] @ v0 / tree.pair_mass == solver.game_value()[0]
    for p in (0, 1):
        values = solver.best_response(p).values
        assert tree.initial_reach[p] @ values / tree.pair_mass == solver.best_response_values()[p]
        assert np.array_equal(values, solver.run_pass("best_response", p).values)


def test_a_record_holds_the_reaches_and_values_of_its_node(kuhn_tree):
    solver = _solved(kuhn_tree, 50)
    strategy = solver.strategy(0)  # player 0 acts at the root
    root = solver.expected_values(0, record=0)
    assert root.record is not None and root.frontier is None
    np.testing.assert_array_equal(root.record.values, root.values)
    assert root.record.action_values.shape == strategy.shape
    np.testing.assert_allclose((strategy * root.record.action_values).sum(axis=0), root.values,
                               atol=1e-12)
    for action, child in enumerate(kuhn_tree.children(0)):
        for p in (0, 1):
            record = solver.expected_values(p, record=child).record
            own = kuhn_tree.initial_reach[p] * (strategy[action] if p == 0 else 1.0)
            np.testing.assert_allclose(record.own_reach, own, atol=1e-12)
            other = kuhn_tree.initial_reach[1 - p] * (strategy[action] if p == 1 else 1.0)
            np.testing.assert_allclose(record.opp_reach, other, atol=1e-12)
    best = solver.best_response(0, record=0).record
    np.testing.assert_array_equal(best.values, best.action_values.max(axis=0))


def test_a_pass_from_a_node_with_its_reaches_equals_the_record_there(leduc_tree):
    solver = _solved(leduc_tree)
    node = int(solver.frontier_nodes[1])
    for kind in ("best_response", "average"):
        record = solver.run_pass(kind, 1, record=node).record
        reaches = (record.opp_reach, record.own_reach)  # player 0's, player 1's
        below = solver.run_pass(kind, 1, start=node, reaches=reaches).values
        np.testing.assert_allclose(below, record.values, rtol=1e-12, atol=1e-12)


def test_the_frontier_is_recorded_then_read(leduc_tree):
    solver = _solved(leduc_tree)
    nodes = solver.frontier_nodes
    assert not nodes.flags.writeable and nodes.size == 5
    reached = solver.frontier_reaches("average", 0)
    values = np.zeros((nodes.size, leduc_tree.num_hands(0)))
    for i, node in enumerate(nodes.tolist()):
        record = solver.expected_values(0, record=node).record
        np.testing.assert_allclose(reached.reach0[i], record.own_reach, atol=1e-12)
        np.testing.assert_allclose(reached.reach1[i], record.opp_reach, atol=1e-12)
        values[i] = record.values
    whole = solver.expected_values(0).values
    np.testing.assert_allclose(solver.expected_values(0, frontier=values).values, whole,
                               rtol=1e-12, atol=1e-12)
    # Recording is a pass of leaves worth 0: it never updates, whatever the kind.
    before = solver.regrets.copy()
    recorded = solver.run_pass("cfr", 1, discounts=discounts(solver.config, 31),
                               frontier="record")
    assert np.array_equal(solver.regrets, before) and recorded.frontier is not None


def test_cfr_passes_are_the_iterations(leduc_tree):
    by_iterate = PublicSolver(leduc_tree, algorithm="dcfr")
    by_passes = PublicSolver(leduc_tree, algorithm="dcfr")
    by_iterate.iterate(3)
    for t in (1, 2, 3):
        for p in (0, 1):
            by_passes.cfr_pass(p, discounts(by_passes.config, t))
    assert np.array_equal(by_iterate.regrets, by_passes.regrets)
    assert np.array_equal(by_iterate.sums, by_passes.sums)
    before = by_passes.regrets.copy()
    by_passes.cfr_pass(0, discounts(by_passes.config, 4), update=False)
    assert np.array_equal(by_passes.regrets, before)


def test_threads_give_the_same_root_values(leduc_tree):
    one, two = _solved(leduc_tree, 10), _solved(leduc_tree, 10, threads=2)
    for kind in PASS_KINDS:
        assert np.array_equal(one.run_pass(kind, 1, update=False).values,
                              two.run_pass(kind, 1, update=False).values)


@pytest.mark.parametrize(("arguments", "message"), [
    (("fold", 0), "kind must be one of"),
    (("cfr", 2), "traverser must be 0 or 1"),
    (("cfr", True), "traverser must be 0 or 1"),
    (("average", 0, {"start": 9}), "start must be a node id 0..8"),
    (("average", 0, {"start": 1.0}), "start must be a node id"),
    (("average", 0, {"record": -1}), "record must be a node id"),
    (("average", 0, {"reaches": np.ones(3)}), "reaches must be a pair"),
    (("average", 0, {"reaches": (np.ones(3), np.ones(2))}), "reach of player 1 must be 3"),
    (("average", 0, {"reaches": (-np.ones(3), np.ones(3))}), "reach of player 0 must be 3"),
    (("average", 0, {"frontier": "read"}), "frontier must be None, 'record'"),
    (("average", 0, {"frontier": np.zeros((1, 3))}), r"frontier values must be a finite"),
    (("best_response", 0, {"update": True}), "update=True is for CFR passes"),
    (("cfr", 0, {"update": True, "frontier": "record"}), "update=True is for CFR passes"),
    (("cfr", 0, {"discounts": (1.0, 1.0)}), "discounts must be a pokerzoo.schedule"),
])
def test_bad_pass_arguments_are_one_line_config_errors(kuhn_tree, arguments, message):
    solver = PublicSolver(kuhn_tree)
    kind, traverser, options = (*arguments, {})[:3]
    with pytest.raises(ConfigError, match=message) as caught:
        solver.run_pass(kind, traverser, **options)
    assert "\n" not in str(caught.value)


def test_a_plain_solver_has_no_leaf_values(kuhn_tree):
    solver = PublicSolver(kuhn_tree)
    assert not solver.frontier_leaves
    with pytest.raises(ConfigError, match="frontier_leaves"):
        solver.leaf_values("average", 0, np.zeros((0, 3)), np.zeros((0, 3)))


class _Counting:
    """Leaf values linear in the other's reach (a fixed continuation) that count the passes
    asking for them."""

    def __init__(self):
        self.calls = 0

    def values(self, subgame, leaves, reach0, reach1):
        self.calls += 1
        hands0, hands1 = np.linspace(-1, 1, reach0.shape[1]), np.linspace(1, -1, reach1.shape[1])
        return reach1.sum(axis=1)[:, None] * hands0, reach0.sum(axis=1)[:, None] * hands1


def test_a_depth_limited_solver_values_its_leaves_once_a_pass():
    game = load_game("leduc_holdem")
    sub = public_subgame(game, [], [np.ones(6), np.ones(6)])
    source = _Counting()
    solver = DepthLimitedSolver(sub, source, algorithm="dcfr")
    assert solver.frontier_leaves
    assert np.array_equal(solver.frontier_nodes, sub.leaves)
    solver.iterate(2)
    assert source.calls == 4  # two passes an iteration
    reached = solver.frontier_reaches("average", 0)
    values = solver.leaf_values("average", 0, *reached)
    assert source.calls == 5
    # The same values handed in explicitly: the source is not asked again.
    given = solver.expected_values(0, frontier=values).values
    assert source.calls == 5
    np.testing.assert_array_equal(given, solver.expected_values(0).values)
    assert source.calls == 6
    with pytest.raises(ConfigError, match="kind must be one of"):
        solver.leaf_values("fold", 0, *reached)


def test_the_gadget_steps_with_the_opponents_iteration_pass_only(kuhn_tree):
    sub = public_subgame(load_game("kuhn_poker"), [], [np.ones(3), np.ones(3)], depth=None)
    solver = ResolvingSolver(sub, 0, np.zeros(3), None, "cfrd")
    start = solver.gadget_regrets.copy()
    solver.iteration_pass(0, discounts(solver.config, 1))
    assert np.array_equal(solver.gadget_regrets, start)
    solver.iteration_pass(1, discounts(solver.config, 1))
    assert not np.array_equal(solver.gadget_regrets, start)
    stepped = solver.gadget_regrets.copy()
    solver.cfr_pass(1, discounts(solver.config, 2))
    solver.best_response(1)
    assert np.array_equal(solver.gadget_regrets, stepped)
    # The opponent enters with the gadget's weights in passes given no reaches.
    entering = solver.entering_reach(True)
    record = solver.expected_values(0, record=0).record
    np.testing.assert_array_equal(record.opp_reach, entering)


JUNK = [None, True, -1, 3, 10**40, np.int64(1), 1.5, np.nan, "", "cfr", [0], (0, 1), {"a": 1},
        object(), np.ones(3), np.ones((1, 3)), "abcde", (1.0, 1.0, "no", 1.0, 0.0)]


@pytest.mark.parametrize("argument", ["kind", "traverser", "discounts", "start", "reaches",
                                      "record", "update", "frontier"])
def test_junk_pass_arguments_work_or_are_config_errors(kuhn_tree, argument):
    solver = PublicSolver(kuhn_tree)
    for junk in JUNK:
        arguments = {"kind": "cfr", "traverser": 0, argument: junk}
        kind, traverser = arguments.pop("kind"), arguments.pop("traverser")
        try:
            result = solver.run_pass(kind, traverser, **arguments)
        except ConfigError as error:
            assert str(error) and "\n" not in str(error)
        else:
            assert result.values.shape == (3,) and np.all(np.isfinite(result.values))
