"""The preflop range solver: the tree's rules, the all-in-or-fold tree against the exact
push/fold equilibrium, the engine's exploitability against an independent class-game best
response, realisation factors, saved solves and one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.public.spots.preflop import (
    PreflopSpot,
    build_preflop_tree,
    class_best_response,
    class_payoffs,
    count_terminal_tables,
    decision_lines,
    realised_share,
    solution_class_strategies,
    solve_preflop,
)
from pokerzoo.public.spots.pushfold import solve_pushfold, values_of
from pokerzoo.public.spots.ranges import CLASS_NAMES


def labels(spot: PreflopSpot, line: tuple[str, ...]) -> list[str]:
    return [label for label, _ in spot.actions(line)]


def test_the_default_tree_as_users_write_it():
    spot = PreflopSpot()
    assert labels(spot, ()) == ["fold", "call", "raise 2.5", "allin"]
    assert labels(spot, ("call",)) == ["check", "raise 4", "allin"]
    assert labels(spot, ("raise 2.5",)) == ["fold", "call", "raise 11", "allin"]
    assert labels(spot, ("raise 2.5", "raise 11")) == ["fold", "call", "raise 25", "allin"]
    assert labels(spot, ("raise 2.5", "raise 11", "raise 25")) == ["fold", "call", "allin"]
    assert labels(spot, ("raise 2.5", "allin")) == ["fold", "call"]
    assert dict(spot.actions(("raise 2.5",)))["call"] == "flop"
    assert dict(spot.actions(("allin",)))["call"] == "allin-showdown"
    assert spot.contributions(("raise 2.5", "raise 11")) == (2.5, 11.0)
    assert len(spot.lines()) == 16 and count_terminal_tables(spot) == 2  # L and S - L/2


def test_decision_lines_reach_into_declared_flops():
    spot = PreflopSpot(stack=20, open=(2,), threebet=(), fourbet=(), limp=False,
                       flops=("AsKd2c", "7h6h5d"))
    lines = decision_lines(spot)
    assert lines[: len(spot.lines())] == spot.lines()
    assert ("raise 2", "call", "AsKd2c") in lines
    assert ("raise 2", "call", "7h6h5d", "check") in lines
    assert all(line[:2] == ("raise 2", "call") for line in lines[len(spot.lines()):])
    assert decision_lines(PreflopSpot()) == PreflopSpot().lines()


def test_sizes_caps_antes_and_short_stacks():
    spot = PreflopSpot(open=("3x",), threebet=("3x",), fourbet=(), cap=3, ante=0.5)
    assert labels(spot, ()) == ["fold", "call", "raise 3", "allin"]
    assert labels(spot, ("raise 3",)) == ["fold", "call", "raise 9", "allin"]
    assert labels(spot, ("raise 3", "raise 9")) == ["fold", "call", "allin"]  # no 4-bet size
    assert labels(spot, ("raise 3", "raise 9", "allin")) == ["fold", "call"]  # the cap
    assert spot.contributions(()) == (1.0, 1.5)
    assert spot.bets(("allin",))[0] == 99.5  # the stack less the ante
    short = PreflopSpot(stack=2.0)  # every size over the stack: all-in only
    assert labels(short, ()) == ["fold", "call", "allin"]
    assert labels(PreflopSpot(stack=10, open=(), limp=False), ()) == ["fold", "allin"]


@pytest.mark.parametrize("fields, message", [
    ({"threebet": (3,)}, "below the minimum raise"),
    ({"open": (1.5,)}, "below the minimum raise to 2 bb"),
    ({"open": ("1x",)}, "over 1x"),
    ({"open": ("big",)}, "each size is a raise-to amount"),
    ({"stack": 0.5}, "must cover the big blind"),
    ({"ante": -1.0}, "the ante is 0 or more"),
    ({"cap": 0}, "cap must be an integer from 1 to 8"),
    ({"realization_sb": 0.0}, "realization_sb must be in (0, 10]"),
    ({"sb_range": "ZZ"}, "range"),
    ({"open": (), "limp": False, "allin": False}, "needs an action besides fold"),
    ({"open": list(range(3, 20))}, "at most 8 per raise"),
])
def test_bad_trees_are_one_line(fields, message):
    with pytest.raises(ConfigError, match=None) as err:
        PreflopSpot(**fields)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_files_are_read_in_checked_steps(tmp_path):
    good = tmp_path / "tree.toml"
    good.write_text("[preflop]\nstack = 40\nopen = [2.2]\nthreebet = ['3x']\n")
    assert PreflopSpot.from_toml(good) == PreflopSpot(stack=40, open=(2.2,), threebet=("3x",))
    for text, message in [("stack = 40\n", "needs a [preflop] table"),
                          ("[preflop]\nstacks = 40\n", "unknown preflop key"),
                          ("[preflop]\nstack = '40'\n", "stack must be a number"),
                          ("[preflop\n", "not valid TOML")]:
        good.write_text(text)
        with pytest.raises(ConfigError, match=None) as err:
            PreflopSpot.from_toml(good)
        assert message in str(err.value)
    spot = PreflopSpot(stack=33, fivebet=(60,))
    assert PreflopSpot.from_dict(spot.to_dict()) == spot


def test_realised_share_keeps_the_pot():
    e = np.linspace(0, 1, 11)
    assert np.array_equal(realised_share(e, 1.0, 1.0), e)
    share = realised_share(e, 1.2, 0.8)
    assert np.all(share >= e) and share[0] == 0.0 and share[-1] == 1.0
    # Swapping the factors gives the other player the same share.
    assert np.allclose(realised_share(1 - e, 0.8, 1.2), 1 - share)




@pytest.mark.slow
def test_all_in_or_fold_tree_equals_push_fold(equity_table_built, push_fold_game):
    spot = PreflopSpot(stack=10, open=(), limp=False)
    solution = solve_preflop(spot, equity_table_built, target_bb=1e-6, max_iterations=2000)
    exact = solve_pushfold(push_fold_game, 10.0)
    assert solution.exploitability_bb() <= 1e-6
    assert solution.game_value_bb() == pytest.approx(exact.game_value_bb, abs=2e-6)
    strategies = solution_class_strategies(solution)
    push, call = strategies[()][1], strategies[("allin",)][1]
    # Equilibria of a zero-sum game are interchangeable: each side of the engine's solution
    # against the other side of the LP's is worth the game's value (to the solves' floors).
    mixed_sb, _, _ = values_of(push_fold_game, 10.0, 0.0, push, exact.bb_call)
    mixed_bb, _, _ = values_of(push_fold_game, 10.0, 0.0, exact.sb_push, call)
    assert mixed_sb == pytest.approx(exact.game_value_bb, abs=2e-6)
    assert mixed_bb == pytest.approx(exact.game_value_bb, abs=2e-6)
    # The same classes are played but for a few near-indifferent ones, which may mix apart.
    assert (np.abs(push - exact.sb_push) > 0.05).sum() <= 3
    assert (np.abs(call - exact.bb_call) > 0.05).sum() <= 3
    assert push[CLASS_NAMES.index("T3s")] == pytest.approx(0.0, abs=0.01)  # 7.7 bb threshold
    assert push[CLASS_NAMES.index("K2o")] == pytest.approx(1.0, abs=0.01)


@pytest.mark.slow
@pytest.mark.parametrize("fields", [{}, {"ante": 0.25, "realization_sb": 1.1,
                                         "realization_bb": 0.85, "stack": 40}])
def test_engine_exploitability_equals_an_independent_best_response(equity_table_built,
                                                                     fields):
    spot = PreflopSpot(**fields)
    # Stopped early, so that both best responses gain something to compare.
    solution = solve_preflop(spot, equity_table_built, target_bb=1e-9, max_iterations=20)
    value, br0, br1 = class_best_response(spot, class_payoffs(spot, equity_table_built),
                                          solution_class_strategies(solution))
    engine_br0, engine_br1 = solution.solver.best_response_values()
    assert (br0 + br1) / 2 > 1e-3
    assert br0 == pytest.approx(engine_br0, abs=1e-9)
    assert br1 == pytest.approx(engine_br1, abs=1e-9)
    assert value == pytest.approx(solution.game_value_bb(), abs=1e-9)


@pytest.mark.slow
def test_the_100bb_tree_solves_to_a_hundredth_of_a_big_blind(equity_table_built, tmp_path):
    spot = PreflopSpot()
    solution = solve_preflop(spot, equity_table_built, target_bb=0.01, max_iterations=500)
    assert solution.exploitability_bb() <= 0.01
    root = solution.class_strategy("")
    assert root.shape == (4, 169) and np.allclose(root.sum(axis=0), 1.0)
    aces = CLASS_NAMES.index("AA")
    assert root[0, aces] < 0.01  # nobody folds aces
    facing_allin = solution.class_strategy("raise 2.5, allin")
    assert facing_allin[1, aces] > 0.99 and np.nanmax(facing_allin[0]) > 0.99  # some fold
    assert np.isnan(facing_allin[:, CLASS_NAMES.index("72o")]).all()  # never opened
    ev0, ev1 = solution.ev("raise 2.5")
    assert ev0.shape == ev1.shape == (1326,)
    report = solution.to_json(lines=["", "raise 2.5"])
    assert set(report["strategy"]) == {"", "raise 2.5"}
    assert report["strategy"][""]["fold"]["AA"] < 0.01
    chart = solution.chart("raise 2.5", tmp_path / "bb.png")
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ConfigError, match="no node at line"):
        solution.strategy("raise 3")
    # Realisation in position: the small blind wins more.
    favoured = PreflopSpot(realization_sb=1.15, realization_bb=0.85)
    better = solve_preflop(favoured, equity_table_built, target_bb=0.02, max_iterations=500)
    assert better.game_value_bb() > solution.game_value_bb() + 0.05


@pytest.mark.slow
def test_a_saved_preflop_solve_loads_with_the_same_values(equity_table_built, tmp_path):
    from pokerzoo.public.engine.results import load_solver, save_solver

    spot = PreflopSpot(stack=15, open=(2,), threebet=(), fourbet=())
    solution = solve_preflop(spot, equity_table_built, target_bb=0.05, max_iterations=50)
    save_solver(solution.solver, tmp_path / "pre")
    loaded = load_solver(tmp_path / "pre")
    assert loaded.exploitability() == pytest.approx(solution.exploitability_bb(), abs=1e-12)
    tree = build_preflop_tree(spot, equity_table_built).tree
    assert loaded.tree.num_nodes == tree.num_nodes
