"""Cross-check against PokerKit: random hands replayed in PokerKit must pay every seat the same.

Random hands mix folds, calls, every raise size and all-ins, on equal and on random unequal
stacks (so side pots with any number of players occur), with and without antes. Every decision
is also checked: our fold is legal exactly when PokerKit's is, and every raise we offer is one
PokerKit accepts. PokerKit is more permissive in two corner cases of the "incomplete all-in
raise does not reopen the betting" rule (it reopens after an all-in opening bet below the big
blind, and after a first pre-flop all-in raise below a full raise); we follow the TDA rule there,
so our raise options are a subset of PokerKit's and the replays never hit an action PokerKit
rejects. ``test_pokerkit_reopens_after_short_all_in_opening_bet`` documents one such case.
The replay (``replay_in_pokerkit``) lives in ``pokerzoo.games.holdem.pokerkit_bridge``, which
the PHH hand histories use too.

The CI replays ``CI_HANDS`` hands per player count and game (about 15 s in all) and the
``slow`` test ``SLOW_HANDS`` more (4,000 per player count, about a minute). The issue's full
20,000 hands per player count (10,000 of each game) take about ten minutes, almost all of it
PokerKit's own hand evaluation, which does not fit CI's budget beside everything else: set
``POKERZOO_FULL_POKERKIT=1`` to run them. Chip conservation alone is checked on 20,000 hands
per player count in CI (``test_twenty_thousand_hands_conserve_chips``).
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from pokerzoo.games import load_game
from pokerzoo.games.holdem.cards import card_to_string
from pokerzoo.games.holdem.pokerkit_bridge import pokerkit_state as make_pokerkit_state
from pokerzoo.games.holdem.pokerkit_bridge import replay_in_pokerkit

CI_HANDS = 500
FULL_HANDS = 10_000  # per game and player count: 20,000 per player count
SLOW_HANDS = FULL_HANDS if os.environ.get("POKERZOO_FULL_POKERKIT") else 2_000

def random_hand(game, rng: np.random.Generator, allin_bias: float = 0.1):
    """Play one random hand; returns the terminal state. ``allin_bias`` makes all-ins (or the
    largest raise) more frequent than uniform so that side pots are common."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance_outcome(rng))
            continue
        legal = state.legal_actions()
        if len(legal) > 2 and rng.random() < allin_bias:
            state.apply_action(legal[-1])
        else:
            state.apply_action(legal[int(rng.integers(len(legal)))])
    return state


