"""MATCHSTATE messages: round trips on random hands, PokerKit's ACPC messages, bad text."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.head_to_head import sample_action
from pokerzoo.games import load_game
from pokerzoo.games.holdem.game import HoldemGame
from pokerzoo.games.holdem.state import HoldemState
from pokerzoo.integrations.acpc.matchstate import (
    MatchState,
    action_of_token,
    encode,
    match_state,
    parse_matchstate,
    parse_reply,
    replay,
)
from pokerzoo.policy import UniformRandomPolicy

GAMES: list[tuple[str, dict[str, Any]]] = [("limit_holdem", {}), ("no_limit_holdem", {}),
         ("no_limit_holdem", {"num_players": 3, "stacks": (1500, 3000, 900)}),
         ("limit_holdem", {"num_players": 4})]


def _random_hands(game: HoldemGame, count: int, seed: int) -> list[list[HoldemState]]:
    """``count`` random hands, each as the states a dealer sends (decisions and the end)."""
    rng = np.random.default_rng(seed)
    policy = UniformRandomPolicy()
    hands = []
    for _ in range(count):
        state = game.new_initial_state()
        sent = []
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_action(dict(state.chance_outcomes()), rng))
                continue
            sent.append(state.clone())
            state.apply_action(sample_action(policy.action_probabilities(state), rng))
        hands.append([*sent, state])
    return hands


def _betting_actions(state: HoldemState) -> list[int]:
    replayed = state.game.new_initial_state()
    actions = []
    for action in state.history():
        if not replayed.is_chance_node():
            actions.append(action)
        replayed.apply_action(action)
    return actions


@pytest.mark.parametrize("name, params", GAMES)
def test_round_trip_on_random_hands(name: str, params: dict) -> None:
    game: Any = load_game(name, **params)
    for hand_number, states in enumerate(_random_hands(game, 150, seed=game.num_players)):
        for state in states:
            for position in range(game.num_players):
                text = encode(state, position, hand_number)
                message = parse_matchstate(text, game)
                assert str(message) == text
                replayed = replay(game, message)
                assert replayed.actions == _betting_actions(state) and not replayed.notes
                assert replayed.state.current_player() == state.current_player()
                assert replayed.state.private_cards()[position] == state.private_cards()[position]
                if state.is_terminal() and all(message.hole_cards):  # a showdown: all shown
                    assert replayed.state.returns() == state.returns()
            # Every card shown: the replay is the hand itself.
            full = match_state(state, None, hand_number)
            full = MatchState(0, full.hand, full.betting, full.hole_cards, full.board)
            assert replay(game, parse_matchstate(str(full), game)).state.history() \
                == state.history()


def test_messages_agree_with_pokerkit_heads_up() -> None:
    """PokerKit writes the ACPC messages of a hand itself (``to_acpc_protocol``); heads-up
    its position 0 is the big blind, our seat 1, so positions and hole-card groups swap. At a
    showdown PokerKit mucks a losing hand shown second, where the ACPC dealer shows every
    hand still in: there its message may hide a group ours shows, nothing else."""
    pokerkit = pytest.importorskip("pokerkit")
    from pokerzoo.evaluation.hand_history import HandRecorder

    for name in ("limit_holdem", "no_limit_holdem"):
        game: Any = load_game(name)
        sent = _random_hands(game, 60, seed=5)
        recorder = HandRecorder(game, "unused.phhs")
        for states in sent:
            recorder.record(states[-1])
        histories = pokerkit.HandHistory.load_all(io.BytesIO(recorder.contents().encode()))
        for number, (history, states) in enumerate(zip(histories, sent), start=1):
            for pk_position in range(2):
                seat = 1 - pk_position
                theirs = [text.rstrip("\r\n") for who, text in
                          history.to_acpc_protocol(pk_position) if who == "S->"]
                ours = []
                for state in states:
                    message = match_state(state, seat, number)
                    ours.append(str(MatchState(pk_position, number, message.betting,
                                               message.hole_cards[::-1], message.board)))
                assert len(ours) == len(theirs)
                for k, (mine, pk) in enumerate(zip(ours, theirs)):
                    if mine == pk:
                        continue
                    assert k == len(ours) - 1 and "/" in mine  # only a showdown differs
                    a, b = parse_matchstate(mine, game), parse_matchstate(pk, game)
                    assert (a.betting, a.board) == (b.betting, b.board)
                    assert all(x == y or not y for x, y in zip(a.hole_cards, b.hole_cards))
                    assert all(a.hole_cards)


@pytest.mark.parametrize("text, wanted", [
    ("MATCHSTAT:0:0::AhKh|", "expected MATCHSTATE:<position>"),
    ("MATCHSTATE:0:0::AhKh|:x", "expected MATCHSTATE:<position>"),
    ("MATCHSTATE:2:0::AhKh|", "position '2' is not a seat 0..1"),
    ("MATCHSTATE:0:-1::AhKh|", "hand number '-1' is not a number"),
    ("MATCHSTATE:0:0:cx:AhKh|", "'cx' is not a sequence of f, c, r and r<N>"),
    ("MATCHSTATE:0:0:c/c/c/c/c:AhKh|", "more than 4 rounds"),
    ("MATCHSTATE:0:0::AhKh", "need 2 hole-card groups"),
    ("MATCHSTATE:0:0::AhK|", "hole cards 'AhK' is not 2 cards"),
    ("MATCHSTATE:0:0::Ah1h|", "hole cards 'Ah1h' is not 2 cards"),
    ("MATCHSTATE:0:0:cc/:AhKh|", "show 0 boards for 1 finished rounds"),
    ("MATCHSTATE:0:0:cc:AhKh|/2c3c4c", "show 1 boards for 0 finished rounds"),
    ("MATCHSTATE:0:0:cc/:AhKh|/2c3c", "round 1 board '2c3c' is not 3 cards"),
    ("MATCHSTATE:0:0:cc/:AhKh|/2c3cAh", "show a card twice"),
    ("MATCHSTATE:0:0::|AhKh", "do not show the receiver's (position 0) hole cards"),
])
def test_malformed_messages_name_what_is_wrong(text: str, wanted: str) -> None:
    with pytest.raises(ConfigError, match=None) as caught:
        parse_matchstate(text, load_game("limit_holdem"))
    assert wanted in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("text, wanted", [
    ("MATCHSTATE:0:0:c/:AhKh|/2c3c4c", "a '/' before round 1 ended"),
    ("MATCHSTATE:0:0:cc:AhKh|", "the round is over but no '/' and cards follow"),
    ("MATCHSTATE:0:0:ccc/:AhKh|/2c3c4c", "'c' after round 0 ended"),
    ("MATCHSTATE:0:0:f/:AhKh|/2c3c4c", "'/' before round 1 ended"),
])
def test_betting_that_does_not_fit_the_game(text: str, wanted: str) -> None:
    game: Any = load_game("limit_holdem")
    with pytest.raises(ConfigError) as caught:
        replay(game, parse_matchstate(text, game))
    assert wanted in str(caught.value)


def test_replies() -> None:
    sent = "MATCHSTATE:0:3:r300:AhKh|"
    assert parse_reply(sent + ":r900", sent) == "r900"
    assert parse_reply(sent + ":f", sent) == "f"
    for reply, wanted in [(sent + ":x", "is not f, c, r or r<N>"), (sent + ":cc", "is not f"),
                          ("MATCHSTATE:0:4:r300:AhKh|:c", "does not repeat the state"),
                          (sent, "does not repeat the state")]:
        with pytest.raises(ConfigError, match=None) as caught:
            parse_reply(reply, sent)
        assert wanted in str(caught.value)


def test_off_menu_actions_are_fixed_and_say_so() -> None:
    game: Any = load_game("no_limit_holdem")  # pot fractions 0.5 and 1, and all-in
    state: Any = game.new_initial_state()
    for card in [51, 47, 0, 5]:
        state.apply_action(card)
    # Blinds 50/100: half pot raises to 200, pot to 300, all-in to 10000.
    assert action_of_token(state, "r200").action == 2 and action_of_token(state, "r200").note \
        is None
    fixed = action_of_token(state, "r260")
    assert fixed.action == 3 and "r260 is off pokerzoo's menu [200, 300, 10000]" in str(fixed.note)
    assert action_of_token(state, "r250").action == 2  # a tie goes to the smaller size
    assert action_of_token(state, "r9000").action == 4
    with pytest.raises(ConfigError, match="needs its size"):
        action_of_token(state, "r")
    state.apply_action(1)  # the small blind calls: the big blind may check
    fixed = action_of_token(state, "f")
    assert fixed.action == 1 and fixed.note == "f with nothing to call played as c"
