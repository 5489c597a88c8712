"""The spot judge: the shipped suite, cached solutions, EV loss on a tiny river spot (equal to
``spot_eval``'s for the same policy), sampled hands, counts, charts and hold'em matches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokerzoo.errors import ConfigError, PlayerError
from pokerzoo.evaluation.opponents import AlwaysCallPolicy
from pokerzoo.evaluation.spot_eval import evaluate_at_spot
from pokerzoo.games.base import State
from pokerzoo.judge.decision import Decision
from pokerzoo.judge.spots import (
    EquilibriumPlayer,
    cache_folder,
    judge_spot,
    judge_suite,
    load_spot,
    load_suite,
    resolve_suite,
    solved_spot,
)

TINY = """
[judge]
name = "tiny_river"
seat = "ip"
chart = ["bet 600"]
line = ["raise 300", "call", "check", "bet 300", "call", "check", "check"]
rules = "on the river the big blind may bet half the pot and raise the pot over a bet."

[game]

[spot]
board = "Ks9h5c2d7s"
starting_pot = 1200
effective_stack = 9400
oop_range = "KQs,99,JTs,AKo"
ip_range = "KJs,QQ,T8s,A9s"

[spot.river_sizes]
oop = ["50%", "100%"]
ip = ["50%", ""]
"""


def always_call(decision: Decision, sample: int) -> str:
    return "call" if decision.action_of("call") else "check"


def always_fold(decision: Decision, sample: int) -> str:
    return "fold" if decision.action_of("fold") else "check"


class FoldPolicy:
    """The state policy of ``always_fold`` (fold when facing a bet, else check)."""

    def action_probabilities(self, state: State) -> dict[int, float]:
        return {0 if 0 in state.legal_actions() else 1: 1.0}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("tiny")
    path = folder / "tiny_river.toml"
    path.write_text(TINY)
    spot = load_spot(path)
    return spot, solved_spot(spot, cache_dir=folder / "cache", progress=False), folder


def test_shipped_suite() -> None:
    spots = load_suite()
    assert [s.name for s in spots] == ["flop_jam", "river_bluff_catch", "river_polar_bet",
                                       "river_raise", "river_thin_value", "turn_barrel"]
    assert [s.seat for s in spots] == [0, 1, 0, 1, 1, 1]
    assert [s.spot.street for s in spots] == [0, 2, 2, 2, 2, 1]
    assert all(s.about for s in spots)


def test_cache_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("POKERZOO_CACHE", str(tmp_path))
    assert cache_folder() == tmp_path / "judge"
    monkeypatch.delenv("POKERZOO_CACHE")
    assert cache_folder() == Path.home() / ".cache" / "pokerzoo" / "judge"
    assert cache_folder(tmp_path / "x") == tmp_path / "x"


def test_solution_is_cached_and_a_damaged_file_solved_again(tiny: Any) -> None:
    spot, eq, folder = tiny
    assert eq.exploitability_pct() <= 0.1
    files = sorted((folder / "cache").glob("tiny_river-*.ckpt"))
    assert len(files) == 1
    again = solved_spot(spot, cache_dir=folder / "cache", progress=False)
    assert again.iterations == eq.iterations
    assert np.array_equal(again.strategy(0), eq.strategy(0))
    files[0].write_bytes(b"not a checkpoint")
    rebuilt = solved_spot(spot, cache_dir=folder / "cache", progress=False)
    assert rebuilt.exploitability_pct() <= 0.1
    assert solved_spot(spot, cache_dir=folder / "cache", progress=False).iterations == (
        rebuilt.iterations)


def test_equilibrium_player_loses_only_the_solve_error(tiny: Any) -> None:
    spot, eq, _ = tiny
    report = judge_spot(spot, EquilibriumPlayer(spot, eq), equilibrium=eq)
    assert report.hands_asked == report.hands_total == 16
    assert report.ev_loss_pct == pytest.approx(report.equilibrium_floor_pct, abs=1e-9)
    assert report.ev_loss_pct <= 2 * report.equilibrium_exploitability_pct + 1e-9
    assert report.ev_loss_fixed_pct == pytest.approx(0.0, abs=1e-9)
    assert report.illegal_answers == report.fallbacks == 0


@pytest.mark.parametrize("player, policy, known", [
    (always_call, AlwaysCallPolicy(), 22.813688212927758),
    (always_fold, FoldPolicy(), 0.7604562737642576)])
def test_loss_equals_spot_eval_for_the_same_policy(tiny: Any, player: Any, policy: Any,
                                                   known: float) -> None:
    spot, eq, _ = tiny
    report = judge_spot(spot, player, equilibrium=eq)
    reference = evaluate_at_spot(spot.game(), policy, spot.spot, spot.seat, equilibrium=eq)
    assert report.ev_loss_chips == pytest.approx(reference.ev_loss_chips, abs=1e-9)
    assert report.ev_loss_pct == pytest.approx(reference.ev_loss_pct_pot, abs=1e-9)
    assert report.ev_loss_pct == pytest.approx(known, abs=1e-9)
    assert 0 < report.ev_loss_fixed_pct <= report.ev_loss_pct + 1e-9


def test_always_call_known_loss_and_counts(tiny: Any) -> None:
    spot, eq, _ = tiny
    report = judge_spot(spot, always_call, equilibrium=eq, samples=2)
    # IP acts after a check, facing a bet and facing a check-raise; a player who checks back
    # never reaches the check-raise, so it is asked 2 nodes x 16 hands, each twice.
    assert report.decisions == 32
    assert report.queries == 64
    assert report.ev_loss_pct == pytest.approx(22.813688212927758, abs=1e-9)
    assert report.to_json()["queries"] == 64


def test_illegal_answers_go_to_the_fallback_and_are_counted(tiny: Any) -> None:
    spot, eq, _ = tiny
    report = judge_spot(spot, lambda d, s: "raise 99999", equilibrium=eq)
    folded = judge_spot(spot, always_fold, equilibrium=eq)
    assert report.illegal_answers == 2 * report.decisions  # the first answer and the re-ask
    assert report.fallbacks == report.decisions
    assert report.ev_loss_pct == pytest.approx(folded.ev_loss_pct, abs=1e-12)


def test_sampled_hands_interval_contains_the_all_hands_value(tiny: Any) -> None:
    spot, eq, _ = tiny
    full = judge_spot(spot, always_call, equilibrium=eq)
    sampled = judge_spot(spot, always_call, equilibrium=eq, hands=8, seed=3)
    assert sampled.hands_asked == 8
    assert sampled.queries < full.queries
    low, high = sampled.ev_loss_ci_pct
    assert low <= full.ev_loss_pct <= high
    low, high = sampled.ev_loss_fixed_ci_pct
    assert low <= full.ev_loss_fixed_pct <= high
    assert sampled.ev_loss_pct < full.ev_loss_pct  # the unasked hands play the equilibrium
    assert "8 of 16 hands" in sampled.note
    again = judge_spot(spot, always_call, equilibrium=eq, hands=8, seed=3)
    assert again.ev_loss_ci_pct == sampled.ev_loss_ci_pct


def test_bad_arguments_are_one_line(tiny: Any, tmp_path: Path) -> None:
    spot, eq, _ = tiny
    with pytest.raises(ConfigError, match="hands must be 'all'"):
        judge_spot(spot, always_call, equilibrium=eq, hands="some")
    with pytest.raises(ConfigError, match="samples must be"):
        judge_spot(spot, always_call, equilibrium=eq, samples=0)
    with pytest.raises(ConfigError, match="unknown fallback"):
        judge_spot(spot, always_call, equilibrium=eq, fallback="pass")
    with pytest.raises(ConfigError, match="max_queries"):
        judge_spot(spot, always_call, equilibrium=eq, max_queries=10)
    with pytest.raises(ConfigError, match="no shipped spot 'nope'; shipped: flop_jam"):
        judge_spot("nope", always_call)
    bad = tmp_path / "bad.toml"
    bad.write_text(TINY.replace('seat = "ip"', 'seat = "btn"'))
    with pytest.raises(ConfigError, match="seat must be 'oop' or 'ip'"):
        load_spot(bad)
    bad.write_text(TINY.replace('name = "tiny_river"', 'name = "../escape"'))
    with pytest.raises(ConfigError, match="name must be 1-64 letters"):
        load_spot(bad)
    bad.write_text(TINY.replace('"check", "check"]', '"check", "bet 5"]'))
    with pytest.raises(ConfigError, match="'bet 5' is not legal"):
        load_spot(bad)


def test_chart_draws_player_beside_equilibrium(tiny: Any, tmp_path: Path) -> None:
    spot, eq, _ = tiny
    report = judge_spot(spot, always_call, equilibrium=eq)
    assert report.chart_node() == eq.tree.children(0)[1]  # the line "bet 600"
    out = report.chart(tmp_path / "charts" / "tiny.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_judge_suite_averages_the_spots(tiny: Any) -> None:
    spot, eq, folder = tiny
    suite = judge_suite([spot, spot], always_call, cache_dir=folder / "cache")
    assert suite.mean_ev_loss_pct == pytest.approx(22.813688212927758, abs=1e-9)
    assert suite.to_json()["queries"] == 2 * 32
    table = suite.table().splitlines()
    assert len(table) == 5
    report = suite.markdown(folder / "report_charts").splitlines()
    assert report[0] == "# Judge report: hold'em spots"
    assert report[3].startswith("2 hold'em spots: mean EV loss 22.814% of the pot")
    assert report[-1] == "![tiny_river](report_charts/tiny_river.png)"
    assert (folder / "report_charts" / "tiny_river.png").is_file()
    assert table[2].startswith("| tiny_river | ip | 16/16 | 32 | 0 | 0 | 22.814 | exact (all "
                               "hands) | 16.540 | exact (all hands) |")


def test_shipped_suite_solves_to_a_tenth_of_a_percent(tmp_path: Path) -> None:
    for spot in load_suite():
        eq = solved_spot(spot, cache_dir=tmp_path, progress=False)
        assert eq.exploitability_pct() <= 0.1
    river = next(s for s in load_suite() if s.name == "river_raise")
    eq = solved_spot(river, cache_dir=tmp_path, progress=False)
    report = judge_spot(river, EquilibriumPlayer(river, eq), cache_dir=tmp_path)
    assert report.ev_loss_pct == pytest.approx(report.equilibrium_floor_pct, abs=1e-9)
    called = judge_spot(river, always_call, cache_dir=tmp_path)
    reference = evaluate_at_spot(river.game(), AlwaysCallPolicy(), river.spot, river.seat,
                                 equilibrium=eq)
    assert called.ev_loss_pct == pytest.approx(reference.ev_loss_pct_pot, abs=1e-9)


class BatchPlayer:
    """Answers always-call through ``decide_many``, recording each batch's size."""

    def __init__(self) -> None:
        self.batches: list[int] = []
        self.texts: list[str] = []

    def decide(self, decision: Decision, sample: int) -> str:
        return always_call(decision, sample)

    def decide_many(self, requests: list[tuple[Decision, int]]) -> list[str]:
        self.batches.append(len(requests))
        self.texts.extend(d.text for d, _ in requests)
        return [always_call(d, s) for d, s in requests]


