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

from typing import Any

import numpy as np

from pokerzoo.agents.base import check_units
from pokerzoo.agents.cfr.aec_tables import AECTabularSolver, regret_matching
from pokerzoo.errors import ConfigError
from pokerzoo.wrappers.aec_learner import check_copyable
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


class AECExternalMCCFR(AECTabularSolver):
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
        super().__init__(env, seed)
        self.copies = self._choose(copies)

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
        sigma = regret_matching(table[0], legal)
        if p != traverser:
            table[1, legal] += sigma
            k = int(np.searchsorted(np.cumsum(sigma), self.rng.random() * sigma.sum(),
                                    side="right"))
            return self._traverse(node.child(int(legal[min(k, len(legal) - 1)])), traverser)
        values = np.array([self._traverse(node.child(int(a)), traverser) for a in legal])
        value = float(sigma @ values)
        table[0, legal] += values - value
        return value
