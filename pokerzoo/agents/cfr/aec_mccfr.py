"""External-sampling MCCFR on any PettingZoo AEC env (Lanctot et al. 2009), through the adapter.

Where ``MCCFRSolver`` walks a compiled tree, ``AECExternalMCCFR`` walks the env itself: each
traversal resets the env with a seed drawn from the solver's generator, so **chance stays inside
the env's own random generator** (a traversal sees one sample of chance, as external sampling
asks); the updating player's decisions are explored action by action, the other players'
sampled from their current strategies (regret matching), whose sum gives the average strategy.

Exploring means going back to a decision after trying an action. Two ways (``copies``):
``"deepcopy"`` copies the env at the traverser's decisions (``check_copyable`` at start),
``"replay"`` resets it with the traversal's seed and replays the actions
(``check_replayable`` at start: ``reset(seed)`` must determine chance; PettingZoo's classic
envs qualify, their deep copies are fresh envs). ``"auto"`` takes the first that passes and
records it in ``copies``; both walk the same sampled tree.

Information states: a table row per ``(seat, observation bytes + mask bytes)``. **The
observation must be an information state** (perfect recall). When it is not (RLCard's Leduc
shows chips, not the order of bets), the solver learns one strategy per observation: CFR's
guarantees then hold for that coarser game, and its strategies are still playable in the
original, where they are scored.

>>> from pettingzoo.classic import tictactoe_v3
>>> solver = AECExternalMCCFR(tictactoe_v3.env, seed=0)
>>> solver.copies
'replay'
>>> solver.iterate(2)
>>> solver.num_infosets > 0
True
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import numpy as np

from pokerzoo.agents.base import Agent, check_state_iteration, check_units
from pokerzoo.errors import CheckpointError, ConfigError
from pokerzoo.games.base import State
from pokerzoo.wrappers.aec_learner import as_factory, check_copyable, inspect_env
from pokerzoo.wrappers.aec_learner_state import (
    AECState,
    ReplayCursor,
    check_replayable,
)

COPIES = ("auto", "deepcopy", "replay")


class _Copied:
    """A decision reached by copying: the state itself."""

    __slots__ = ("state",)

    def __init__(self, state: AECState) -> None:
        self.state = state

    def at(self) -> AECState:
        return self.state

    def child(self, action: int) -> _Copied:
        state = self.state.clone()
        state.apply_action(action)
        return _Copied(state)


class _Replayed:
    """A decision reached by replay: the actions from the reset."""

    __slots__ = ("cursor", "prefix")

    def __init__(self, cursor: ReplayCursor, prefix: list[int]) -> None:
        self.cursor = cursor
        self.prefix = prefix

    def at(self) -> AECState:
        return self.cursor.at(self.prefix)

    def child(self, action: int) -> _Replayed:
        return _Replayed(self.cursor, [*self.prefix, action])


class AECExternalMCCFR(Agent):
    """External-sampling MCCFR on an AEC env (see the module).

    Args:
        env: a factory ``() -> AECEnv`` or an instance (used as the solver's scratch env).
        seed: seeds the traversals' resets and the sampled actions.
        copies: ``"auto"``, ``"deepcopy"`` or ``"replay"``.

    Raises:
        ConfigError: the env breaks a requirement of the adapter, or can be neither copied nor
            replayed.
    """

    name = "mccfr-es-aec"

    def __init__(self, env: Any, seed: int = 0, copies: str = "auto") -> None:
        if copies not in COPIES:
            raise ConfigError(f"copies must be one of {COPIES}, got {copies!r}")
        self.env = as_factory(env)()
        self.spec = inspect_env(self.env)
        self.copies = self._choose(copies)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.num_players = self.spec.num_players
        self.num_actions = self.spec.num_actions
        self._tables: dict[tuple[int, bytes], np.ndarray] = {}
        self._iteration = 0

    def _choose(self, copies: str) -> str:
        if copies in ("auto", "deepcopy"):
            try:
                check_copyable(self.env)
                return "deepcopy"
            except ConfigError:
                if copies == "deepcopy":
                    raise
        check_replayable(self.env, self.spec)
        return "replay"

    # Learning ----------------------------------------------------------------------------------

    @property
    def iteration(self) -> int:
        return self._iteration

    @property
    def num_infosets(self) -> int:
        """Information states met so far."""
        return len(self._tables)

    def iterate(self, n: int = 1) -> None:
        """``n`` iterations: one traversal per player each, every one a fresh reset seed."""
        for _ in range(check_units(n)):
            for player in range(self.num_players):
                self._traverse(self._root(int(self.rng.integers(2**31))), player)
            self._iteration += 1

    def _root(self, seed: int) -> _Copied | _Replayed:
        if self.copies == "replay":
            return _Replayed(ReplayCursor(self.env, self.spec, seed), [])
        self.env.reset(seed=seed)
        return _Copied(AECState(self.env, self.spec))  # children are copies: it stays

    def _traverse(self, node: _Copied | _Replayed, traverser: int) -> float:
        state = node.at()
        if state.is_terminal():
            return state.returns()[traverser]
        p = state.current_player()
        mask = state.legal_actions_mask()
        legal = np.flatnonzero(mask)
        table = self._table(p, state.information_state_key(p))
        sigma = _regret_matching(table[0], legal)
        if p != traverser:
            table[1, legal] += sigma
            k = int(np.searchsorted(np.cumsum(sigma), self.rng.random() * sigma.sum(),
                                    side="right"))
            return self._traverse(node.child(int(legal[min(k, len(legal) - 1)])), traverser)
        values = np.array([self._traverse(node.child(int(a)), traverser) for a in legal])
        value = float(sigma @ values)
        table[0, legal] += values - value
        return value

    def _table(self, player: int, key: bytes) -> np.ndarray:
        table = self._tables.get((player, key))
        if table is None:
            table = self._tables[(player, key)] = np.zeros((2, self.num_actions))
        return table

    # Policies ----------------------------------------------------------------------------------

    def average_probs(self, player: int, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The average strategy of ``player`` on a batch of observations, ``[n, num_actions]``
        (uniform over the legal actions at information states never met)."""
        obs = np.asarray(obs, dtype=np.float32).reshape(-1, self.spec.observation_size)
        mask = np.asarray(mask, dtype=np.int8).reshape(-1, self.num_actions)
        out = np.zeros(mask.shape)
        for row, (o, m) in enumerate(zip(obs, mask)):
            table = self._tables.get((player, o.tobytes() + m.tobytes()))
            total = table[1] * (m > 0) if table is not None else None
            if total is None or total.sum() <= 0:
                out[row] = m / m.sum()
            else:
                out[row] = total / total.sum()
        return out

    def policy(self) -> AECTablePolicy:
        """The average strategy as a state policy over ``AECState``-like states."""
        return AECTablePolicy(self)

    def act_probabilities(
        self, observation: Any, info: Mapping[str, Any] | None = None
    ) -> np.ndarray:
        """The average strategy at an env turn; the seat is ``info["agent"]`` or
        ``info["player"]`` (as ``AECNFSP.act_probabilities``)."""
        info = info or {}
        if "player" in info:
            seat = int(info["player"])
        elif info.get("agent") in self.spec.agents:
            seat = self.spec.agents.index(info["agent"])
        else:
            raise ConfigError("name the acting agent: info['agent'] (its name) or "
                              f"info['player'] (its index in {list(self.spec.agents)})")
        if self.spec.mask_in_info:
            obs, mask = observation, info["action_mask"]
        else:
            obs, mask = observation["observation"], observation["action_mask"]
        return self.average_probs(seat, obs, mask)[0]

    # Checkpoints -------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Counters, the generator and the tables (keys as hex strings, values one array)."""
        keys = list(self._tables)
        return {
            "env": {"name": self.spec.name, "agents": list(self.spec.agents),
                    "num_actions": self.num_actions},
            "iteration": self._iteration,
            "rng": copy.deepcopy(self.rng.bit_generator.state),
            "players": np.array([p for p, _ in keys], dtype=np.int64),
            "keys": [key.hex() for _, key in keys],
            "tables": (np.stack([self._tables[k] for k in keys]) if keys
                       else np.zeros((0, 2, self.num_actions))),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` returned.

        Raises:
            CheckpointError: a checkpoint of another env.
        """
        iteration = check_state_iteration(state["iteration"])
        mine = {"name": self.spec.name, "agents": list(self.spec.agents),
                "num_actions": self.num_actions}
        theirs = {k: (list(v) if isinstance(v, tuple) else v) for k, v in state["env"].items()}
        if theirs != mine:
            raise CheckpointError(f"checkpoint is for env {theirs}, this solver plays {mine}")
        tables = np.asarray(state["tables"], dtype=np.float64)
        players = np.asarray(state["players"], dtype=np.int64)
        self._tables = {(int(p), bytes.fromhex(k)): tables[i].copy()
                        for i, (p, k) in enumerate(zip(players, state["keys"]))}
        self.rng.bit_generator.state = copy.deepcopy(dict(state["rng"]))
        self._iteration = iteration


class AECTablePolicy:
    """``AECExternalMCCFR``'s average strategy as ``action_probabilities(state)``."""

    def __init__(self, solver: AECExternalMCCFR) -> None:
        self.solver = solver

    def action_probabilities(self, state: State, player: int | None = None) -> dict[int, float]:
        p = state.current_player() if player is None else player
        mask = state.legal_actions_mask()
        row = self.solver.average_probs(p, state.information_state_tensor(p), mask)[0]
        return {int(a): float(row[a]) for a in np.flatnonzero(mask)}


def _regret_matching(regrets: np.ndarray, legal: np.ndarray) -> np.ndarray:
    positive = np.maximum(regrets[legal], 0.0)
    total = positive.sum()
    return positive / total if total > 0 else np.full(len(legal), 1.0 / len(legal))