def test_questions_go_through_decide_many_in_batches(tiny: Any) -> None:
    spot, eq, folder = tiny
    player = BatchPlayer()
    report = judge_spot(str(folder / "tiny_river.toml"), player, equilibrium=eq)
    assert player.batches == [32]  # one level: after the check and facing the bet
    assert report.ev_loss_pct == pytest.approx(22.813688212927758, abs=1e-9)
    assert len(set(player.texts)) == 32
    facing = next(t for t in player.texts if "River (7s): player 1: bet 600" in t)
    assert facing.splitlines()[-2:] == [
        "Pot: 1800 chips. You have put in 0 on this street; to call: 600 more.",
        "Rules of this spot: on the river the big blind may bet half the pot and raise the "
        "pot over a bet."]
    assert "Preflop: player 0 posts the small blind 50, player 1 posts the big blind 100; " \
           "player 0: raise 300, player 1: call" in facing


def test_suite_specs(tiny: Any) -> None:
    _, _, folder = tiny
    assert [s.name for s in resolve_suite("default")] == [s.name for s in load_suite()]
    assert [s.name for s in resolve_suite(folder)] == ["tiny_river"]
    assert [s.name for s in resolve_suite(folder / "tiny_river.toml")] == ["tiny_river"]
    assert [s.name for s in resolve_suite("river_raise")] == ["river_raise"]
    with pytest.raises(ConfigError, match="no folder, .toml file or shipped spot"):
        resolve_suite("nowhere")


def test_a_player_that_raises_is_one_line(tiny: Any) -> None:
    spot, eq, _ = tiny

    def broken(decision: Decision, sample: int) -> str:
        raise RuntimeError("model offline")

    with pytest.raises(PlayerError, match="RuntimeError: model offline"):
        judge_spot(spot, broken, equilibrium=eq)


class HalfCallPolicy:
    """Facing a bet, fold or call half the time each; else check."""

    def action_probabilities(self, state: State) -> dict[int, float]:
        return {0: 0.5, 1: 0.5} if 0 in state.legal_actions() else {1: 1.0}


def test_samples_are_averaged_into_the_strategy(tiny: Any) -> None:
    spot, eq, _ = tiny

    def alternating(decision: Decision, sample: int) -> str:
        return always_call(decision, sample) if sample == 0 else always_fold(decision, sample)

    report = judge_spot(spot, alternating, equilibrium=eq, samples=2)
    reference = evaluate_at_spot(spot.game(), HalfCallPolicy(), spot.spot, spot.seat,
                                 equilibrium=eq)
    assert report.queries == 2 * report.decisions
    assert report.ev_loss_chips == pytest.approx(reference.ev_loss_chips, abs=1e-9)
