"""VectorPokerEnv.step(hold=...): held hands stay exactly as they are, the others advance."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.envs import VectorPokerEnv
from pokerzoo.errors import ConfigError


@pytest.mark.parametrize(("game", "backend"), [
    ("kuhn_poker", "arrays"), ("leduc_holdem", "arrays"), ("leduc_holdem", "state"),
    ("limit_holdem", "arrays"), ("no_limit_holdem", "arrays"),
])
def test_held_hands_do_not_move(game: str, backend: str) -> None:
    venv = VectorPokerEnv(game, num_envs=32, seed=1, backend=backend, final_observations=True)
    obs, mask, player = venv.reset()
    rng = np.random.default_rng(0)
    moved = 0
    for _ in range(40):
        hold = rng.random(32) < 0.5
        before = venv.state_dict()
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        actions[hold] = 99  # ignored
        result = venv.step(actions, hold=hold)
        np.testing.assert_array_equal(result.obs[hold], obs[hold])
        np.testing.assert_array_equal(result.mask[hold], mask[hold])
        np.testing.assert_array_equal(result.player[hold], player[hold])
        assert not result.done[hold].any() and (result.rewards[hold] == 0).all()
        assert result.final_obs is not None and (result.final_obs[hold] == 0).all()
        after = venv.state_dict()["hands"]
        for key, value in before["hands"].items():
            if isinstance(value, np.ndarray):
                np.testing.assert_array_equal(after[key][hold], value[hold])
            else:
                assert [v for v, h in zip(after[key], hold) if h] == [
                    v for v, h in zip(value, hold) if h
                ]
        moved += int((result.done | (result.player != player))[~hold].sum())
        obs, mask, player = result.obs, result.mask, result.player
    assert moved > 100


def test_hold_that_holds_nothing_is_a_plain_step_and_bad_holds_are_refused() -> None:
    a = VectorPokerEnv("leduc_holdem", num_envs=8, seed=3)
    b = VectorPokerEnv("leduc_holdem", num_envs=8, seed=3)
    a.reset()
    b.reset()
    ones = np.ones(8, np.int64)
    plain, held = a.step(ones), b.step(ones, hold=np.zeros(8, bool))
    np.testing.assert_array_equal(plain.obs, held.obs)
    with pytest.raises(ConfigError, match="8 booleans"):
        b.step(ones, hold=np.zeros(8, np.int64))
    with pytest.raises(ConfigError, match="8 booleans"):
        b.step(ones, hold=np.zeros(3, bool))


def test_no_hold_on_an_unknown_environment() -> None:
    from pokerzoo import load_game

    venv = VectorPokerEnv(load_game("unknown_kuhn_poker"), num_envs=4, seed=0)
    venv.reset()
    with pytest.raises(ConfigError, match="unknown environment"):
        venv.step(np.zeros(4, np.int64), hold=np.array([True, False, False, False]))
