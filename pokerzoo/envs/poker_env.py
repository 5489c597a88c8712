"""``PokerEnv``: one PettingZoo AEC env over any pokerzoo ``Game``.

The env enforces its invariants once, in its own ``step`` (no stack of PettingZoo wrappers):

* a call before ``reset`` or after every agent has left raises ``EnvStateError`` (a
  ``RuntimeError``); an unknown agent name raises ``ConfigError`` naming the agents;
* an action outside ``Discrete(num_distinct_actions)`` (NaN, infinities, strings, bools)
  raises ``IllegalActionError`` (a ``ValueError``);
* an illegal action either raises ``IllegalActionError`` (``illegal_action="raise"``, the
  ``raw_env`` of each named env) or ends the hand with ``terminated=True``, the offender
  receiving ``illegal_reward`` and everyone else 0 (``illegal_action="penalize"``, ``env``).

Hooks for games with hidden models (unknown-environment games) and for subclasses:

* chance: ``state.sample_chance_outcome(rng)`` (every state has it; it follows
  ``state.chance_outcomes()``, and games override it where a faster draw exists);
* terminal rewards: ``state.sample_returns(rng)`` if the state has it (rewards drawn from the
  game's reward model), else ``state.returns()``;
* ``reset(options={"resample_environment": True})`` rebinds ``env.game`` to
  ``game.with_resampled_environment(rng)`` if the game has it (a new hidden model; games are
  immutable, so copies of the env and holders of the old game keep theirs) and is a no-op
  otherwise (``_resample_environment`` is the hook).

Every draw uses the env's ``numpy.random.Generator``, reseeded only by ``reset(seed=...)``.
Subclasses may override ``_sample_chance`` and ``_terminal_returns`` instead.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from pokerzoo.errors import ConfigError, EnvStateError
from pokerzoo.games.base import (
    CHANCE,
    TERMINAL,
    Game,
    IllegalActionError,
    State,
    check_int,
    check_number,
)
from pokerzoo.games.registry import load_game

IllegalActionMode = Literal["raise", "penalize"]
ENV_OPTIONS = ("render_mode", "illegal_action", "illegal_reward")
"""Keyword options of ``PokerEnv`` itself; every other keyword of a named env is a game
parameter."""


class PokerEnv(AECEnv, EzPickle):
    """A PettingZoo AEC env that plays one hand of ``game`` per episode.

    Agents are ``player_0 .. player_{n-1}`` (seat order). Each observation is
    ``{"observation": float32 information-state tensor, "action_mask": int8 mask}``; the mask is
    all zero for agents not to act and at the end. Rewards are the game's returns, paid when the
    hand ends. ``infos[agent]["info_state"]`` is the agent's information-state key (the key of
    ``TabularPolicy`` rows) and the acting agent's info also has ``"legal_actions"``.

    Args:
        game: a ``Game`` or a registered game name.
        render_mode: ``None``, ``"human"`` (the env prints the table after ``reset`` and
            after every action, as PettingZoo's and Gymnasium's envs draw themselves; ``render()``
            prints it again and returns ``None``) or ``"ansi"`` (``render()`` returns the text).
        illegal_action: ``"penalize"`` (end the hand, pay ``illegal_reward``) or ``"raise"``.
        illegal_reward: reward of an agent that plays an illegal action when penalizing; the
            other agents get 0. PettingZoo's convention is -1; pick a value below the game's
            worst loss if learners may ignore the mask.

    >>> from pokerzoo.envs.poker_env import PokerEnv
    >>> env = PokerEnv("kuhn_poker")
    >>> env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.last()
    >>> obs["action_mask"].tolist(), env.agent_selection
    ([1, 1], 'player_0')

    ``copy.deepcopy(env)`` copies the hand in progress (RNG included); ``pickle`` rebuilds a
    fresh env from the constructor arguments (``EzPickle``), to be ``reset`` before use.
    """

    metadata: dict[str, Any] = {
        "name": "poker_v0",
        "render_modes": ["human", "ansi"],
        "render_fps": 1,
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: Game | str,
        render_mode: str | None = None,
        illegal_action: IllegalActionMode = "penalize",
        illegal_reward: float = -1.0,
    ) -> None:
        EzPickle.__init__(self, game, render_mode, illegal_action, illegal_reward)
        super().__init__()
        if isinstance(game, str):
            game = load_game(game)
        if not isinstance(game, Game):
            raise ConfigError(f"game must be a pokerzoo Game or a game name, got {game!r}")
        modes: list[str] = list(self.metadata["render_modes"])
        if render_mode is not None and render_mode not in modes:
            raise ConfigError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        if not isinstance(illegal_action, str) or illegal_action not in ("raise", "penalize"):
            raise ConfigError(
                f"illegal_action must be 'raise' or 'penalize', got {illegal_action!r}"
            )
        illegal_reward = check_number("illegal_reward", illegal_reward)
        self.metadata = dict(self.metadata, name=f"{game.name}_v0")
        self.game = game
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        n = game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents: list[str] = []
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self._seats = tuple(enumerate(self.possible_agents))
        self._num_actions = game.num_distinct_actions
        size = int(np.prod(game.information_state_shape))
        low, high = game.observation_bounds
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, shape=(size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(self._num_actions,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(self._num_actions)
        # One object shared by every seat: spaces must be identical across agents and calls.
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.state_space = spaces.Box(
            np.tile(low, n), np.tile(high, n), shape=(n * size,), dtype=np.float32
        )
        self._obs_space = obs_space
        self._act_space = act_space
        self._state: State | None = None
        self._apply_action: Callable[[int], None] = _no_hand
        # Whether chance can be drawn straight from the state (no subclass overrides the hook).
        self._plain_chance = type(self)._sample_chance is PokerEnv._sample_chance
        self._legal: tuple[int, ...] = ()
        self._to_act = -1  # seat whose mask is live; -1 once the hand is over
        self._mask = np.zeros(self._num_actions, dtype=np.int8)
        self._zero_mask = np.zeros(self._num_actions, dtype=np.int8)
        self._mask_cache: dict[tuple[int, ...], np.ndarray] = {}
        self._rng: np.random.Generator | None = None
        self._hand_rewards: list[float] = []
        self._skip_agent_selection: str | None = None  # PettingZoo's, for the None steps
        self.illegal_actions = 0
        """Number of hands ended by an illegal action since the env was created."""

    # Spaces ------------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    # Public read access ------------------------------------------------------------------------

    @property
    def game_state(self) -> State:
        """The current game ``State`` (read it, never mutate it; for policies over states and for
        evaluators). Raises ``EnvStateError`` (a ``RuntimeError``) before ``reset``."""
        if self._state is None:
            raise EnvStateError("call reset() before reading game_state")
        return self._state

    @property
    def np_random(self) -> np.random.Generator:
        """The Generator behind every chance draw (created on first use)."""
        if self._rng is None:
            self._rng = np.random.default_rng()
        return self._rng

    # AEC API -----------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new hand; reseed only when ``seed`` is given; unknown options are ignored.

        Raises:
            ConfigError: if ``seed`` is not ``None`` or an integer >= 0 (NumPy integers
                accepted), or ``options`` is not ``None`` or a dict.
        """
        if seed is not None:
            seed = check_int("seed", seed, 0)
        if options is not None and not isinstance(options, Mapping):
            raise ConfigError(f"options must be None or a dict, got {options!r}")
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        rng = self.np_random
        if options and options.get("resample_environment"):
            self._resample_environment(rng)
        state = self.game.new_initial_state()
        self._state = state
        # The env checks every action against legal_actions() itself: skip the base class's
        # second check, unless the game overrides apply_action (it may do more there).
        plain = type(state).apply_action is _BASE_APPLY
        self._apply_action = state._apply if plain else state.apply_action
        self._advance_chance(state)
        agents = self.possible_agents
        self.agents = list(agents)
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in agents}
        player = state.current_player()
        if player == TERMINAL:
            self._finish(state, agents[0])
        else:
            self.agent_selection = agents[player]
            self._set_turn(state, player)
        if self.render_mode == "human":
            self.render()

    def step(self, action: Any) -> None:
        """Apply the selected agent's action (``None`` for agents that are done)."""
        state = self._state
        if state is None:
            raise EnvStateError("call reset() before step()")
        if not self.agents:
            raise EnvStateError("the hand is over and every agent has left: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:  # PettingZoo's rule, raised as a pokerzoo ValueError
                raise IllegalActionError(
                    action, [], f"{self.game.name} ({agent} is done: its only action is None)"
                )
            self._dead_step(agent)
            return
        if type(action) is int and 0 <= action < self._num_actions:  # the common case
            a = action
        else:
            a = _as_action(action, self._num_actions)
            if a < 0:
                raise IllegalActionError(
                    action,
                    self._legal,
                    f"{self.game.name} ({agent} to act; outside the action space "
                    f"Discrete({self._num_actions}))",
                )
        # Rewards are paid only when the hand ends, and then every agent is done: during a
        # hand .rewards and ._cumulative_rewards hold zeros, so there is nothing to clear.
        if a in self._legal:
            self._apply_action(a)
            player = state.current_player()
            if player == CHANCE:
                self._advance_chance(state)
                player = state.current_player()
            if player == TERMINAL:
                self._finish(state, agent)
            else:
                self.agent_selection = self.possible_agents[player]
                self._set_turn(state, player)
        elif self.illegal_action == "raise":
            raise IllegalActionError(a, self._legal, f"{self.game.name} ({agent} to act)")
        else:
            self.illegal_actions += 1
            self.rewards[agent] = self.illegal_reward
            self._end(state, agent, illegal=True)
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation (``ConfigError`` naming the agents for an unknown one)."""
        state = self._state
        if state is None:
            raise EnvStateError("call reset() before observe()")
        try:
            p = self._index[agent]
        except (KeyError, TypeError):
            p = self._seat(agent)  # raises, naming the agents
        mask = self._mask if p == self._to_act else self._zero_mask
        return {"observation": state.information_state_tensor(p), "action_mask": mask.copy()}

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation, reward, termination, truncation and info
        (``EnvStateError`` before ``reset``)."""
        if self._state is None:
            raise EnvStateError("call reset() before last()")
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def _seat(self, agent: object) -> int:
        try:
            return self._index[agent]  # type: ignore[index]
        except (KeyError, TypeError):
            raise ConfigError(
                f"unknown agent {agent!r}; the agents are {self.possible_agents}"
            ) from None

    def state(self) -> np.ndarray:
        """Every seat's information-state tensor, concatenated (for centralised critics)."""
        state = self.game_state
        return np.concatenate(
            [state.information_state_tensor(p) for p in range(self.game.num_players)]
        )

    def render(self) -> str | None:
        """Render the table as text; ``"ansi"`` returns it, ``"human"`` prints it (which
        ``reset`` and ``step`` already do in that mode) and returns ``None``."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        from pokerzoo.envs.rendering import render_text

        viewer = self._index[self.agent_selection] if self.agents else None
        state = self.game_state
        # Over once the env ended the hand: at a terminal state or on a penalized illegal action.
        paid = self._hand_rewards if self._to_act < 0 else None
        text = render_text(self.game, state, viewer, self.possible_agents, paid)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    # Hooks -------------------------------------------------------------------------------------

    def _sample_chance(self, state: State) -> int:
        """One chance outcome drawn with the env's Generator (see the module docstring)."""
        return sample_chance(state, self.np_random)

    def _terminal_returns(self, state: State) -> list[float]:
        """The rewards of a finished hand (see the module docstring)."""
        return terminal_returns(state, self.np_random)

    # Internals ---------------------------------------------------------------------------------

    def _advance_chance(self, state: State) -> None:
        apply = self._apply_action
        if self._plain_chance:  # what _sample_chance does, without two calls per card
            rng = self.np_random
            draw = state.sample_chance_outcome
            while state.current_player() == CHANCE:
                apply(int(draw(rng)))
        else:
            while state.current_player() == CHANCE:
                apply(self._sample_chance(state))

    def _set_turn(self, state: State, player: int) -> None:
        legal = state.legal_actions()
        key = tuple(legal)  # the env's own copy, which no caller can mutate
        self._legal = key
        self._to_act = player
        mask = self._mask_cache.get(key)
        if mask is None:  # few distinct legal sets: build each mask once (observe copies it)
            mask = np.zeros(self._num_actions, dtype=np.int8)
            mask[legal] = 1
            self._mask_cache[key] = mask
        self._mask = mask
        infos = self.infos
        info_state = state.information_state_key
        for i, ag in self._seats:
            if i == player:
                infos[ag] = {"info_state": info_state(i), "legal_actions": list(key)}
            else:
                infos[ag] = {"info_state": info_state(i)}

    def _finish(self, state: State, last_agent: str) -> None:
        returns = self._terminal_returns(state)
        rewards = self.rewards
        for i, ag in self._seats:
            rewards[ag] = returns[i]
        self._end(state, last_agent, illegal=False)

    def _end(self, state: State, last_agent: str, illegal: bool) -> None:
        rewards, cumulative = self.rewards, self._cumulative_rewards
        terminations, infos = self.terminations, self.infos
        # What the hand paid, for render(): for unknown-environment games state.returns() is
        # the hidden model's expectation and must not be shown.
        self._hand_rewards = [rewards[ag] for ag in self.possible_agents]
        self._legal = ()
        self._to_act = -1
        info_state = state.information_state_key
        for i, ag in self._seats:
            terminations[ag] = True
            cumulative[ag] += rewards[ag]
            info: dict[str, Any] = {"info_state": info_state(i)}
            if illegal:
                info["illegal_action"] = ag == last_agent
            infos[ag] = info
        # PettingZoo's _deads_step_first: every agent is done, the first one steps first and
        # the selection returns to the last actor once all have left.
        self._skip_agent_selection = last_agent
        self.agent_selection = self.agents[0]

    def _dead_step(self, agent: str) -> None:
        """PettingZoo's ``_was_dead_step`` for an env whose agents all finish together (so every
        agent left is done too): remove ``agent``, select the next one, clear the rewards."""
        del self.terminations[agent]
        del self.truncations[agent]
        del self.rewards[agent]
        del self._cumulative_rewards[agent]
        del self.infos[agent]
        agents = self.agents
        agents.remove(agent)
        skip = getattr(self, "_skip_agent_selection", None)
        if agents:
            if skip is None:
                self._skip_agent_selection = agent
            self.agent_selection = agents[0]
        else:
            if skip is not None:
                self.agent_selection = skip
            self._skip_agent_selection = None
        rewards = self.rewards
        for ag in rewards:
            rewards[ag] = 0

    def _resample_environment(self, rng: np.random.Generator) -> None:
        """Rebind the game to one with a new hidden model (see the module docstring)."""
        resample = getattr(self.game, "with_resampled_environment", None)
        if resample is not None:
            self.game = resample(rng)

    def __deepcopy__(self, memo: dict) -> PokerEnv:
        # A full copy of the running hand (for search and what-if play); pickling instead
        # rebuilds a fresh env from the constructor arguments (EzPickle), as PettingZoo does.
        # Games are immutable (resampling rebinds, never mutates): share every one.
        for value in self.__dict__.values():
            if isinstance(value, Game):
                memo[id(value)] = value
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            setattr(new, key, copy.deepcopy(value, memo))
        return new

    def __str__(self) -> str:
        return str(self.metadata["name"])


_BASE_APPLY = State.apply_action


def _no_hand(action: int) -> None:
    raise EnvStateError("call reset() before step()")


def _as_action(action: Any, num_actions: int) -> int:
    """``action`` as an int in ``range(num_actions)``, or -1 when it is not one: integers
    (NumPy's too) and integral floats are accepted; bools, NaN, infinities, strings are not."""
    if isinstance(action, bool | np.bool_):
        return -1
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    if isinstance(action, int | np.integer):
        a = int(action)
    elif isinstance(action, float | np.floating) and math.isfinite(action):
        if action != int(action):
            return -1
        a = int(action)
    else:
        return -1
    return a if 0 <= a < num_actions else -1


def sample_chance(state: State, rng: np.random.Generator) -> int:
    """A chance outcome of ``state`` drawn with ``rng`` (``State.sample_chance_outcome``: games
    with uniform deals make it cheap, unknown-environment games draw from their model)."""
    return int(state.sample_chance_outcome(rng))


def terminal_returns(state: State, rng: np.random.Generator) -> list[float]:
    """Rewards of a finished hand: ``state.sample_returns(rng)`` if the state has it (games
    that draw rewards from a hidden model), else ``state.returns()``."""
    sampler = getattr(state, "sample_returns", None)
    if sampler is not None:
        return [float(r) for r in sampler(rng)]
    return [float(r) for r in state.returns()]


def make_env(
    game_name: str,
    raw: bool,
    env_class: type[PokerEnv] | None = None,
    env_options: tuple[str, ...] = ENV_OPTIONS,
    **kwargs: Any,
) -> PokerEnv:
    """Build a ``PokerEnv`` (or ``env_class``) of ``game_name``: keywords in ``env_options``
    go to the env, the others are game parameters (``raw=True`` makes illegal actions raise).

    Raises:
        ConfigError: for unknown parameters, listing the game's parameters and the env options.
    """
    from pokerzoo.games.base import ConfigError

    env_class = env_class or PokerEnv
    options = {k: kwargs.pop(k) for k in env_options if k in kwargs}
    if raw and options.get("illegal_action", "raise") != "raise":
        raise ConfigError("raw_env always raises on illegal actions; use env() to penalize them")
    options.setdefault("illegal_action", "raise" if raw else "penalize")
    try:
        game = load_game(game_name, **kwargs)
    except ConfigError as exc:
        raise ConfigError(f"{exc}; env options are {list(env_options)}") from None
    return env_class(game, **options)
