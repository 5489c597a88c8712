"""What every solver on a compiled tree shares: config handling, the tree, checkpoints.

A ``TabularSolver`` keeps its learning state in named numpy arrays (``_state_arrays``) shaped
like the tree's ``[num_infosets, num_actions]`` table, so ``state_dict``/``load_state_dict``
are written once here; subclasses add extras (e.g. an RNG state) through the two hooks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

import numpy as np

from pokerzoo.agents.base import Agent, check_state_iteration
from pokerzoo.agents.solver_tree import describe_model, solver_tree
from pokerzoo.checkpoint import checked_array
from pokerzoo.config import from_mapping
from pokerzoo.errors import CheckpointError
from pokerzoo.games.base import Game
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.tree.tabular_policy import TabularPolicy

C = TypeVar("C")


def config_from_params(cls: type[C], what: str, **params: Any) -> C:
    """Build the frozen dataclass ``cls`` from keywords (``pokerzoo.config.from_mapping``:
    unknown names, wrong types and ranges raise ``ConfigError``; lists become tuples)."""
    return from_mapping(cls, params, what=what)


class TabularSolver(Agent):
    """Base of the solvers that learn on a ``GameTree`` and end as a ``TabularPolicy``."""

    name: str = "tabular-solver"
    _state_arrays: ClassVar[tuple[str, ...]] = ()
    """Attributes holding ``[num_infosets, num_actions]`` arrays saved in checkpoints."""

    def __init__(
        self, game: Game, config: Any, tree: GameTree | None, name: str | None = None
    ) -> None:
        self.config = config
        """The family's config, checked by ``pokerzoo.config.with_overrides`` (subclasses
        resolve their ``config`` and keyword overrides there before calling this)."""
        if name is not None:  # the registry's name for this preset (what checkpoints record)
            self.name = name
        self.game = game
        # Unknown-environment games: the believed model unless the config asks for the oracle
        # d* (pokerzoo.agents.solver_tree says which, in ``solves``, the log and the repr).
        oracle = bool(getattr(self.config, "oracle", False))
        self.tree = tree if tree is not None else solver_tree(game, oracle, type(self).__name__)
        self.solves: str | None = describe_model(self.tree, game)
        """The model an unknown-environment game's tree compiles (``None`` for other games)."""
        self._iteration = 0


    def __repr__(self) -> str:
        solves = f", solving {self.solves}" if self.solves else ""
        return f"{type(self).__name__}({self.game!r}{solves})"

    def average_policy(self) -> TabularPolicy:
        """The solver's output policy."""
        raise NotImplementedError

    def policy(self) -> TabularPolicy:
        return self.average_policy()

    def _game_identity(self) -> dict[str, Any]:
        return {"name": self.game.name, "params": self.game.params()}

    def _extra_state(self) -> dict[str, Any]:
        """Checkpoint entries beyond the arrays (e.g. an RNG state)."""
        return {}

    def _load_extra_state(self, state: Mapping[str, Any]) -> None:
        """Restore what ``_extra_state`` saved."""

    def state_dict(self) -> dict[str, Any]:
        state = {
            "config": dataclasses.asdict(self.config),
            "game": self._game_identity(),
            "iteration": self._iteration,
        }
        state.update({key: getattr(self, key).copy() for key in self._state_arrays})
        state.update(self._extra_state())
        return state

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        if state["game"] != self._game_identity():
            raise CheckpointError(
                f"checkpoint is for {state['game']}, this solver plays {self.game!r}"
            )
        # Everything is checked before anything is assigned: a refused checkpoint leaves the
        # solver as it was.
        shape = self.tree.infoset_mask.shape
        iteration = check_state_iteration(state["iteration"])
        for key in self._state_arrays:
            # Floats only: strings, complex numbers and bools would be cast silently.
            array = checked_array(state[key], key, kinds="f", shape=shape,
                                  low=None if key == "regrets" else 0.0)
            if key == "strategy_sum" and iteration > 0 and not array.any():
                raise CheckpointError(
                    f"checkpoint field strategy_sum is all zero after {iteration} iterations "
                    f"(it would play uniformly); no {self.name} iteration writes that: use an "
                    "intact copy"
                )
        config = config_from_params(type(self.config), self.name, **state["config"])
        if config != self.config:
            # Resuming must not silently turn one solver into another (a cfr+ run into CFR).
            differ = [f.name for f in dataclasses.fields(config)
                      if getattr(config, f.name) != getattr(self.config, f.name)]
            raise CheckpointError(
                "the checkpoint was written with "
                + ", ".join(f"{k}={getattr(config, k)!r}" for k in differ)
                + " but this agent has "
                + ", ".join(f"{k}={getattr(self.config, k)!r}" for k in differ)
                + f"; build the {self.name} agent with the checkpoint's parameters "
                "(pokerzoo.load_agent does) or start another run folder"
            )
        for key in self._state_arrays:
            setattr(self, key, np.array(state[key], dtype=np.float64))
        self._load_extra_state(state)
        self._iteration = iteration
