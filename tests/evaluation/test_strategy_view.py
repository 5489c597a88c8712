"""Strategy pictures: tables of tabular games, 13x13 pre-flop charts of hold'em policies."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.agents.registry import make_agent
from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.evaluation.strategy_view import (
    class_combinations,
    format_strategy,
    hand_class_cell,
    hand_class_labels,
    preflop_chart,
    strategy_rows,
)
from pokerzoo.games.holdem.cards import string_to_card
from pokerzoo.policy import CallablePolicy, UniformRandomPolicy


@pytest.fixture(scope="module")
def kuhn_equilibrium_rows():
    agent = make_agent("cfr+", load_game("kuhn_poker"))
    agent.iterate(3000)
    return strategy_rows(load_game("kuhn_poker"), agent)


def _row(rows, player, card, history):
    (row,) = [r for r in rows if (r.player, r.cards, r.history) == (player, card, history)]
    return row


def test_kuhn_equilibrium_table_shows_the_known_structure(kuhn_equilibrium_rows):
    rows = kuhn_equilibrium_rows
    assert len(rows) == 12
    # Facing a bet, the King always calls and the Jack always folds; the King bets after a
    # check (Kuhn's equilibrium family).
    assert _row(rows, 1, "K", "bet").probs["bet"] == pytest.approx(1.0, abs=1e-3)
    assert _row(rows, 1, "J", "bet").probs["pass"] == pytest.approx(1.0, abs=1e-3)
    assert _row(rows, 0, "K", "pass bet").probs["bet"] == pytest.approx(1.0, abs=1e-3)
    assert _row(rows, 1, "K", "pass").probs["bet"] == pytest.approx(1.0, abs=1e-3)
    # Player 0 bets the King three times as often as the Jack (alpha and 3 alpha).
    alpha = _row(rows, 0, "J", "-").probs["bet"]
    assert _row(rows, 0, "K", "-").probs["bet"] == pytest.approx(3 * alpha, abs=0.02)
    for r in rows:
        assert sum(r.probs.values()) == pytest.approx(1.0)
        assert list(r.probs) == ["pass", "bet"]


def test_kuhn_table_text_is_grouped_by_player_with_action_names(kuhn_equilibrium_rows):
    text = format_strategy(kuhn_equilibrium_rows)
    lines = text.splitlines()
    assert lines[0] == "Player 0, round 1"
    assert "pass" in lines[1] and "bet" in lines[1] and "history" in lines[1]
    assert "Player 1, round 1" in lines
    king_facing_bet = [ln.split() for ln in lines if ln.split()[:3] == ["K", "-", "bet"]]
    assert king_facing_bet == [["K", "-", "bet", "0.000", "1.000"]]
    assert len(lines) == 2 * 2 + 12 + 1  # two headed blocks, 12 rows, one blank line


def test_leduc_table_has_every_infoset_grouped_by_player_and_round():
    game = load_game("leduc_holdem")
    rows = strategy_rows(game, UniformRandomPolicy())
    assert len(rows) == 936
    groups = [(r.player, r.round) for r in rows]
    assert groups == sorted(groups)
    assert set(groups) == {(0, 0), (0, 1), (1, 0), (1, 1)}
    for r in rows:
        assert sum(r.probs.values()) == pytest.approx(1.0)
        assert set(r.probs) <= {"fold", "call", "raise"}
        assert (r.board == "-") == (r.round == 0)
    second = [r for r in rows if r.round == 1 and r.history == "call call |"]
    # Seat 0 opens round two: one row per private card (6) and board card left (5).
    assert {r.player for r in second} == {0} and len(second) == 6 * 5
    assert {len(r.board) for r in second} == {2}
    text = format_strategy(strategy_rows(game, UniformRandomPolicy(), player=1))
    assert "Player 0" not in text and "Player 1, round 2" in text
    assert text.splitlines()[1].split()[-3:] == ["fold", "call", "raise"]


def test_table_refuses_hold_em_and_bad_seats():
    with pytest.raises(ConfigError, match="--strategy-chart"):
        strategy_rows(load_game("limit_holdem"), UniformRandomPolicy())
    with pytest.raises(ConfigError, match="seat 0..1"):
        strategy_rows(load_game("kuhn_poker"), UniformRandomPolicy(), player=2)


def test_table_names_a_policy_that_is_not_a_distribution():
    bad = CallablePolicy(lambda state: {a: 0.9 for a in state.legal_actions()})
    with pytest.raises(InvalidPolicyError):
        strategy_rows(load_game("kuhn_poker"), bad)


# ---------------------------------------------------------------------------------------------
# Pre-flop charts
# ---------------------------------------------------------------------------------------------


def test_hand_class_grid_is_the_standard_one():
    c = string_to_card
    assert hand_class_cell(c("As"), c("Ah")) == (0, 0)
    assert hand_class_cell(c("As"), c("Ks")) == (0, 1)  # suited: above the diagonal
    assert hand_class_cell(c("Kd"), c("Ah")) == (1, 0)  # offsuit: below
    assert hand_class_cell(c("3c"), c("2d")) == (12, 11)
    assert hand_class_cell(c("2c"), c("3c")) == (11, 12)
    assert hand_class_cell(c("2c"), c("2d")) == (12, 12)
    labels = hand_class_labels()
    assert (labels[0][0], labels[0][1], labels[1][0]) == ("AA", "AKs", "AKo")
    assert (labels[12][11], labels[11][12], labels[12][12]) == ("32o", "32s", "22")
    # Every one of the 1,326 combinations lands in its class: 6 per pair, 4 suited, 12 off.
    a, b = np.triu_indices(52, k=1)
    rows, cols = hand_class_cell(a, b)
    counts = np.bincount(rows * 13 + cols, minlength=169).reshape(13, 13)
    assert np.array_equal(counts, class_combinations())
    for x, y, r, k in zip(a[:200], b[:200], rows[:200], cols[:200]):
        ranks = sorted([x // 4, y // 4], reverse=True)
        name = "".join("23456789TJQKA"[q] for q in ranks)
        suffix = "" if ranks[0] == ranks[1] else ("s" if x % 4 == y % 4 else "o")
        assert labels[r][k] == name + suffix


def _pairs_raise(state):
    """Raise (the last legal action) with a pair, fold otherwise."""
    hole = state.private_cards()[state.current_player()]
    legal = state.legal_actions()
    best = legal[-1] if hole[0] // 4 == hole[1] // 4 else legal[0]
    return {a: float(a == best) for a in legal}


def test_chart_of_a_pairs_only_policy(tmp_path):
    game = load_game("limit_holdem")
    chart = preflop_chart(game, CallablePolicy(_pairs_raise))
    assert chart.seat == 0 and chart.action_names == ["fold", "call", "raise"]
    assert chart.matrix.shape == (3, 13, 13)
    assert np.array_equal(chart.panel("raise"), np.eye(13))
    assert np.array_equal(chart.panel("fold"), 1 - np.eye(13))
    assert not chart.panel("call").any()
    assert chart.frequencies() == pytest.approx([1 - 78 / 1326, 0.0, 78 / 1326])

    from pokerzoo.runs.strategy_plots import draw_preflop_chart

    path = draw_preflop_chart(chart, tmp_path / "chart.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image

    assert matplotlib.image.imread(path).shape[1] > matplotlib.image.imread(path).shape[0]


def test_chart_after_a_history_for_the_seat_to_act():
    game = load_game("no_limit_holdem")
    suited_bet = CallablePolicy(lambda s: _suited_raise(s))
    chart = preflop_chart(game, suited_bet, seat=1, history="call", opponent_samples=3)
    assert chart.history_names == ["call"] and chart.action_names[0] == "check"
    raise_panel = chart.panel(chart.actions[-1])
    assert np.array_equal(raise_panel, np.triu(np.ones((13, 13)), k=1))
    by_id = preflop_chart(game, suited_bet, history=[1])
    assert np.array_equal(by_id.matrix, chart.matrix)


def _suited_raise(state):
    hole = state.private_cards()[state.current_player()]
    legal = state.legal_actions()
    best = legal[-1] if hole[0] % 4 == hole[1] % 4 else legal[0]
    return {a: float(a == best) for a in legal}


def test_chart_input_errors_say_what_is_allowed():
    holdem = load_game("limit_holdem")
    policy = UniformRandomPolicy()
    with pytest.raises(ConfigError, match="seat 0 is"):
        preflop_chart(holdem, policy, seat=1)
    with pytest.raises(ConfigError, match=r"legal: 0 \(fold\), 1 \(call\), 2 \(raise\)"):
        preflop_chart(holdem, policy, history="shove")
    with pytest.raises(ConfigError, match="ends the pre-flop betting"):
        preflop_chart(holdem, policy, history="call, check")
    with pytest.raises(ConfigError, match="hold'em games"):
        preflop_chart(load_game("leduc_holdem"), policy)
    with pytest.raises(ConfigError, match="opponent_samples"):
        preflop_chart(holdem, policy, opponent_samples=0)
    with pytest.raises(InvalidPolicyError):
        preflop_chart(holdem, CallablePolicy(lambda s: {0: 0.5}))


# ---------------------------------------------------------------------------------------------
# evaluate.py --strategy / --strategy-chart
# ---------------------------------------------------------------------------------------------


def _script(*args: str) -> str:
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, *args], cwd=root, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, f"{args} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.mark.slow
def test_evaluate_prints_a_kuhn_table_and_its_json(tmp_path):
    import json

    run = tmp_path / "kuhn"
    _script("train.py", "--agent", "cfr+", "--game", "kuhn_poker", "--iterations", "2000",
            "--out", str(run), "--no-progress", "--no-tensorboard")
    text = _script("evaluate.py", str(run), "--strategy")
    assert "Player 0, round 1" in text and "Player 1, round 1" in text
    assert [ln.split() for ln in text.splitlines() if ln.split()[:3] == ["K", "-", "bet"]] == [
        ["K", "-", "bet", "0.000", "1.000"]
    ]
    data = json.loads(_script("evaluate.py", str(run), "--strategy", "--seat", "1", "--json"))
    rows = data["kuhn"]["strategy"]
    assert len(rows) == 6 and {r["player"] for r in rows} == {1}
    assert all(sum(r["probs"].values()) == pytest.approx(1.0) for r in rows)


@pytest.mark.slow
def test_evaluate_draws_a_hold_em_chart_of_a_network_run(tmp_path, capsys, monkeypatch):
    """A run folder as train.py leaves it for a network agent (config and checkpoint),
    written in-process to keep the test short; evaluate.py's main draws its chart."""
    import importlib
    import json
    from pathlib import Path

    from pokerzoo.checkpoint import CHECKPOINT_FILE

    params = {"sl_buffer_size": 500, "rl_buffer_size": 500, "num_envs": 4}
    agent = make_agent("nfsp", load_game("limit_holdem"), seed=0, **params)
    run = tmp_path / "nfsp_lh"
    run.mkdir()
    agent.save(run / CHECKPOINT_FILE)
    (run / "config.json").write_text(json.dumps({
        "agent": "nfsp", "game": "limit_holdem", "game_params": {}, "agent_params": params,
        "seed": 0,
    }))
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    evaluate = importlib.import_module("evaluate")
    png = tmp_path / "chart.png"
    assert evaluate.main([str(run), "--strategy-chart", str(png), "--history", "call"]) == 0
    assert f"pre-flop chart of seat 1 written to {png}" in capsys.readouterr().out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert evaluate.main([str(run), "--strategy-chart", str(png), "--json"]) == 0
    chart = json.loads(capsys.readouterr().out)["nfsp_lh"]["chart"]
    assert chart["seat"] == 0 and chart["actions"] == ["fold", "call", "raise"]
    assert sum(chart["frequencies"]) == pytest.approx(1.0)
