"""The AEC learner adapter: any PettingZoo AEC env, ``N`` copies side by side, as our agents' input.

``AECLearnerEnv`` has the face of ``pokerzoo.envs.VectorPokerEnv`` (``reset`` -> ``(obs, mask,
player)``, ``step(actions)`` -> ``VectorStep``, ``num_envs``, ``state_dict``), so an agent that
learns from our batched env (NFSP, NFSP-PER, NFSP-PLT) learns from a foreign env unchanged.

Requirements, checked once at construction (``ConfigError`` naming the one that fails):

* every agent's action space is ``gymnasium.spaces.Discrete`` (same size for all agents);
* a legal-action mask: the observation is a ``{"observation", "action_mask"}`` dict, or the
  observation is an array and ``info["action_mask"]`` carries the mask;
* ``env`` given as an instance with ``num_envs > 1``: ``copy.deepcopy`` must work on it (the
  copies are reset before use; a factory, ``env_fn()`` returning a new env, needs no copying).

AEC semantics, exactly: at every selection of an agent (a decision or a dead step) its reward
is read through ``env.last()`` (the reward accumulated since it last acted) and credited to
that agent in the step's ``rewards`` row; a terminated or truncated agent is stepped with
``None`` (its dead step) and credited there; a hand ends when ``env.agents`` is empty, and the
copy is then reset with the next seed (same-step autoreset: ``done[i]`` is ``True`` and row
``i`` of ``obs`` already belongs to the next hand). Any number of agents; agents may leave
early; rewards may come at any step (those read before a hand's first decision, an ante at
reset say, are reported with that hand's first step). Seats are the positions in
``env.possible_agents``.

Seeds: ``reset(seed)`` seeds the adapter's generator; every hand of every copy is reset with a
seed drawn from it, so a seeded run deals the same hands.

Checkpoints (``state_dict``): the generator, the episode count, and for each copy its hand in
flight as its reset seed and the actions played since (an env mid-hand cannot be saved in
general). ``load_state_dict`` *replays* each hand: it resets a fresh env with the saved seed
and plays the saved actions, then checks that the acting agent's observation is the saved one;
an env whose ``reset(seed)`` does not determine its chance fails that check with a
``CheckpointError`` (resume such an env with ``drop_hands=True``, which deals new hands).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from pokerzoo.envs.vector import VectorStep
from pokerzoo.errors import CheckpointError, ConfigError, EnvStateError, IllegalActionError
from pokerzoo.wrappers.aec_guard import check_aec_env

MAX_HANDS_WITHOUT_DECISION = 1000
"""Hands in a row that may end before any decision (a deal that ends at once is skipped);
more means an env that never lets an agent act, refused instead of looping forever."""

EnvFactory = Callable[[], Any]
"""``() -> AECEnv``: builds a fresh env."""


@dataclass(frozen=True)
class AECSpec:
    """What the adapter learned about an env (read from its spaces and its first reset)."""

    agents: tuple[str, ...]
    """``env.possible_agents``: seat ``k`` is ``agents[k]``."""
    observation_shape: tuple[int, ...]
    """Shape of one agent's observation array (flattened for networks)."""
    num_actions: int
    """Size of the ``Discrete`` action space."""
    mask_in_info: bool
    """The mask is ``info["action_mask"]`` (else the observation dict's ``"action_mask"``)."""
    name: str
    """The env's ``metadata["name"]`` (or its class name)."""

    @property
    def num_players(self) -> int:
        return len(self.agents)

    @property
    def observation_size(self) -> int:
        return int(np.prod(self.observation_shape))


def as_factory(env: Any, num_envs: int = 1) -> EnvFactory:
    """A factory of envs from ``env``: a callable is one; an instance serves as the first env
    and ``copy.deepcopy`` of it (taken now, before it is stepped) makes the others. Each copy is
    reset before use, so a copy that comes back as a fresh env (PettingZoo's classic envs
    pickle through their constructor's arguments) serves as well as one of the running game.

    Raises:
        ConfigError: not an AEC env or a callable; ``not copyable`` when more than one env is
            needed and ``copy.deepcopy(env)`` fails.
    """
    if callable(env) and not hasattr(env, "possible_agents"):
        return env
    if not hasattr(env, "possible_agents"):
        raise ConfigError(f"expected a PettingZoo AEC env or a factory of one, got {env!r}")
    try:
        template = copy.deepcopy(env)
    except Exception as error:  # a foreign env's copy may fail any way
        if num_envs > 1:
            raise ConfigError(f"not copyable: copy.deepcopy(env) fails ({type(error).__name__}: "
                              f"{error}); pass a factory (a function returning a new env) for "
                              f"{num_envs} copies") from None
        template = None
    used = [False]

    def factory() -> Any:
        if not used[0]:  # the user's instance itself serves as the first copy
            used[0] = True
            return env
        if template is None:
            raise ConfigError("not copyable: copy.deepcopy(env) fails; pass a factory "
                              "(a function returning a new env) instead of an instance")
        return copy.deepcopy(template)

    return factory


