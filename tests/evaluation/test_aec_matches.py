"""Matches and tournaments with an AEC env factory as the game: duplicate reset seeds with the
seats rotated, any number of players, the built-in AEC opponents, errors that say what is wrong."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.classic import leduc_holdem_v4, tictactoe_v3

from pokerzoo.envs import kuhn_poker_v0
from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.evaluation.aec_matches import AECGame, aec_game, is_env_source
from pokerzoo.evaluation.aec_opponents import make_aec_opponent
from pokerzoo.evaluation.hand_history import HandRecorder
from pokerzoo.evaluation.head_to_head import head_to_head
from pokerzoo.evaluation.matches import versus_random
from pokerzoo.evaluation.tournament import Entrant, run_tournament
from pokerzoo.games.registry import load_game
from pokerzoo.policy import UniformRandomPolicy

KUHN = "pokerzoo.envs.kuhn_poker_v0:env"


class SeedLog:
    """A factory whose envs record every reset seed."""

    def __init__(self, make, **kwargs):
        self.make, self.kwargs, self.seeds = make, kwargs, []

    def __call__(self):
        env = self.make(**self.kwargs)
        reset = env.reset

        def logged_reset(seed=None, options=None):
            self.seeds.append(seed)
            return reset(seed=seed, options=options)

        env.reset = logged_reset
        return env


def builtin(*names):
    return [make_aec_opponent(n) for n in names]


@pytest.mark.parametrize("players", [2, 3])
def test_each_deal_is_one_reset_seed_played_once_per_rotation(players):
    log = SeedLog(kuhn_poker_v0.env, num_players=players)
    r = head_to_head(log, builtin("random", *["first-legal"] * (players - 1)), 30, seed=1)
    played = log.seeds[1:]  # the first reset is aec_game's check of the env
    assert r.num_deals == 30 and r.num_hands == 30 * players == len(played)
    deals = [played[k:k + players] for k in range(0, len(played), players)]
    assert all(len(set(d)) == 1 for d in deals) and len({d[0] for d in deals}) == 30
    assert abs(r.mean_chips.sum()) < 1e-9  # Kuhn is zero-sum


def test_identical_deterministic_players_tie_exactly_on_every_deal():
    # Same cards in both rotations: each player's two seats cancel to the chip.
    r = head_to_head(KUHN, builtin("last-legal", "last-legal"), 50, seed=0)
    assert r.mean_chips.tolist() == [0.0, 0.0] and r.ci_chips.tolist() == [0.0, 0.0]


def test_string_and_callable_factories_and_seeds_give_the_same_match():
    pair = builtin("first-legal", "random")
    a = head_to_head(tictactoe_v3.env, pair, 40, seed=3)
    b = head_to_head("pettingzoo.classic.tictactoe_v3:env", pair, 40, seed=3)
    c = head_to_head(tictactoe_v3.env, pair, 40, seed=4)
    assert np.array_equal(a.mean_chips, b.mean_chips) and a.num_hands == 80
    assert not np.array_equal(a.seat_mean_chips, c.seat_mean_chips)
    assert a.big_blind == 1.0 and a.mean_chips[0] > 0  # filling the board in order beats noise


def test_players_may_be_callables_answering_dicts_or_arrays():
    def lowest(observation, info):
        return {int(np.flatnonzero(observation["action_mask"])[0]): 1.0}

    a = head_to_head(KUHN, [lowest, make_aec_opponent("random")], 30, seed=0)
    b = head_to_head(KUHN, builtin("first-legal", "random"), 30, seed=0)
    assert np.array_equal(a.mean_chips, b.mean_chips)


def test_players_are_told_their_agent_and_seat():
    seen = set()

    def spy(observation, info):
        seen.add((info["agent"], info["player"]))
        return make_aec_opponent("random").act_probabilities(observation, info)

    head_to_head(KUHN, [spy, make_aec_opponent("random")], 5, seed=0)
    assert seen == {("player_0", 0), ("player_1", 1)}


def test_versus_random_takes_an_env_factory():
    r = versus_random(leduc_holdem_v4.env, make_aec_opponent("random"), 40, seed=0)
    assert r["hands"] == 40 and np.isfinite(r["bb_per_100"]) and r["ci95"] > 0


def test_the_game_path_is_unchanged_by_the_dispatch():
    game = load_game("kuhn_poker")
    assert not is_env_source(game) and is_env_source(KUHN) and is_env_source(tictactoe_v3.env)
    r = head_to_head(game, [UniformRandomPolicy(), UniformRandomPolicy()], 20, seed=0)
    assert r.num_hands == 40 and r.big_blind == game.chip_unit


def test_tournament_on_an_env_factory_is_antisymmetric_with_cis():
    field = [Entrant(n, make_aec_opponent(n), "builtin")
             for n in ("random", "first-legal", "last-legal")]
    t = run_tournament(KUHN, field, num_deals=100, seed=0)
    assert t.method == "sampled" and t.game == KUHN and t.chip_unit == 1.0
    assert t.max_asymmetry < 1e-9 and t.hands_per_pairing == 200
    i, j = t.names.index("last-legal"), t.names.index("first-legal")
    assert t.mean_mbb[i, j] == 1000.0  # always bet against always pass: the ante each hand
    assert t.scores == (None, None, None) and "Tournament on " + KUHN in t.format()
    again = run_tournament(kuhn_poker_v0.env, field, num_deals=100, seed=0)
    assert np.array_equal(again.mean_mbb, t.mean_mbb)


def test_tournament_on_pettingzoo_leduc():
    field = [Entrant(n, make_aec_opponent(n), "builtin") for n in ("random", "first-legal")]
    t = run_tournament(leduc_holdem_v4.env, field, num_deals=50, seed=0)
    assert t.mean_mbb.shape == (2, 2) and t.max_asymmetry < 1e-9


def test_refusals_name_what_is_wrong(tmp_path):
    with pytest.raises(ConfigError, match="2 seats but 3 players"):
        head_to_head(KUHN, builtin("random", "random", "random"), 5)
    with pytest.raises(ConfigError, match="MODULE:FACTORY"):
        head_to_head("no_colon_here", builtin("random", "random"), 5)
    with pytest.raises(ConfigError, match="act_probabilities"):
        head_to_head(KUHN, [object(), make_aec_opponent("random")], 5)
    with pytest.raises(ConfigError, match="no tree"):
        run_tournament(KUHN, [Entrant("a", make_aec_opponent("random"))],
                       tree=object())  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="hand histories"):
        head_to_head(KUHN, builtin("random", "random"), 5,
                     recorder=HandRecorder(load_game("kuhn_poker"), tmp_path / "h.txt"))


def test_weight_on_an_illegal_action_is_refused():
    def illegal(observation, info):
        probs = np.zeros(len(observation["action_mask"]))
        probs[np.flatnonzero(observation["action_mask"] == 0)[:1]] = 1.0
        return probs if probs.any() else observation["action_mask"]  # first move: all legal

    with pytest.raises(InvalidPolicyError, match="illegal actions"):
        head_to_head(tictactoe_v3.env, [illegal, make_aec_opponent("random")], 2, seed=0)


def test_an_env_without_mask_or_discrete_actions_is_refused():
    from gymnasium import spaces

    class NoMask:
        possible_agents = ["a"]

        def reset(self, seed=None, options=None):
            self.agents = ["a"]
            self.agent_selection = "a"

        def action_space(self, agent):
            return spaces.Discrete(2)

        def observation_space(self, agent):
            return spaces.Box(0, 1, (3,))

        def last(self):
            return np.zeros(3), 0.0, False, False, {}

        def observe(self, agent):
            return np.zeros(3)

        def step(self, action):
            pass

    with pytest.raises(ConfigError, match="no action mask"):
        aec_game(NoMask)
    assert isinstance(aec_game(KUHN), AECGame) and aec_game(KUHN).num_players == 2
