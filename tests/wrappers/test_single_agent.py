"""SingleAgentEnv: Gymnasium/SB3 checkers, opponents of every kind, re-deals, MaskablePPO."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from pokerzoo.envs import make
from pokerzoo.envs.registration import GYM_IDS, register_all
from pokerzoo.errors import ConfigError
from pokerzoo.policy import UniformRandomPolicy
from pokerzoo.wrappers import SingleAgentEnv

register_all()
AVAILABLE = list(GYM_IDS)


@pytest.mark.parametrize("gym_id", AVAILABLE)
@pytest.mark.parametrize("obs_type", ["box", "dict", "flat"])
def test_gymnasium_and_sb3_checkers(gym_id: str, obs_type: str) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".*maximum value is infinity")
        check_env(gymnasium.make(gym_id, obs_type=obs_type, seat="random").unwrapped)
        sb3_check_env(SingleAgentEnv(GYM_IDS[gym_id], obs_type=obs_type), warn=True)


def test_module_prefixed_id_and_render_modes() -> None:
    env = gymnasium.make("pokerzoo:pokerzoo/KuhnPoker-v0", opponent="random", seat=1)
    obs, info = env.reset(seed=0)
    assert info["seat"] == 1 and obs.shape == (11,)
    frame = gymnasium.make("pokerzoo/LeducHoldem-v0", render_mode="rgb_array")
    frame.reset(seed=0)
    image = frame.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert (image < 128).any()  # some text was drawn
    text = gymnasium.make("pokerzoo/LeducHoldem-v0", render_mode="ansi")
    text.reset(seed=0)
    assert "pot" in text.render()


def test_seeded_episodes_repeat() -> None:
    def play(seed: int) -> list[float]:
        env = SingleAgentEnv("leduc_holdem_v0", seat="random")
        out = []
        obs, info = env.reset(seed=seed)
        while len(out) < 50:
            action = int(np.flatnonzero(env.action_masks())[-1])
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated:
                out.append((reward, info["seat"]))
                obs, info = env.reset()
        return out

    assert play(4) == play(4)
    assert play(4) != play(5)


def test_hands_that_end_before_the_learner_acts_are_redealt() -> None:
    def always_fold(obs, info):
        return 0 if obs["action_mask"][0] else 1

    # 3-handed hold'em, learner in the big blind: the button (seat 2) folds every hand and
    # the small blind folds at random, so about half the hands end before the learner acts.
    env = SingleAgentEnv(
        "no_limit_holdem_v0", opponent=["random", always_fold], seat=1, num_players=3
    )
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        assert env.aec.agent_selection == "player_1" and env.action_masks().any()
    assert env.redeals > 0


def test_opponents_of_every_kind() -> None:
    from pokerzoo.agents.cfr.full_width import CFRPlus

    solver = CFRPlus(make("kuhn_poker_v0").game)
    solver.iterate(50)
    tabular = solver.average_policy()
    kinds = [
        "random",
        tabular,
        solver,  # a pokerzoo agent: act_probabilities(observation, info)
        UniformRandomPolicy(),  # a state policy: action_probabilities(state)
        lambda obs, info: np.array([0.0, 1.0]),  # a callable returning probabilities
        lambda obs, info: 0,  # a callable returning an action
    ]
    for kind in kinds:
        env = SingleAgentEnv("kuhn_poker_v0", opponent=kind, seat=1)
        env.reset(seed=0)
        for _ in range(30):
            _, _, terminated, _, _ = env.step(int(env.np_random.integers(2)))
            if terminated:
                env.reset()
    # Against the always-bet opponent, the learner in seat 1 always faces a bet.
    env = SingleAgentEnv("kuhn_poker_v0", opponent=lambda obs, info: 1, seat=1)
    _, info = env.reset(seed=0)
    assert info["info_state"][2] == (1,)
    with pytest.raises(ConfigError, match="cannot play with"):
        SingleAgentEnv("kuhn_poker_v0", opponent=3.5).reset(seed=0)
    with pytest.raises(ValueError, match="one opponent per other seat"):
        SingleAgentEnv("kuhn_poker_v0", opponent=["random", "random"])


def test_illegal_learner_action_ends_the_hand_with_the_penalty() -> None:
    env = SingleAgentEnv("leduc_holdem_v0", seat=0, illegal_reward=-20.0)
    env.reset(seed=0)
    _, reward, terminated, _, _ = env.step(0)  # fold with nothing to call
    assert terminated and reward == -20.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(1)


@pytest.mark.slow
def test_maskable_ppo_beats_random_leduc() -> None:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = gymnasium.make("pokerzoo/LeducHoldem-v0", opponent="random", seat="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, seed=0, device="cpu")
    model.learn(3072)
    evaluation = gymnasium.make("pokerzoo/LeducHoldem-v0", opponent="random", seat="random")
    obs, _ = evaluation.reset(seed=123)
    returns, total = [], 0.0
    while len(returns) < 2000:
        masks = evaluation.unwrapped.action_masks()
        action, _ = model.predict(obs, action_masks=masks, deterministic=True)
        obs, reward, terminated, truncated, _ = evaluation.step(action)
        total += reward
        if terminated or truncated:
            returns.append(total)
            total = 0.0
            obs, _ = evaluation.reset()
    assert np.mean(returns) > 0.5  # measured: about +2 chips per hand
