"""The spot file's reference: every key documented in docs/spot_format.md as generated from
the HoldemSpot fields, and ``solve.py --example`` printing a spot file that solves."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import numpy as np

from pokerzoo.public.spots.holdem_spot import HoldemSpot, SpotSolution
from pokerzoo.public.spots.spot_format import EXAMPLE_SPOT, key_table, spot_keys

ROOT = Path(__file__).resolve().parents[3]


def test_every_spot_field_has_a_docstring() -> None:
    names = [f.name for f in fields(HoldemSpot) if f.init]
    keys = spot_keys()
    assert [k.name for k in keys] == names
    assert [k.name for k in keys if len(k.doc) < 20] == []


def test_the_reference_page_holds_the_generated_key_table() -> None:
    page = (ROOT / "docs" / "spot_format.md").read_text(encoding="utf-8")
    assert key_table() in page
    for key in spot_keys():
        assert f"| `{key.name}` |" in page
    assert "[locks." in page and "share the\n  rest equally" in page


def test_the_example_names_every_key() -> None:
    for f in fields(HoldemSpot):
        if f.init:
            assert f"{f.name} " in EXAMPLE_SPOT or f"[{f.name}]" in EXAMPLE_SPOT, f.name


def test_solve_py_example_parses_and_solves_with_its_lock(tmp_path: Path) -> None:
    printed = subprocess.run([sys.executable, "solve.py", "--example"], cwd=ROOT,
                             capture_output=True, text=True, timeout=300)
    assert printed.returncode == 0 and printed.stdout == EXAMPLE_SPOT
    spot = tmp_path / "example.toml"
    spot.write_text(printed.stdout)
    assert HoldemSpot.from_toml(spot).board == "QsJh2h8c3d"

    from pokerzoo.runs.solve import main

    saved = tmp_path / "solved.ckpt"
    assert main([str(spot), "--quiet", "--iterations", "20", "--save", str(saved)]) == 0
    solution = SpotSolution.load(saved)
    labels, strategy = solution.strategy(["check"])
    names = solution.tree.hand_names[1]
    jj = np.array([n[0] == "J" and n[2] == "J" for n in names])
    aqs = np.array([n[0] == "A" and n[2] == "Q" and n[1] == n[3] for n in names])
    check = labels.index("check")
    np.testing.assert_allclose(strategy[check, jj], 1.0)
    np.testing.assert_allclose(strategy[check, aqs], 0.25)
    np.testing.assert_allclose(strategy[check, ~jj & ~aqs], 0.0)


def test_the_pages_lock_example_locks_the_example_spot(tmp_path: Path) -> None:
    import re
    import tomllib

    from pokerzoo.public.spots.holdem_spot import build_spot_tree
    from pokerzoo.public.spots.spot_locks import line_locks

    page = (ROOT / "docs" / "spot_format.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```toml\n(\[locks\..*?)```", page, flags=re.S)
    spot = tmp_path / "example.toml"
    spot.write_text(EXAMPLE_SPOT)
    tree = build_spot_tree(HoldemSpot.from_toml(spot))
    ((node, strategy),) = line_locks(tree, tomllib.loads(block)["locks"]).items()
    assert tree.line(node) == ["check", "bet 50"]
    names = tree.hand_names[0]
    as_ah = names.index("AsAh")
    np.testing.assert_allclose(strategy[:, as_ah], [0.25, 0.375, 0.375])
