"""Leduc with blinds: RLCard's rules (``LEDUC_VARIANTS["rlcard"]``), checked on scripted hands
and by replaying random hands through rlcard's own ``LeducholdemGame`` (rlcard 1.2)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from rlcard.games.base import Card
from rlcard.games.leducholdem import Game as RLCardLeduc

from pokerzoo import load_game
from pokerzoo.envs.vector_backends import LeducArrays
from pokerzoo.games.base import CHANCE, TERMINAL, ConfigError
from pokerzoo.games.leduc import CALL, FOLD, LEDUC_VARIANTS, RAISE, LeducConfig
from pokerzoo.tree import build

RLCARD = LEDUC_VARIANTS["rlcard"]
# rlcard's action names -> ours ("check" and "call" are both our CALL).
TO_OURS = {"fold": FOLD, "check": CALL, "call": CALL, "raise": RAISE}
TO_RLCARD = {FOLD: "fold", RAISE: "raise"}
# Rank names in rlcard's order (rank2int: T < J < Q < K < A): 3 ranks are rlcard's J, Q, K.
RANKS = {3: "JQK", 5: "TJQKA"}
SUITS = "SH"
# Random play leans away from folding so that most hands reach the second round.
WEIGHTS = {FOLD: 1.0, CALL: 4.0, RAISE: 3.0}


def play(actions: list[int], **params) -> object:
    state = load_game("leduc_holdem", **{**RLCARD, **params}).new_initial_state()
    for a in actions:
        state.apply_action(a)
    return state


# Cards: rank c // 2, so 0, 1 are jacks, 2, 3 queens, 4, 5 kings.
J, J2, Q, Q2, K = 0, 1, 2, 3, 4


def test_blinds_and_the_first_decisions():
    state = play([J, Q])
    assert state.public_state()["contributions"] == [1, 2]
    assert state.current_player() == 0  # the small blind opens
    assert state.legal_actions() == [FOLD, CALL, RAISE]
    state.apply_action(CALL)  # completes the small blind
    assert state.public_state()["contributions"] == [2, 2]
    assert state.current_player() == 1  # the big blind's option
    assert state.legal_actions() == [FOLD, CALL, RAISE]  # rlcard offers fold when checking
    assert play([J, Q, CALL], fold_unopposed=False).legal_actions() == [CALL, RAISE]
    raised = play([J, Q, RAISE, RAISE])
    assert raised.public_state()["contributions"] == [4, 6]
    assert raised.legal_actions() == [FOLD, CALL]  # two raises per round; blinds are not raises


@pytest.mark.parametrize(
    ("cards", "first", "board", "second", "returns", "opener"),
    [
        ((J, Q), [FOLD], None, [], [-1, 1], None),  # the small blind folds
        ((J, Q), [CALL, FOLD], None, [], [2, -2], None),  # the big blind folds a free check
        ((J, Q), [CALL, CALL], K, [CALL, CALL], [-2, 2], 0),  # checked down, Q beats J
        ((J, Q), [CALL, CALL], K, [FOLD], [-2, 2], 0),  # the opener folds unopposed
        ((J, Q), [RAISE, CALL], K, [CALL, RAISE, FOLD], [-4, 4], 0),
        # Call, raise, call: the small blind closed round one, so the big blind opens round two.
        ((J, Q), [CALL, RAISE, CALL], J2, [RAISE, RAISE, CALL], [12, -12], 1),  # J pairs
        ((J, Q), [RAISE, RAISE, CALL], K, [CALL, CALL], [-6, 6], 1),
        ((J, Q), [CALL, RAISE, RAISE, CALL], Q2, [RAISE, CALL], [-10, 10], 0),  # Q pairs
        ((J, J2), [CALL, CALL], K, [CALL, CALL], [0, 0], 0),  # a tie splits the pot
        ((K, Q), [RAISE, RAISE, CALL], J, [CALL, RAISE, RAISE, CALL], [14, -14], 1),  # the cap
    ],
)
def test_scripted_hands(cards, first, board, second, returns, opener):
    state = play([*cards, *first])
    if board is None:
        assert state.current_player() == TERMINAL
    else:
        assert state.current_player() == CHANCE
        state.apply_action(board)
        assert state.current_player() == opener
        for a in second:
            state.apply_action(a)
        assert state.current_player() == TERMINAL
    assert state.returns() == returns


def test_second_round_opener_is_seat_0_without_after_closer():
    state = play([J, Q, CALL, RAISE, CALL, K], second_round_opener="first_seat")
    assert state.current_player() == 0
    assert play([J, Q, CALL, RAISE, CALL, K]).current_player() == 1


def test_default_is_still_openspiel():
    cfg = LeducConfig()
    assert cfg.initial_contributions() == (1, 1) and cfg.big_blind == 1
    assert build(load_game("leduc_holdem")).summary()["histories"] == 9457


def test_variant_tree_sizes_and_bounds():
    for name, histories, infosets in [("rlcard", 10717, 936), ("5leduc_rlcard", 62741, 2760)]:
        game = load_game("leduc_holdem", **LEDUC_VARIANTS[name])
        summary = build(game).summary()
        assert (summary["histories"], summary["infosets"]) == (histories, infosets)
        assert game.config.big_blind == 2
    # The tensor's bounds are tight for rlcard's rules: 2 + 2 * 2 + 2 * 4 chips, rounds of 4.
    game = load_game("leduc_holdem", **RLCARD)
    assert game.config.max_contribution() == 14
    most, longest = 0, 0
    stack = [game.new_initial_state()]
    seen: dict = {}
    while stack:
        state = stack.pop()
        most = max(most, *state.public_state()["contributions"])
        longest = max(longest, len(state.history()))
        if not state.is_terminal() and not state.is_chance_node():
            p = state.current_player()
            tensor = state.information_state_tensor(p)
            assert tensor.min() >= 0.0 and tensor.max() <= 1.0
            entry = (p, tuple(state.legal_actions()), tensor.tobytes())
            assert seen.setdefault(state.information_state_key(p), entry) == entry
        stack.extend(state.child(a) for a in state.legal_actions())
    assert most == 14 and longest <= game.max_game_length


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"blinds": (1,)}, "one forced bet per seat"),
        ({"blinds": (1, -2)}, "each blind"),
        ({"blinds": (1, 2.0)}, "blinds must be an integer"),
        ({"ante": 0}, "ante=0 needs blinds"),
        ({"ante": 0, "blinds": (0, 0)}, "ante=0 needs blinds"),
        ({"ante": -1}, "ante must be"),
        ({"ante": 0, "blinds": (1, 2), "bet_cap": 4}, "bet_cap counts antes"),
        ({"blinds": (1, 5), "bet_cap": 4}, "above bet_cap"),
        ({"fold_unopposed": 1}, "fold_unopposed"),
        ({"second_round_opener": "button"}, "second_round_opener must be one of"),
    ],
)
def test_bad_blinds_configs_are_explained(params, match):
    with pytest.raises(ConfigError, match=match):
        load_game("leduc_holdem", **params)


def test_lists_from_config_files_are_accepted():
    assert LeducConfig.from_params(blinds=[1, 2], ante=0).blinds == (1, 2)


# --- rlcard itself ----------------------------------------------------------------------------


def _card(card: int, num_suits: int, ranks: str) -> Card:
    return Card(SUITS[card % num_suits], ranks[card // num_suits])


@pytest.mark.parametrize("num_ranks", [3, 5])
def test_random_hands_match_rlcard(num_ranks: int):
    """Random legal play in rlcard's game and ours, with the same deal: the same player to act,
    legal actions, chips in, and payoffs (rlcard's payoff x big blind = our chips)."""
    game = load_game("leduc_holdem", **{**RLCARD, "num_ranks": num_ranks})
    ranks = RANKS[num_ranks]
    rng = np.random.default_rng(num_ranks)
    showdowns = folds = 0
    for hand in range(1500):
        rl = RLCardLeduc()
        rl.np_random = np.random.RandomState(hand)
        rl.init_game()
        small = rl.game_pointer  # rlcard draws the small-blind seat; it is our seat 0
        seat = [small, 1 - small]  # our seat -> rlcard's player id
        deal = [int(c) for c in rng.permutation(game.config.deck_size)[:3]]
        # Our deal, installed in rlcard: private cards, then the deck's last card is the board.
        for ours, card in enumerate(deal[:2]):
            rl.players[seat[ours]].hand = _card(card, 2, ranks)
        rl.dealer.deck = [_card(deal[2], 2, ranks)]
        state = game.new_initial_state()
        for card in deal[:2]:
            state.apply_action(card)
        while not rl.is_over():
            if state.current_player() == CHANCE:
                state.apply_action(deal[2])
            p = state.current_player()
            assert seat[p] == rl.game_pointer
            legal = sorted({TO_OURS[a] for a in rl.get_legal_actions()})
            assert legal == state.legal_actions()
            chips = [rl.players[seat[q]].in_chips for q in range(2)]
            assert chips == state.public_state()["contributions"]
            weights = np.array([WEIGHTS[a] for a in legal])
            action = legal[rng.choice(len(legal), p=weights / weights.sum())]
            in_chips = rl.players[rl.game_pointer].in_chips
            name = TO_RLCARD.get(action, "call" if in_chips < max(chips) else "check")
            rl.step(name)
            state.apply_action(action)
        assert state.current_player() == TERMINAL
        payoffs = rl.get_payoffs() * rl.big_blind
        assert [payoffs[seat[q]] for q in range(2)] == state.returns()
        showdowns += not any(state.public_state()["folded"])
        folds += any(state.public_state()["folded"])
    assert showdowns > 500 and folds > 300


# --- the numpy batched backend ------------------------------------------------------------------

# The blinds settings replay through the array backend in tests/envs/test_vector_env.py.


def test_array_backend_knows_every_config_field():
    """A new LeducConfig rule must be taught to the array backend (or refused there)."""
    assert {f.name for f in dataclasses.fields(LeducConfig)} <= LeducArrays.HANDLED
