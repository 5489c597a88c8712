"""A MaskablePPO model trained on PettingZoo's classic poker envs through the wrapper of
PettingZoo's SB3 action-masking tutorial plays, unchanged, in pokerzoo's compatible envs: the
same actions and rewards on the same seeds where the rules agree, legal play everywhere, and
training goes on in ours through the same wrapper."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pettingzoo.utils
import pytest
import torch
from pettingzoo.classic import leduc_holdem_v4 as pz_leduc
from pettingzoo.classic import texas_holdem_no_limit_v6 as pz_nolimit
from pettingzoo.classic import texas_holdem_v4 as pz_limit
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker

from pokerzoo.integrations.pettingzoo_classic import (
    leduc_holdem_v4,
    texas_holdem_no_limit_v6,
    texas_holdem_v4,
)

pytestmark = pytest.mark.filterwarnings("ignore:.*precision lowered by casting to float32")
CASES = {
    "leduc": (pz_leduc, leduc_holdem_v4, {}),
    "limit": (pz_limit, texas_holdem_v4, {"rules": "rlcard"}),
    "no_limit": (pz_nolimit, texas_holdem_no_limit_v6, {"rules": "rlcard"}),
}


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
    """The wrapper of PettingZoo's SB3 action-masking tutorial: every agent's turns as one
    Gymnasium env (self-play), the mask read through ``action_mask()``."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        self.observation_space = super().observation_space(self.possible_agents[0])[
            "observation"
        ]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action):
        current = self.agent_selection
        super().step(action)
        return (
            self.observe(self.agent_selection),
            self._cumulative_rewards[current],
            self.terminations[current],
            self.truncations[current],
            self.infos[current],
        )

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"]


def masked(env) -> ActionMasker:
    wrapped = SB3ActionMaskWrapper(env)
    wrapped.reset(seed=0)
    return ActionMasker(wrapped, lambda e: e.action_mask())


def play(model: MaskablePPO, env, seeds) -> list:
    """The tutorial's evaluation loop: the model plays every seat; each step's agent and action
    and each hand's rewards."""
    record: list = []
    for seed in seeds:
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                record.append((agent, float(reward)))
                action = None
            else:
                action = int(
                    model.predict(
                        obs["observation"], action_masks=obs["action_mask"], deterministic=True
                    )[0]
                )
                record.append((agent, action))
            env.step(action)
    return record


@pytest.mark.parametrize("case", list(CASES))
def test_model_trained_on_pettingzoo_plays_unchanged_in_ours(case: str, tmp_path) -> None:
    pz, ours, same_rules = CASES[case]
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3's notes on the env's Box bounds
        model = MaskablePPO(
            "MlpPolicy", masked(pz.env()), n_steps=128, batch_size=64, n_epochs=1, seed=0,
            policy_kwargs={"net_arch": [32]}, device="cpu",
        )  # fmt: skip
        model.learn(256)
        model.save(tmp_path / "model")
        model = MaskablePPO.load(tmp_path / "model", device="cpu")
        seeds = range(40)
        # Where the rules agree (Leduc; hold'em with rules="rlcard") the same decisions and
        # rewards on the same seeds, turn by turn.
        theirs = play(model, pz.env(), seeds)
        assert play(model, ours.env(**same_rules), seeds) == theirs
        assert {a for _, a in theirs if isinstance(a, int)} != {0}  # it does not only call
        # pokerzoo's own rules: legal play (raw_env raises on an illegal action) to the end.
        record = play(model, ours.raw_env(), seeds)
        assert sum(r for _, r in record if isinstance(r, float)) == pytest.approx(0)
        # Training goes on in ours through the same wrapper (the spaces match PettingZoo's).
        model.set_env(masked(ours.env(**same_rules)))
        model.learn(128, reset_num_timesteps=False)
    assert model.num_timesteps == 384
    assert np.isfinite(model.policy.parameters().__next__().detach().numpy()).all()
