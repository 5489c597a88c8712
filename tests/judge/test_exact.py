"""The exact judge: known NashConv values (pokerzoo's and OpenSpiel's), intervals, counts."""

from __future__ import annotations

import zlib

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import exploitability as os_exploitability

from pokerzoo import load_game
from pokerzoo.errors import ConfigError, PlayerError
from pokerzoo.evaluation import expected_values, nash_conv, tabularize
from pokerzoo.judge.decision import describe
from pokerzoo.judge.exact import judge_game, queries_per_game
from pokerzoo.tree import TabularPolicy, build

GAMES = [
    ("kuhn_poker", {}, "kuhn_poker"),
    ("kuhn_poker", {"num_players": 3}, "kuhn_poker(players=3)"),
    ("leduc_holdem", {}, "leduc_poker"),
]


def hashed_choice(decision, sample=0):
    """A deterministic policy with no pattern: an action chosen by a hash of the state's key."""
    return decision.legal[zlib.crc32(decision.key.encode()) % len(decision.legal)].action


def openspiel_policy(os_game, game, table: TabularPolicy) -> os_policy.TabularPolicy:
    """``table`` as an OpenSpiel policy: each OpenSpiel information state is replayed in
    pokerzoo (the games share action and card ids) and takes that state's row."""
    tree = build(game)
    probs = table.aligned_to(tree)
    result = os_policy.TabularPolicy(os_game)

    def visit(state):
        if state.is_terminal():
            return
        if not state.is_chance_node():
            ours = game.new_initial_state()
            for action in state.history():
                ours.apply_action(action)
            row = probs[tree.infoset_id(ours.information_state_key())]
            pointer = result.policy_for_key(state.information_state_string())
            pointer[:] = row[: len(pointer)]
        for action in state.legal_actions():
            visit(state.child(action))

    visit(os_game.new_initial_state())
    return result


@pytest.mark.parametrize(("name", "params", "os_name"), GAMES)
def test_a_deterministic_player_gets_the_exact_nash_conv(name, params, os_name):
    game = load_game(name, **params)
    tree = build(game)
    report = judge_game(game, hashed_choice, hands=0, progress=False)
    direct = tabularize(tree, lambda state: {hashed_choice(describe(state)): 1.0})
    assert report.nash_conv == pytest.approx(nash_conv(tree, direct), abs=1e-12)
    os_game = pyspiel.load_game(os_name)
    theirs = os_exploitability.nash_conv(os_game, openspiel_policy(os_game, game, report.policy))
    assert report.nash_conv == pytest.approx(theirs, abs=1e-12)
    assert report.nash_conv_ci == (report.nash_conv, report.nash_conv)
    assert report.queries == report.requests == tree.num_infosets == queries_per_game(game)
    assert report.exploitability == pytest.approx(report.nash_conv / game.num_players)


def test_a_sampled_players_interval_holds_its_true_nash_conv():
    game = load_game("leduc_holdem")
    tree = build(game)

    def sampled_uniform(decision, sample):
        rng = np.random.default_rng([zlib.crc32(decision.key.encode()), sample])
        return decision.legal[int(rng.integers(len(decision.legal)))].action

    report = judge_game(game, sampled_uniform, samples=30, hands=0, progress=False)
    truth = nash_conv(tree, TabularPolicy.uniform(tree))
    low, high = report.nash_conv_ci
    assert low < truth < high
    assert high - low < 0.5  # the interval says something at k = 30 (Leduc's uniform: 4.75)
    assert report.queries == 30 * tree.num_infosets
    assert max(max(row.spread) for row in report.rows) > 0