def inspect_env(env: Any) -> AECSpec:
    """Check the requirements on a fresh ``env`` (reset here with seed 0) and describe it.

    Raises:
        ConfigError: continuous (non-``Discrete``) actions, or no action mask.
    """
    check_aec_env(env, "the AEC learner adapter")
    env.reset(seed=0)
    agents = tuple(env.possible_agents)
    sizes = set()
    for agent in agents:
        space = env.action_space(agent)
        if not isinstance(space, spaces.Discrete):
            raise ConfigError(f"continuous actions: agent {agent!r} has action space {space}; "
                              "the adapter needs Discrete actions")
        sizes.add(int(space.n))
    if len(sizes) != 1:
        raise ConfigError(f"Discrete actions of different sizes {sorted(sizes)}: the adapter "
                          "needs one action space shared by all agents")
    space = env.observation_space(agents[0])
    _, _, _, _, info = env.last()
    if isinstance(space, spaces.Dict) and "action_mask" in space.spaces:
        if "observation" not in space.spaces:
            raise ConfigError("no observation: the dict observation needs an 'observation' key")
        shape, in_info = space["observation"].shape, False
    elif isinstance(info, Mapping) and "action_mask" in info:
        shape, in_info = space.shape, True
    else:
        raise ConfigError("no action mask: the observation must be a {'observation', "
                          "'action_mask'} dict or info must carry 'action_mask'")
    if shape is None:
        raise ConfigError(f"observation space {space} has no shape: the adapter needs arrays")
    name = str(getattr(env, "metadata", {}).get("name", type(env.unwrapped).__name__))
    return AECSpec(agents, tuple(shape), sizes.pop(), in_info, name)


def check_copyable(env: Any) -> None:
    """Check that ``copy.deepcopy(env)`` continues the running game and evolves independently.

    (PettingZoo's classic envs pickle through ``EzPickle``: their deep copy is a *new* env
    built from the constructor's arguments, not a copy of the game in progress.)

    Raises:
        ConfigError: ``not copyable``, naming what failed.
    """
    advice = "UCT search, MCCFR's copies and Deep CFR need a copy of the running game"
    try:
        probe = copy.deepcopy(env) if not getattr(env, "agents", None) else env
        if probe is not env:
            probe.reset(seed=0)
        seen = _fingerprint(probe)
        # A copy one step into the game, then a copy of that copy: a fresh env built from the
        # constructor's arguments fails to step or differs from the game it was copied from.
        twin = copy.deepcopy(probe)
        _step_once(twin)
        moved = _fingerprint(twin)
        again = copy.deepcopy(twin)
        same = _fingerprint(again) == moved
        for _ in range(3):
            _step_once(again)
        independent = _fingerprint(twin) == moved and _fingerprint(probe) == seen
    except Exception as error:  # any failure of a foreign env's copy means the same thing
        raise ConfigError(f"not copyable: a deep copy of the env fails or cannot be stepped "
                          f"({type(error).__name__}: {error}); {advice}") from None
    if not same:
        raise ConfigError(f"not copyable: copy.deepcopy(env) does not continue the running "
                          f"game (a fresh env?); {advice}")
    if not independent:
        raise ConfigError(f"not copyable: stepping a deep copy changed the env it was copied "
                          f"from (they share state); {advice}")


def _step_once(env: Any) -> None:
    if env.agents:
        obs, _, term, trunc, info = env.last()
        env.step(None if term or trunc else _first_legal(obs, info))


def _first_legal(obs: Any, info: Any) -> int:
    mask = obs["action_mask"] if isinstance(obs, Mapping) else info["action_mask"]
    return int(np.flatnonzero(np.asarray(mask))[0])


def _fingerprint(env: Any) -> tuple[Any, ...]:
    if not env.agents:
        return ("over",)
    agent = env.agent_selection
    obs = env.observe(agent)
    array = obs["observation"] if isinstance(obs, Mapping) else obs
    return (agent, tuple(env.agents), np.asarray(array).tobytes())


