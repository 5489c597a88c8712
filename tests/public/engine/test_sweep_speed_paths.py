"""The fast paths of the public sweep: compiled hold'em terminal tables, the cached sweep with
typed terminals, zero-reach pruning, the threads' task order, and the builder's module."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.games import load_game
from pokerzoo.public.engine import sweep_kernel as kernel
from pokerzoo.public.engine.holdem_terminal import holdem_terminal_kernel
from pokerzoo.public.engine.small_games import public_game_tree
from pokerzoo.public.engine.solver import PublicSolver, _subtree_cost, estimate_memory, tree_memory
from pokerzoo.public.engine.tree import DECISION
from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree

OOP = "AA,KK,QQ,AKs,T9s,87s:0.5,A5s"
IP = "JJ-99,AQs,KQo:0.5,65s,QJs"


@pytest.fixture(scope="module")
def turn_tree():
    spot = HoldemSpot("QsJh2h8c", 100, 150, OOP, IP, turn_sizes="50%",
                      river_sizes=("60%", "a"))
    return build_spot_tree(spot)


def test_compiled_terminals_equal_the_python_values(turn_tree):
    tree = turn_tree
    terminals = tree.terminals
    term, data = terminals.compiled(tree)
    assert term is holdem_terminal_kernel
    rng = np.random.default_rng(3)
    for node in np.flatnonzero(tree.kind >= 2).tolist():
        for p in (0, 1):
            h = tree.num_hands(1 - p)
            reach = rng.random(h) * (rng.random(h) < 0.4)
            out = np.full(tree.num_hands(p), np.nan)
            term(node, p, reach, out, data)
            expected = terminals.values(tree, node, p, reach)
            np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-9)


def _generic(solver: PublicSolver) -> PublicSolver:
    """The same solver sweeping through ``sweep_kernel.sweep`` with the kernel passed in."""
    solver._terminal_kind = None
    return solver


@pytest.mark.parametrize("storage", ["f32", "compressed"])
def test_cached_sweep_equals_the_generic_sweep(turn_tree, storage):
    cached = PublicSolver(turn_tree, storage=storage)
    generic = _generic(PublicSolver(turn_tree, storage=storage))
    cached.iterate(4)
    generic.iterate(4)
    for key in ("regrets", "sums", "regrets16", "sums16", "rscale", "sscale"):
        assert np.array_equal(getattr(cached, key), getattr(generic, key))
    assert cached.best_response_values() == generic.best_response_values()
    assert cached.game_value() == generic.game_value()


def test_cached_sweep_serves_dense_terminals():
    tree = public_game_tree(load_game("kuhn_poker")).tree
    solver = PublicSolver(tree)
    assert solver._terminal_kind == kernel.TERMINAL_DENSE
    solver.iterate(300)
    assert abs(solver.game_value()[0] + 1 / 18) < 2e-3


def test_pruned_zero_reach_subtrees_keep_every_value(turn_tree):
    tree = turn_tree
    root = 0
    actions, hands = int(tree.num_children[root]), tree.num_hands(0)
    never_second = np.zeros((actions, hands))
    never_second[0] = 1.0  # player 0 never takes the root's second action
    solver = PublicSolver(tree, locks={root: never_second})
    solver.iterate(6)
    pruned = solver.best_response_values()
    # A recorded node turns pruning off: the same pass, every subtree swept.
    below = int(tree.first_child[root]) + 1
    full = [solver._sweep(kernel.MODE_BEST_RESPONSE, p, (1.0, 1.0, False, 1.0, 0.0),
                          record=below)[0] for p in (0, 1)]
    assert pruned == (solver._value(0, full[0]), solver._value(1, full[1]))


def test_threads_sweep_the_largest_subtrees_first_with_the_same_bits(turn_tree):
    one = PublicSolver(turn_tree)
    two = PublicSolver(turn_tree, threads=2)
    one.iterate(5)
    two.iterate(5)
    assert np.array_equal(one.regrets, two.regrets) and np.array_equal(one.sums, two.sums)
    cost = _subtree_cost(turn_tree)
    terminals = int(np.sum(turn_tree.kind >= 2))
    hands = turn_tree.num_hands(0) + turn_tree.num_hands(1)
    assert cost[0] == turn_tree.storage_size + terminals * hands


def test_memory_estimate_covers_what_the_solver_allocates(turn_tree):
    tree = turn_tree
    for storage in ("f32", "compressed"):
        solver = PublicSolver(tree, storage=storage, threads=2)
        arrays = [solver.regrets, solver.sums, solver.regrets16, solver.sums16, solver.rscale,
                  solver.sscale, solver.lock_offset, solver.lock_values]
        tables = [a for a in solver._data if isinstance(a, np.ndarray)]
        own = sum(a.nbytes for a in tables if not any(
            np.shares_memory(a, getattr(tree, f)) for f in ("kind", "folder", "contrib",
                                                              "board")))
        every_array = [getattr(tree, name) for name in tree.__dataclass_fields__]
        tree_held = sum(a.nbytes for a in every_array if isinstance(a, np.ndarray)) + sum(
            a.nbytes for group in every_array if isinstance(group, tuple)
            for a in group if isinstance(a, np.ndarray))
        held = sum(a.nbytes for a in arrays) + tree_held + own
        assert solver.memory_bytes >= held
        assert tree_memory(tree, solver._data) == tree_held + own
        decisions = tree.kind == DECISION
        assert solver.memory_bytes == estimate_memory(
            tree.num_nodes, tree.storage_size, int(tree.depth.max()),
            int(tree.num_children[decisions].max()),
            max(tree.num_hands(0), tree.num_hands(1)), storage, 0, 2,
            tree_bytes=tree_held + own, frontier_nodes=solver._frontier.size,
            frontier_tasks=len(solver._tasks))
        # What a threaded pass keeps beyond the sweeps' buffers is counted as well.
        assert solver.memory_bytes - estimate_memory(
            tree.num_nodes, tree.storage_size, int(tree.depth.max()),
            int(tree.num_children[decisions].max()),
            max(tree.num_hands(0), tree.num_hands(1)), storage, 0, 2,
            tree_bytes=tree_held + own) == 8 * max(tree.num_hands(0), tree.num_hands(1)) * (
                3 * solver._frontier.size + len(solver._tasks)) > 0


def test_built_trees_keep_compact_indices(turn_tree):
    tree = turn_tree
    for name in ("parent", "first_child", "terminal_data", "iso_offset", "offset"):
        assert getattr(tree, name).dtype == np.int32, name  # offset: storage < 2**31
    assert tree.depth.dtype == tree.action_label.dtype == np.int16
    assert all(p.dtype == np.int16 for p in tree.iso_perm)


def test_isomorphism_permutations_are_kept_once():
    spot = HoldemSpot("Ks7h2h5h", 100, 150, "AA,KK,QQ,AKs", "JJ,TT,AQs,KQo",
                      turn_sizes="50%", river_sizes="a")
    tree = build_spot_tree(spot)
    rows = tree.iso_card.size
    assert rows > 0 and tree.iso_row.shape == (rows,)
    distinct = tree.iso_perm[0].shape[0]
    assert distinct < rows  # one suit swap serves many cards and nodes
    for p in (0, 1):
        perms = tree.iso_perm[p][tree.iso_row]  # every row's permutation of p's hands
        assert np.array_equal(np.sort(perms, axis=1),
                              np.broadcast_to(np.arange(tree.num_hands(p)), perms.shape))
        assert np.unique(tree.iso_perm[p], axis=0).shape[0] <= distinct


def test_regret_matching_divides_exactly() -> None:
    """node_strategy's one division per hand with a fused correction gives x / t for every
    action bit for bit (so the iterates are those of a division per entry), the uniform
    strategy where no regret is positive, and the average strategy the same way."""
    rng = np.random.default_rng(11)
    actions, hands, nodes = 4, 257, 60
    size = nodes * actions * hands
    # float32 like the solver's storage, of every sign and many magnitudes, with zeros.
    regrets = (rng.normal(size=size) * 10.0 ** rng.integers(-20, 20, size)).astype(np.float32)
    regrets[rng.random(size) < 0.2] = 0.0
    sums = np.abs(regrets)
    offset = (np.arange(nodes) * actions * hands).astype(np.int32)
    empty16 = np.zeros(0, np.int16)
    scales = np.zeros(0, np.float32)
    locks = np.full(0, -1, np.int64)
    for average, table in ((False, regrets), (True, sums)):
        for n in range(nodes):
            out = np.full((actions, hands), np.nan)
            storage = kernel.Storage(False, regrets, sums, empty16, empty16.astype(np.uint16),
                                     scales, scales, np.zeros(0, np.float32))
            kernel.node_strategy(n, hands, actions, average, offset, storage,
                                 kernel.Locks(locks, np.zeros(0)), np.zeros(2 * hands), out)
            block = table[offset[n]:offset[n] + actions * hands].reshape(actions, hands)
            positive = np.maximum(block.astype(np.float64), 0.0)
            total = np.zeros(hands)
            for a in range(actions):  # the kernel's order of additions
                total += positive[a]
            with np.errstate(divide="ignore", invalid="ignore"):
                expected = np.where(total > 0.0, positive / total, 1.0 / actions)
            assert np.array_equal(out.view(np.int64), expected.view(np.int64))


@pytest.fixture(scope="module")
def flop_tree():
    spot = HoldemSpot("QsJh2h", 100, 150, "AA,KK,AKs,T9s,87s:0.5,A5s,99",
                      "JJ-TT,AQs,KQo:0.5,QJs,65s", flop_sizes="50%", turn_sizes="50%",
                      river_sizes=("60%", "a"))
    return build_spot_tree(spot)


@pytest.mark.parametrize(("threads", "storage"), [(1, "f32"), (2, "f32"), (2, "compressed")])
def test_batched_river_showdowns_keep_every_bit(flop_tree, threads, storage):
    """Each river board's showdowns of a turn subtree evaluated together (the default) give
    the regrets and sums of evaluating them one by one, with a locked river node too."""
    tree = flop_tree
    river = next(n for n in np.flatnonzero(tree.kind == DECISION).tolist()
                 if int(np.sum(tree.boards[tree.board[n]] >= 0)) == 5)
    shape = (int(tree.num_children[river]), tree.num_hands(int(tree.player[river])))
    locks = {river: np.full(shape, 1.0 / shape[0])}
    one_by_one = PublicSolver(tree, threads=threads, batch_rivers=False, locks=locks,
                              storage=storage)
    batched = PublicSolver(tree, threads=threads, locks=locks, storage=storage)
    assert batched._rivers is not None and one_by_one._rivers is None
    one_by_one.iterate(3)
    batched.iterate(3)
    for key in ("regrets", "sums", "regrets16", "sums16", "rscale", "sscale"):
        assert np.array_equal(getattr(one_by_one, key), getattr(batched, key)), key
    assert batched.exploitability() == one_by_one.exploitability()
    # Its buffers are in the memory need, per thread.
    assert batched.memory_bytes > one_by_one.memory_bytes


def test_river_batching_needs_a_flop_tree(turn_tree, flop_tree):
    assert PublicSolver(turn_tree)._rivers is None  # the subtrees below the turn hold no chance
    assert PublicSolver(flop_tree, batch_rivers=False)._rivers is None
    solver = PublicSolver(flop_tree)
    starts, nodes, max_group = solver._rivers
    # Every chance node below the first ones (the turn cards) deals a river.
    assert starts[-1] == nodes.size == int(np.sum(flop_tree.kind == 1)) - solver._frontier.size
    assert all(int(np.sum(flop_tree.boards[flop_tree.board[n]] >= 0)) == 4 for n in nodes)
    assert max_group > 0
