"""The public-state engine on Kuhn and Leduc: known values, exact best responses against
``pokerzoo.evaluation``, node locking, save / load, memory refusal and bad arguments."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from pokerzoo.errors import CheckpointError, ConfigError, TreeTooLargeError
from pokerzoo.evaluation.exact import best_response_values, exploitability
from pokerzoo.games import load_game
from pokerzoo.public.engine import sweep_kernel as kernel
from pokerzoo.public.engine.results import load_solver, node_result, save_solver
from pokerzoo.public.engine.small_games import (
    DenseTerminals,
    policy_blocks,
    public_game_tree,
    solve_game,
)
from pokerzoo.public.engine.solver import (
    PublicSolver,
    SolverConfig,
    discounts,
    estimate_memory,
    strategy_best_responses,
)
from pokerzoo.public.engine.tree import CHANCE, DECISION, FOLD, SHOWDOWN
from pokerzoo.public.engine.tree_builder import PublicTreeBuilder
from pokerzoo.tree import build
from pokerzoo.tree.tabular_policy import TabularPolicy


@pytest.fixture(scope="module")
def kuhn():
    return public_game_tree(load_game("kuhn_poker"))


@pytest.fixture(scope="module")
def leduc():
    return public_game_tree(load_game("leduc_holdem"))


@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr", "postflop"])
def test_kuhn_value(kuhn, algorithm):
    solver = PublicSolver(kuhn.tree, algorithm=algorithm)
    solver.solve(max_iterations=2000, target_pct=0.01)
    assert solver.exploitability_pct() <= 0.01
    assert solver.game_value()[0] == pytest.approx(-1 / 18, abs=2e-4)


@pytest.mark.parametrize("storage", ["f32", "compressed"])
def test_leduc_value(leduc, storage):
    solver = PublicSolver(leduc.tree, algorithm="dcfr", storage=storage)
    solver.iterate(1000)
    assert solver.exploitability() < 2e-3
    assert solver.game_value()[0] == pytest.approx(-0.0856, abs=5e-4)


def test_solve_game_stops_at_the_target():
    solution = solve_game("leduc_holdem", iterations=2000, exploitability_pct=0.05)
    assert solution.exploitability_pct <= 0.05
    assert solution.iterations < 2000 and solution.iterations % 10 == 0
    assert solution.game_value[0] == pytest.approx(-0.0856, abs=1e-3)
    report = solution.to_json()
    assert set(report) >= {"game_value", "exploitability", "iterations", "seconds"}


def _random_policy(tree, rng):
    probs = rng.random(tree.infoset_mask.shape) ** 3 * tree.infoset_mask
    return TabularPolicy.from_tree(tree, probs)


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_holdem"])
def test_best_response_equals_the_exact_evaluator(name, kuhn, leduc):
    small = kuhn if name == "kuhn_poker" else leduc
    full = build(small.game)
    rng = np.random.default_rng(7)
    for _ in range(3):
        policy = _random_policy(full, rng)
        blocks = policy_blocks(small, policy)
        br0, br1 = strategy_best_responses(small.tree, blocks)
        expected = best_response_values(full, policy)
        assert br0 == pytest.approx(expected[0], abs=1e-9)
        assert br1 == pytest.approx(expected[1], abs=1e-9)
        assert (br0 + br1) / 2 == pytest.approx(exploitability(full, policy), abs=1e-9)


def test_solver_strategy_matches_its_policy_value(leduc):
    """The engine's own average strategy, scored by pokerzoo.evaluation, gives its numbers."""
    solver = PublicSolver(leduc.tree, algorithm="cfr+")
    solver.iterate(50)
    full = build(leduc.game)
    index = {k: i for i, k in enumerate(full.infoset_keys)}
    probs = np.zeros(full.infoset_mask.shape)
    for node in np.flatnonzero(leduc.tree.kind == 0).tolist():
        strategy = solver.strategy(node)
        for hand, key in leduc.information_state_keys(node).items():
            probs[index[key], full.infoset_mask[index[key]]] = strategy[:, hand]
    policy = TabularPolicy.from_tree(full, probs)
    assert solver.exploitability() == pytest.approx(exploitability(full, policy), abs=1e-6)


