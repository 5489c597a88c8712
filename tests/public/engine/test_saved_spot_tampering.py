"""Tampered saved spots and solvers are refused in one line naming the field, never crash."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokerzoo.checkpoint import read_checkpoint, write_checkpoint
from pokerzoo.errors import CheckpointError
from pokerzoo.games import load_game
from pokerzoo.public.engine.results import CHECKPOINT_NAME, load_solver, save_solver
from pokerzoo.public.engine.small_games import public_game_tree
from pokerzoo.public.engine.solver import PublicSolver
from pokerzoo.public.spots.holdem_spot import HoldemSpot, SpotSolution, solve_spot

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def saved_spot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spot = HoldemSpot("QsJh2h8c3d", 100, 150, "AA,KK,QQ,AKs,T9s,87s:0.5",
                      "JJ-99,AQs,KQo:0.5,65s", river_sizes=("50%, a", "a"))
    path = tmp_path_factory.mktemp("spot") / "river.ckpt"
    solve_spot(spot, exploitability_pct=5.0, max_iterations=20).save(path)
    return path


def _tampered(saved: Path, folder: Path, change: Callable[[dict[str, Any]], None],
              keep_spot: bool = True) -> Path:
    _, state = read_checkpoint(saved, agent_name=CHECKPOINT_NAME)
    if not keep_spot:
        state["terminals"]["state"]["spot"] = None
    change(state)
    path = folder / "tampered.ckpt"
    write_checkpoint(path, agent_name=CHECKPOINT_NAME, state=state)
    return path


def _set(where: str, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(state: dict[str, Any]) -> None:
        table = state[where] if where != "terminals" else state["terminals"]["state"]
        table[key] = value(table[key])
    return change


def _first(value: Any) -> Callable[[Any], Any]:
    def apply(array: np.ndarray) -> np.ndarray:
        out = array.copy()
        out.reshape(-1)[0] = value
        return out
    return apply


def _reach(player: int, value: float) -> Callable[[Any], Any]:
    return lambda reach: [_first(value)(r) if p == player else r for p, r in enumerate(reach)]


# The audit's crafted spots: the segfault, and those that loaded silently with wrong values.
CRAFTED = {
    "children out of range": (_set("tree", "first_child", lambda a: np.full_like(a, 10**6)),
                              "first_child"),
    "NaN reach": (_set("tree", "initial_reach", _reach(0, np.nan)), "initial_reach"),
    "negative reach": (_set("tree", "initial_reach", _reach(1, -1.0)), "initial_reach"),
    "NaN regrets": (_set("storage", "regrets", _first(np.nan)), "storage.regrets"),
    "negative strategy sums": (_set("storage", "sums", _first(-1.0)), "storage.sums"),
    "regrets as strings": (_set("storage", "regrets", lambda a: a.astype("U8")),
                           "storage.regrets"),
    "parent out of range": (_set("tree", "parent", _first(7)), "parent"),
    "chance weight above 1": (_set("tree", "chance_weight", lambda a: a + 1.5),
                              "chance_weight"),
    "kind unknown": (_set("tree", "kind", lambda a: np.full_like(a, 7)), "kind"),
    "iterations 10**30": (lambda s: s.update(iterations=10**30), "iterations"),
}
# Consistent but wrong values: only the rebuilt tree of the spot's definition refuses them.
SPOT_ONLY = {
    "payoffs x1000": (_set("tree", "contrib", lambda a: a * 1000), "contrib"),
    "pot x1000": (_set("tree", "pot", lambda a: a * 1000), "pot"),
    "another board": (_set("tree", "boards",
                           lambda a: np.where(a == a[0, 0], (a[0, 0] + 13) % 52, a)), "boards"),
    "hands of the terminals": (_set("terminals", "hands", lambda h: [h[0][::-1], h[1]]),
                               "terminals.hands"),
}


@pytest.mark.parametrize("name", sorted(CRAFTED) + sorted(SPOT_ONLY))
def test_a_crafted_spot_is_refused_naming_the_field(saved_spot: Path, tmp_path: Path,
                                                    name: str) -> None:
    change, field = {**CRAFTED, **SPOT_ONLY}[name]
    path = _tampered(saved_spot, tmp_path, change)
    for load in (SpotSolution.load, load_solver):
        with pytest.raises(CheckpointError) as caught:
            load(path)
        message = str(caught.value)
        assert field in message and "\n" not in message


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_a_crafted_tree_without_its_spot_is_refused_by_the_structural_checks(
    saved_spot: Path, tmp_path: Path, name: str
) -> None:
    change, field = CRAFTED[name]
    path = _tampered(saved_spot, tmp_path, change, keep_spot=False)
    with pytest.raises(CheckpointError, match=field.replace(".", r"\.")):
        load_solver(path)


def test_an_untampered_spot_without_its_definition_loads_the_same(saved_spot: Path,
                                                                  tmp_path: Path) -> None:
    path = _tampered(saved_spot, tmp_path, lambda state: None, keep_spot=False)
    loaded, original = load_solver(path), load_solver(saved_spot)
    assert np.array_equal(loaded.sums, original.sums)
    assert np.array_equal(loaded.tree.first_child, original.tree.first_child)


def test_the_segfault_reproduction_exits_with_one_line_and_status_2(saved_spot: Path,
                                                                    tmp_path: Path) -> None:
    path = _tampered(saved_spot, tmp_path, CRAFTED["children out of range"][0])
    code = ("import sys\nfrom pokerzoo.runs.cli import run_cli\n"
            "from pokerzoo.public.spots.holdem_spot import SpotSolution\n"
            "def main(argv):\n    SpotSolution.load(sys.argv[1]).solver.iterate(1)\n    return 0\n"
            "sys.exit(run_cli(main, None))\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "first_child" in lines[0]


def test_fuzzed_saved_spots_never_crash(saved_spot: Path, tmp_path: Path) -> None:
    """500 random corruptions (values, dtypes, shapes, removal) of every array of a saved
    spot, loaded in one process: refused with a pokerzoo error, or loaded equal to the saved
    spot (on the spot path) and then iterated and evaluated without a crash."""
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("saved_spot_fuzz.py")), str(saved_spot),
         str(tmp_path), "500", "7"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )
    assert done.returncode == 0, f"the fuzz process died ({done.returncode}): {done.stderr}"
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["bad"] == []
    assert result["refused"] + result["equal"] + result["generic_loaded"] == 500
    assert result["refused"] > 400


def _leduc_saved(folder: Path) -> Path:
    solver = PublicSolver(public_game_tree(load_game("leduc_holdem")).tree)
    solver.iterate(3)
    path = folder / "leduc.ckpt"
    save_solver(solver, path)
    return path


DENSE = {
    "terminal table out of range": (_set("tree", "terminal_data", lambda a: a + 10**6),
                                    "terminal_data"),
    "payoffs of the wrong shape": (_set("terminals", "payoffs", lambda a: a[:, :-1]),
                                   "terminals.payoffs"),
    "NaN payoffs": (_set("terminals", "payoffs", _first(np.nan)), "terminals.payoffs"),
    "storage offsets overlapping": (_set("tree", "offset",
                                         lambda a: np.where(a > 0, a - 1, a)), "offset"),
}


@pytest.mark.parametrize("name", sorted(DENSE))
def test_a_tampered_small_game_tree_is_refused(tmp_path: Path, name: str) -> None:
    change, field = DENSE[name]
    path = _tampered(_leduc_saved(tmp_path), tmp_path, change)
    with pytest.raises(CheckpointError) as caught:
        load_solver(path)
    assert field in str(caught.value) and "\n" not in str(caught.value)
