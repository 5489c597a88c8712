"""Where rlcard's ``no-limit-holdem`` (rlcard 1.2) departs from standard rules, shown on
rlcard's own game objects next to ours:

1. heads-up the dealer posts the *big* blind and the small blind acts first on every street
   (standard: the button posts the small blind, acts first pre-flop and last after the flop);
2. fold is offered when checking is free;
3. raises ignore the minimum-raise rule: a half-pot raise may add less than the previous raise;
4. a side pot is refunded to its contributors when the overall best hand is not in it, instead
   of going to the best hand among the side pot's players;
5. default stacks are 100 chips with a big blind of 2: 50 big blinds, not 100.
"""

from __future__ import annotations

import numpy as np
from rlcard.games.nolimitholdem.game import NolimitholdemGame
from rlcard.games.nolimitholdem.judger import NolimitholdemJudger
from rlcard.games.nolimitholdem.round import Action

from pokerzoo.games import load_game
from pokerzoo.games.holdem.cards import cards_from_string


def rlcard_game(num_players: int = 2, dealer: int = 0) -> NolimitholdemGame:
    game = NolimitholdemGame(num_players=num_players)
    game.configure({"game_num_players": num_players, "chips_for_each": 100, "dealer_id": dealer})
    game.init_game()
    return game


def ours_after(*actions: int, **params):
    game = load_game("no_limit_holdem", **params)
    state = game.new_initial_state()
    for c in cards_from_string("AsKs2c3d"):
        state.apply_action(c)
    for a in actions:
        state.apply_action(a)
    return game, state


def test_heads_up_blinds_and_postflop_order() -> None:
    game = rlcard_game(dealer=0)
    in_chips = [p.in_chips for p in game.players]
    assert in_chips == [2, 1]  # rlcard: the dealer (player 0) posts the big blind
    first = game.game_pointer
    assert first == 1  # the small blind acts first pre-flop
    game.step(Action.CHECK_CALL)
    game.step(Action.CHECK_CALL)
    assert len(game.public_cards) == 3
    assert game.game_pointer == first  # ... and first again on the flop

    # Ours: the button (seat 0) posts the small blind, acts first pre-flop, last on the flop.
    _, state = ours_after()
    assert state.public_state()["round_bets"] == [50, 100] and state.current_player() == 0
    state.apply_action(1)
    state.apply_action(1)
    for c in cards_from_string("7h8h9c"):
        state.apply_action(c)
    assert state.current_player() == 1


def test_fold_offered_when_check_is_free() -> None:
    game = rlcard_game(dealer=0)
    game.step(Action.CHECK_CALL)  # small blind limps; the big blind could check
    assert Action.FOLD in game.get_legal_actions()
    _, state = ours_after(1)
    assert 0 not in state.legal_actions()


def test_no_minimum_raise() -> None:
    game = rlcard_game(dealer=0)
    game.step(Action.CHECK_CALL)
    game.step(Action.CHECK_CALL)  # flop, pot 4; the small blind acts first
    game.step(Action.RAISE_HALF_POT)  # bets 2, pot 6
    assert Action.RAISE_HALF_POT in game.get_legal_actions()
    before = max(game.round.raised)
    game.step(Action.RAISE_HALF_POT)  # "raises" by half of the pot: to 3, adding only 1
    assert max(game.round.raised) - before < before  # less than the bet it raises

    # Ours: the same half-pot raise is lifted to the minimum (a raise of at least the bet).
    g, state = ours_after(1, 1)
    for c in cards_from_string("7h8h9c"):
        state.apply_action(c)
    state.apply_action(2)  # big blind bets half pot: 100
    assert state.raise_to_amount(2) - 100 >= 100


def test_side_pot_refunded_instead_of_awarded() -> None:
    judger = NolimitholdemJudger(np.random.RandomState(0))
    # Three all-ins of 10, 30, 50 chips; the short stack has the best hand, the middle stack
    # the second best. rlcard knows only the overall winner and refunds the side pot.
    won = judger.split_pots_among_players([10, 30, 50], [1, 0, 0])
    assert [int(w) for w in won] == [30, 20, 40]  # the middle stack nets -10 instead of +10

    # Ours (scripted): the middle stack wins the 40-chip side pot (in units of 100 chips).
    game = load_game("no_limit_holdem", num_players=3, stacks=(1000, 3000, 5000))
    state = game.new_initial_state()
    for c in cards_from_string("AsAhKsKh2c7d"):
        state.apply_action(c)
    for a in (game.all_in_action, 1, 1):
        state.apply_action(a)
    for c in cards_from_string("9c4d3sJc5h"):
        state.apply_action(c)
    assert state.returns() == [2000.0, 1000.0, -3000.0]


def test_default_stack_depth() -> None:
    game = rlcard_game()
    assert game.init_chips[0] / game.big_blind == 50
    ours = load_game("no_limit_holdem")
    assert ours.starting_stacks[0] / ours.config.big_blind == 100
