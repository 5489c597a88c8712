"""The limit re-opening rule is the same on every street.

A short all-in (less than a full raise) does not re-open the betting for a player who already
acted; in limit a full raise is the street's fixed bet (small bet pre-flop and on the flop, big
bet on the turn and river). With three players and a 75%-of-a-bet all-in, seat 0 (or the
pre-flop opener) may only call or fold on every street; a full-bet all-in re-opens everywhere.
"""

from __future__ import annotations

import pytest

from pokerzoo.games import load_game

BB = 100
BETS = (BB, BB, 2 * BB, 2 * BB)  # limit bet size per street
CALL, RAISE = 1, 2


def deal_and_reach(game, street: int):
    """Deal (cards 0..5 to the seats) and call/check every street before ``street``."""
    state = game.new_initial_state()
    for c in range(6):
        state.apply_action(c)
    card = 6
    for r in range(street + 1):
        if r > 0:
            while state.is_chance_node():
                state.apply_action(card)
                card += 1
        if r == street:
            return state
        while not state.is_chance_node():
            state.apply_action(CALL)
    raise AssertionError("unreachable")


@pytest.mark.parametrize("street", [1, 2, 3])
@pytest.mark.parametrize("fraction, expected", [(0.75, [0, 1]), (1.0, [0, 1, 2])])
def test_short_all_in_opening_bet_same_rule_every_street(
    street: int, fraction: float, expected: list[int]
) -> None:
    """Seat 0 checks, seat 1 bets all-in for ``fraction`` of the street's bet, seat 2 calls:
    seat 0 re-opens only after a full bet, on the flop, turn and river alike."""
    all_in = int(fraction * BETS[street])
    game = load_game(
        "limit_holdem", num_players=3, stacks=(10_000, BB + all_in, 10_000)
    )
    state = deal_and_reach(game, street)
    assert state.current_player() == 0
    state.apply_action(CALL)  # check
    assert state.current_player() == 1
    assert state.raise_to_amount(RAISE) == all_in
    state.apply_action(RAISE)  # all-in bet
    state.apply_action(CALL)  # seat 2 calls
    assert state.current_player() == 0
    assert state.legal_actions() == expected


@pytest.mark.parametrize("street", [0, 1, 2, 3])
@pytest.mark.parametrize("fraction, expected", [(0.75, [0, 1]), (1.0, [0, 1, 2])])
def test_short_all_in_raise_same_rule_every_street(
    street: int, fraction: float, expected: list[int]
) -> None:
    """A bets a full bet, B raises all-in by ``fraction`` of a bet, C calls: back to A, who may
    re-raise only after a full raise, on every street (pre-flop A is the first to act)."""
    bet = BETS[street]
    increment = int(fraction * bet)
    if street == 0:
        # Pre-flop the button (seat 2) acts first: it raises to two small bets, the small
        # blind (seat 0) goes all-in ``increment`` above, the big blind calls.
        first, short = 2, 0
        stacks = (2 * BB + increment, 10_000, 10_000)
    else:
        first, short = 0, 1
        stacks = (10_000, BB + bet + increment, 10_000)
    game = load_game("limit_holdem", num_players=3, stacks=stacks)
    state = deal_and_reach(game, street)
    assert state.current_player() == first
    state.apply_action(RAISE)
    assert state.current_player() == short
    target = state.raise_to_amount(RAISE)
    state.apply_action(RAISE)  # all-in
    assert state.public_state()["stacks"][short] == 0
    assert target - (2 * BB if street == 0 else bet) == increment
    state.apply_action(CALL)  # the third seat calls
    assert state.current_player() == first
    assert state.legal_actions() == expected


def test_flop_and_turn_agree_as_in_the_issue() -> None:
    """The audit's case: a 75%-of-a-bet all-in leaves seat 0 the same options on the flop and
    on the turn (it used to be ``[0, 1]`` on the flop and ``[0, 1, 2]`` on the turn)."""
    options = []
    for street in (1, 2):
        all_in = 3 * BETS[street] // 4
        game = load_game("limit_holdem", num_players=3, stacks=(10_000, BB + all_in, 10_000))
        state = deal_and_reach(game, street)
        for a in (CALL, RAISE, CALL):
            state.apply_action(a)
        options.append(state.legal_actions())
    assert options[0] == options[1] == [0, 1]


def test_short_all_ins_adding_up_to_a_full_bet_reopen_on_the_turn() -> None:
    """Two short all-ins on the turn (60% and 40% of a big bet above seat 0's bet) add up to a
    full raise: seat 0 may raise again."""
    big = BETS[2]
    game = load_game(
        "limit_holdem",
        num_players=4,
        stacks=(10_000, BB + big + 3 * big // 5, BB + big + big, 10_000),
    )
    state = game.new_initial_state()
    for c in range(8):
        state.apply_action(c)
    card = 8
    for _ in range(2):  # pre-flop and flop: everyone calls / checks
        while not state.is_chance_node():
            state.apply_action(CALL)
        while state.is_chance_node():
            state.apply_action(card)
            card += 1
    assert state.current_player() == 0
    state.apply_action(RAISE)  # seat 0 bets a big bet
    state.apply_action(RAISE)  # seat 1 all-in: 60% of a bet more
    state.apply_action(RAISE)  # seat 2 all-in: 40% of a bet more on top
    state.apply_action(CALL)  # seat 3 calls
    assert state.current_player() == 0
    assert state.legal_actions() == [0, 1, 2]
