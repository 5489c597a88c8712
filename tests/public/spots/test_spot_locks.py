"""Node locking by line and hand: a locked line plays its lock after the solve (Python API
and a spot file through solve.py), and every mistake is one ConfigError line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.public.engine.tree import PublicTree
from pokerzoo.public.spots.holdem_spot import HoldemSpot, SpotSolution, build_spot_tree, solve_spot
from pokerzoo.public.spots.spot_locks import line_locks, parse_line

OOP = "AA,KK,QQ,AKs,T9s,87s:0.5"
IP = "JJ-99,AQs,KQo:0.5,65s"
SPOT = HoldemSpot("QsJh2h8c3d", 100, 150, OOP, IP, river_sizes=("50%", "a"))
SPOT_TOML = (
    'board = "QsJh2h8c3d"\nstarting_pot = 100\neffective_stack = 150\n'
    f'oop_range = "{OOP}"\nip_range = "{IP}"\nriver_sizes = ["50%", "a"]\n\n'
    '[locks.check]\nJJ = "check"\n"*" = { check = 0.3 }\n'
)


@pytest.fixture(scope="module")
def tree() -> PublicTree:
    return build_spot_tree(SPOT)


def test_a_locked_line_plays_its_lock_after_the_solve() -> None:
    locks = {"check": {"JJ": "check", "AQs": {"check": 0.25}, "*": {"bet 50": 1}}}
    solution = solve_spot(SPOT, exploitability_pct=None, max_iterations=30, locks=locks)
    labels, strategy = solution.strategy(["check"])
    assert labels == ["check", "bet 50"]
    names = solution.tree.hand_names[1]
    jj = np.array([n[0] == "J" and n[2] == "J" for n in names])
    aqs = np.array([n[0] == "A" and n[2] == "Q" and n[1] == n[3] for n in names])
    assert jj.sum() == 3 and aqs.sum() == 3
    np.testing.assert_allclose(strategy[:, jj], [[1.0] * 3, [0.0] * 3])
    np.testing.assert_allclose(strategy[:, aqs], [[0.25] * 3, [0.75] * 3])
    rest = ~jj & ~aqs
    np.testing.assert_allclose(strategy[0, rest], 0.0)
    np.testing.assert_allclose(strategy[1, rest], 1.0)


def test_a_spot_file_lock_through_solve_py(tmp_path: Path) -> None:
    import json

    from pokerzoo.runs.solve import main

    spot = tmp_path / "locked.toml"
    spot.write_text(SPOT_TOML)
    out, saved = tmp_path / "out.json", tmp_path / "solved.ckpt"
    assert main([str(spot), "--quiet", "--iterations", "20", "--line", "check",
                 "--json", str(out), "--save", str(saved)]) == 0
    labels, strategy = SpotSolution.load(saved).strategy(["check"])
    names = build_spot_tree(SPOT).hand_names[1]
    jj = np.array([n[0] == "J" and n[2] == "J" for n in names])
    np.testing.assert_allclose(strategy[:, jj], np.array([[1.0], [0.0]]).repeat(3, axis=1))
    np.testing.assert_allclose(strategy[:, ~jj], np.array([[0.3], [0.7]]).repeat(
        int((~jj).sum()), axis=1))
    assert set(json.loads(out.read_text())["lines"]["check"]) == {"check", "bet 50"}


def test_solve_spot_reads_the_locks_of_a_spot_file(tmp_path: Path) -> None:
    spot = tmp_path / "locked.toml"
    spot.write_text(SPOT_TOML)
    solution = solve_spot(spot, exploitability_pct=None, max_iterations=5)
    assert solution.spot == SPOT
    assert list(solution.solver.locks) == [solution.node(["check"])]


def test_left_out_actions_share_the_rest_equally(tree: PublicTree) -> None:
    node = 0
    for label in ("check", "bet 50"):
        node = next(c for c in tree.children(node) if tree.label(c) == label)
    actions = [tree.label(c) for c in tree.children(node)]
    assert len(actions) == 3  # fold, call, all-in
    (locked,) = line_locks(tree, {"check,bet 50": {"*": {actions[0]: 0.4}}}).values()
    np.testing.assert_allclose(locked, np.array([[0.4], [0.3], [0.3]]).repeat(
        tree.num_hands(0), axis=1))


def test_root_and_node_ids_name_the_root(tree: PublicTree) -> None:
    assert parse_line("root") == parse_line("") == []
    by_name = line_locks(tree, {"root": {"*": "check"}})
    by_list = line_locks(tree, {(): {"*": "check"}})
    assert list(by_name) == list(by_list) == [0]
    array = np.array(by_name[0])
    assert line_locks(tree, {0: array})[0] is array


@pytest.mark.parametrize(
    ("locks", "message"),
    [
        ({"check, raise 5": {"*": "call"}}, "no action 'raise 5' after ['check']; there: "),
        ({"check": {"JJ": "raise"}}, "'JJ': no action 'raise' there; allowed: ['check', "),
        ({"check": {"AA": "check", "*": "check"}},
         "'AA': no hand of the in position player's range there"),
        ({"check": {"QsQh": "check", "*": "check"}}, "'QsQh': "),
        ({"check": {"JJ": "check"}}, "leaves 28 of the in position player's hands unlocked"),
        ({"check": {"*": {"check": 0.7, "bet 50": 0.7}}}, "the frequencies sum to 1.4, more"),
        ({"check": {"*": {"check": 0.2, "bet 50": 0.2}}}, "they must sum to 1"),
        ({"check": {"*": {"check": -0.1}}}, "must be a number in 0..1, got -0.1"),
        ({"check": {"JJ": "check", "JsJd": "check", "*": "check"}}, "another entry"),
        ({"check": {"*": "check"}, ("check",): {"*": "check"}}, "locked twice"),
        ({"check": {"*": {}}}, "must map actions to frequencies"),
        ({"check, check": {"*": "check"}}, "ends at no decision"),
        ({"check": {"XX": "check"}}, "'XX': "),
        ({True: {"*": "check"}}, "keyed by a line or a node id"),
    ],
)
def test_bad_locks_are_one_line(tree: PublicTree, locks: dict, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        line_locks(tree, locks)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_bad_lock_in_a_spot_file_is_refused_before_any_iteration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pokerzoo.public.engine.solver as solver

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the solver was built for a spot with a bad lock")

    monkeypatch.setattr(solver, "PublicSolver", never)
    spot = tmp_path / "bad.toml"
    spot.write_text(SPOT_TOML.replace('JJ = "check"', 'JJ = "fold"'))
    with pytest.raises(ConfigError, match=r"'JJ': no action 'fold' there"):
        solve_spot(spot, exploitability_pct=None, max_iterations=5)
