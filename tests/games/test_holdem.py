"""Hold'em rules: blinds and acting order, scripted hands with expected payoffs, configs."""

from __future__ import annotations

import pytest

from pokerzoo.games import CHANCE, TERMINAL, ConfigError, IllegalActionError, load_game
from pokerzoo.games.holdem.cards import cards_from_string

FOLD, CALL = 0, 1


def deal(state, *cards: str) -> None:
    """Deal the given cards (hole cards seat by seat, then board) as chance actions."""
    for c in cards_from_string("".join(cards)):
        assert state.current_player() == CHANCE
        state.apply_action(c)


def start(game, *holes: str):
    state = game.new_initial_state()
    deal(state, *holes)
    return state


def act(state, *actions: int) -> None:
    for a in actions:
        state.apply_action(a)


# ----------------------------------------------------------------------------- blinds and order


def test_heads_up_button_posts_small_blind_acts_first_preflop_last_postflop() -> None:
    game = load_game("no_limit_holdem")
    state = start(game, "AsKs", "2c3d")
    ps = state.public_state()
    assert ps["round_bets"] == [50, 100] and ps["stacks"] == [9950, 9900] and ps["button"] == 0
    assert state.current_player() == 0  # button / small blind first pre-flop
    act(state, CALL)
    assert state.current_player() == 1  # big blind's option
    act(state, CALL)
    deal(state, "7h8h9c")
    for _ in range(3):  # flop, turn, river: big blind first, button last
        assert state.current_player() == 1
        act(state, CALL)
        assert state.current_player() == 0
        act(state, CALL)
        if not state.is_terminal() and state.is_chance_node():
            deal(state, "Td" if len(state.public_state()["public_cards"]) == 3 else "2d")
    assert state.is_terminal()
    assert state.returns() == [-100.0, 100.0]  # a pair of deuces beats ace-king high


def test_heads_up_board_straight_is_a_split() -> None:
    game = load_game("no_limit_holdem")
    state = start(game, "2s3s", "2c3d")
    act(state, CALL, CALL)
    for board in ("7h8h9c", "Td", "Jd"):
        deal(state, board)
        act(state, CALL, CALL)
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_six_max_blinds_and_acting_order() -> None:
    game = load_game("no_limit_holdem", num_players=6)
    state = start(game, "AsAh", "KsKh", "QsQh", "JsJh", "TsTh", "9s9h")
    assert state.public_state()["round_bets"] == [50, 100, 0, 0, 0, 0]
    order = []
    while state.current_player() >= 0:
        order.append(state.current_player())
        act(state, CALL)
    assert order == [2, 3, 4, 5, 0, 1]
    deal(state, "2c7d4h")
    order = []
    while state.current_player() >= 0:
        order.append(state.current_player())
        act(state, CALL)
    assert order == [0, 1, 2, 3, 4, 5]  # small blind first after the flop, button last


def test_fold_is_not_offered_when_check_is_free() -> None:
    game = load_game("no_limit_holdem")
    state = start(game, "AsKs", "2c3d")
    act(state, CALL)
    assert FOLD not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="legal actions are"):
        state.apply_action(FOLD)


# ----------------------------------------------------------------------------- no-limit sizing


def test_pot_fraction_raises_and_min_raise() -> None:
    game = load_game("no_limit_holdem")
    state = start(game, "AsKs", "2c3d")
    # Small blind: to call 50, pot 150 -> half pot of 200 after the call = raise to 200.
    assert [state.raise_to_amount(a) for a in (2, 3, 4)] == [200, 300, 10_000]
    act(state, 2)
    # Big blind: pot 300, to call 100 -> half of 400 = 200 more: raise to 400; pot: 600.
    assert [state.raise_to_amount(a) for a in (2, 3)] == [400, 600]
    act(state, 3)
    # Last raise added 400, so the minimum is 1000; half pot (pot 800 + 400 to call) is 1200.
    assert state.raise_to_amount(2) == 1200
    assert state.public_state()["betting"] == [["raise to 200", "raise to 600"]]


