"""PokerEnv behaviour: invariants in step, infos, hooks, and many random hands per env."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo import ConfigError, IllegalActionError, load_game
from pokerzoo.envs import PokerEnv, make, registered_envs
from pokerzoo.envs.poker_env import PokerEnv as _PokerEnv
from pokerzoo.envs.registry import env_spec

EPISODES = {"kuhn_poker_v0": 10_000, "leduc_holdem_v0": 10_000}
HOLDEM_EPISODES = 10_000


def test_step_before_reset_and_out_of_bounds_raise_clear_errors() -> None:
    env = make("leduc_holdem_v0")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(1)
    env.reset(seed=0)
    for bad in (3, -1, 1.5, "call", None):
        with pytest.raises(ValueError, match="outside the action space"):
            env.step(bad)
    env.step(np.int64(1))  # numpy integers are fine
    assert env.agent_selection == "player_1"


def test_illegal_action_penalty_and_raw_env() -> None:
    env = make("leduc_holdem_v0", illegal_reward=-7.0)
    env.reset(seed=0)
    env.step(0)  # fold when nothing is bet: illegal
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -7.0, "player_1": 0.0}
    assert env.infos["player_0"]["illegal_action"] is True
    assert env.illegal_actions == 1
    assert not env.observe("player_0")["action_mask"].any()
    raw = make("leduc_holdem_v0", raw=True)
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError, match="legal actions are \\[1, 2\\]"):
        raw.step(0)
    raw.step(1)  # the env is unchanged by the rejected action
    assert raw.agent_selection == "player_1"
    with pytest.raises(ConfigError, match="raw_env"):
        make("leduc_holdem_v0", raw=True, illegal_action="penalize")


def test_unknown_names_and_parameters_list_what_exists() -> None:
    with pytest.raises(ConfigError, match="available envs are .*leduc_holdem_v0"):
        make("leduc_v9")
    with pytest.raises(ConfigError, match="valid parameters are .*num_ranks.*env options"):
        make("leduc_holdem_v0", num_rank=4)
    with pytest.raises(ValueError, match="render_mode"):
        make("kuhn_poker_v0", render_mode="rgb_array")


def test_spaces_infos_and_state() -> None:
    env = make("leduc_holdem_v0", num_players=3)
    spaces = {id(env.observation_space(a)) for a in env.possible_agents}
    assert len(spaces) == 1 and env.observation_space("player_0") is env.observation_space("x")
    assert len({id(env.action_space(a)) for a in env.possible_agents}) == 1
    env.reset(seed=3)
    state = env.game_state
    for p, agent in enumerate(env.possible_agents):
        assert env.infos[agent]["info_state"] == state.information_state_key(p)
        mask = env.observe(agent)["action_mask"]
        if agent == env.agent_selection:
            assert env.infos[agent]["legal_actions"] == state.legal_actions()
            assert mask.tolist() == state.legal_actions_mask().tolist()
        else:
            assert "legal_actions" not in env.infos[agent] and not mask.any()
    assert env.state().shape == env.state_space.shape
    assert env.state_space.contains(env.state())


def test_reset_reseeds_only_with_a_seed_and_ignores_unknown_options() -> None:
    env = make("leduc_holdem_v0")
    env.reset(seed=1, options={"no_such_option": 1})
    first = env.game_state.private_cards()
    env.reset(seed=1)
    assert env.game_state.private_cards() == first
    deals = set()
    for _ in range(20):
        env.reset()
        deals.add(str(env.game_state.private_cards()))
    assert len(deals) > 1


class _HookedGame(type(load_game("kuhn_poker"))):
    """Kuhn with the hooks of an unknown-environment game (rigged chance, drawn rewards)."""

    def __init__(self, resamples: int = 0) -> None:
        super().__init__()
        self.resamples = resamples

    def with_resampled_environment(self, rng: np.random.Generator) -> _HookedGame:
        return _HookedGame(self.resamples + 1)  # a new game: the old one is left alone

    def new_initial_state(self):
        state = super().new_initial_state()

        class Hooked(type(state)):
            __slots__ = ()

            def chance_outcomes(self):  # a "true model" that always deals the top cards
                outcomes = super().chance_outcomes()
                return [(outcomes[-1][0], 1.0)] if outcomes else []

            def sample_returns(self, rng):
                return [r + 100.0 * (p == 0) for p, r in enumerate(self.returns())]

        state.__class__ = Hooked
        return state


def test_hooks_for_unknown_environment_games() -> None:
    game = _HookedGame()
    env = _PokerEnv(game, illegal_action="raise")
    env.reset(seed=0, options={"resample_environment": True})
    assert game.resamples == 0 and env.game is not game and env.game.resamples == 1
    assert env.game_state.private_cards() == [[2], [1]]  # dealt from chance_outcomes()
    env.step(0)
    env.step(0)
    assert env.rewards == {"player_0": 101.0, "player_1": -1.0}
    resampled = env.game
    env.reset(options={"resample_environment": False})
    assert env.game is resampled


def _random_hands(env: PokerEnv, hands: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    space = env.observation_space("player_0")
    decisions = 0
    for hand in range(hands):
        if hand:
            env.reset()
        state = env.game_state
        start = state.public_state()
        total = 0.0
        for _agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            total += reward
            if terminated or truncated:
                env.step(None)
                continue
            legal = info["legal_actions"]
            assert legal == state.legal_actions()
            assert np.flatnonzero(obs["action_mask"]).tolist() == legal
            if decisions % 97 == 0:
                assert space.contains(obs)
            env.step(legal[int(rng.random() * len(legal))])
            decisions += 1
        # Chips are conserved: payoffs sum to zero and nobody wins more than the pot.
        if env.game.is_zero_sum:
            assert abs(total) < 1e-9
        pot = state.public_state()["pot"]
        assert max(state.returns()) <= pot and pot >= start["pot"]
        if "stacks" in start:
            end = state.public_state()
            chips = sum(end["stacks"]) + end["pot"]
            assert chips == sum(start["stacks"]) + start["pot"]
    return decisions


# PokerEnv's conventions (infos' legal_actions, game_state); the PettingZoo-compatible envs in
# pokerzoo.integrations keep PettingZoo's and are checked in tests/integrations.
@pytest.mark.parametrize(
    "name", [n for n in registered_envs() if env_spec(n).module.startswith("pokerzoo.envs.")]
)
def test_ten_thousand_random_hands(name: str) -> None:
    hands = EPISODES.get(name, HOLDEM_EPISODES)
    assert _random_hands(make(name), hands, seed=7) >= hands