def test_chips_against_the_references_are_exact_and_the_match_agrees():
    game = load_game("kuhn_poker")
    tree = build(game)
    always_bet = lambda decision, sample: decision.legal[-1].action  # noqa: E731
    report = judge_game(game, always_bet, hands=3_000, seed=3, progress=False)
    table = report.policy.aligned_to(tree)
    uniform = TabularPolicy.uniform(tree).probs
    seat_values = []
    for seat in range(2):
        mixed = uniform.copy()
        mixed[tree.infoset_player == seat] = table[tree.infoset_player == seat]
        seat_values.append(expected_values(tree, mixed)[seat])
    versus = {v.reference: v for v in report.versus}
    assert versus["uniform"].exact_chips == pytest.approx(np.mean(seat_values), abs=1e-12)
    for v in report.versus:
        assert v.hands == 6_000
        assert abs(v.match_chips - v.exact_chips) < 4 * v.match_ci
    assert report.reference_nash_conv < 1e-3


def test_the_equilibrium_scores_zero_chips_against_itself_on_average():
    game = load_game("kuhn_poker")
    first = judge_game(game, hashed_choice, hands=0, progress=False)
    equilibrium_rows = {row.key: row.equilibrium for row in first.rows}

    def equilibrium(decision, sample):
        return dict(zip(decision.actions, equilibrium_rows[decision.key], strict=True))

    report = judge_game(game, equilibrium, hands=0, progress=False)
    versus = {v.reference: v for v in report.versus}
    assert versus["cfr+"].exact_chips == pytest.approx(0.0, abs=1e-12)
    assert report.nash_conv == pytest.approx(report.reference_nash_conv, abs=1e-12)


def test_bad_answers_are_asked_again_then_fall_back_and_are_counted():
    game = load_game("kuhn_poker")
    asked = []

    def stubborn(decision, sample):
        asked.append(decision.key)
        return "raise 100"

    report = judge_game(game, stubborn, hands=0, fallback="check-fold", progress=False)
    assert len(asked) == 24  # each of the 12 states asked, and asked again once
    assert report.illegal_answers == 24 and report.fallbacks == 12
    assert all(row.strategy[0] == 1.0 for row in report.rows)  # check, or fold to a bet
    assert report.nash_conv == 2.0  # always passing: each side's best response wins 1
    data = report.to_json()
    for key in ("nash_conv", "exploitability", "exploitability_ci", "queries",
                "illegal_answers", "fallbacks", "states"):
        assert key in data
    assert "| information state |" in report.markdown()


def test_bad_input_is_one_line():
    kuhn = load_game("kuhn_poker")
    with pytest.raises(ConfigError, match="small game"):
        judge_game(load_game("limit_holdem"), hashed_choice, progress=False)
    with pytest.raises(ConfigError, match="samples"):
        judge_game(kuhn, hashed_choice, samples=0, progress=False)
    with pytest.raises(ConfigError, match="reference"):
        judge_game(kuhn, hashed_choice, references=("nash",), progress=False)
    with pytest.raises(ConfigError, match="fallback"):
        judge_game(kuhn, hashed_choice, fallback="pray", progress=False)

    def broken(decision, sample):
        raise KeyError("no such card")

    with pytest.raises(PlayerError, match="KeyError") as error:
        judge_game(kuhn, broken, progress=False)
    assert "\n" not in str(error.value)


def test_the_rule_players_of_the_documentation_keep_their_numbers():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "judge_rule_players.py"
    spec = importlib.util.spec_from_file_location("judge_rule_players", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    game = load_game("leduc_holdem")
    expected = {"maniac": (4.733333, 1.8993), "honest": (1.866667, 1.1854),
                "calling_station": (2.933333, 0.0)}
    for name, (conv, versus_uniform) in expected.items():
        report = judge_game(game, getattr(module, name), hands=0, progress=False)
        assert report.nash_conv == pytest.approx(conv, abs=1e-6)
        chips = {v.reference: v.exact_chips for v in report.versus}
        assert chips["uniform"] == pytest.approx(versus_uniform, abs=1e-4)
        assert chips["cfr+"] < 0  # nobody beats the equilibrium


def test_requests_count_every_question_asked_including_the_re_ask():
    game = load_game("kuhn_poker")
    report = judge_game(game, lambda decision, sample: "raise 100", hands=0, progress=False)
    assert report.requests == 24 and report.queries == 12
