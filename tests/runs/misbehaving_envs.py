"""A family of misbehaving env factories and AEC envs for ``train.py --env``: each must end the
run with one line (exit 2). ``GoodEnv`` is the well-behaved base each one breaks in one way."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv


class GoodEnv(AECEnv):
    """Two agents act once each (a0 then a1; two actions); the hand pays a0 +1, a1 -1."""

    metadata = {"name": "good_toy_v0"}

    def __init__(self) -> None:
        self.possible_agents = ["a0", "a1"]
        box = spaces.Box(0.0, 1.0, (3,), np.float32)
        self.spaces_ = spaces.Dict({"observation": box,
                                    "action_mask": spaces.Box(0, 1, (2,), np.int8)})

    def observation_space(self, agent):
        return self.spaces_

    def action_space(self, agent):
        return spaces.Discrete(2)

    def reset(self, seed=None, options=None):
        self.agents = list(self.possible_agents)
        for table, value in (("rewards", 0.0), ("_cumulative_rewards", 0.0),
                             ("terminations", False), ("truncations", False)):
            setattr(self, table, dict.fromkeys(self.agents, value))
        self.infos = {a: {} for a in self.agents}
        self.moves = 0
        self.agent_selection = "a0"

    def mask(self, agent):
        return np.ones(2, np.int8)

    def observe(self, agent):
        return {"observation": np.array([self.moves / 2, 0.0, 1.0], np.float32),
                "action_mask": self.mask(agent)}

    def payoff(self):
        return {"a0": 1.0, "a1": -1.0}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.moves += 1
        self._clear_rewards()
        if self.moves == 2:
            self.rewards = self.payoff()
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = "a1" if agent == "a0" else "a0"
        self._accumulate_rewards()


def good():
    return GoodEnv()


def returns_none():
    return None


def returns_five():
    return 5


def returns_a_class():
    return GoodEnv


class ParallelToy:
    possible_agents = ["a0", "a1"]

    def reset(self, seed=None, options=None):
        return {}, {}

    def step(self, actions):
        return {}, {}, {}, {}, {}


def returns_a_parallel_env():
    return ParallelToy()


def raises():
    raise RuntimeError("the licence server is down")


def _env(**overrides):
    """A ``GoodEnv`` subclass with ``overrides`` as its methods, built."""
    return type("Broken", (GoodEnv,), overrides)()


def no_agents():
    env = GoodEnv()
    env.possible_agents = []
    return env


def repeated_agents():
    env = GoodEnv()
    env.possible_agents = ["a0", "a0"]
    return env


def _raise(*args, **kwargs):
    raise KeyError("boom")


def raises_in_reset():
    return _env(reset=_raise)


def raises_in_step():
    return _env(step=_raise)


def raises_in_observe():
    return _env(observe=_raise)


def _observing(observation, mask=None):
    def observe(self, agent):
        return {"observation": observation,
                "action_mask": np.ones(2, np.int8) if mask is None else mask}
    return observe


def observation_of_wrong_shape():
    return _env(observe=_observing(np.zeros(5, np.float32)))


def observation_not_numbers():
    return _env(observe=_observing("three cards"))


def observation_nan():
    return _env(observe=_observing(np.array([0.0, np.nan, 1.0], np.float32)))


def observation_none():
    return _env(observe=lambda self, agent: None)


def mask_missing():
    return _env(observe=lambda self, agent: {"observation": np.zeros(3, np.float32)})


def mask_of_wrong_length():
    return _env(mask=lambda self, agent: np.ones(5, np.int8))


def mask_of_wrong_dtype():
    return _env(mask=lambda self, agent: np.array(["yes", "no"]))


def mask_all_zeros():
    return _env(mask=lambda self, agent: np.zeros(2, np.int8))


def mask_of_twos():
    return _env(mask=lambda self, agent: np.array([2, 2]))


def no_mask_anywhere():
    env = GoodEnv()
    env.spaces_ = env.spaces_["observation"]
    env.observe = lambda agent: np.zeros(3, np.float32)
    return env


def continuous_actions():
    return _env(action_space=lambda self, agent: spaces.Box(0.0, 1.0, (2,)))


def _selecting(name):
    def step(self, action):
        GoodEnv.step(self, action)
        if self.agents and not self.terminations["a0"]:
            self.agent_selection = name
    return step


def an_unknown_agent_selected():
    return _env(step=_selecting("nobody"))


def a_departed_agent_selected():
    def step(self, action):
        GoodEnv.step(self, action)
        if self.moves == 1:
            self.agents.remove("a1")
            self.agent_selection = "a1"
    return _env(step=step)


def nan_reward():
    return _env(payoff=lambda self: {"a0": float("nan"), "a1": 0.0})


def inf_reward():
    return _env(payoff=lambda self: {"a0": float("inf"), "a1": -float("inf")})


def _rewarding(rewards):
    def step(self, action):
        GoodEnv.step(self, action)
        self.rewards = dict(rewards)  # after PettingZoo's own bookkeeping, which would fail
    return step


def reward_not_a_number():
    return _env(step=_rewarding({"a0": "ten", "a1": 0.0}))


def reward_for_an_unknown_agent():
    return _env(step=_rewarding({"a0": 1.0, "a1": -1.0, "dealer": 0.5}))


def never_terminates():
    def step(self, action):
        self.moves = 0  # the hand never reaches its end
        self.agent_selection = "a1" if self.agent_selection == "a0" else "a0"
    return _env(step=step)


def truncates_at_every_reset():
    def reset(self, seed=None, options=None):
        GoodEnv.reset(self, seed, options)
        self.truncations = dict.fromkeys(self.agents, True)
    return _env(reset=reset)


def last_of_three_values():
    return _env(last=lambda self, observe=True: (None, 0.0, False))


def rewards_not_a_dict():
    def step(self, action):
        GoodEnv.step(self, action)
        self.rewards = [1.0, -1.0]
    return _env(step=step)


FAMILY = {
    "returns_none": "expected a PettingZoo AEC env, got None",
    "returns_five": "expected a PettingZoo AEC env, got int 5",
    "returns_a_class": "expected a PettingZoo AEC env, got the class",
    "returns_a_parallel_env": "got a parallel env ParallelToy",
    "raises": "the env factory misbehaving_envs:raises raised: RuntimeError: the licence",
    "no_agents": "the env has no possible_agents",
    "repeated_agents": "possible_agents ['a0', 'a0'] repeat a name",
    "raises_in_reset": "raised in reset: KeyError: 'boom'",
    "raises_in_step": "raised in step: KeyError: 'boom'",
    "raises_in_observe": "raised in last: KeyError: 'boom'",
    "observation_of_wrong_shape": "observed shape (5,) for agent 'a0', where its observation "
                                  "space has shape (3,)",
    "observation_not_numbers": "not an array of numbers",
    "observation_nan": "observed non-finite values for agent 'a0'",
    "observation_none": "observed None for agent 'a0'",
    "mask_missing": "observed dict",
    "mask_of_wrong_length": "action_mask of shape (5,); the game has 2 actions",
    "mask_of_wrong_dtype": "action_mask of dtype <U3",
    "mask_all_zeros": "an action mask with no legal action",
    "mask_of_twos": "action_mask with values other than 0 and 1",
    "no_mask_anywhere": "no action mask",
    "continuous_actions": "continuous actions",
    "an_unknown_agent_selected": "selected agent 'nobody', which is not one of env.agents",
    "a_departed_agent_selected": "selected agent 'a1', which is not one of env.agents ['a0']",
    "nan_reward": "gave agent 'a0' the reward nan: rewards must be finite",
    "inf_reward": "gave agent 'a0' the reward inf: rewards must be finite",
    "reward_not_a_number": "gave agent 'a0' the reward 'ten', not a number",
    "reward_for_an_unknown_agent": "gave rewards to ['dealer']",
    "never_terminates": "did not end a hand in 50 steps (max_steps_per_hand",
    "truncates_at_every_reset": "hands in a row before any agent could act",
    "last_of_three_values": "from last(), not (observation, reward, termination",
    "rewards_not_a_dict": "has rewards list [1.0, -1.0], not a dict",
}
"""Each misbehaving factory's name and a fragment of the one line it must end train.py with."""
