"""The hold'em tensor kept per state and updated step by step equals one written from scratch."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.games import load_game

GAMES = [
    ("no_limit_holdem", {}),
    ("no_limit_holdem", {"num_players": 4}),
    ("limit_holdem", {"num_players": 3}),
    # min-raises only: rounds longer than the tensor's action slots (the overflow rule)
    ("no_limit_holdem", {"bet_fractions": (0.1,), "stacks": (100_000, 100_000)}),
]


def expected_betting(state) -> np.ndarray:
    """The betting block as ``holdem_layout`` documents it, from the state's log: per round its
    first ``slots - 1`` actions and then its latest (rounds with more actions than slots)."""
    game = state.game
    n, na, slots = game.num_players, game.num_distinct_actions, game.history_slots
    block = np.zeros((4, slots, n + na + 1), dtype=np.float32)
    for rnd in range(4):
        entries = [e for e in state._log if e[0] == rnd]
        if len(entries) > slots:
            entries = entries[: slots - 1] + entries[-1:]
        for k, (_, seat, action, put, pot_before, _) in enumerate(entries):
            block[rnd, k, seat] = block[rnd, k, n + action] = 1.0
            block[rnd, k, n + na] = put / pot_before
    return block.ravel()


def assert_as_fresh(state, seat: int) -> np.ndarray:
    """``seat``'s tensor equals, bit for bit, one written from scratch (a clone starts without
    the kept entries); returns it."""
    kept = state.information_state_tensor(seat)
    fresh = state.clone().information_state_tensor(seat)
    np.testing.assert_array_equal(kept.view(np.uint32), fresh.view(np.uint32))
    betting = state.game.information_state_layout.views(kept)["betting"]
    np.testing.assert_array_equal(betting, expected_betting(state))
    return kept


@pytest.mark.parametrize(("name", "params"), GAMES)
def test_incremental_tensor_equals_a_fresh_one_bit_for_bit(name: str, params: dict) -> None:
    game = load_game(name, **params)
    rng = np.random.default_rng(7)
    raise_often = "bet_fractions" in params
    overflowing = 0
    for _ in range(60):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(rng))
                continue
            if rng.random() < 0.6:  # look now and then, so updates span several actions
                kept = assert_as_fresh(state, int(rng.integers(game.num_players)))
                kept[:] = 9.0  # the caller's copy: writing to it changes nothing kept
            legal = state.legal_actions()
            if raise_often:  # min-raise or call: long rounds
                state.apply_action(2 if 2 in legal and rng.random() < 0.9 else 1)
            else:
                state.apply_action(legal[int(rng.integers(len(legal)))])
        for seat in range(game.num_players):
            assert_as_fresh(state, seat)
        rounds = [entry[0] for entry in state._log]
        overflowing += max(rounds.count(r) for r in range(4)) > game.history_slots
    assert overflowing or not raise_often  # the overflow rule was exercised
