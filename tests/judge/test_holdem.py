"""Hold'em decisions as the judge asks them: legal labels (street totals in chips, blinds
counted, all-in) and the hand-history rendering (unique per information state)."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.head_to_head import head_to_head
from pokerzoo.evaluation.opponents import AlwaysCallPolicy
from pokerzoo.games.base import State
from pokerzoo.judge.decision import (
    RENDERERS,
    Decision,
    betting_so_far,
    describe,
    legal_actions_of,
)
from pokerzoo.judge.holdem import holdem_match, position_names, render_holdem
from pokerzoo.policy import UniformRandomPolicy

KNOWN_MATCH_MBB = -9050.0
"""Always-call against the uniform player, 20 duplicate deals of seed 5 (mbb per hand)."""


def always_call(decision: Decision, sample: int) -> str:
    return "call" if decision.action_of("call") else "check"


def _dealt(game_name: str, **params: object) -> State:
    state = load_game(game_name, **params).new_initial_state()
    for card in (51, 47, 0, 5):  # As Ks to seat 0 (the button), 2c 3d to seat 1
        state.apply_action(card)
    return state


def _labels(state: State) -> list[tuple[int, str]]:
    return [(a.action, a.label) for a in legal_actions_of(state)]


def _deal_board(state: State, cards: list[int]) -> None:
    while state.is_chance_node():
        state.apply_action(cards[len(state.public_state()["public_cards"])])


def test_no_limit_preflop_labels_count_the_blinds() -> None:
    state = _dealt("no_limit_holdem")
    # Half-pot raise to 200, pot raise to 300, all-in to the whole 10,000 stack.
    assert _labels(state) == [(0, "fold"), (1, "call"), (2, "raise 200"), (3, "raise 300"),
                              (4, "raise 10000")]
    state.apply_action(2)
    assert _labels(state) == [(0, "fold"), (1, "call"), (2, "raise 400"), (3, "raise 600"),
                              (4, "raise 10000")]


def test_no_limit_postflop_labels_are_street_totals() -> None:
    state = _dealt("no_limit_holdem")
    state.apply_action(3)  # raise to 300
    state.apply_action(1)  # call: 600 in the pot
    _deal_board(state, [10, 14, 20])
    assert _labels(state) == [(1, "check"), (2, "bet 300"), (3, "bet 600"), (4, "bet 9700")]
    state.apply_action(2)  # bet 300
    # Facing 300: half-pot raise to 300 + (900 + 300) / 2 = 900, pot raise to 1500.
    assert _labels(state) == [(0, "fold"), (1, "call"), (2, "raise 900"), (3, "raise 1500"),
                              (4, "raise 9700")]


def test_limit_labels() -> None:
    state = _dealt("limit_holdem")
    assert _labels(state) == [(0, "fold"), (1, "call"), (2, "raise 200")]
    state.apply_action(2)
    assert _labels(state) == [(0, "fold"), (1, "call"), (2, "raise 300")]
    state.apply_action(1)
    _deal_board(state, [10, 14, 20])
    assert _labels(state) == [(1, "check"), (2, "bet 100")]


def test_leduc_blinds_count_in_round_one() -> None:
    state = load_game("leduc_holdem", ante=0, blinds=(1, 2)).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    # The small blind's 1, the call of 1 and a raise of 2: a street total of 4.
    assert [a.label for a in legal_actions_of(state)] == ["fold", "call", "raise 4"]


def test_rendering_is_registered_and_reads_as_a_hand_history() -> None:
    assert RENDERERS["no_limit_holdem"] is render_holdem
    assert RENDERERS["limit_holdem"] is render_holdem
    state = _dealt("no_limit_holdem")
    state.apply_action(3)
    state.apply_action(1)
    _deal_board(state, [10, 14, 20])
    state.apply_action(2)
    decision = describe(state)
    lines = decision.text.splitlines()
    assert lines[1] == "Seats: player 0 is the button and small blind; player 1 is the big blind."
    assert lines[2] == "You are player 0 (the button and small blind)."
    assert lines[3] == "Your hole cards: As Ks"
    assert lines[4] == "Board: 4h 5h 7c (flop)"
    assert lines[5] == ("Preflop: player 0 posts the small blind 50, player 1 posts the big "
                        "blind 100; player 0: raise 300, player 1: call")
    assert lines[6] == "Flop (4h 5h 7c): player 1: bet 300"
    assert lines[7] == "Stacks behind: player 0: 9700, player 1: 9400"
    assert lines[8] == "Pot: 900 chips. You have put in 0 on this street; to call: 300 more."
    assert decision.legal_line() == "Legal actions: fold, call, raise 900, raise 1500, raise 9700"
    assert "2c" not in decision.text and "3d" not in decision.text  # the opponent's cards


def test_positions_of_a_full_table() -> None:
    assert position_names(3) == ["the small blind", "the big blind", "the button"]
    state = load_game("no_limit_holdem", num_players=3).new_initial_state()
    for card in range(6):
        state.apply_action(card)
    text = describe(state).text
    assert "You are player 2 (the button)." in text
    assert text.startswith("Game: 3-player no-limit Texas hold'em, blinds 50/100")


def test_text_is_unique_per_information_state() -> None:
    rng = np.random.default_rng(7)
    texts: dict[str, str] = {}
    keys: dict[str, str] = {}
    for game_name in ("no_limit_holdem", "limit_holdem"):
        game = load_game(game_name)
        for _ in range(40):
            state = game.new_initial_state()
            while not state.is_terminal():
                legal = state.legal_actions()
                if not state.is_chance_node():
                    decision = describe(state)
                    key = f"{game_name} {decision.key}"  # a key names a state of one game
                    assert texts.setdefault(key, decision.text) == decision.text
                    assert keys.setdefault(decision.text, key) == key
                    assert len({a.label for a in decision.legal}) == len(decision.legal)
                state.apply_action(int(rng.choice(legal)))
    assert len(texts) > 150


def test_rendered_labels_are_the_legal_labels() -> None:
    rng = np.random.default_rng(11)
    checked = 0
    for params in ({}, {"bet_fractions": (0.33, 0.75, 1.5), "stacks": 2500}, {"ante": 10}):
        game = load_game("no_limit_holdem", **params)
        for _ in range(15):
            state = game.new_initial_state()
            while not state.is_terminal():
                if not state.is_chance_node():
                    legal = legal_actions_of(state)
                    # Each action's label, as the history renders it after it is taken.
                    for a in legal:
                        child = state.child(a.action)
                        street = state.public_state()["round"]
                        assert betting_so_far(child)[street][-1] == (
                            f"player {state.current_player()}: {a.label}")
                    checked += len(legal)
                state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 300


def test_describe_imports_the_rendering_on_first_use() -> None:
    import subprocess
    import sys

    code = ("import sys\n"
            "from pokerzoo import load_game\n"
            "from pokerzoo.judge.decision import describe\n"
            "assert 'pokerzoo.judge.holdem' not in sys.modules\n"
            "state = load_game('limit_holdem').new_initial_state()\n"
            "for card in (51, 47, 0, 5):\n"
            "    state.apply_action(card)\n"
            "print(describe(state).text.splitlines()[3])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "Your hole cards: As Ks"


def test_match_is_head_to_head_of_the_same_policy() -> None:
    game = load_game("no_limit_holdem")
    report = holdem_match(always_call, UniformRandomPolicy(), 40, seed=5)
    reference = head_to_head(game, [AlwaysCallPolicy(), UniformRandomPolicy()], 20, seed=5)
    assert report.hands == 40
    assert report.opponent == "UniformRandomPolicy"
    assert report.mbb_per_hand == float(reference.mbb_per_game[0])
    assert report.mbb_per_hand_ci == float(reference.mbb_per_game_ci[0])
    assert report.illegal_answers == report.fallbacks == 0
    assert report.queries > 40
    assert holdem_match(always_call, UniformRandomPolicy(), 40, seed=5) == report
    assert holdem_match(always_call, "random", 40, seed=5).mbb_per_hand == report.mbb_per_hand
    assert report.mbb_per_hand == pytest.approx(KNOWN_MATCH_MBB, abs=1e-9)
    with pytest.raises(ConfigError, match="even integer"):
        holdem_match(always_call, UniformRandomPolicy(), 5, seed=0)
