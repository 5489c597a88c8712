"""Properties of hold'em over sampled random hands: zero sum and chip conservation, information
sets (same key, same legal actions, same tensor), deterministic replay, illegal actions, chance
outcomes, tensors and the public view."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerzoo.games import CHANCE, IllegalActionError, load_game

GAMES = ["limit_holdem", "no_limit_holdem"]


def random_history(game, rng: np.random.Generator) -> list[int]:
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance_outcome(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    return state.history()


def replay(game, history: list[int]):
    state = game.new_initial_state()
    for a in history:
        state.apply_action(a)
    return state


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(GAMES),
    n=st.integers(2, 6),
    seed=st.integers(0, 2**32 - 1),
    ante=st.integers(0, 20),
)
def test_zero_sum_conservation_and_deterministic_replay(name, n, seed, ante) -> None:
    rng = np.random.default_rng(seed)
    stacks = tuple(int(s) for s in rng.integers(200, 4000, size=n))
    game = load_game(name, num_players=n, stacks=stacks, ante=ante)
    history = random_history(game, rng)
    a, b = replay(game, history), replay(game, history)
    assert a.is_terminal() and a.returns() == b.returns()
    r = a.returns()
    assert sum(r) == 0
    ps = a.public_state()
    # Conservation: stacks plus contributions give back the starting stacks.
    assert [s + c for s, c in zip(ps["stacks"], ps["contributions"])] == list(stacks)
    assert all(-c <= x for x, c in zip(r, ps["contributions"]))
    assert len(history) <= game.max_game_length


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(GAMES), n=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_information_sets_share_key_legal_actions_and_tensor(name, n, seed) -> None:
    """Re-deal the other seats' hole cards and replay the same betting: at every decision of
    the observer the key, the tensor and the legal actions must not change."""
    rng = np.random.default_rng(seed)
    game = load_game(name, num_players=n)
    history = random_history(game, rng)
    observer = int(rng.integers(n))
    own = history[2 * observer : 2 * observer + 2]
    board = replay(game, history).public_state()["public_cards"]
    spare = [c for c in range(52) if c not in own and c not in board]
    rng.shuffle(spare)
    holes = []
    for seat in range(n):
        holes += own if seat == observer else [int(spare.pop()), int(spare.pop())]
    other = holes + history[2 * n :]
    s1, s2 = game.new_initial_state(), game.new_initial_state()
    for a1, a2 in zip(history, other):
        if s1.current_player() >= 0:
            assert s1.legal_actions() == s2.legal_actions()
        if s1.current_player() == observer:
            assert s1.information_state_key() == s2.information_state_key()
            np.testing.assert_array_equal(
                s1.information_state_tensor(), s2.information_state_tensor()
            )
        s1.apply_action(a1)
        s2.apply_action(a2)
    # And an opponent's view differs when its own cards differ.
    opp = (observer + 1) % n
    if s1.private_cards()[opp] != s2.private_cards()[opp]:
        assert s1.information_state_key(opp) != s2.information_state_key(opp)


@pytest.mark.parametrize("name", GAMES)
def test_illegal_actions_raise(name: str) -> None:
    game = load_game(name)
    state = game.new_initial_state()
    state.apply_action(5)
    with pytest.raises(IllegalActionError, match="illegal action 5"):
        state.apply_action(5)  # card already dealt
    with pytest.raises(IllegalActionError):
        state.apply_action(52)
    with pytest.raises(IllegalActionError):
        state.apply_action("7")
    for c in (6, 7, 8):
        state.apply_action(c)
    with pytest.raises(IllegalActionError, match="legal actions are"):
        state.apply_action(game.num_distinct_actions)
    state.apply_action(0)  # the small blind folds
    assert state.is_terminal()
    with pytest.raises(IllegalActionError):
        state.apply_action(1)
    assert state.legal_actions() == [] and state.chance_outcomes() == []


def test_chance_outcomes_uniform_over_the_remaining_deck() -> None:
    game = load_game("no_limit_holdem", num_players=3)
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert [c for c, _ in outcomes] == list(range(52))
    for c in (0, 13, 26, 39, 51, 50):
        state.apply_action(c)
    assert state.current_player() == 2
    act = state.legal_actions()
    assert act == [0, 1, 2, 3, 4]
    state.apply_action(1)
    state.apply_action(1)
    state.apply_action(1)
    assert state.current_player() == CHANCE
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 46 and abs(sum(p for _, p in outcomes) - 1) < 1e-12
    assert state.legal_actions() == [c for c, _ in outcomes]
    rng = np.random.default_rng(0)
    seen = {state.sample_chance_outcome(rng) for _ in range(2000)}
    assert seen == {c for c, _ in outcomes}


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("n", [2, 6])
def test_tensor_fields(name: str, n: int) -> None:
    game = load_game(name, num_players=n)
    rng = np.random.default_rng(3)
    state = game.new_initial_state()
    while state.is_chance_node() or len(state.public_state()["public_cards"]) < 3:
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            state.apply_action(state.sample_chance_outcome(rng))
        else:
            state.apply_action(1)  # check/call to reach the flop
    p = state.current_player()
    t = state.information_state_tensor()
    assert t.dtype == np.float32 and t.shape == game.information_state_shape
    v = game.information_state_layout.views(t)
    assert v["player"][p] == 1 and v["player"].sum() == 1
    assert sorted(np.flatnonzero(v["hole_cards"])) == sorted(state.private_cards()[p])
    assert sorted(np.flatnonzero(v["flop"])) == sorted(state.public_state()["public_cards"])
    assert v["round"][1] == 1 and v["turn"].sum() == 0
    assert v["pot"][0] == pytest.approx(state.public_state()["pot"] / 10_000)
    assert v["betting"].sum() > 0
    assert v["position"][(p - game.postflop_first) % n] == 1 and v["position"].sum() == 1


def test_public_state_keys() -> None:
    game = load_game("no_limit_holdem", num_players=3)
    state = game.new_initial_state()
    for c in range(6):
        state.apply_action(c)
    state.apply_action(2)
    ps = state.public_state()
    for key in ("pot", "contributions", "public_cards", "betting", "round", "stacks"):
        assert key in ps
    assert ps["betting"] == [["raise to 225"]]  # 100 + half of (150 + 100 to call)
    assert ps["round"] == 0 and ps["pot"] == sum(ps["contributions"])