def _locking_tree():
    """Player 0 holds a strong (0) or weak (1) hand, player 1 one hand (2). Player 0 folds
    (-1) or bets 1 more; player 1 calls (showdown, +-2) or folds (+1 to player 0)."""
    builder = PublicTreeBuilder(hands=[[[0], [1]], [[2]]], initial_reach=[[1, 1], [1]],
                                num_cards=3, starting_pot=2.0)
    root = builder.add_decision(-1, "", player=0, pot=2, contrib=(1, 1))
    builder.add_terminal(root, "fold", FOLD, pot=2, contrib=(1, 1), folder=0, data=0)
    bet = builder.add_decision(root, "bet", player=1, pot=3, contrib=(2, 1))
    builder.add_terminal(bet, "fold", FOLD, pot=3, contrib=(2, 1), folder=1, data=1)
    builder.add_terminal(bet, "call", SHOWDOWN, pot=4, contrib=(2, 2), data=2)
    payoffs = np.array([[[-1.0], [-1.0]], [[1.0], [1.0]], [[2.0], [-2.0]]])
    tree, ids = builder.build(DenseTerminals(payoffs))
    return tree, int(ids[root]), int(ids[bet])


def test_node_locking_hand_computed():
    tree, root, bet = _locking_tree()
    free = PublicSolver(tree, algorithm="dcfr")
    free.iterate(2000)
    # Unlocked: the weak hand bluffs b = 1/3 (player 1 indifferent: -2 + 2b = -1 - b) and
    # player 1 calls c = 2/3 (the weak hand indifferent: -2c + (1 - c) = -1); player 0 wins
    # 2c + (1 - c) = 5/3 with the strong hand and -1 with the weak: value 1/3.
    assert free.strategy(root)[:, 1] == pytest.approx([2 / 3, 1 / 3], abs=1e-3)
    assert free.strategy(bet)[:, 0] == pytest.approx([1 / 3, 2 / 3], abs=1e-3)
    assert free.game_value()[0] == pytest.approx(1 / 3, abs=1e-3)
    # Player 1 locked to call half the time: betting is worth 1.5 (strong) and -0.5 (weak),
    # both above folding's -1, so player 0 bets everything: value (1.5 - 0.5) / 2 = 0.5.
    locked = PublicSolver(tree, algorithm="dcfr", locks={bet: [[0.5], [0.5]]})
    locked.iterate(500)
    assert locked.strategy(root) == pytest.approx(np.array([[0, 0], [1, 1]]), abs=1e-3)
    assert locked.strategy(bet) == pytest.approx(np.array([[0.5], [0.5]]))
    assert locked.game_value()[0] == pytest.approx(0.5, abs=1e-3)
    result = node_result(locked, root)
    assert result.action_ev[1] == pytest.approx([1.5, -0.5])
    assert locked.exploitability() == pytest.approx(0.0, abs=1e-3)


def test_node_result_kuhn(kuhn):
    solver = PublicSolver(kuhn.tree, algorithm="dcfr")
    solver.iterate(1000)
    root = node_result(solver, 0)
    assert root.ev_total[0] == pytest.approx(-1 / 18, abs=1e-3)
    assert root.ev[0][0] == pytest.approx(-1.0, abs=1e-3)  # the Jack loses its ante
    assert root.action_frequency.sum() == pytest.approx(1.0)
    assert root.strategy[1, 2] == pytest.approx(3 * root.strategy[1, 0], abs=0.01)  # K bets 3a
    assert root.equity[0] == pytest.approx([0.0, 0.5, 1.0])  # J, Q, K against two cards


def test_leduc_equity(leduc):
    tree = leduc.tree
    terminals = tree.terminals
    # Before the public card: J wins only when a J comes (1/4) against Q or K, ties J: 0.3.
    assert terminals.equity(tree, 0, 0, np.ones(6)) == pytest.approx([.3, .3, .5, .5, .7, .7])
    chance = int(np.flatnonzero(tree.kind == 1)[0])
    js = int(tree.first_child[chance])  # the Js comes: Jh pairs; Qs loses to Jh, ties Qh
    assert tree.board_cards(js) == [0]
    equity = terminals.equity(tree, js, 0, np.ones(6))
    assert np.isnan(equity[0])
    assert equity[1:] == pytest.approx([1.0, 0.125, 0.125, 0.625, 0.625])
    assert terminals.equity(tree, js, 1, np.ones(6))[1:] == pytest.approx(equity[1:])


