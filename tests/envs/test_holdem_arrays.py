"""The hold'em array backend of ``VectorPokerEnv`` replays the ``HoldemState`` rules to the chip.

100,000 hands over the configs below (heads-up no-limit and limit, 3 to 6 seats, antes, odd
blinds, uneven short stacks for all-ins and side pots) are played through the env with random
legal actions and, hand by hand, through ``State`` objects dealt the same cards. At every
decision of every hand the seat to act and the legal-action mask must agree; at the end of
every hand ``done`` and the returns must agree exactly. Information-state tensors are compared
exactly on a random sample (an eighth) of the decisions and of the finished hands (every seat's
final tensor), since the ``State`` tensor costs more than the rest of the replay together.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from phevaluator import evaluate_cards

from pokerzoo import load_game
from pokerzoo.envs import VectorPokerEnv
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import CHANCE, TERMINAL
from pokerzoo.games.holdem import NoLimitHoldem, NoLimitHoldemConfig
from pokerzoo.games.holdem.arrays import HoldemArrays, hand_values

# (game, params, hands, batch): 100,000 hands in all.
CONFIGS = [
    ("no_limit_holdem", {}, 20_000, 1024),
    ("no_limit_holdem", {"stacks": (2_000, 700), "bet_fractions": (0.33, 0.75, 1.5, 3.0)},
     10_000, 512),
    ("limit_holdem", {}, 15_000, 1024),
    ("limit_holdem", {"raise_cap": 2, "stacks": (650, 1_100)}, 5_000, 512),
    ("no_limit_holdem", {"num_players": 3, "ante": 10, "stacks": (1_000, 3_000, 500)},
     10_000, 512),
    ("no_limit_holdem",
     {"num_players": 6, "stacks": (500, 1_500, 900, 20_000, 250, 3_300), "bet_fractions": (0.5,)},
     10_000, 512),
    ("no_limit_holdem",
     {"num_players": 4, "small_blind": 1, "big_blind": 3, "ante": 1, "stacks": (50, 90, 37, 200)},
     8_000, 512),
    ("limit_holdem", {"num_players": 3}, 8_000, 512),
    ("limit_holdem",
     {"num_players": 5, "small_blind": 1, "big_blind": 2, "ante": 1,
      "stacks": (13, 40, 25, 9, 60)},
     7_000, 512),
    ("limit_holdem", {"num_players": 6, "stacks": (400, 900, 2_000, 700, 1_200, 300)},
     7_000, 512),
]
SAMPLE = 0.125  # share of decisions and finished hands whose tensors are compared


def _new_state(game, deal, n):
    state = game.new_initial_state()
    for card in deal[: 2 * n]:
        state.apply_action(int(card))
    return state


def _random_actions(mask: np.ndarray, weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    # Exponential race: each legal action wins with probability proportional to its weight.
    keys = rng.exponential(size=mask.shape) / np.where(mask > 0, weights, 1e-300)
    return keys.argmin(axis=1)


def _bits(legal: list[int]) -> int:
    return sum(1 << a for a in legal)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "params", "hands", "batch"), CONFIGS)
def test_hands_replay_through_the_state_rules(name, params, hands, batch):
    game = load_game(name, **params)
    n, num_actions = game.num_players, game.num_distinct_actions
    size = game.information_state_layout.size
    venv = VectorPokerEnv(game, num_envs=batch, seed=hands, final_observations=True)
    assert venv.backend == "arrays"
    # Favour calls so that hands reach the river; all-ins stay frequent in no-limit.
    weights = np.ones(num_actions)
    weights[1] = 4.0
    if not game.is_limit:
        weights[-1] = 0.3
    rng = np.random.default_rng(hands)
    bit = 1 << np.arange(num_actions)
    obs, mask, player = venv.reset()
    deals = venv.deals()
    states = [_new_state(game, d, n) for d in deals]
    dealt = np.full(batch, 2 * n)
    finished = rivers = checked = 0
    while finished < hands:
        current = np.fromiter((s.current_player() for s in states), np.int64, batch)
        np.testing.assert_array_equal(player, current)
        legal = np.fromiter((_bits(s.legal_actions()) for s in states), np.int64, batch)
        np.testing.assert_array_equal(mask.astype(np.int64) @ bit, legal)
        rows = np.flatnonzero(rng.random(batch) < SAMPLE)
        want = [states[i].information_state_tensor(player[i]) for i in rows]
        np.testing.assert_array_equal(obs[rows], np.reshape(want, (len(rows), size)))
        checked += len(rows)
        actions = _random_actions(mask, weights, rng)
        result = venv.step(actions)
        for i, state in enumerate(states):
            state.apply_action(int(actions[i]))
            while state.current_player() == CHANCE:
                state.apply_action(int(deals[i, dealt[i]]))
                dealt[i] += 1
        over = np.fromiter((s.current_player() == TERMINAL for s in states), bool, batch)
        np.testing.assert_array_equal(result.done, over)
        rows = np.flatnonzero(over)
        expected = np.zeros((batch, n))
        expected[rows] = np.reshape([states[i].returns() for i in rows], (len(rows), n))
        np.testing.assert_array_equal(result.rewards, expected)  # zeros for unfinished hands
        sample = rows[rng.random(len(rows)) < SAMPLE]
        want = [states[i].information_state_tensor(p) for i in sample for p in range(n)]
        np.testing.assert_array_equal(
            result.final_obs[sample], np.reshape(want, (len(sample), n, size))
        )
        finished += len(rows)
        rivers += int((dealt[rows] == 2 * n + 5).sum())  # hands that saw the river
        deals = venv.deals()
        for i in rows:
            states[i] = _new_state(game, deals[i], n)
        dealt[rows] = 2 * n
        obs, mask, player = result.obs, result.mask, result.player
    assert rivers > hands // 10 and checked > 1_000


def test_hand_values_order_hands_as_the_rules_evaluator():
    # Random 7-card hands from the full deck and from decks thinned to few ranks or one heavy
    # suit, so that flushes, straight flushes, quads and full houses occur many times.
    rng = np.random.default_rng(0)
    decks = [np.arange(52), np.arange(32, 52), np.r_[np.arange(0, 52, 4), np.arange(1, 24, 4)],
             np.r_[np.arange(0, 12), np.arange(48, 52)], np.r_[np.arange(1, 52, 4), 0, 4, 50]]
    hands = np.concatenate([
        deck[np.argsort(rng.random((40_000, len(deck))), axis=1)[:, :7]] for deck in decks
    ])
    ours = hand_values(hands)
    theirs = np.array([evaluate_cards(*map(int, h)) for h in hands])
    # The map between the two must be one-to-one and order-reversing (theirs: smaller wins).
    pairs = np.unique(np.stack([ours, theirs], axis=1), axis=0)
    assert len(pairs) == len(np.unique(ours)) == len(np.unique(theirs)) > 4_000
    assert (np.diff(pairs[:, 1]) < 0).all()
    assert len(np.unique(ours >> 20)) == 9  # every category, straight flushes included


def _random_mask_actions(mask, rng):
    return (rng.random(mask.shape) * mask).argmax(axis=1)


@pytest.mark.parametrize("name", ["no_limit_holdem", "limit_holdem"])
def test_state_dict_round_trip_mid_hand(name):
    game = load_game(name, num_players=3)
    env = VectorPokerEnv(game, num_envs=16, seed=5)
    _, mask, _ = env.reset()
    rng = np.random.default_rng(1)
    for _ in range(3):
        mask = env.step(_random_mask_actions(mask, rng)).mask
    state = env.state_dict()
    twin = VectorPokerEnv(game, num_envs=16, seed=77)
    twin.load_state_dict(state)
    for _ in range(30):  # hands in flight finish and new ones are dealt from the saved RNG
        actions = _random_mask_actions(mask, rng)
        a, b = env.step(actions), twin.step(actions)
        for x, y in zip(a[:5], b[:5]):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(env.deals(), twin.deals())
        mask = a.mask
    bad = env.state_dict()
    bad["hands"]["chips"] = bad["hands"]["chips"][:, :, :2]
    with pytest.raises(ValueError, match="chips has shape"):
        twin.load_state_dict(bad)


@dataclasses.dataclass(frozen=True)
class _StraddleConfig(NoLimitHoldemConfig):
    straddle: int = 0


def test_unsupported_configs_and_games_are_refused_clearly():
    game = NoLimitHoldem(_StraddleConfig())
    with pytest.raises(ConfigError, match=r"does not play \['straddle'\]; use backend='state'"):
        HoldemArrays(game, 4)
    with pytest.raises(ConfigError, match="backend='state'"):
        VectorPokerEnv(game, num_envs=4)
    assert VectorPokerEnv(game, num_envs=4, backend="state").backend == "state"

    class Subclassed(NoLimitHoldem):
        """A subclass may change chance or rewards: it must not get the array backend."""

    with pytest.raises(ConfigError, match="no array backend"):
        VectorPokerEnv(Subclassed(), num_envs=2, backend="arrays")
    assert VectorPokerEnv(Subclassed(), num_envs=2).backend == "state"
    assert VectorPokerEnv("limit_holdem", num_envs=2).backend == "arrays"
