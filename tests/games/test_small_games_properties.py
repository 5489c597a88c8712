"""Property tests of Kuhn and the Leduc family: probabilities, zero-sum, infosets, replay."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerzoo import IllegalActionError, load_game
from pokerzoo.games import CHANCE, TERMINAL, ConfigError
from pokerzoo.games.leduc import LEDUC_VARIANTS

GAME_SETTINGS = [
    ("kuhn_poker", {}),
    ("kuhn_poker", {"num_players": 3}),
    ("kuhn_poker", {"num_players": 4}),
    ("leduc_holdem", {}),
    ("leduc_holdem", {"num_players": 3}),
    ("leduc_holdem", {"num_ranks": 4, "num_suits": 3, "raise_sizes": (1, 3)}),
    ("leduc_holdem", {"max_raises_per_round": 3, "ante": 2}),
    ("leduc_holdem", {"num_players": 3, "blinds": (0, 1, 2), "fold_unopposed": True,
                      "second_round_opener": "after_closer"}),
    ("leduc_holdem", {"blinds": (1, 2), "max_raises_per_round": None, "bet_cap": 6}),
    *[("leduc_holdem", params) for params in LEDUC_VARIANTS.values()],
]
IDS = [f"{name}-{params}" for name, params in GAME_SETTINGS]


def random_history(game, rng: np.random.Generator):
    """Play a random history to the end; yield every state on the way."""
    state = game.new_initial_state()
    states = [state.clone()]
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            action = outcomes[rng.choice(len(outcomes), p=probs)]
        else:
            legal = state.legal_actions()
            action = legal[rng.integers(len(legal))]
        state.apply_action(action)
        states.append(state.clone())
    return states


@pytest.mark.parametrize(("name", "params"), GAME_SETTINGS, ids=IDS)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_histories_respect_the_protocol(name, params, seed):
    game = load_game(name, **params)
    rng = np.random.default_rng(seed)
    states = random_history(game, rng)
    final = states[-1]
    for state in states[:-1]:
        player = state.current_player()
        if player == CHANCE:
            probs = [p for _, p in state.chance_outcomes()]
            assert all(p > 0 for p in probs)
            assert sum(probs) == pytest.approx(1.0, abs=1e-12)
        else:
            assert 0 <= player < game.num_players
            mask = state.legal_actions_mask()
            assert list(np.flatnonzero(mask)) == state.legal_actions()
            tensor = state.information_state_tensor()
            assert tensor.dtype == np.float32 and tensor.shape == game.information_state_shape
    assert final.current_player() == TERMINAL
    assert final.legal_actions() == []
    returns = final.returns()
    assert len(returns) == game.num_players
    assert sum(returns) == pytest.approx(0.0, abs=1e-9)
    assert len(final.history()) <= game.max_game_length
    # Deterministic replay: the same actions give the same states.
    replay = game.new_initial_state()
    for a in final.history():
        replay.apply_action(a)
    assert replay.returns() == returns
    for p in range(game.num_players):
        assert replay.information_state_key(p) == final.information_state_key(p)
        np.testing.assert_array_equal(
            replay.information_state_tensor(p), final.information_state_tensor(p)
        )


@pytest.mark.parametrize(("name", "params"), GAME_SETTINGS[:5], ids=IDS[:5])
def test_information_sets_share_player_legal_actions_and_tensor(name, params):
    """Every history in an information set has the same player, actions and tensor."""
    game = load_game(name, **params)
    seen: dict = {}
    frontier = [game.new_initial_state()]
    while frontier:
        state = frontier.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            p = state.current_player()
            key = state.information_state_key(p)
            entry = (p, tuple(state.legal_actions()), state.information_state_tensor(p).tobytes())
            assert seen.setdefault(key, entry) == entry, key
        frontier.extend(state.child(a) for a in state.legal_actions())
    assert seen


def test_illegal_actions_raise_with_the_legal_ones():
    state = load_game("leduc_holdem").new_initial_state()
    state.apply_action(0)
    with pytest.raises(IllegalActionError, match=r"legal actions are \[1, 2, 3, 4, 5\]"):
        state.apply_action(0)  # card 0 is already dealt
    state.apply_action(3)
    with pytest.raises(IllegalActionError, match=r"illegal action 0.*\[1, 2\]"):
        state.apply_action(0)  # fold without facing a bet
    with pytest.raises(IllegalActionError):
        state.apply_action(1.5)  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError):
        state.apply_action("call")  # type: ignore[arg-type]


def test_bad_game_names_and_parameters_are_explained():
    with pytest.raises(ConfigError, match="valid games are .*kuhn_poker.*leduc_holdem"):
        load_game("leduc_poker")
    with pytest.raises(ConfigError, match="did you mean 'leduc_holdem'"):
        load_game("leduc_holdum")
    with pytest.raises(ConfigError, match="valid parameters are .*num_ranks"):
        load_game("leduc_holdem", ranks=3)
    with pytest.raises(ConfigError, match="num_players"):
        load_game("kuhn_poker", num_players=1)
    with pytest.raises(ConfigError, match="bet_cap"):
        load_game("leduc_holdem", max_raises_per_round=None)
    with pytest.raises(ConfigError, match="cannot deal"):
        load_game("leduc_holdem", num_ranks=1, num_suits=2)


def test_kuhn_scripted_payoffs():
    game = load_game("kuhn_poker")

    def play(actions):
        s = game.new_initial_state()
        for a in actions:
            s.apply_action(a)
        return s

    assert play([2, 0, 0, 0]).returns() == [1.0, -1.0]  # check-check, K beats J
    assert play([0, 2, 1, 0]).returns() == [1.0, -1.0]  # bet, fold
    assert play([0, 2, 0, 1, 1]).returns() == [-2.0, 2.0]  # check, bet, call
    assert play([0, 2, 0, 1, 0]).returns() == [-1.0, 1.0]  # check, bet, fold
    three = load_game("kuhn_poker", num_players=3)
    s = three.new_initial_state()
    for a in [3, 1, 0, 0, 1, 1, 0]:  # P0 checks, P1 bets, P2 calls, P0 folds; P1 (card 1) wins
        s.apply_action(a)
    assert s.returns() == [-1.0, 3.0, -2.0]


def test_leduc_scripted_payoffs_pair_beats_high_card_and_ties_split():
    game = load_game("leduc_holdem")

    def play(actions):
        s = game.new_initial_state()
        for a in actions:
            s.apply_action(a)
        return s

    # J vs K, public J: raise, call; round 2 raise, call -> J pair wins 1 + 2 + 4.
    assert play([0, 4, 2, 1, 1, 2, 1]).returns() == [7.0, -7.0]
    # J vs J (tie), public Q: check-check twice -> split.
    assert play([0, 1, 1, 1, 2, 1, 1]).returns() == [0.0, 0.0]
    # Raise, re-raise, fold: the folder loses 3.
    assert play([0, 4, 2, 2, 0]).returns() == [-3.0, 3.0]
    state = play([0, 4, 2, 2])
    assert state.legal_actions() == [0, 1]  # two raises: the cap
    assert state.public_state()["contributions"] == [3, 5]


def test_information_state_tensor_layout_is_documented_from_its_declaration():
    game = load_game("leduc_holdem")
    layout = game.information_state_layout
    assert layout.size == game.information_state_shape[0]
    for f in layout.fields:
        assert f.name in type(game).__doc__
    s = game.new_initial_state()
    s.apply_action(3)
    s.apply_action(0)
    views = layout.views(s.information_state_tensor(0))
    assert views["private_card"].tolist() == [0, 0, 0, 1, 0, 0]
    assert views["private_rank"].tolist() == [0, 1, 0]
    assert views["player"].tolist() == [1, 0]


@pytest.mark.parametrize(("name", "params"), [("kuhn_poker", {"num_players": 3}),
                                              ("leduc_holdem", {})])
def test_sampled_chance_outcomes_follow_chance_outcomes(name, params):
    """The fast uniform deal draws every remaining card equally often."""
    from scipy.stats import chisquare

    game = load_game(name, **params)
    rng = np.random.default_rng(7)
    state = game.new_initial_state()
    state.apply_action(1)
    outcomes = [a for a, _ in state.chance_outcomes()]
    draws = [state.sample_chance_outcome(rng) for _ in range(6000)]
    assert set(draws) == set(outcomes)
    counts = [draws.count(a) for a in outcomes]
    assert chisquare(counts).pvalue > 1e-3