@pytest.mark.parametrize("storage", ["f32", "compressed"])
def test_save_load_is_exact(tmp_path, leduc, storage):
    solver = PublicSolver(leduc.tree, algorithm="postflop", storage=storage,
                          locks={0: np.full((2, 6), 0.5)})
    solver.iterate(30)
    path = tmp_path / "leduc.ckpt"
    save_solver(solver, path)
    loaded = load_solver(path)
    assert loaded.iterations == 30 and loaded.config == solver.config
    for key in ("regrets", "sums", "regrets16", "sums16", "rscale", "sscale", "lock_values"):
        assert np.array_equal(getattr(loaded, key), getattr(solver, key))
    for name in ("kind", "first_child", "chance_weight", "contrib", "offset"):
        assert np.array_equal(getattr(loaded.tree, name), getattr(leduc.tree, name))
    solver.iterate(5)
    loaded.iterate(5)
    assert loaded.game_value() == solver.game_value()
    (tmp_path / "junk.ckpt").write_bytes(b"not a zip")
    with pytest.raises(CheckpointError):
        load_solver(tmp_path / "junk.ckpt")


@pytest.mark.parametrize("storage", ["f32", "compressed"])
def test_threads_give_the_same_bits(leduc, storage):
    one = PublicSolver(leduc.tree, algorithm="postflop", storage=storage)
    two = PublicSolver(leduc.tree, algorithm="postflop", storage=storage, threads=2)
    one.iterate(20)
    two.iterate(20)
    for key in ("regrets", "sums", "regrets16", "sums16", "rscale", "sscale"):
        assert np.array_equal(getattr(one, key), getattr(two, key))
    assert one.best_response_values() == two.best_response_values()


@numba.njit
def _dense_by_another_name(node, player, opp_reach, out, data):
    kernel.dense_terminal_kernel(node, player, opp_reach, out, data)


def test_threads_give_the_same_bits_with_a_terminal_kernel_of_ones_own(leduc):
    """A kernel this package does not know goes through the uncached sweep, in chunks of
    subtrees on the threads as well."""
    one = PublicSolver(leduc.tree, algorithm="postflop")
    two = PublicSolver(leduc.tree, algorithm="postflop", threads=2)
    two._kernel, two._terminal_kind = _dense_by_another_name, None
    one.iterate(10)
    two.iterate(10)
    assert np.array_equal(one.regrets, two.regrets) and np.array_equal(one.sums, two.sums)
    assert one.best_response_values() == two.best_response_values()


def _suit_isomorphic_copy(tree):
    """Leduc's public tree with each public card of the second suit (odd ids) left out and
    stood for by the same rank's first-suit child, hands permuted by the suit swap."""
    builder = PublicTreeBuilder(hands=tree.hands, initial_reach=tree.initial_reach,
                                num_cards=tree.num_cards, starting_pot=tree.starting_pot)
    swap = [[int(np.flatnonzero(tree.hands[p][:, 0] == (c ^ 1))[0]) for c in tree.hands[p][:, 0]]
            for p in (0, 1)]

    def add(n, parent):
        kw = {"pot": tree.pot[n], "contrib": tuple(tree.contrib[n]),
              "board": tree.board_cards(n)}
        if parent >= 0 and tree.kind[tree.parent[n]] == CHANCE:
            card = int(tree.chance_card[n])
            if card % 2:
                return
            kw.update(card=card, weight=float(tree.chance_weight[n]),
                      isomorphic=[(card ^ 1, swap[0], swap[1])])
        if tree.kind[n] == DECISION:
            new = builder.add_decision(parent, tree.label(n), int(tree.player[n]), **kw)
        elif tree.kind[n] == CHANCE:
            new = builder.add_chance(parent, tree.label(n), **kw)
        else:
            new = builder.add_terminal(parent, tree.label(n), int(tree.kind[n]),
                                       folder=int(tree.folder[n]),
                                       data=int(tree.terminal_data[n]), **kw)
        for c in tree.children(n):
            add(c, new)

    add(0, -1)
    return builder.build(tree.terminals)[0]


