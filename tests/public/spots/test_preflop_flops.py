"""Flop subgames of the preflop solver (``pokerzoo.public.spots.preflop_flops``).

The flop equity is checked against a direct count with eval7; the abstract game's value and
best responses are recomputed here in numpy from the spot's rules and that equity (per-pair
flop probabilities counted with plain loops), independent of the engine's tree, base
matrices, scales and sweeps.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerzoo.errors import ConfigError, TreeTooLargeError
from pokerzoo.public.spots import preflop_flops as pf
from pokerzoo.public.spots.preflop import (
    PreflopSpot,
    _live_pairs,
    build_preflop_tree,
    class_best_response,
    class_payoffs,
    count_terminal_tables,
    solve_preflop,
)
from pokerzoo.public.spots.preflop_equity import COMBOS, NUM_COMBOS, combo_of

SMALL = {"stack": 20.0, "open": (2.5,), "limp": True, "limp_raise": (), "threebet": (),
         "fourbet": (), "allin": True, "cap": 2}
"""A small preflop tree: open or limp, all-in over either, the big blind checks a limp."""


@pytest.fixture(scope="module")
def flop_cache(tmp_path_factory, equity_cache_root, monkeypatch_module):
    """The flop tables go to the session's cache folder, not the user's."""
    monkeypatch_module.setenv("POKERZOO_CACHE", str(equity_cache_root))
    return equity_cache_root


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def _direct_count(flop: str, hand: str, other: str) -> tuple[int, int]:
    import eval7

    board = [eval7.Card(flop[k:k + 2]) for k in (0, 2, 4)]
    mine = [eval7.Card(hand[:2]), eval7.Card(hand[2:])]
    theirs = [eval7.Card(other[:2]), eval7.Card(other[2:])]
    used = {str(c) for c in board + mine + theirs}
    rest = [c for c in eval7.Deck().cards if str(c) not in used]
    wins = ties = 0
    for turn, river in itertools.combinations(rest, 2):
        a = eval7.evaluate(board + mine + [turn, river])
        b = eval7.evaluate(board + theirs + [turn, river])
        wins += a > b
        ties += a == b
    return wins, ties


def test_flop_equity_equals_a_direct_count(tmp_path):
    table = pf.flop_equity("KdAs2c", folder=tmp_path)
    assert table.cards == pf.parse_flop("AsKd2c")
    for hand, other in [("AhAd", "KsKh"), ("7c6c", "QhJh"), ("2d2h", "AcQc"), ("Qs3s", "Ts9s")]:
        i, j = combo_of(hand), combo_of(other)
        wins, ties = _direct_count("AsKd2c", hand, other)
        assert (int(table.wins[i, j]), int(table.ties[i, j])) == (wins, ties)
        assert int(table.wins[j, i]) == pf.RUNOUTS_PER_PAIR - wins - ties
    blocked = combo_of("AsQh")
    assert not table.live[blocked].any() and not table.wins[blocked].any()
    # A suit swap of the flop reads the same cached canonical table, permuted.
    swapped = pf.flop_equity("KhAc2s", folder=tmp_path)
    assert len(list(tmp_path.glob("flop_v1_*.npz"))) == 1
    i, j = combo_of("AdAh"), combo_of("KcKs")
    assert (int(swapped.wins[i, j]), int(swapped.ties[i, j])) == _direct_count(
        "KhAc2s", "AdAh", "KcKs")


def test_per_pair_flop_probabilities_sum_to_one():
    spot = PreflopSpot(**SMALL, flops=("AsKd2c", "AhKh7d", "9c8c2d"), flop_weights=(1, 2, 3))
    live = _live_pairs()
    probs = pf.pair_flop_probabilities(spot, live)
    total = probs.sum(axis=0)
    uncovered = live & (total == 0)
    assert np.allclose(total[live & ~uncovered], 1.0, rtol=0, atol=1e-12)
    assert pf.uncovered_pairs(spot, live) == int(uncovered.sum()) > 0
    # Plain loops for a few pairs: the declared weights over the flops each pair leaves.
    weights = np.array([1, 2, 3]) / 6
    for hand, other in [("AsQs", "JhJd"), ("AhAd", "KsKc"), ("9c9h", "2c2h"), ("Ks2d", "Ah7c")]:
        i, j = combo_of(hand), combo_of(other)
        held = set(COMBOS[i]) | set(COMBOS[j])
        free = np.array([not held & set(pf.parse_flop(f)) for f in spot.flops])
        want = weights * free / (weights * free).sum() if free.any() else np.zeros(3)
        assert np.allclose(probs[:, i, j], want, rtol=0, atol=1e-15)
    assert not probs[:, ~live].any()


def test_bad_flop_input_is_one_line_config_error():
    bad = [
        {"flops": ("AsKd",)}, {"flops": ("AsAsKd",)}, {"flops": ("AsKd2c", "2cKdAs")},
        {"flops": ("AsKd1c",)}, {"flops": (7,)}, {"flops": ("AsKd2c",), "flop_weights": (1, 2)},
        {"flops": ("AsKd2c",), "flop_weights": (-1,)}, {"flop_bet": ("big",)},
        {"flop_bet": (0,)}, {"flop_raise": (50, "2x")}, {"flop_cap": -1},
        {"flop_allin": "yes"}, {"flops": ("AsKd2c",), "realization_sb": 1.1},
        {"flops": tuple(f"{a}{b}{c}" for a, b, c in itertools.combinations(
            ["As", "Ks", "Qs", "Js", "Ts", "9s", "8s", "7s", "6s"], 3))},
    ]
    for fields in bad:
        with pytest.raises(ConfigError) as info:
            PreflopSpot(**{**SMALL, **fields})
        message = str(info.value)
        assert message and "\n" not in message, fields
    with pytest.raises(ConfigError, match="flop_cap must be an integer"):
        PreflopSpot.from_dict({"flop_cap": 2.0})
    spot = PreflopSpot.from_dict({"flops": ["2cKdAs", "7h 6h 2d"], "flop_weights": [1, 2],
                                  "flop_bet": ["33%", 75], "flop_raise": 100})
    assert spot.flops == ("AsKd2c", "7h6h2d") and spot.flop_bet == (33.0, 75.0)
    assert PreflopSpot.from_dict(spot.to_dict()) == spot


def test_flop_tree_too_large_is_refused_before_allocating():
    spot = PreflopSpot(flops=tuple(f"{a}{b}2c" for a, b in itertools.combinations(
        ["As", "Ks", "Qs", "Js", "Ts", "9s", "8s", "7s"], 2)),
        flop_bet=(25, 50, 75, 100, 150, 200), flop_raise=(50, 100), flop_cap=6)
    with pytest.raises(TreeTooLargeError, match="flop subgames would add"):
        build_preflop_tree(spot, table=None)


def test_base_matrices_counted():
    assert count_terminal_tables(PreflopSpot()) == 2
    assert count_terminal_tables(PreflopSpot(realization_sb=1.1, realization_bb=0.9)) == 3
    assert count_terminal_tables(PreflopSpot(flops=("AsKd2c", "7h6h2d"))) == 6


def test_flop_actions():
    spot = PreflopSpot(**SMALL, flops=("AsKd2c",), flop_bet=(50, "100%"), flop_raise=(100,),
                       flop_cap=2)
    assert [a for a, _ in pf.flop_actions(spot, 2.5, ())] == ["check", "bet 2.5", "bet 5",
                                                             "allin"]
    assert pf.flop_actions(spot, 2.5, ("check",))[0] == ("check", "showdown")
    # facing 2.5 into 5: pot after the call 10, raise 100% to 2.5 + 10 on the flop
    assert [a for a, _ in pf.flop_actions(spot, 2.5, ("bet 2.5",))] == [
        "fold", "call", "raise 12.5", "allin"]
    assert [a for a, _ in pf.flop_actions(spot, 2.5, ("bet 2.5", "raise 12.5"))] == [
        "fold", "call"]
    assert pf.flop_contributions(spot, 2.5, ("check", "allin")) == (20.0, 2.5)


# ---------------------------------------------------------------------------------------------
# The abstract game in numpy
# ---------------------------------------------------------------------------------------------


def _numpy_game(spot: PreflopSpot, table, flop_tables):
    """Player 0's payoff matrix of every terminal line, from the rules and the equities."""
    live = _live_pairs()
    equity = np.where(live, table.equity, 0.0)
    weights = np.ones(len(spot.flops)) if not spot.flop_weights else np.array(spot.flop_weights)
    weights = weights / weights.sum()
    held = np.zeros((NUM_COMBOS, 52), dtype=bool)
    held[np.arange(NUM_COMBOS), COMBOS[:, 0]] = True
    held[np.arange(NUM_COMBOS), COMBOS[:, 1]] = True
    unblocked = []
    for name in spot.flops:
        free = np.asarray(~held[:, list(pf.parse_flop(name))].any(axis=1))
        unblocked.append(live & free[:, None] & free[None, :])
    cover = sum(w * u for w, u in zip(weights, unblocked))
    probability = [np.where(u, w / np.where(cover > 0, cover, 1.0), 0.0)
                   for w, u in zip(weights, unblocked)]
    return live, equity, probability


