"""The face every agent shows, however it learns.

One face per role: ``iterate(n)`` does n units of learning; ``policy()`` hands out what every
evaluator scores (an object answering ``action_probabilities(state)``: a ``TabularPolicy`` for
tabular solvers, a network state policy for neural agents); ``act_probabilities(observation,
info)`` and ``act(observation, info, rng)`` answer an env turn; ``state_dict()`` /
``load_state_dict()`` and ``save``/``load`` checkpoint it. Tabular solvers add
``average_policy()``/``current_policy()``. Evaluators given an agent score ``agent.policy()``.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from pokerzoo.checkpoint import read_checkpoint, write_checkpoint
from pokerzoo.envs.spaces import checked_action_mask
from pokerzoo.errors import CheckpointError, ConfigError, InvalidPolicyError
from pokerzoo.tree.tabular_policy import TabularPolicy

if TYPE_CHECKING:
    from pokerzoo.components.posterior import Posterior


def check_units(n: object) -> int:
    """``iterate``'s argument as a Python ``int`` >= 0 (NumPy integers accepted); every agent's
    ``iterate`` calls this first, so ``iterate("5")``, ``iterate(1.5)``, ``iterate(True)`` and
    ``iterate(-1)`` raise ``ConfigError`` instead of learning a fractional or odd amount."""
    if isinstance(n, bool | np.bool_) or not isinstance(n, int | np.integer) or n < 0:
        raise ConfigError(
            f"iterate(n) needs a whole number of units n >= 0 (an int), got {n!r}"
        )
    return int(n)


class Agent(ABC):
    """Base class of all agents."""

    name: str = "agent"
    build: dict[str, Any] | None = None
    """How to rebuild this agent (``agent``, ``agent_params``, ``seed``, ``game``,
    ``game_params``, ``game_view``), recorded by ``make_agent`` and by the run that trains it;
    ``save`` writes it into the checkpoint's header so ``pokerzoo.load_agent`` needs nothing
    else. ``None`` for an agent built by its constructor directly."""

    @abstractmethod
    def iterate(self, n: int = 1) -> None:
        """Do ``n`` units of learning (iterations, episodes or interaction rounds)."""

    @abstractmethod
    def policy(self) -> Any:
        """What evaluators score: an object answering ``action_probabilities(state)``."""

    @abstractmethod
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume learning (arrays, counters, RNG states)."""

    @abstractmethod
    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` returned."""

    @property
    def iteration(self) -> int:
        """Units of learning done so far."""
        return int(getattr(self, "_iteration", 0))

    def act_probabilities(
        self, observation: Any, info: Mapping[str, Any] | None = None
    ) -> np.ndarray:
        """Probabilities over all actions (zero where ``action_mask`` is 0) for an env turn.

        This answers an env turn from what the env gives the acting agent; evaluators score
        ``policy()`` instead (its ``action_probabilities(state)``). The default looks up
        ``info["info_state"]`` in the policy's table; agents whose policy is not a table
        override it.

        Raises:
            ConfigError: if ``info`` lacks the ``info_state`` a pokerzoo env puts there.
            InvalidPolicyError: if the policy gives no probability to any legal action.
        """
        if not isinstance(info, Mapping) or "info_state" not in info:
            raise ConfigError(
                f"{type(self).__name__}.act_probabilities needs the info dict of a pokerzoo env "
                "turn (with 'info_state'), e.g. obs, _, _, _, info = env.last()"
            )
        policy = self.policy()
        if not isinstance(policy, TabularPolicy):
            raise NotImplementedError(
                f"{type(self).__name__} must override act_probabilities: its policy() is a "
                f"{type(policy).__name__}, not a TabularPolicy"
            )
        row = policy.row(info["info_state"]).astype(np.float64)
        mask = _mask_of(observation, len(row), type(self).__name__)
        if mask is not None:
            row = np.where(mask > 0, row, 0.0)
            total = row.sum()
            if not total > 0:
                raise InvalidPolicyError(
                    f"{type(self).__name__}'s policy gives no probability to the legal actions "
                    f"{np.flatnonzero(mask).tolist()} at {info['info_state']!r}"
                )
            row = row / total
        return row

    def act(
        self,
        observation: Any,
        info: Mapping[str, Any] | None = None,
        rng: np.random.Generator | None = None,
    ) -> int:
        """Sample an action from ``act_probabilities``.

        Args:
            observation: the acting agent's observation (``{"observation", "action_mask"}``).
            info: its info dict from the env.
            rng: the generator to sample with; ``None`` uses the agent's own ``rng`` where it
                has one (else a fresh, unseeded one).
        """
        probs = self.act_probabilities(observation, info)
        rng = rng if rng is not None else getattr(self, "rng", None) or np.random.default_rng()
        return int(rng.choice(len(probs), p=probs / probs.sum()))

    # Checkpoints -----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike) -> None:
        """Write ``state_dict()`` to ``path`` atomically, in a format whose loading runs no code.

        See ``pokerzoo.checkpoint`` for the format; saving does not change the agent.
        """
        from pokerzoo.version import __version__

        write_checkpoint(
            path,
            agent_name=self.name,
            state=self.state_dict(),
            meta={"pokerzoo_version": __version__, "iteration": self.iteration,
                  **({"build": self.build} if self.build is not None else {})},
        )

    def load(self, path: str | os.PathLike) -> None:
        """Restore a checkpoint written by ``save``.

        Raises:
            CheckpointError: if the file is missing, damaged, of an old format, of another
                agent, or does not fit this agent (another game or other settings).
        """
        _, state = read_checkpoint(path, agent_name=self.name)
        try:
            self.load_state_dict(state)
        except CheckpointError as exc:  # already says which field is wrong and what to do
            raise CheckpointError(f"{path} does not fit this {self.name} agent: {exc}") from exc
        except (KeyError, IndexError, ValueError, TypeError, RuntimeError) as exc:
            raise CheckpointError(
                f"{path} does not fit this {self.name} agent ({type(exc).__name__}: {exc}); "
                "build the agent with the game and parameters it was saved with"
            ) from exc


def check_state_iteration(value: Any) -> int:
    """A checkpoint's iteration count: an integer >= 0 (not a bool, a float or a string), or
    ``CheckpointError`` naming what the file holds instead."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and (
        0 <= value <= MAX_ITERATION
    ):
        return int(value)
    raise CheckpointError(
        f"the checkpoint's iteration count is {value!r:.40}, not an integer from 0 to "
        f"{MAX_ITERATION:.0e}: the file is damaged or was edited; use an intact copy"
    )


MAX_ITERATION = 10**15
"""The largest iteration count a checkpoint may hold (far past any run)."""


def _mask_of(observation: Any, num_actions: int, who: str) -> np.ndarray | None:
    if isinstance(observation, Mapping) and "action_mask" in observation:
        return checked_action_mask(observation["action_mask"], num_actions, who)
    return None


# The abilities an agent's table row declares (pokerzoo.agents.registry.ABILITIES): a run reads
# them through these faces only where the row says the agent has them.


class HasDiagnostics(Protocol):
    """Ability ``"diagnostics"``: numbers worth logging beside the evaluation metrics."""

    def diagnostics(self) -> dict[str, float]:
        """Named numbers about the learning so far (VCFR's information-gain bonus, say)."""
        ...


class Closes(Protocol):
    """Ability ``"close"``: workers to release when a run ends."""

    def close(self) -> None:
        """Release the workers (they are rebuilt on the next ``iterate``)."""
        ...


class SolvesModel(Protocol):
    """Ability ``"solves"``: a tabular solver says which model of the game it solves."""

    solves: str | None
    """The model (an unknown game's prior mean, or its true model d*), ``None`` for a plain
    game."""


class PlaysRounds(Protocol):
    """Ability ``"rounds"``: an unknown-environment agent, learning in interaction rounds."""

    rounds: int
    """Rounds played so far."""
    episodes_per_round: int
    """Hands it plays in each round (``--rounds`` counts rounds)."""
    posterior: Posterior
    """Its posterior over the environment's hidden model."""