def test_small_fraction_is_lifted_to_the_min_raise_and_duplicates_dropped() -> None:
    game = load_game("no_limit_holdem", bet_fractions=(0.1, 0.2, 1.0))
    state = start(game, "AsKs", "2c3d")
    # 0.1 and 0.2 pot are below the min raise (to 200): both lifted to 200, offered once.
    assert state.raise_to_amount(2) == state.raise_to_amount(3) == 200
    assert state.legal_actions() == [FOLD, CALL, 2, 4, 5]
    assert game.num_distinct_actions == 6


def test_sizes_at_or_above_the_stack_become_all_in_only() -> None:
    game = load_game("no_limit_holdem", stacks=(400, 10_000))
    state = start(game, "AsKs", "2c3d")
    act(state, 2)  # to 200
    # Seat 1 pot-raises to 600 while seat 0 has 400 in total: seat 0 may call (all-in) or fold.
    act(state, 3)
    assert state.legal_actions() == [FOLD, CALL]
    act(state, CALL)
    assert state.current_player() == CHANCE  # no betting left: the board runs out
    deal(state, "2h7d9c", "Jc", "4s")
    assert state.is_terminal() and state.returns() == [-400.0, 400.0]  # deuces beat AK


def test_short_all_in_raise_does_not_reopen_the_betting() -> None:
    game = load_game("no_limit_holdem", num_players=3, stacks=(10_000, 10_000, 450))
    state = start(game, "AsKs", "QsQh", "2c3d")
    act(state, CALL, CALL, CALL)  # limped pot of 300; seat 2 has 350 behind
    deal(state, "7h8h9c")
    act(state, 3, CALL)  # seat 0 bets the pot (300), seat 1 calls
    # Every pot-fraction size exceeds seat 2's stack: only all-in remains as a raise.
    assert state.legal_actions() == [FOLD, CALL, game.all_in_action]
    act(state, game.all_in_action)  # 350: a raise of 50, less than the full 300
    assert state.current_player() == 0
    assert state.legal_actions() == [FOLD, CALL]  # seat 0 already acted: call or fold only
    act(state, CALL)
    assert state.legal_actions() == [FOLD, CALL]
    act(state, CALL)
    deal(state, "Td")
    assert state.current_player() == 0 and game.all_in_action in state.legal_actions()
    act(state, CALL, CALL)
    deal(state, "2h")
    act(state, CALL, CALL)
    # Board 7 8 9 T 2: seat 1's queens win the main pot (1350) and the side pot (0 left).
    assert state.returns() == [-450.0, 900.0, -450.0]


def test_full_all_in_raise_reopens_the_betting() -> None:
    game = load_game("no_limit_holdem", num_players=3, stacks=(10_000, 10_000, 1500))
    state = start(game, "AsKs", "QsQh", "2c3d")
    act(state, CALL, CALL, CALL)  # 300 in the pot, seat 2 has 1400 behind
    deal(state, "7h8h9c")
    act(state, CALL)  # seat 0 checks
    act(state, 3)  # seat 1 bets the pot: 300
    act(state, game.all_in_action)  # seat 2: all-in 1400, a raise of 1100 >= 300
    assert state.legal_actions()[-1] == game.all_in_action  # seat 0 may re-raise
    act(state, CALL)
    assert state.current_player() == 1
    assert game.all_in_action in state.legal_actions()  # seat 1 faces a full raise


# ----------------------------------------------------------------------------- side and split pots


def test_three_way_all_in_side_pots() -> None:
    game = load_game("no_limit_holdem", num_players=3, stacks=(1000, 3000, 5000))
    # Seat 0 has the best hand, seat 1 the second best, seat 2 the worst.
    state = start(game, "AsAh", "KsKh", "2c7d")
    act(state, game.all_in_action)  # button: all-in 5000
    act(state, CALL)  # small blind calls all-in for 1000
    act(state, CALL)  # big blind calls all-in for 3000
    deal(state, "9c4d3s", "Jc", "5h")
    assert state.is_terminal()
    # Main pot 3000 -> seat 0; side pot 4000 -> seat 1; seat 2's uncalled 2000 comes back.
    assert state.returns() == [2000.0, 1000.0, -3000.0]
    assert state.public_state()["pot"] == 9000