class AECLearnerEnv:
    """``num_envs`` copies of a PettingZoo AEC env stepped in lockstep (see the module).

    Args:
        env: a factory ``() -> AECEnv`` (preferred) or an AEC env instance.
        num_envs: copies played at once.
        seed: seed of the generator that seeds every hand (``reset(seed)`` replaces it).

    >>> from pettingzoo.classic import tictactoe_v3
    >>> venv = AECLearnerEnv(tictactoe_v3.env, num_envs=4, seed=0)
    >>> obs, mask, player = venv.reset()
    >>> obs.shape, mask.shape, player.tolist()
    ((4, 18), (4, 9), [0, 0, 0, 0])
    """

    def __init__(self, env: EnvFactory | Any, num_envs: int, seed: int | None = None) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ConfigError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.factory = as_factory(env, num_envs)
        self.envs = [self.factory() for _ in range(num_envs)]
        self.spec = inspect_env(self.envs[0])
        for other in self.envs[1:]:
            if tuple(other.possible_agents) != self.spec.agents:
                raise ConfigError("the factory builds envs with different possible_agents")
        self.num_envs = num_envs
        self.num_players = self.spec.num_players
        self.num_actions = self.spec.num_actions
        self.observation_size = self.spec.observation_size
        self.final_observations = False
        self.episodes = 0
        """Hands finished since the adapter was built (or restored)."""
        self._seat = {agent: k for k, agent in enumerate(self.spec.agents)}
        self._rng = np.random.default_rng(seed)
        n = num_envs
        self._obs = np.zeros((n, self.observation_size), dtype=np.float32)
        self._mask = np.zeros((n, self.num_actions), dtype=np.int8)
        self._player = np.zeros(n, dtype=np.int64)
        self._hand_seed = np.zeros(n, dtype=np.int64)
        self._actions: list[list[int]] = [[] for _ in range(n)]
        self._actors: list[list[int]] = [[] for _ in range(n)]
        # Rewards read before a hand's first decision (an ante at reset, say): reported with
        # the first step of that hand, so they never mix with the hand before.
        self._carry = np.zeros((n, self.num_players), dtype=np.float64)
        self._started = False

    # The batched face --------------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal a new hand in every copy; returns ``(obs, mask, player)`` (copies)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._carry[:] = 0.0
        for i in range(self.num_envs):
            self._new_hand(i)
        self._started = True
        return self._obs.copy(), self._mask.copy(), self._player.copy()

    def step(self, actions: np.ndarray) -> VectorStep:
        """Play ``actions[i]`` in copy ``i`` and advance each copy to its next live decision.

        Raises:
            EnvStateError: before ``reset``.
            IllegalActionError: an action the acting agent's mask forbids.
        """
        if not self._started:
            raise EnvStateError("call reset() before step()")
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        legal = self._mask[np.arange(self.num_envs), np.clip(actions, 0, self.num_actions - 1)]
        bad = np.flatnonzero((actions < 0) | (actions >= self.num_actions) | (legal == 0))
        if len(bad):
            i = int(bad[0])
            raise IllegalActionError(int(actions[i]), np.flatnonzero(self._mask[i]).tolist(),
                                     f"env copy {i}")
        rewards, self._carry = self._carry, np.zeros_like(self._carry)
        done = np.zeros(self.num_envs, dtype=bool)
        for i, env in enumerate(self.envs):
            env.step(int(actions[i]))
            self._record(i, int(self._player[i]), int(actions[i]))
            if not self._advance(i, rewards):
                done[i] = True
                self.episodes += 1
                self._new_hand(i)
        return VectorStep(self._obs.copy(), self._mask.copy(), self._player.copy(),
                          rewards, done, None)

    @property
    def agents(self) -> tuple[str, ...]:
        """Seat ``k``'s agent name."""
        return self.spec.agents

    def hand(self, i: int) -> tuple[int, list[tuple[int, int]]]:
        """Copy ``i``'s hand in flight: its reset seed and the ``(seat, action)`` pairs played
        since (action -1: a dead step), up to the decision it waits for."""
        return int(self._hand_seed[i]), list(zip(self._actors[i], self._actions[i]))

    def seat_of(self, agent: str) -> int:
        """The seat of agent ``agent``."""
        return self._seat[agent]

    # Internals ---------------------------------------------------------------------------------

    def _new_hand(self, i: int) -> None:
        """Reset copy ``i`` with the next seed until it reaches a live decision; the rewards
        read on the way wait in ``_carry`` for the hand's first step (a hand that ends before
        any decision is counted and skipped, its rewards with it)."""
        for _ in range(MAX_HANDS_WITHOUT_DECISION):
            seed = int(self._rng.integers(2**31))
            self.envs[i].reset(seed=seed)
            self._hand_seed[i] = seed
            self._actions[i], self._actors[i] = [], []
            scratch = np.zeros_like(self._carry)
            if self._advance(i, scratch):
                self._carry[i] = scratch[i]
                return
            self.episodes += 1
        raise ConfigError(f"the env ended {MAX_HANDS_WITHOUT_DECISION:,} hands in a row before "
                          "any agent could act (every agent terminated or truncated at reset?)")

    def _advance(self, i: int, rewards: np.ndarray) -> bool:
        """Dead-step copy ``i`` to its next live decision, crediting every ``last()`` reward;
        ``False`` when the hand is over (``env.agents`` empty)."""
        env = self.envs[i]
        while env.agents:
            agent = env.agent_selection
            obs, reward, terminated, truncated, info = env.last()
            rewards[i, self._seat[agent]] += float(reward)
            if terminated or truncated:
                env.step(None)
                self._record(i, self._seat[agent], -1)
                continue
            self._store(i, agent, obs, info)
            return True
        return False

    def _record(self, i: int, seat: int, action: int) -> None:
        self._actions[i].append(action)
        self._actors[i].append(seat)

    def _store(self, i: int, agent: str, obs: Any, info: Any) -> None:
        array, mask = self.split(obs, info)
        self._obs[i] = array
        self._mask[i] = mask
        self._player[i] = self._seat[agent]

    def split(self, obs: Any, info: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(flat float32 observation, int8 mask)`` of one agent's ``(observation, info)``."""
        if self.spec.mask_in_info:
            array, mask = obs, info["action_mask"]
        else:
            array, mask = obs["observation"], obs["action_mask"]
        return (np.asarray(array, dtype=np.float32).reshape(-1),
                np.asarray(mask, dtype=np.int8).reshape(-1))

    # Checkpoints -------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The generator, the episode count and each hand in flight as (reset seed, actions
        played; -1 marks a dead step), plus the acting observation to check the replay."""
        if not self._started:
            raise EnvStateError("no hands in flight: call reset() first")
        return {
            "rng": copy.deepcopy(self._rng.bit_generator.state),
            "episodes": self.episodes,
            "hand_seed": self._hand_seed.copy(),
            "actions": [list(a) for a in self._actions],
            "actors": [list(a) for a in self._actors],
            "obs": self._obs.copy(),
            "carry": self._carry.copy(),
        }

    def load_state_dict(self, state: Mapping[str, Any], drop_hands: bool = False) -> None:
        """Replay the saved hands in flight (or, with ``drop_hands``, deal new ones).

        Raises:
            CheckpointError: another number of copies, or a hand that replays differently.
        """
        seeds = np.asarray(state["hand_seed"], dtype=np.int64)
        if seeds.shape != (self.num_envs,):
            raise CheckpointError(f"state has {seeds.size} env copies, this adapter "
                                  f"{self.num_envs}")
        self._rng.bit_generator.state = copy.deepcopy(dict(state["rng"]))
        self.episodes = int(state["episodes"])
        self._started = True
        scratch = np.zeros((self.num_envs, self.num_players))
        self._carry = np.array(state["carry"], dtype=np.float64)
        for i in range(self.num_envs):
            if drop_hands:
                self._new_hand(i)
                continue
            hand = list(zip(state["actors"][i], state["actions"][i]))
            self._replay(i, int(seeds[i]), [(int(p), int(a)) for p, a in hand], scratch)
            if not np.array_equal(self._obs[i], np.asarray(state["obs"][i], np.float32)):
                raise CheckpointError(
                    f"env copy {i}'s hand in flight replays differently from its reset seed: "
                    "the env's reset(seed) must determine its chance (or load with "
                    "drop_hands=True)")

    def _replay(self, i: int, seed: int, hand: list[tuple[int, int]], rewards: np.ndarray) -> None:
        env = self.envs[i]
        env.reset(seed=seed)
        self._hand_seed[i] = seed
        self._actions[i], self._actors[i] = [], []
        for seat, action in hand:
            if not env.agents or self._seat[env.agent_selection] != seat:
                raise CheckpointError(f"env copy {i}'s hand in flight replays differently from "
                                      "its reset seed: the env's reset(seed) must determine "
                                      "its chance (or load with drop_hands=True)")
            env.step(None if action < 0 else action)
            self._record(i, seat, action)
        if not self._advance(i, rewards):
            raise CheckpointError(f"env copy {i}'s saved hand is over after its actions")