def test_suit_isomorphic_chance_children(leduc):
    iso = _suit_isomorphic_copy(leduc.tree)
    assert iso.num_nodes < 0.6 * leduc.tree.num_nodes and iso.iso_card.size == 15
    full = PublicSolver(leduc.tree, algorithm="dcfr")
    half = PublicSolver(iso, algorithm="dcfr")
    full.iterate(200)
    half.iterate(200)
    assert half.game_value()[0] == pytest.approx(full.game_value()[0], abs=1e-6)
    assert half.best_response_values() == pytest.approx(full.best_response_values(), abs=1e-6)
    assert half.strategy(0) == pytest.approx(full.strategy(0), abs=1e-6)
    two = PublicSolver(iso, algorithm="dcfr", threads=2)
    two.iterate(200)
    assert np.array_equal(two.regrets, half.regrets) and np.array_equal(two.sums, half.sums)
    with pytest.raises(ConfigError, match="permutation"):
        builder = PublicTreeBuilder(hands=[[[0], [1]], [[0], [1]]],
                                    initial_reach=[[1, 1], [1, 1]], num_cards=4,
                                    starting_pot=2.0)
        root = builder.add_chance(-1, "", pot=2, contrib=(1, 1))
        builder.add_terminal(root, "2", SHOWDOWN, pot=2, contrib=(1, 1), card=2,
                             weight=0.5, isomorphic=[(3, [0, 0], [0, 1])])


def test_memory_is_refused_before_allocating(leduc):
    need = estimate_memory(leduc.tree.num_nodes, leduc.tree.storage_size, 10, 3, 6)
    with pytest.raises(TreeTooLargeError, match="max_memory_bytes"):
        PublicSolver(leduc.tree, max_memory_bytes=need // 2)
    huge = estimate_memory(10**6, 10**11, 40, 5, 1326)
    assert huge > 8 * 2**30
    assert estimate_memory(10**6, 10**11, 40, 5, 1326, "compressed") < huge


def test_postflop_schedule():
    config = SolverConfig(algorithm="postflop")
    resets = [t for t in range(1, 300) if discounts(config, t)[3] == 0.0]
    assert resets == [1, 2, 5, 17, 65, 257]  # 0-based 0, 1, 4, 16, 64, 256
    pos, neg, floor, _, _ = discounts(config, 11)
    assert neg == 0.5 and not floor and pos == pytest.approx(9**1.5 / (9**1.5 + 1))
    assert discounts(SolverConfig(algorithm="cfr+"), 7) == (1.0, 1.0, True, 1.0, 7.0)
    # restart_limit keeps the restarts up to that iteration and none after; the regret
    # discounts are the preset's.
    capped = SolverConfig(restart_limit=16)
    assert [t for t in range(1, 300) if discounts(capped, t)[3] == 0.0] == [1, 2, 5, 17]
    assert discounts(capped, 66)[3] == pytest.approx((49 / 50) ** 3)  # u = 65 - 16
    assert discounts(capped, 66)[:3] == discounts(config, 66)[:3]
    assert [t for t in range(1, 30) if discounts(SolverConfig(restart_limit=5), t)[3] == 0.0] \
        == [1, 2, 5]


def test_bad_arguments(kuhn):
    with pytest.raises(ConfigError, match="algorithm"):
        PublicSolver(kuhn.tree, algorithm="cfr++")
    with pytest.raises(ConfigError, match="unknown solver parameter"):
        PublicSolver(kuhn.tree, alpah=1.0)
    with pytest.raises(ConfigError, match="storage"):
        SolverConfig(storage="f16")
    with pytest.raises(ConfigError, match="alpha"):
        SolverConfig(alpha=float("nan"))
    with pytest.raises(ConfigError, match="threads"):
        SolverConfig(threads=0)
    with pytest.raises(ConfigError, match="restart_limit"):
        SolverConfig(restart_limit=-1)
    with pytest.raises(ConfigError, match="batch_rivers must be True or False"):
        SolverConfig(batch_rivers="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="PublicTree"):
        PublicSolver("kuhn")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="decision node"):
        PublicSolver(kuhn.tree, locks={3: [[1, 1, 1], [0, 0, 0]]})
    with pytest.raises(ConfigError, match="summing to 1"):
        PublicSolver(kuhn.tree, locks={0: [[1, 1, 1], [1, 0, 0]]})
    solver = PublicSolver(kuhn.tree)
    with pytest.raises(ConfigError, match="iterations"):
        solver.iterate(-1)
    with pytest.raises(ConfigError, match="target_pct"):
        solver.solve(target_pct=-1)
    with pytest.raises(ConfigError, match="decision node"):
        solver.strategy(3)
    with pytest.raises(ConfigError, match="node"):
        node_result(solver, 99)
    with pytest.raises(ConfigError, match="unknown"):
        solve_game("no_such_game")
    with pytest.raises(ConfigError, match="every decision node"):
        strategy_best_responses(kuhn.tree, {0: np.full((2, 3), 0.5)})