def check_random_hands(name: str, n: int, hands: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    games = [load_game(name, num_players=n)]
    for _ in range(4):  # unequal stacks (side pots), antes
        stacks = tuple(int(s) for s in rng.integers(250, 6000, size=n))
        games.append(load_game(name, num_players=n, stacks=stacks, ante=int(rng.integers(0, 30))))
    if name == "no_limit_holdem":
        games.append(load_game(name, num_players=n, bet_fractions=(0.33, 0.75, 1.5, 3.0),
                               small_blind=5, big_blind=10, stacks=1003))  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for h in range(hands):
            game = games[h % len(games)]
            state = random_hand(game, rng)
            ours = state.returns()
            assert sum(ours) == 0
            assert all(float(int(r)) == r for r in ours)
            theirs, _ = replay_in_pokerkit(game, state.history())
            assert ours == [float(x) for x in theirs], (game, state.history(), ours, theirs)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("name", ["no_limit_holdem", "limit_holdem"])
def test_random_hands_pay_like_pokerkit(name: str, n: int) -> None:
    check_random_hands(name, n, CI_HANDS, seed=100 * n)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("name", ["no_limit_holdem", "limit_holdem"])
def test_random_hands_pay_like_pokerkit_full(name: str, n: int) -> None:
    check_random_hands(name, n, SLOW_HANDS, seed=7 + n)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_twenty_thousand_hands_conserve_chips(n: int) -> None:
    """20,000 random hands per player count (both games): integer, zero-sum payoffs that
    never take a seat past its stack."""
    rng = np.random.default_rng(1000 + n)
    for name in ("no_limit_holdem", "limit_holdem"):
        game = load_game(name, num_players=n)
        stacks = game.config.seat_stacks()
        for _ in range(10_000):
            returns = random_hand(game, rng).returns()
            assert sum(returns) == 0
            assert all(float(int(r)) == r for r in returns)
            assert all(r >= -s for r, s in zip(returns, stacks))


def test_pokerkit_reopens_after_short_all_in_opening_bet() -> None:
    """Flop: seat 0 checks, seat 1 bets all-in for 30 (less than the big blind), seat 2
    calls. Back to seat 0, who already acted and faces less than a full bet: under the TDA rule
    it may only call or fold (our game); PokerKit also lets it raise."""
    game = load_game("no_limit_holdem", num_players=3, stacks=(10_000, 130, 10_000))
    state = game.new_initial_state()
    for c in range(6):
        state.apply_action(c)
    for a in (1, 1, 1):  # button (seat 2) calls, small blind calls, big blind checks
        state.apply_action(a)
    for c in (20, 30, 40):
        state.apply_action(c)
    state.apply_action(1)  # seat 0 checks
    assert state.current_player() == 1
    state.apply_action(game.all_in_action)  # seat 1: all-in for 30
    state.apply_action(1)  # seat 2 calls 30
    assert state.current_player() == 0
    assert state.legal_actions() == [0, 1]
    _, looser = replay_in_pokerkit(game, state.history() + [1])
    assert looser == 1


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_short_stacked_limit_hands_like_pokerkit(n: int) -> None:
    """Limit hands on short, unequal stacks (a few bets deep, not multiples of a bet), so that
    short all-ins below a full bet happen on every street: every raise we offer is one PokerKit
    accepts, fold legality agrees, payoffs agree to the chip, and after a short all-in raise
    (not an opening bet, PokerKit's permissive corner) we allow a raise exactly when PokerKit
    does (the full-bet re-opening rule on every street)."""
    rng = np.random.default_rng(500 + n)
    short_all_ins = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(150):
            stacks = tuple(int(s) for s in rng.integers(101, 1000, size=n))
            game = load_game("limit_holdem", num_players=n, stacks=stacks)
            state = random_hand(game, rng, allin_bias=0.3)
            ours = state.returns()
            theirs, _ = replay_in_pokerkit(game, state.history())
            assert ours == [float(x) for x in theirs], (game, state.history())
            short_all_ins += _check_after_short_all_in_raises(game, state.history())
    assert short_all_ins > 0


def _check_after_short_all_in_raises(game, history: list[int]) -> int:
    """Replay ``history``; once a full bet or raise has been made on a street (so PokerKit's
    corner cases, a short opening bet and the first pre-flop raise over the blinds, are past),
    our raise option must equal PokerKit's at every decision of that street. Returns the number
    of decisions checked right after a short all-in raise."""
    n = game.num_players
    pk = make_pokerkit_state(game)
    state = game.new_initial_state()
    for a in history[: 2 * n]:
        state.apply_action(a)
    for pk_player in range(n):
        seat = pk_player if n > 2 else 1 - pk_player
        pk.deal_hole("".join(card_to_string(c) for c in state.private_cards()[seat]))
    checked = 0
    full_seen = short_seen = False
    i = 2 * n
    while i < len(history):
        if state.is_chance_node():
            k = 3 if len(state.public_state()["public_cards"]) == 0 else 1
            cards = history[i : i + k]
            for c in cards:
                state.apply_action(c)
            pk.deal_board("".join(card_to_string(c) for c in cards))
            full_seen = short_seen = False
            i += k
            continue
        if full_seen:
            assert (2 in state.legal_actions()) == pk.can_complete_bet_or_raise_to(), history[:i]
            checked += short_seen
        a = history[i]
        if a == 0:
            pk.fold()
        elif a == 1:
            pk.check_or_call()
        else:
            before = state._max_bet
            target = state.raise_to_amount(a)
            pk.complete_bet_or_raise_to(target)
            if target - before >= game.bet_sizes[state._round]:
                full_seen = True
            elif full_seen:
                short_seen = True
            state.apply_action(a)
            i += 1
            continue
        state.apply_action(a)
        i += 1
    return checked
