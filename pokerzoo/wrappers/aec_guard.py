"""A foreign AEC env checked at every call, so that a misbehaving env is one line, not a crash.

``guard_factory(name, factory)`` returns a factory whose envs are ``GuardedAEC`` proxies of
what ``factory()`` builds. The factory's own exception becomes ``the env factory NAME raised:
...`` (a ``ConfigError`` chained to it, so ``--debug`` shows its traceback); what it returns
must be an AEC env (``expected a PettingZoo AEC env, got None``, ``got the class ...``, ``got a
parallel env ...``). Each env call is then checked:

* an exception raised in ``reset``, ``step``, ``observe`` or ``last`` names the env and the call;
* the selected agent is one of ``env.agents`` (an illegal agent order otherwise);
* rewards are finite and only for ``possible_agents`` (the message names the agent and step);
* a live agent's observation matches its space's shape and is finite, and its action mask is
  one 0/1 value per action (bool, integer or float) with at least one legal action;
* ``last()``'s info names the acting agent (``info["agent"]``), which our agents' turn methods
  read: the standard PettingZoo loop over a guarded env plays them as it is;
* a hand ends within ``max_steps_per_hand`` steps (``MAX_STEPS_PER_HAND`` by default), so an env
  that never terminates ends training with one line instead of hanging it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from pokerzoo.envs.spaces import checked_action_mask
from pokerzoo.errors import ConfigError, PokerzooError

MAX_STEPS_PER_HAND = 100_000
"""Default most steps (``env.step`` calls) of one hand: generous for any card game (a hand of
poker takes tens), so only an env that never ends a hand reaches it."""

AEC_METHODS = ("reset", "step", "last", "observe", "action_space", "observation_space")
"""What an object needs to be used as a PettingZoo AEC env."""


def describe(value: Any) -> str:
    """A short description of something given where an AEC env was expected."""
    if value is None:
        return "None"
    if isinstance(value, type):
        return (f"the class {value.__module__}.{value.__qualname__} (a factory returns an env "
                "instance, not its class)")
    if hasattr(value, "possible_agents") and not callable(getattr(value, "last", None)):
        return (f"a parallel env {type(value).__name__} (turn it into an AEC env with "
                "pettingzoo.utils.conversions.parallel_to_aec)")
    return f"{type(value).__name__} {value!r:.60}"


def check_aec_env(env: Any, where: str) -> None:
    """Refuse anything but an AEC env with named agents.

    Raises:
        ConfigError: ``WHERE: expected a PettingZoo AEC env, got ...``.
    """
    missing = [m for m in AEC_METHODS if not callable(getattr(env, m, None))]
    if isinstance(env, type) or missing or not hasattr(env, "possible_agents"):
        lacks = [*missing, *([] if hasattr(env, "possible_agents") else ["possible_agents"])]
        without = (f" (it has no {', '.join(lacks)})"
                   if lacks and not isinstance(env, type) and env is not None else "")
        raise ConfigError(f"{where}: expected a PettingZoo AEC env, got "
                          f"{describe(env)}{without}")
    agents = list(env.possible_agents)
    if not agents:
        raise ConfigError(f"{where}: the env has no possible_agents: an AEC env names its agents")
    if len(set(agents)) != len(agents):
        raise ConfigError(f"{where}: the env's possible_agents {agents} repeat a name")


def guard_env(env: Any, name: str = "", max_steps_per_hand: int = MAX_STEPS_PER_HAND) -> GuardedAEC:
    """``env`` (an AEC env instance) checked at every call; ``name`` names it in messages.

    Raises:
        ConfigError: ``env`` is not an AEC env.
    """
    label = name or type(env).__name__
    check_aec_env(env, f"the env {label}")
    return GuardedAEC(env, label, max_steps_per_hand)


def guard_factory(
    name: str, factory: Callable[[], Any], max_steps_per_hand: int = MAX_STEPS_PER_HAND
) -> Callable[[], GuardedAEC]:
    """A factory of ``GuardedAEC`` envs from ``factory`` (named ``name`` in messages).

    Raises:
        ConfigError: ``max_steps_per_hand`` is not a positive integer.
    """
    if not isinstance(max_steps_per_hand, int) or max_steps_per_hand < 1:
        raise ConfigError(f"max_steps_per_hand must be a positive integer, got "
                          f"{max_steps_per_hand!r}")

    def build() -> GuardedAEC:
        try:
            env = factory()
        except PokerzooError:
            raise
        except Exception as exc:  # a foreign factory may fail any way: its error, one line
            raise ConfigError(f"the env factory {name} raised: {type(exc).__name__}: "
                              f"{exc}") from exc
        check_aec_env(env, f"the env factory {name}")
        return GuardedAEC(env, name, max_steps_per_hand)

    return build


class GuardedAEC:
    """An AEC env whose every call is checked (see the module); anything else is forwarded."""

    def __init__(self, env: Any, name: str, max_steps_per_hand: int) -> None:
        self.env = env
        self.name = name
        self.max_steps_per_hand = max_steps_per_hand
        self.possible_agents = list(env.possible_agents)
        self._known = set(self.possible_agents)
        self._steps = 0

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") or attr == "env":  # copies and pickles look these up first
            raise AttributeError(attr)
        return getattr(self.env, attr)

    @property
    def agents(self) -> list[str]:
        return list(self._call("agents", lambda: self.env.agents))

    @property
    def agent_selection(self) -> Any:
        return self._call("agent_selection", lambda: self.env.agent_selection)

    @property
    def unwrapped(self) -> Any:
        return self.env.unwrapped

    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except PokerzooError:
            raise
        except Exception as exc:  # a foreign env may fail any way: its error, one line
            raise ConfigError(f"the env {self.name} raised in {what}: {type(exc).__name__}: "
                              f"{exc}") from exc

    def _fail(self, problem: str) -> ConfigError:
        return ConfigError(f"the env {self.name} {problem} (step {self._steps} of the hand)")

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._steps = 0
        self._call("reset", lambda: self.env.reset(seed=seed, options=options))
        self._check_rewards()

    def step(self, action: Any) -> None:
        self._steps += 1
        if self._steps > self.max_steps_per_hand:
            raise self._fail(f"did not end a hand in {self.max_steps_per_hand:,} steps "
                             "(max_steps_per_hand; train.py --max-hand-steps raises it)")
        self._call("step", lambda: self.env.step(action))
        self._check_rewards()

    def observe(self, agent: str) -> Any:
        obs = self._call("observe", lambda: self.env.observe(agent))
        if agent in self.agents and not self._done(agent):
            info = self._call("infos", lambda: self.env.infos.get(agent, {}))
            self._check_observation(agent, obs, info)
        return obs

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, Any]:
        agent = self.agent_selection
        live = self.agents
        if agent not in live:  # checked first: the env's own last() would fail on it
            raise self._fail(f"selected agent {agent!r:.40}, which is not one of env.agents "
                             f"{live} (an illegal agent order)")
        out = self._call("last", lambda: self.env.last(observe))
        if not isinstance(out, tuple) or len(out) != 5:
            raise self._fail(f"returned {describe(out)} from last(), not (observation, reward, "
                             "termination, truncation, info)")
        obs, reward, terminated, truncated, info = out
        self._check_reward(agent, reward)
        if observe and not (terminated or truncated):
            self._check_observation(agent, obs, info)
        # The acting agent named in info, so a plain PettingZoo loop (obs, ..., info =
        # env.last(); agent.act(obs, info)) tells our agents whose turn it is.
        named = {**info, "agent": agent} if isinstance(info, Mapping) else {"agent": agent}
        return obs, reward, terminated, truncated, named

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        for _ in range(max_iter):
            if not self.agents:
                return
            yield self.agent_selection

    def action_space(self, agent: str) -> Any:
        return self._call("action_space", lambda: self.env.action_space(agent))

    def observation_space(self, agent: str) -> Any:
        return self._call("observation_space", lambda: self.env.observation_space(agent))

    def close(self) -> None:
        self._call("close", self.env.close)

    # Checks ----------------------------------------------------------------------------------

    def _done(self, agent: str) -> bool:
        terms = self._call("terminations", lambda: self.env.terminations)
        truncs = self._call("truncations", lambda: self.env.truncations)
        return bool(terms.get(agent, False) or truncs.get(agent, False))

    def _check_rewards(self) -> None:
        rewards = self._call("rewards", lambda: getattr(self.env, "rewards", {}))
        if not isinstance(rewards, Mapping):
            raise self._fail(f"has rewards {describe(rewards)}, not a dict of agents' rewards")
        unknown = [a for a in rewards if a not in self._known]
        if unknown:
            raise self._fail(f"gave rewards to {unknown!r:.60}, which are not among its "
                             f"possible_agents {self.possible_agents}")
        for agent, reward in rewards.items():
            self._check_reward(agent, reward)

    def _check_reward(self, agent: str, reward: Any) -> None:
        try:
            value = float(reward)
        except (TypeError, ValueError):
            raise self._fail(f"gave agent {agent!r} the reward {reward!r:.40}, not a "
                             "number") from None
        if not np.isfinite(value):
            raise self._fail(f"gave agent {agent!r} the reward {value}: rewards must be finite")

    def _check_observation(self, agent: str, obs: Any, info: Any) -> None:
        space = self.observation_space(agent)
        n = int(self.action_space(agent).n)
        if isinstance(space, spaces.Dict) and "action_mask" in space.spaces:
            if not isinstance(obs, Mapping) or not {"observation", "action_mask"} <= set(obs):
                raise self._fail(f"observed {describe(obs)} for agent {agent!r}, where its "
                                 "space is a dict with 'observation' and 'action_mask'")
            array, mask, inner = obs["observation"], obs["action_mask"], space["observation"]
        else:
            if not isinstance(info, Mapping) or "action_mask" not in info:
                raise self._fail(f"gave agent {agent!r} no action mask (in its observation "
                                 "dict or info['action_mask'])")
            array, mask, inner = obs, info["action_mask"], space
        try:
            values = np.asarray(array, dtype=np.float64)
        except (TypeError, ValueError):
            raise self._fail(f"observed {describe(array)} for agent {agent!r}, not an "
                             "array of numbers") from None
        if inner.shape is not None and values.shape != tuple(inner.shape):
            raise self._fail(f"observed shape {values.shape} for agent {agent!r}, where its "
                             f"observation space has shape {tuple(inner.shape)}")
        if not np.isfinite(values).all():
            raise self._fail(f"observed non-finite values for agent {agent!r}")
        checked = checked_action_mask(mask, n, f"the env {self.name} (agent {agent!r})")
        if not checked.any():
            raise self._fail(f"gave agent {agent!r} an action mask with no legal action")
