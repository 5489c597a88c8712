"""The PettingZoo-classic compatible Leduc: the same deals, observations, masks, rewards and
turn order as PettingZoo's ``leduc_holdem_v4`` (RLCard) on the same seeds and actions."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pettingzoo
import pytest
from pettingzoo.classic import leduc_holdem_v4 as pz_leduc
from pettingzoo.test import api_test

import pokerzoo
from pokerzoo.errors import ConfigError, IllegalActionError
from pokerzoo.integrations.pettingzoo_classic import leduc_holdem_v4, testing
from pokerzoo.integrations.pettingzoo_classic.testing import assert_same_view

# RLCard's cards as our card ids (rank * 2 + suit; suits S, H; ranks J, Q, K).
RLCARD_CARD = {f"{s}{r}": 2 * "JQK".index(r) + "SH".index(s) for r in "JQK" for s in "SH"}


def rlcard_deal(env) -> tuple[list[int], int | None]:
    """The private cards of player_0, player_1 and the public card in PettingZoo's env."""
    game = env.unwrapped.env.game
    hands = [RLCARD_CARD[p.hand.get_index()] for p in game.players]
    public = RLCARD_CARD[game.public_card.get_index()] if game.public_card else None
    return hands, public


def our_deal(env) -> tuple[list[int], int | None]:
    base = env.unwrapped
    state = base.game_state
    private = state.private_cards()
    hands = [private[base._seat_of(i)][0] for i in range(2)]
    public = state.public_state()["public_cards"]
    return hands, public[0] if public else None


def same_deal(theirs, ours) -> None:
    assert our_deal(ours) == rlcard_deal(theirs)


def replay(seed: int, rng: np.random.Generator, make=leduc_holdem_v4.env, hands: int = 1):
    """Play ``hands`` hands from ``reset(seed)`` in both envs with the same random legal
    actions, comparing everything (the cards too) at every step; each hand's rewards."""
    return testing.replay(pz_leduc.env(), make(), seed, rng, hands, check=same_deal)


@pytest.mark.parametrize("seed", range(0, 400, 40))
def test_same_seed_same_hands_observations_masks_and_rewards(seed: int) -> None:
    rng = np.random.default_rng(seed)
    ends = [end for s in range(seed, seed + 40) for end in replay(s, rng)]
    # The hands cover both small blinds, folds and showdowns, wins and losses.
    assert {r for end in ends for r in end.values()} >= {-1.0, 1.0}
    assert any(abs(r) > 2 for end in ends for r in end.values())


def test_unseeded_resets_continue_the_same_deals() -> None:
    ends = replay(7, np.random.default_rng(0), hands=300)
    assert {0.0} in [set(end.values()) for end in ends]  # a split pot


def test_raw_envs_agree_on_legal_play() -> None:
    replay(3, np.random.default_rng(1), make=leduc_holdem_v4.raw_env, hands=20)


def test_rewards_are_chips_over_the_big_blind() -> None:
    env = leduc_holdem_v4.env()
    env.reset(seed=0)
    first = env.agent_selection  # the small blind (1 chip in)
    env.step(2)  # fold
    other = next(a for a in env.possible_agents if a != first)
    assert env.rewards == {first: -0.5, other: 0.5}


def test_an_illegal_action_ends_the_hand_as_in_pettingzoo() -> None:
    rng = np.random.default_rng(5)
    played = set()
    for seed in range(60):
        theirs, ours = pz_leduc.env(), leduc_holdem_v4.env()
        theirs.reset(seed=seed)
        ours.reset(seed=seed)
        while not any(theirs.terminations.values()):
            mask = theirs.last()[0]["action_mask"]
            illegal = np.flatnonzero(mask == 0)
            if len(illegal) and rng.random() < 0.4:
                action = int(rng.choice(illegal))
                played.add(action)
                cheat = theirs.agent_selection
                theirs.step(action)
                ours.step(action)
                assert ours.rewards[cheat] == -1
                assert all(r == 0 for a, r in ours.rewards.items() if a != cheat)
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
                theirs.step(action)
                ours.step(action)
            assert_same_view(theirs, ours)
    assert played == {0, 1, 3}  # call, raise (over the cap) and check; fold is always legal


def test_raw_env_refuses_illegal_actions() -> None:
    env = leduc_holdem_v4.raw_env()
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["action_mask"].tolist() == [1, 1, 1, 0]
    with pytest.raises(IllegalActionError, match=r"legal actions are \[0, 1, 2\]"):
        env.step(3)
    with pytest.raises(IllegalActionError):
        env.step("call")


@pytest.mark.parametrize("make", [leduc_holdem_v4.env, leduc_holdem_v4.raw_env])
def test_pettingzoo_api_test(make) -> None:
    api_test(make(), num_cycles=200)


def test_spaces_and_arguments_match_pettingzoo() -> None:
    theirs, ours = pz_leduc.raw_env(), leduc_holdem_v4.raw_env(render_mode="rgb_array")
    assert ours.possible_agents == theirs.possible_agents
    assert {**ours.metadata, "render_modes": None} == {**theirs.metadata, "render_modes": None}
    assert set(ours.metadata["render_modes"]) == set(theirs.metadata["render_modes"]) | {"ansi"}
    for agent in theirs.possible_agents:
        assert ours.observation_space(agent) == theirs.observation_space(agent)
        assert ours.action_space(agent) == theirs.action_space(agent)
    assert ours.screen_height == theirs.screen_height == 1000
    with pytest.raises(ConfigError, match="render_mode must be None or one of"):
        leduc_holdem_v4.raw_env(render_mode="svg")


def test_render_modes(capsys) -> None:
    env = leduc_holdem_v4.env(render_mode="human")
    env.reset(seed=0)
    env.step(1)  # raise: human mode draws at each step
    assert "pot 6" in capsys.readouterr().out
    frame = leduc_holdem_v4.env(render_mode="rgb_array")
    frame.reset(seed=0)
    image = frame.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    text = leduc_holdem_v4.env(render_mode="ansi")
    text.reset(seed=0)
    assert "player_0" in text.render()


def test_registered_in_pokerzoo_and_pettingzoo() -> None:
    env = pokerzoo.make("classic_leduc_holdem_v4")
    assert type(env.unwrapped) is type(leduc_holdem_v4.raw_env())
    built = pettingzoo.make("aec", "pokerzoo/classic_leduc_holdem-v4")
    built.reset(seed=4)
    assert built.agent_selection == "player_1"  # as PettingZoo's env with seed 4


def test_deepcopy_continues_the_hand_and_pickle_rebuilds_the_env() -> None:
    env = leduc_holdem_v4.env()
    env.reset(seed=5)
    clone = copy.deepcopy(env)
    for e in (env, clone):
        e.step(1)
    assert_same_view(env, clone)
    restored = pickle.loads(pickle.dumps(env))
    assert restored.illegal_action == "penalize" and restored.game == env.game
    assert leduc_holdem_v4.raw_env().illegal_action == "raise"
    assert copy.deepcopy(leduc_holdem_v4.raw_env(render_mode="ansi")).render_mode == "ansi"