def _walk(spot, strategies, live, equity, probability, flop_tables, player, opp, mode):
    """Player ``player``'s counterfactual values per combo: ``mode`` "play" (both play their
    strategies) or "best" (``player`` best-responds)."""

    def value(matrix, reach):
        return matrix @ reach if player == 0 else -(reach @ matrix)

    def combine(actor, line, values):
        stacked = np.stack(values)
        if actor != player:
            return stacked.sum(axis=0)
        if mode == "best":
            return stacked.max(axis=0)
        return (strategies[line] * stacked).sum(axis=0)

    def flop(line, f, flop_line, reach, start):
        actor = 1 - len(flop_line) % 2
        full = line + (spot.flops[f],) + flop_line
        values = []
        for k, (label, then) in enumerate(pf.flop_actions(spot, start, flop_line)):
            child = reach * strategies[full][k] if actor != player else reach
            after = flop_line + (label,)
            c0, c1 = pf.flop_contributions(spot, start, after)
            if then == "node":
                values.append(flop(line, f, after, child, start))
            elif then == "fold":
                values.append(value(probability[f] * (-c0 if actor == 0 else c1), child))
            else:
                share = flop_tables[f].equity
                values.append(value(probability[f] * ((c0 + c1) * share - c0), child))
        return combine(actor, full, values)

    def walk(line, reach):
        actor = len(line) % 2
        values = []
        for k, (label, then) in enumerate(spot.actions(line)):
            child = reach * strategies[line][k] if actor != player else reach
            after = line + (label,)
            c0, c1 = spot.contributions(after)
            if then == "node":
                values.append(walk(after, child))
            elif then == "fold":
                values.append(value(live * (-c0 if actor == 0 else c1), child))
            elif then == "allin-showdown":
                values.append(value((c0 + c1) * equity - c0 * live, child))
            else:
                values.append(sum(flop(after, f, (), child, c0) for f in range(len(spot.flops))))
        return combine(actor, line, values)

    return walk((), opp)


