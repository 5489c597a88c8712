"""A copyable AEC env seen as a pokerzoo ``State``, and determinisations drawn by reseeded replay.

Search (adaptive UCT) and sampling solvers walk ``State`` objects: ``current_player``,
``legal_actions``, ``apply_action``, ``clone``, ``returns``, ``information_state_key``.
``AECState`` gives a running copy of a foreign AEC env that face:

* chance stays inside the env's own generator, so ``current_player()`` is never ``CHANCE``;
  dead steps (terminated or truncated agents) are taken inside, reading their rewards;
* ``returns()`` are the rewards read through ``env.last()`` at every selection since the
  state was made, per seat (rewards earned before it are not included: constants to a search);
* ``information_state_key(p)`` is the bytes of agent ``p``'s observation array and its
  action mask, ``information_state_tensor(p)`` the array flattened (float32). **The
  observation must be an information state** (perfect recall: equal exactly when the agent
  cannot tell two histories apart). When it is not (e.g. RLCard's Leduc, which shows chips but
  not the order of bets), histories the agent could tell apart share statistics: search and
  CFR then learn one strategy for all of them, a coarser strategy space, not a wrong value;
* ``clone()`` is ``copy.deepcopy`` of the env (``check_copyable`` checks it once).

``replay_sampler`` draws a *determinisation* of a hand in flight without reading the env's
hidden state: it resets a scratch env with fresh seeds and replays the hand's actions, keeping
a replay only if every action was taken by the same seat and was legal, and the searcher's
observation at the end equals its real one (rejection sampling from the chance prior; the
opponents' actions are not reweighted by their policy). It needs ``reset(seed)`` to determine
the env's chance.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError, EnvStateError
from pokerzoo.games.base import TERMINAL
from pokerzoo.wrappers.aec_learner import AECSpec

MAX_REPLAYS = 2000
"""Reseeded replays ``replay_sampler`` tries before it gives up on one determinisation."""


@dataclass(frozen=True)
class AECGameFace:
    """The few game facts a search reads from ``state.game``."""

    num_players: int
    num_distinct_actions: int
    is_zero_sum: bool = False


class AECState:
    """A running AEC env as a ``State`` (see the module). ``env`` is owned by the state."""

    def __init__(self, env: Any, spec: AECSpec, returns: Sequence[float] | None = None) -> None:
        self.env = env
        self.spec = spec
        self.game = AECGameFace(spec.num_players, spec.num_actions)
        self._seat = {agent: k for k, agent in enumerate(spec.agents)}
        self._returns = [0.0] * spec.num_players if returns is None else list(returns)

    def _settle(self) -> None:
        """Take the dead steps up to the next live decision (or the end)."""
        env = self.env
        while env.agents:
            agent = env.agent_selection
            _, reward, terminated, truncated, _ = env.last()
            if not (terminated or truncated):
                return
            self._returns[self._seat[agent]] += float(reward)
            env.step(None)

    def current_player(self) -> int:
        self._settle()
        return self._seat[self.env.agent_selection] if self.env.agents else TERMINAL

    def is_terminal(self) -> bool:
        self._settle()
        return not self.env.agents

    def returns(self) -> list[float]:
        self._settle()
        return list(self._returns)

    def _split(self, agent: str) -> tuple[np.ndarray, np.ndarray]:
        obs = self.env.observe(agent)
        if self.spec.mask_in_info:
            array, mask = obs, self.env.infos[agent]["action_mask"]
        else:
            array, mask = obs["observation"], obs["action_mask"]
        return (np.asarray(array, dtype=np.float32).reshape(-1),
                np.asarray(mask, dtype=np.int8).reshape(-1))

    def legal_actions_mask(self) -> np.ndarray:
        if self.is_terminal():
            return np.zeros(self.spec.num_actions, dtype=np.int8)
        return self._split(self.env.agent_selection)[1]

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_actions_mask()).tolist()

    def is_chance_node(self) -> bool:
        return False  # chance happens inside the env's steps

    def chance_outcomes(self) -> list[tuple[int, float]]:
        raise ConfigError("an AEC env's chance is inside its own generator: no chance nodes")

    def apply_action(self, action: int) -> None:
        if self.current_player() == TERMINAL:
            raise EnvStateError("the hand is over: no action to apply")
        agent = self.env.agent_selection
        _, reward, _, _, _ = self.env.last()
        self._returns[self._seat[agent]] += float(reward)
        self.env.step(int(action))

    def clone(self) -> AECState:
        return AECState(copy.deepcopy(self.env), self.spec, self._returns)

    def information_state_tensor(self, player: int) -> np.ndarray:
        return self._split(self.spec.agents[player])[0]

    def information_state_key(self, player: int) -> bytes:
        array, mask = self._split(self.spec.agents[player])
        return array.tobytes() + mask.tobytes()


def replay_sampler(
    scratch: Any,
    spec: AECSpec,
    hand: Sequence[tuple[int, int]],
    searcher: int,
    key: bytes,
    max_replays: int = MAX_REPLAYS,
) -> Any:
    """A sampler ``rng -> AECState``: determinisations of a hand in flight (see the module).

    Args:
        scratch: an env of the same kind, reset and replayed here (the caller's own).
        spec: the adapter's description of the env.
        hand: ``(seat, action)`` pairs from the reset to the searcher's decision (-1: dead step).
        searcher: the seat to act.
        key: the searcher's information-state key now.
        max_replays: tries per determinisation.

    Raises:
        EnvStateError: no consistent replay in ``max_replays`` tries.
    """
    seats = {agent: k for k, agent in enumerate(spec.agents)}

    def consistent(state: AECState) -> bool:
        env = state.env
        for seat, action in hand:
            if not env.agents or seats[env.agent_selection] != seat:
                return False
            if action >= 0 and not state.legal_actions_mask()[action]:
                return False
            env.step(None if action < 0 else action)
        return state.current_player() == searcher and state.information_state_key(searcher) == key

    def sample(rng: np.random.Generator) -> AECState:
        for _ in range(max_replays):
            scratch.reset(seed=int(rng.integers(2**31)))
            state = AECState(scratch, spec)
            if consistent(state):
                return AECState(copy.deepcopy(scratch), spec)
        raise EnvStateError(
            f"no replay of the hand in {max_replays} reseeded tries matched the searcher's "
            "observation: the env's reset(seed) must determine its chance")

    return sample



class ReplayCursor:
    """States of one hand (one reset seed) at any prefix of live actions, on one env.

    For envs that cannot be copied: ``at(prefix)`` continues from where the env is when its
    actions so far are a prefix of ``prefix`` (a depth-first walk mostly descends), else resets
    the env with the hand's seed and replays. Needs ``reset(seed)`` to determine chance
    (``check_replayable``). Returned states are views of the cursor's env: valid until the
    next ``at``.
    """

    def __init__(self, env: Any, spec: AECSpec, seed: int) -> None:
        self.env = env
        self.spec = spec
        self.seed = seed
        self._done: list[int] = []
        self._state: AECState | None = None

    def at(self, prefix: Sequence[int]) -> AECState:
        n = len(self._done)
        if self._state is None or n > len(prefix) or list(prefix[:n]) != self._done:
            self.env.reset(seed=self.seed)
            self._state, self._done, n = AECState(self.env, self.spec), [], 0
        for action in prefix[n:]:
            self._state.apply_action(action)
            self._done.append(action)
        return self._state


def check_replayable(env: Any, spec: AECSpec, seed: int = 0, steps: int = 12) -> None:
    """Check that ``reset(seed)`` and the same actions give the same observations twice.

    Raises:
        ConfigError: ``not replayable``.
    """
    seen: list[list[bytes]] = []
    for _ in range(2):
        env.reset(seed=seed)
        state = AECState(env, spec)
        keys: list[bytes] = []
        for _ in range(steps):
            if state.is_terminal():
                break
            p = state.current_player()
            keys.append(bytes([p]) + state.information_state_key(p))
            state.apply_action(state.legal_actions()[-1])
        seen.append(keys)
    if seen[0] != seen[1]:
        raise ConfigError("not replayable: reset(seed) with the same seed and actions gave "
                          "other observations; sampling solvers need copyable or seeded envs")
