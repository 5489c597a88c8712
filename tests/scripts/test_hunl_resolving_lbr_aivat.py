"""bench/hunl_resolving.py --lbr-aivat: the per-policy summary, the paired difference and the
report section (tiny budgets, no blueprint: a uniform policy on no-limit hold'em)."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import hunl_resolving as hr  # noqa: E402

from pokerzoo.evaluation.head_to_head import match_entropy  # noqa: E402
from pokerzoo.evaluation.holdem_values import CheckDownValues  # noqa: E402
from pokerzoo.evaluation.lbr import LBRSpec, lbr_deals, local_best_response  # noqa: E402
from pokerzoo.games import load_game  # noqa: E402
from pokerzoo.policy import UniformRandomPolicy, as_state_policy  # noqa: E402


def test_the_summary_of_saved_rows_is_local_best_responses_result() -> None:
    game = load_game("no_limit_holdem")
    values = CheckDownValues(game, samples=50)
    policy = UniformRandomPolicy()
    spec = LBRSpec(
        game,
        as_state_policy(policy),
        tuple(range(2, game.num_distinct_actions)),
        2,
        match_entropy(0, None),
        aivat=values,
    )
    rows = [*lbr_deals(spec, (0, 2)).tolist(), *lbr_deals(spec, (2, 5)).tolist()]  # 2 chunks
    summary = hr.lbr_aivat_summary(rows, 2.5, game.chip_unit)
    result = local_best_response(game, policy, 5, seed=0, wp_samples=2, aivat=values)
    assert result.aivat_mean_chips is not None and result.aivat_ci_chips is not None
    to_mbb = 1000.0 / game.chip_unit
    assert summary["deals"] == 5 and summary["seconds_per_deal"] == 0.5
    assert summary["raw"] == pytest.approx(result.mbb_per_game)
    assert summary["raw_ci"] == pytest.approx(result.mbb_per_game_ci)
    assert summary["aivat"] == pytest.approx(result.aivat_mean_chips * to_mbb)
    assert summary["aivat_ci"] == pytest.approx(result.aivat_ci_chips * to_mbb)
    if result.variance_ratio is not None:
        assert summary["variance_ratio"] == pytest.approx(result.variance_ratio)


def test_the_paired_difference_uses_the_deals_both_played() -> None:
    blueprint = [[1, 1, 0, 0], [3, 3, 2, 2], [5, 5, 4, 4]]
    resolver = [[2, 2, 1, 1], [6, 6, 3, 3]]  # one deal fewer: deals 0 and 1 are paired
    d = hr.paired_lbr_difference(blueprint, resolver, big_blind=2.0)
    assert d["deals"] == 2
    assert d["raw"] == pytest.approx(1000.0)  # (1 + 3) / 2 chips = 2 chips = 1,000 mbb
    assert d["aivat"] == pytest.approx(500.0) and d["aivat_ci"] == 0.0
    assert math.isnan(d["variance_ratio"])  # AIVAT's differences do not vary


def fake_lbr_state() -> dict:
    return {
        "settings": {"run": "runs/x", "lbr_wp_samples": 24, "max_seconds": 20.0},
        "command": "python bench/hunl_resolving.py --lbr-aivat --lbr-deals 3",
        "code": "abc1234",
        "libraries": "Python 3",
        "blueprint": [[10, -10, 2, 0], [4, 6, 5, 5], [0, 2, 1, 1]],
        "resolver": [[20, 0, 8, 4], [2, 2, 2, 2], [4, 0, 1, 3]],
        "seconds": {"blueprint": 3.0, "resolver": 30.0},
        "resolve_seconds": [12.0, 3.0, 6.0],
        "resolve_rounds": [2, 3, 2],
        "off_tree": 7,
        "wall_seconds": 33.0,
    }


def report_args(tmp_path: Path) -> argparse.Namespace:
    return argparse.Namespace(
        state="hunl_resolving.json",
        lbr_aivat_state="lbr.json",
        aivat_state="aivat.json",
        small_games=str(tmp_path / "s.md"),
        lbr_note=str(tmp_path / "note.md"),
    )


def test_the_section_gives_both_policies_their_difference_and_the_same_deal_check(
    tmp_path: Path,
) -> None:
    (tmp_path / "note.md").write_text("A reading of the LBR.\n")
    recorded = {"lbr_blueprint": [[10, -10], [4, 6]], "lbr_resolver": [[20, 0], [9, 9]]}
    text = "\n".join(hr.lbr_aivat_lines(fake_lbr_state(), recorded, report_args(tmp_path), 2.0))
    rows = {
        line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
        for line in text.splitlines()
        if line.startswith("| ")
    }
    assert rows["blueprint"] == ["3", "+1,000 ± 1,497", "+1,167 ± 1,307", "1.3", "1.00"]
    assert rows["resolver"][0] == "3" and rows["resolver"][-1] == "10.00"
    assert rows["resolver minus blueprint (paired deals)"][0] == "3"
    assert "2 of 2 (blueprint) and 1 of 2 (resolver)" in text
    assert "2 on the turn (9.0 s mean), 1 on the river (3.0 s mean); 70% of its time" in text
    assert "off the re-solve's tree: 7" in text
    assert "A reading of the LBR." in text


def test_the_report_without_measurements_says_so_and_appends_the_small_games(
    tmp_path: Path,
) -> None:
    (tmp_path / "s.md").write_text("# Kuhn title\n\nthe Kuhn table\n")
    text = hr.aivat_report({"match": []}, {}, report_args(tmp_path), 2.0, None)
    assert text.count("Not measured yet") == 2  # the match and the LBR
    small = text[text.index("## Kuhn and Leduc") :]
    assert "the Kuhn table" in small and "Kuhn title" not in small


def test_each_section_names_its_blueprint(tmp_path: Path) -> None:
    recorded = {"lbr_blueprint": [[10, -10]], "lbr_resolver": [[20, 0]]}
    older = "\n".join(hr.lbr_aivat_lines(fake_lbr_state(), recorded, report_args(tmp_path), 2.0))
    assert "torch's native arithmetic (before 2026-12-03)" in older  # a state that says nothing
    state = {**fake_lbr_state(),
             "blueprint_build": {"portable_arithmetic": True, "torch": "2.13.0+cpu"}}
    text = "\n".join(hr.lbr_aivat_lines(state, recorded, report_args(tmp_path), 2.0))
    assert "portable torch arithmetic (torch 2.13.0+cpu), so the same bits on any x86-64" in text


def fake_match_state(baseline: list[list[float]]) -> dict:
    return {"settings": {"run": "runs/x", "iterations": 200, "max_seconds": 20.0, "seed": 0},
            "match": [[4, -4], [0, 0], [2, -2]], "match_aivat": [[3, -3], [1, -1], [1, -1]],
            "baseline": baseline, "baseline_aivat": [[1, -1], [0, 0], [2, -2]],
            "wall_seconds": 60.0, "command": "python bench/hunl_resolving.py --aivat",
            "code": "abc1234", "libraries": "Python 3",
            "blueprint_build": {"portable_arithmetic": True, "torch": "2.13.0+cpu"}}


def test_the_match_is_compared_deal_by_deal_only_with_the_same_blueprint(
    tmp_path: Path,
) -> None:
    recorded = {"settings": {}, "match": [[4, -4], [0, 0], [2, -2]],
                "baseline": [[2, -2], [0, 0], [2, -2]]}
    same = hr.aivat_match_lines(fake_match_state([[2, -2], [0, 0], [2, -2]]), recorded,
                                report_args(tmp_path), 2.0)
    assert any(line.startswith("Same deals: of the 3 deal indices") for line in same)
    other = hr.aivat_match_lines(fake_match_state([[6, -6], [2, -2], [0, 0]]), recorded,
                                 report_args(tmp_path), 2.0)
    line = next(x for x in other if x.startswith("Same deals, another blueprint"))
    assert "the control equals its recorded one on 0 only" in line
    assert any("portable torch arithmetic" in x for x in other)


def test_the_variance_lies_on_the_deals_the_re_solves_touched() -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    b = rng.normal(size=200)
    m = b.copy()
    m[:10] += rng.normal(scale=5.0, size=10)  # 10 touched deals
    ma, ba = m + 0.1 * rng.normal(size=200), b + 0.1 * rng.normal(size=200)
    text = hr.where_the_variance_is(m, ma, b, ba)
    assert text.startswith("Where the variance is: the re-solves touched 10 of 200 deals")
    assert "those carry 100% of raw minus control's" in text
    raw_var = float(np.var(m - b, ddof=1))
    assert f"of raw minus control's {raw_var:,.0f} chips²" in text
    assert hr.where_the_variance_is(b, b, b, b).endswith("no deal touched by a re-solve yet.")