def _strategies(solution):
    out = {}
    for line, node in solution.built.node_of.items():
        if solution.tree.kind[node] == 0:
            out[line] = solution.strategy(line)
    return out


def _numpy_values(solution, table, flop_tables):
    spot = solution.spot
    live, equity, probability = _numpy_game(spot, table, flop_tables)
    strategies = _strategies(solution)
    reach = [spot.range_weights(0), spot.range_weights(1)]
    mass = float(reach[0] @ live @ reach[1])
    args = (spot, strategies, live, equity, probability, flop_tables)
    value = float(reach[0] @ _walk(*args, 0, reach[1], "play")) / mass
    br0 = float(reach[0] @ _walk(*args, 0, reach[1], "best")) / mass
    br1 = float(reach[1] @ _walk(*args, 1, reach[0], "best")) / mass
    return value, br0, br1


@pytest.mark.slow
def test_check_only_flop_value_equals_numpy(equity_table_built, flop_cache):
    spot = PreflopSpot(**SMALL, flops=("7h6h2d",), flop_bet=(), flop_allin=False)
    solution = solve_preflop(spot, equity_table_built, target_bb=1e-9, max_iterations=1)
    # The flop line's strategy is read by its line: one action, check.
    assert solution.actions("call, check, 7h6h2d") == ["check"]
    assert solution.class_strategy("call, check, 7h6h2d, check").shape == (1, 169)
    flops = [pf.flop_equity(name) for name in spot.flops]
    value, _, _ = _numpy_values(solution, equity_table_built, flops)
    assert solution.game_value_bb() == pytest.approx(value, abs=1e-12)
    # Uniform play (no iteration averaged yet in a fresh solver) gives the same value too.
    from pokerzoo.public.engine.solver import PublicSolver

    fresh = PublicSolver(solution.tree)
    solution.solver = fresh
    value, _, _ = _numpy_values(solution, equity_table_built, flops)
    assert float(fresh.game_value()[0]) == pytest.approx(value, abs=1e-12)


