"""The RLlib recipe in RLlib's own environment (``.ci/run`` builds it: ``ray[rllib]`` pins
gymnasium 1.2.2): the env adapter, the action-masking module, and PPO self-play on Leduc that
beats a random player over 2,000 hands with a fixed seed."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import ray
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.utils.pre_checks.env import check_multiagent_environments
from ray.tune.registry import ENV_CREATOR, _global_registry

import pokerzoo
from pokerzoo.errors import ConfigError
from pokerzoo.integrations.rllib import (
    MASKED_LOGIT,
    MaskedPPOTorchRLModule,
    PokerMultiAgentEnv,
    masked_module_spec,
    register_envs,
    rllib_env_names,
)
from pokerzoo.integrations.rllib_selfplay import (
    LEARNER,
    SNAPSHOT,
    AlternatingSeats,
    RLModulePolicy,
    SelfPlayConfig,
    measure,
    ppo_self_play_config,
    refresh_snapshot,
    self_play,
)
from pokerzoo.policy import UniformRandomPolicy
from tests.manual import manual_text


@pytest.fixture(scope="module")
def ray_session():
    ray.init(include_dashboard=False, configure_logging=False, log_to_driver=False)
    yield
    ray.shutdown()


def play_to_end(env, rng, seed):
    obs, infos = env.reset(seed=seed)
    transitions = [(obs, {}, {"__all__": False})]
    while True:
        (agent,) = obs  # turn-based: only the agent to act observes
        legal = np.flatnonzero(obs[agent]["action_mask"])
        obs, rewards, terms, truncs, infos = env.step({agent: int(rng.choice(legal))})
        transitions.append((obs, rewards, terms))
        if terms["__all__"] or truncs["__all__"]:
            return transitions


def test_env_is_turn_based_with_pokerzoo_observations_and_rewards_at_the_end() -> None:
    env = PokerMultiAgentEnv({"env": "leduc_holdem_v0"})
    assert env.possible_agents == ["player_0", "player_1"]
    space = env.get_observation_space("player_0")
    assert set(space.spaces) == {"observation", "action_mask"}
    rng = np.random.default_rng(0)
    for seed in range(20):
        transitions = play_to_end(env, rng, seed)
        for obs, rewards, terms in transitions[:-1]:
            assert len(obs) == 1 and not terms["__all__"]
            assert all(r == 0.0 for r in rewards.values())
            (o,) = obs.values()
            assert o["observation"].dtype == np.float32 and o["action_mask"].any()
        final_obs, final_rewards, final_terms = transitions[-1]
        assert set(final_obs) == set(final_rewards) == {"player_0", "player_1"}
        assert final_terms == {"player_0": True, "player_1": True, "__all__": True}
        assert sum(final_rewards.values()) == pytest.approx(0.0)
        assert not any(o["action_mask"].any() for o in final_obs.values())


def test_env_passes_rllibs_checker_renders_and_rejects_bad_input() -> None:
    env = PokerMultiAgentEnv({"env": "pokerzoo/kuhn_poker-v0", "render_mode": "ansi"})
    check_multiagent_environments(env)
    env.reset(seed=0)
    assert "kuhn_poker" in env.render()  # RLlib's PettingZooEnv passes render() an argument
    with pytest.raises(ConfigError, match="player_0"):
        env.step({"player_1": 0})
    with pytest.raises(ConfigError, match="unknown pokerzoo env"):
        PokerMultiAgentEnv({"env": "go_v5"})
    with pytest.raises(ConfigError, match="num_ranks"):
        PokerMultiAgentEnv({"env": "leduc_holdem_v0", "num_rank": 3})


def test_register_envs_names_every_aec_env_and_builds_with_env_config() -> None:
    assert register_envs() == rllib_env_names()
    assert "pokerzoo/leduc_holdem-v0" in rllib_env_names()
    creator = _global_registry.get(ENV_CREATOR, "pokerzoo/leduc_holdem-v0")
    env = creator({"num_ranks": 4})
    assert env.aec.game.params()["num_ranks"] == 4
    with pytest.raises(ConfigError, match="unknown pokerzoo env"):
        register_envs(["pokerzoo/go-v5"])


def test_masking_module_reads_the_observation_dict_and_masks_every_forward_pass() -> None:
    module = masked_module_spec("leduc_holdem_v0", hidden=(16,)).build()
    assert isinstance(module, MaskedPPOTorchRLModule)
    obs = torch.rand(4, module.observation_space["observation"].shape[0])
    mask = torch.tensor([[0, 1, 1], [1, 1, 1], [0, 1, 0], [0, 0, 0]], dtype=torch.int8)
    batch = {Columns.OBS: {"observation": obs, "action_mask": mask}}
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS]
        assert torch.all(logits[mask == 0] == MASKED_LOGIT)
        assert torch.all(logits[mask == 1] > MASKED_LOGIT / 2)
        probs = torch.softmax(logits, -1)
        assert torch.all(probs[mask == 0][:-3] == 0) and torch.isfinite(probs).all()
    assert set(batch[Columns.OBS]) == {"observation", "action_mask"}  # not mutated
    assert module.compute_values(dict(batch)).shape == (4,)
    with pytest.raises(ConfigError, match="'observation'"):
        module.forward_inference({Columns.OBS: {"observations": obs, "action_mask": mask}})
    from gymnasium import spaces

    with pytest.raises(ConfigError, match="Dict observation space"):
        MaskedPPOTorchRLModule(
            observation_space=spaces.Box(0, 1, (3,)), action_space=spaces.Discrete(3)
        )


def test_alternating_seats_put_the_learner_in_each_seat_in_turn() -> None:
    seats = AlternatingSeats(["player_0", "player_1"])

    class Episode:
        def __init__(self, i):
            self.id_ = f"ep{i}"

    episodes = [Episode(i) for i in range(4)]
    got = [(seats("player_0", e), seats("player_1", e)) for e in episodes]
    assert got == [(LEARNER, SNAPSHOT), (SNAPSHOT, LEARNER)] * 2


def test_refresh_snapshot_copies_the_learners_weights_everywhere(ray_session) -> None:
    config = SelfPlayConfig(train_batch_size=64, minibatch_size=32)
    algo = ppo_self_play_config(config).build_algo()
    try:
        algo.train()

        def policy_weights(module):  # what the env runners get: the actor and its head
            state = module.state_dict()
            return {k: v.clone() for k, v in state.items() if "critic" not in k and "vf" not in k}

        learner = policy_weights(algo.get_module(LEARNER))
        snapshot = policy_weights(algo.get_module(SNAPSHOT))
        assert any(not torch.equal(learner[k], snapshot[k]) for k in learner)
        refresh_snapshot(algo)
        snapshot = policy_weights(algo.get_module(SNAPSHOT))
        assert all(torch.equal(learner[k], snapshot[k]) for k in learner)
        learner_side = algo.learner_group._learner.module  # the learner's copy, too
        assert all(
            torch.equal(v, learner_side[LEARNER].state_dict()[k])
            for k, v in learner_side[SNAPSHOT].state_dict().items()
        )
    finally:
        algo.stop()


def test_ppo_self_play_beats_random_over_2000_hands(ray_session) -> None:
    reports = []
    start = time.perf_counter()
    result = self_play(
        SelfPlayConfig(iterations=6, snapshot_every=3, eval_hands=1000, seed=0),
        on_report=reports.append,
    )
    elapsed = time.perf_counter() - start
    assert [r.iteration for r in reports] == [3, 6]
    assert [r.snapshot_iteration for r in reports] == [0, 3]
    assert reports[1].vs_snapshot[0] > 0  # it gains on its previous self
    game = pokerzoo.load_game("leduc_holdem")
    mean, half_width = measure(game, result.policy, UniformRandomPolicy(), 2000, seed=12345)
    print(f"PPO {result.train_seconds:.1f} s training ({elapsed:.1f} s in all): "
          f"{mean:+.0f} +- {half_width:.0f} mbb/hand against random over 2,000 hands")
    assert mean - half_width > 0
    assert isinstance(result.policy, RLModulePolicy)


def test_the_readme_rllib_snippet_runs(ray_session, capsys) -> None:
    readme = manual_text()
    section = readme.split("### RLlib\n", 1)[1]
    (snippet,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)[:1]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as self_play does: tiny networks, two cores shared with Ray
    try:
        exec(compile(snippet, "manual[RLlib]", "exec"), {"__name__": "__doc__"})
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    assert "hands" in out and "vs random" in out
