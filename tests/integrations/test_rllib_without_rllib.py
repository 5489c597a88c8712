"""The RLlib recipe's modules import, validate and say how to install RLlib without it (the
main environment); ``test_rllib_recipe.py`` trains in RLlib's own environment."""

from __future__ import annotations

import importlib.util

import pytest
import torch
from gymnasium import spaces

import pokerzoo
from pokerzoo.errors import ConfigError
from pokerzoo.integrations import rllib
from pokerzoo.integrations.rllib_selfplay import (
    LEARNER,
    SNAPSHOT,
    AlternatingSeats,
    RLModulePolicy,
    SelfPlayConfig,
    measure,
)
from pokerzoo.policy import UniformRandomPolicy


def rllib_installed() -> bool:
    try:
        return importlib.util.find_spec("ray.rllib") is not None and bool(
            importlib.import_module("ray.rllib")
        )
    except ImportError:
        return False


def test_env_names_are_the_pettingzoo_ids() -> None:
    names = rllib.rllib_env_names()
    assert "pokerzoo/leduc_holdem-v0" in names and "pokerzoo/kuhn_poker-v0" in names
    assert rllib.pokerzoo_env_name("pokerzoo/leduc_holdem-v0") == "leduc_holdem_v0"
    assert rllib.pokerzoo_env_name("leduc_holdem_v0") == "leduc_holdem_v0"
    with pytest.raises(ConfigError, match="RLlib names are"):
        rllib.pokerzoo_env_name("leduc")


@pytest.mark.skipif(rllib_installed(), reason="RLlib is installed here")
def test_without_rllib_every_entry_point_says_how_to_install_it() -> None:
    for use in (rllib.register_envs, rllib.masked_module_spec,
                lambda: rllib.PokerMultiAgentEnv, lambda: rllib.MaskedPPOTorchRLModule):
        with pytest.raises(ImportError, match=r'pip install "pokerzoo\[rllib\]"'):
            use()
    with pytest.raises(AttributeError):
        rllib.NoSuchThing  # noqa: B018


def test_masked_spaces_are_checked() -> None:
    env = pokerzoo.make("leduc_holdem_v0")
    rllib.check_masked_spaces(env.observation_space("player_0"), env.action_space("player_0"))
    with pytest.raises(ConfigError, match="'observation' and 'action_mask'"):
        rllib.check_masked_spaces(spaces.Dict({"observations": spaces.Box(0, 1, (3,))}),
                                  spaces.Discrete(3))
    with pytest.raises(ConfigError, match="must match"):
        rllib.check_masked_spaces(env.observation_space("player_0"), spaces.Discrete(4))
    with pytest.raises(ConfigError, match="Discrete"):
        rllib.check_masked_spaces(env.observation_space("player_0"), spaces.Box(0, 1, (3,)))


@pytest.mark.parametrize("bad", [
    {"iterations": 0}, {"snapshot_every": -1}, {"eval_hands": 1.5}, {"seed": -1},
    {"lr": 0.0}, {"lr": float("nan")}, {"entropy_coeff": -0.1}, {"hidden": ()},
    {"hidden": (64, 0)}, {"num_env_runners": -1}, {"torch_threads": 0}, {"env": "go_v5"},
    {"env_config": [("num_ranks", 3)]},
])
def test_self_play_config_rejects_bad_values(bad) -> None:
    with pytest.raises(ConfigError):
        SelfPlayConfig(**bad)


def test_alternating_seats_and_the_module_policy_need_no_ray() -> None:
    seats = AlternatingSeats(["player_0", "player_1", "player_2"])
    episodes = [object() for _ in range(3)]
    assert [[seats(f"player_{s}", e) for s in range(3)] for e in episodes] == [
        [LEARNER, SNAPSHOT, SNAPSHOT], [SNAPSHOT, LEARNER, SNAPSHOT],
        [SNAPSHOT, SNAPSHOT, LEARNER],
    ]

    class FavoursAction2:  # stands in for a masked RLlib module
        action_space = spaces.Discrete(3)
        calls = 0

        def forward_inference(self, batch):
            FavoursAction2.calls += 1
            logits = torch.tensor([[0.0, 0.0, 3.0]]).masked_fill(
                batch["obs"]["action_mask"] == 0, -1e9
            )
            return {"action_dist_inputs": logits}

    game = pokerzoo.load_game("leduc_holdem")
    policy = RLModulePolicy(FavoursAction2())
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    probs = policy.action_probabilities(state)
    assert set(probs) == set(state.legal_actions()) and sum(probs.values()) == pytest.approx(1)
    assert max(probs, key=probs.get) == 2
    greedy = RLModulePolicy(FavoursAction2(), greedy=True).action_probabilities(state)
    assert greedy == {a: float(a == 2) for a in state.legal_actions()}
    mean, half = measure(game, policy, UniformRandomPolicy(), 200, seed=0)
    assert half > 0 and FavoursAction2.calls < 200  # cached per information set
    with pytest.raises(ConfigError, match="RLModule"):
        RLModulePolicy(object())
