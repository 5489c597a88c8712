"""``Game.observation_bounds`` contain every observation random play produces, in every env."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.envs import make
from pokerzoo.envs.registry import env_spec, registered_envs
from pokerzoo.games.leduc import LEDUC_VARIANTS

# The PettingZoo-compatible envs (pokerzoo.integrations) keep PettingZoo's observations, not the
# game's information-state tensors; tests/integrations checks them.
NATIVE = [n for n in registered_envs() if env_spec(n).module.startswith("pokerzoo.envs.")]
VARIANTS = [(name, {}) for name in NATIVE] + [
    ("leduc_holdem_v0", dict(LEDUC_VARIANTS["rlcard"])),
    ("leduc_holdem_v0", {"num_players": 3, "bet_cap": 4, "max_raises_per_round": None}),
    ("kuhn_poker_v0", {"num_players": 4}),
    ("limit_holdem_v0", {"num_players": 3, "ante": 5, "stacks": (250, 400, 600)}),
    # Short, unequal stacks: all-in over-bets give the largest "put in / pot before" ratios.
    ("no_limit_holdem_v0", {"stacks": (3000, 20000), "bet_fractions": (0.5, 1.0, 4.0)}),
    ("no_limit_holdem_v0", {"num_players": 6, "small_blind": 1, "big_blind": 2}),
]


def _hands(name: str, params: dict, hands: int, seed: int):
    """Every observation and env state seen in ``hands`` hands of random legal play."""
    env = make(name, **params)
    rng = np.random.default_rng(seed)
    for hand in range(hands):
        env.reset(seed=seed + hand)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            yield env, agent, obs["observation"]
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=lambda v: str(v))
def test_random_play_stays_within_the_declared_bounds(name: str, params: dict) -> None:
    env = make(name, **params)
    low, high = env.unwrapped.game.observation_bounds
    assert low.dtype == high.dtype == np.float32
    assert not low.flags.writeable and not high.flags.writeable
    assert np.all(low <= high)
    space = env.observation_space(env.possible_agents[0])["observation"]
    np.testing.assert_array_equal(space.low, low)
    np.testing.assert_array_equal(space.high, high)
    hands = 60 if "holdem" in name and "leduc" not in name else 200
    for env_, agent, obs in _hands(name, params, hands, seed=11):
        below, above = obs < low, obs > high
        assert not below.any() and not above.any(), (
            f"{agent}: entries {np.flatnonzero(below | above).tolist()} out of bounds"
        )
        assert env_.observation_space(agent)["observation"].contains(obs)
        assert env_.state_space.contains(env_.state())
    # The bounds are declared from the layout, not blanket infinities.
    assert np.all(np.isfinite(high))


def test_bounds_come_from_each_games_layout() -> None:
    kuhn = load_game("kuhn_poker")
    low, high = kuhn.observation_bounds
    assert low.shape == kuhn.information_state_shape and np.all(low == 0) and np.all(high == 1)
    game = load_game("no_limit_holdem", stacks=(3000, 20000))
    low, high = game.observation_bounds
    layout = game.information_state_layout
    scale = 1 / (100 * game.config.big_blind)
    assert high[layout.slice("pot")][0] == pytest.approx(23000 * scale)
    np.testing.assert_allclose(high[layout.slice("stacks")], [3000 * scale, 20000 * scale])
    assert np.all(high[layout.slice("hole_cards")] == 1)
    # Chips put in by one action over the pot before it: at most the biggest stack over the
    # forced bets (an all-in of 20000 into the blinds' 150).
    assert high[layout.slice("betting")].max() == pytest.approx(20000 / 150)


@pytest.mark.parametrize(
    ("name", "params", "unit"),
    [
        ("kuhn_poker", {}, 1.0),
        ("leduc_holdem", {}, 1.0),
        ("leduc_holdem", {"ante": 3}, 3.0),
        ("leduc_holdem", dict(LEDUC_VARIANTS["rlcard"]), 2.0),
        ("limit_holdem", {}, 100.0),
        ("no_limit_holdem", {"small_blind": 1, "big_blind": 2}, 2.0),
        ("unknown_leduc_holdem", {}, 1.0),
    ],
)
def test_chip_unit_is_the_big_blind_else_the_ante(name: str, params: dict, unit: float) -> None:
    assert load_game(name, **params).chip_unit == unit