@pytest.mark.slow
def test_flop_exploitability_equals_numpy_best_response(equity_table_built, flop_cache):
    spot = PreflopSpot(**SMALL, flops=("AsKd2c", "7h6h2d"), flop_weights=(1, 3),
                       flop_bet=(50,), flop_allin=True, flop_cap=2)
    solution = solve_preflop(spot, equity_table_built, target_bb=1e-6, max_iterations=20,
                             check_every=20)
    flops = [pf.flop_equity(name) for name in spot.flops]
    value, br0, br1 = _numpy_values(solution, equity_table_built, flops)
    assert solution.game_value_bb() == pytest.approx(value, abs=1e-9)
    assert solution.exploitability_bb() == pytest.approx((br0 + br1) / 2, abs=1e-9)
    assert solution.exploitability_bb() < 0.5
    strategy = solution.class_strategy("raise 2.5, call, AsKd2c")
    assert strategy.shape == (3, 169)
    assert np.allclose(np.nansum(strategy, axis=0)[np.isfinite(strategy[0])], 1.0)


@pytest.mark.slow
def test_scaled_bases_keep_the_preflop_game(equity_table_built):
    """No flops: the tree of shared base matrices gives the class game's value and best
    responses (the preflop module's independent check)."""
    spot = PreflopSpot(**SMALL, realization_sb=1.1, realization_bb=0.9)
    built = build_preflop_tree(spot, equity_table_built)
    assert built.tree.terminals.payoffs.shape[0] == 3
    solution = solve_preflop(spot, equity_table_built, target_bb=1e-6, max_iterations=30,
                             check_every=30)
    from pokerzoo.public.spots.preflop import solution_class_strategies

    value, br0, br1 = class_best_response(spot, class_payoffs(spot, equity_table_built),
                                          solution_class_strategies(solution))
    assert solution.game_value_bb() == pytest.approx(value, abs=1e-9)
    assert solution.exploitability_bb() == pytest.approx((br0 + br1) / 2, abs=1e-9)


@pytest.mark.slow
def test_flop_solver_saves_and_loads(equity_table_built, flop_cache, tmp_path):
    from pokerzoo.public.engine.results import load_solver, save_solver

    spot = PreflopSpot(**SMALL, flops=("7h6h2d",), flop_bet=(), flop_allin=False)
    solution = solve_preflop(spot, equity_table_built, target_bb=1e-9, max_iterations=3,
                             check_every=3)
    path = tmp_path / "flop"
    save_solver(solution.solver, path)
    loaded = load_solver(path)
    assert np.array_equal(loaded.tree.terminals.scale, solution.tree.terminals.scale)
    assert loaded.exploitability() == solution.solver.exploitability()


@pytest.mark.parametrize("backend", ["numba", "torch"])
def test_scaled_dense_terminals_give_the_same_bits(backend):
    """Base matrices twice the payoffs with a scale of one half (both exact in binary) solve
    Leduc to the same bits as the plain matrices, in the numba sweep and the torch backend;
    a bad table or scale is refused."""
    import dataclasses

    from pokerzoo.games import load_game
    from pokerzoo.public.engine.small_games import DenseTerminals, public_game_tree
    from pokerzoo.public.engine.solver import PublicSolver

    if backend == "torch":
        pytest.importorskip("torch")
    tree = public_game_tree(load_game("leduc_holdem")).tree
    payoffs = tree.terminals.payoffs
    rows = np.arange(payoffs.shape[0])
    scaled = DenseTerminals(2 * payoffs[::-1], rows[::-1], np.full(rows.shape, 0.5))
    other = dataclasses.replace(tree, terminals=scaled)
    plain = PublicSolver(tree, algorithm="dcfr", backend=backend)
    ours = PublicSolver(other, algorithm="dcfr", backend=backend)
    plain.solve(max_iterations=20, check_every=20)
    ours.solve(max_iterations=20, check_every=20)
    for node in np.flatnonzero(tree.kind == 0):
        assert np.array_equal(plain.strategy(int(node)), ours.strategy(int(node)))
    assert plain.exploitability() == ours.exploitability()
    with pytest.raises(ConfigError, match="both table and scale"):
        DenseTerminals(payoffs, rows)
    with pytest.raises(ConfigError, match="must index"):
        DenseTerminals(payoffs, rows + 1, np.ones(rows.shape))