def test_split_pot_odd_chip_goes_left_of_button() -> None:
    game = load_game("no_limit_holdem", num_players=3, small_blind=1, big_blind=2, ante=1)
    state = start(game, "2c3c", "2d3d", "4h5h")
    act(state, CALL, CALL, CALL)  # button calls 2, small blind completes, big blind checks
    assert state.public_state()["pot"] == 9
    deal(state, "AsKsQs")
    act(state, CALL, CALL, CALL)
    deal(state, "Js")
    act(state, CALL, CALL, CALL)
    deal(state, "Ts")  # royal flush on the board: everyone ties
    act(state, 2)  # seat 0 bets half of 9: 4 chips
    act(state, CALL, FOLD)  # seat 1 calls, the button folds
    # Pot 17 split between seats 0 and 1: 8 each and the odd chip to seat 0 (left of button).
    assert state.returns() == [2.0, 1.0, -3.0]


def test_everyone_folds_to_big_blind() -> None:
    game = load_game("limit_holdem", num_players=4)
    state = start(game, "AsAh", "KsKh", "QsQh", "JsJh")
    act(state, FOLD, FOLD, FOLD)
    assert state.current_player() == TERMINAL
    assert state.returns() == [-50.0, 50.0, 0.0, 0.0]


# ----------------------------------------------------------------------------- limit


def test_limit_raise_cap_and_bet_sizes() -> None:
    game = load_game("limit_holdem")
    state = start(game, "AsKs", "2c3d")
    act(state, 2, 2, 2)  # raise to 200, 300, 400: the big blind plus three raises
    assert state.public_state()["round_bets"] == [400, 300]
    assert state.legal_actions() == [FOLD, CALL]  # cap of 4 bets reached
    act(state, CALL)
    deal(state, "7h8h9c")
    act(state, 2)  # big blind bets one small bet
    assert state.public_state()["round_bets"] == [0, 100]
    act(state, CALL)
    deal(state, "Td")
    act(state, 2)  # turn: big bet
    assert state.public_state()["round_bets"] == [0, 200]
    act(state, 2, 2, 2)
    assert state.legal_actions() == [FOLD, CALL]
    act(state, FOLD)
    assert state.returns() == [1100.0, -1100.0]


def test_limit_short_stack_bets_all_in() -> None:
    game = load_game("limit_holdem", stacks=(10_000, 250))
    state = start(game, "AsKs", "2c3d")
    act(state, 2, 2)  # 200, then the big blind raises to 250 (all-in, short of 300)
    assert state.public_state()["stacks"][1] == 0
    assert state.legal_actions() == [FOLD, CALL]
    act(state, CALL)
    deal(state, "2h7d9c", "Jc", "4s")
    assert state.returns() == [-250.0, 250.0]  # 2c3d pairs the deuce


# ----------------------------------------------------------------------------- configs and misc


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"num_players": 7}, "num_players"),
        ({"num_players": 1}, "num_players"),
        ({"small_blind": 200}, "small_blind"),
        ({"stacks": (1000,)}, "stacks has 1 entries"),
        ({"stacks": 100}, "must exceed ante"),
        ({"ante": -1}, "ante"),
        ({"bet_fractions": (1.0, 0.5)}, "strictly increasing"),
        ({"bet_fractions": (0.0,)}, "> 0"),
        ({"raise_cap": 3}, "unknown parameter"),
    ],
)
def test_config_errors(params: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_game("no_limit_holdem", **params)


def test_limit_config_and_strings() -> None:
    game = load_game("limit_holdem", raise_cap=3, num_players=3, stacks=[500, 600, 700])
    assert game.config.seat_stacks() == (500, 600, 700)
    assert game.num_distinct_actions == 3
    assert game.card_to_string(51) == "As" and game.card_to_string(33) == "Td"
    with pytest.raises(ConfigError, match="raise_cap"):
        load_game("limit_holdem", raise_cap=0)
    state = game.new_initial_state()
    assert state.action_to_string(12) == "deal 5c"
    assert game.action_to_string(2) == "bet/raise"
    nl = load_game("no_limit_holdem")
    assert [nl.action_to_string(a) for a in range(5)] == [
        "fold", "check/call", "bet/raise 0.5 pot", "bet/raise 1 pot", "all-in",
    ]  # fmt: skip


def test_docstring_has_generated_layout_table() -> None:
    game = load_game("no_limit_holdem")
    doc = type(game).__doc__
    assert "hole_cards" in doc and "{layout}" not in doc
    assert game.information_state_shape == (game.information_state_layout.size,)
