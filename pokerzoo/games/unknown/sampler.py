"""Playing an unknown environment without reading it: ``EnvironmentSampler`` and its counter.

An ``EnvironmentSampler`` is what an interaction view (``game.interaction_view()``, see
``pokerzoo.games.unknown.game``) carries: it draws chance outcomes from ``c*`` and payoffs from
``r*`` for states of the game, and counts the draws on an ``InteractionCounter``. It offers no
way back to d*: no attribute holds the model (its draws are closures over it), it has no
fingerprint, seed or arrays, its ``repr`` names only the base game, and pickling it raises
``HiddenModelError`` (a pickle would write d* out). Copies share it.

>>> from pokerzoo import load_game
>>> import numpy as np
>>> game = load_game("unknown_kuhn_poker", seed=3)
>>> sampler = game.interaction_view().sampler
>>> state = game.agent_view().new_initial_state()
>>> rng = np.random.default_rng(0)
>>> while not state.is_terminal():
...     legal = state.legal_actions()
...     state.apply_action(sampler.sample_chance_outcome(state, rng) if state.is_chance_node()
...                        else legal[0])
>>> payoff = sampler.sample_payoff(state, rng)
>>> sampler.counter.episodes, sampler.counter.chance_draws
(1, 2)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from pokerzoo.errors import ConfigError, EnvStateError, HiddenModelError
from pokerzoo.games.base import CHANCE, TERMINAL, State

if TYPE_CHECKING:
    from pokerzoo.games.base import Game
    from pokerzoo.games.unknown.model import EnvironmentModel, EpisodeBatch, ModelStructure
    from pokerzoo.games.unknown.priors import Prior


class InteractionCounter:
    """How often an environment was sampled through its samplers (read-only to callers).

    One counter may be shared by several samplers (an env's sampler and the samplers of its
    resampled environments), so an experiment reports all of its interactions.

    Attributes:
        episodes: payoffs drawn, i.e. hands played to the end in the environment (the unit of
            ``pokerzoo.evaluation.unknown.InteractionRunner.episodes``).
        chance_draws: chance outcomes drawn from the environment.
    """

    __slots__ = ("_episodes", "_chance_draws")

    def __init__(self) -> None:
        self._episodes = 0
        self._chance_draws = 0

    @property
    def episodes(self) -> int:
        return self._episodes

    @property
    def chance_draws(self) -> int:
        return self._chance_draws

    def __repr__(self) -> str:
        return f"InteractionCounter(episodes={self._episodes}, chance_draws={self._chance_draws})"


class CompiledTree(Protocol):
    """What ``EnvironmentSampler.play`` reads of an agent's compiled tree (a
    ``pokerzoo.tree.GameTree``): its game and its information sets' action mask."""

    @property
    def game(self) -> Game: ...

    @property
    def infoset_mask(self) -> np.ndarray: ...


class HandSampler(Protocol):
    """Plays whole hands of one game at once (``pokerzoo.tree.episodes.TreeEpisodeSampler``)."""

    def sample(
        self, probs: np.ndarray, num_episodes: int, rng: np.random.Generator
    ) -> EpisodeBatch: ...


HandSamplerFactory = Callable[["Game"], HandSampler]
"""Builds the ``HandSampler`` of a game (``pokerzoo.tree.episodes.environment_hands``).
``EnvironmentSampler.play`` calls it once, on the game that deals and pays with d*, and keeps
what it returns inside its closures: the rules layer plays hands without importing the tree
layer, which supplies the sampler."""

PlayBatch = Callable[
    [Any, np.ndarray, int, np.random.Generator, HandSamplerFactory], "EpisodeBatch"
]


def _drawers(
    model: EnvironmentModel,
) -> tuple[Callable[[tuple[int, ...], np.random.Generator], int],
           Callable[[int, np.random.Generator], np.ndarray], PlayBatch]:
    # Closures over the model: the sampler holds functions, not the model, so no attribute
    # path (vars, slots, properties) leads from an agent-facing object to d*'s numbers.
    def chance(history: tuple[int, ...], rng: np.random.Generator) -> int:
        return model.sample_chance(history, rng)

    def payoff(terminal: int, rng: np.random.Generator) -> np.ndarray:
        return model.sample_returns(terminal, rng)

    hands: list[HandSampler] = []  # the hand sampler of d*, built on first use, kept here only

    def play(tree: Any, probs: np.ndarray, num_episodes: int, rng: np.random.Generator,
             build_hands: HandSamplerFactory) -> EpisodeBatch:
        if not hands:
            hands.append(build_hands(tree.game.agent_view(model, "environment")))
        return hands[0].sample(probs, num_episodes, rng)

    return chance, payoff, play


class EnvironmentSampler:
    """Draws deals and payoffs from an environment's hidden model d*, and counts them.

    Build it with ``UnknownPokerGame.interaction_view()`` (its ``sampler``); the constructor
    is for that method.

    Args:
        model: the environment's model d* (kept only inside the draw functions).
        prior: the prior d* was drawn from (``resampled`` draws a new environment from it).
        counter: where draws are counted (a new counter if ``None``).
    """

    __slots__ = ("_chance", "_payoff", "_play", "_structure", "_prior", "_counter")

    def __init__(
        self, model: EnvironmentModel, prior: Prior, counter: InteractionCounter | None = None
    ) -> None:
        if counter is not None and not isinstance(counter, InteractionCounter):
            raise ConfigError(
                f"counter must be an InteractionCounter or None, got {type(counter).__name__}"
            )
        self._chance, self._payoff, self._play = _drawers(model)
        self._structure: ModelStructure = model.structure
        self._prior = prior
        self._counter = counter if counter is not None else InteractionCounter()

    @property
    def counter(self) -> InteractionCounter:
        """The ``InteractionCounter`` these draws are counted on."""
        return self._counter

    @property
    def episodes(self) -> int:
        """Payoffs drawn so far (hands played to the end), as ``counter.episodes``."""
        return self._counter.episodes

    def sample_chance_outcome(self, state: State, rng: np.random.Generator) -> int:
        """A chance outcome of ``state`` (a chance node) drawn from the environment's ``c*``.

        Raises:
            ConfigError: if ``state`` is not a state of this environment's base game or ``rng``
                is not a ``numpy.random.Generator``.
            EnvStateError: if ``state`` is not a chance node.
        """
        self._check(state, rng)
        if state.current_player() != CHANCE:
            raise EnvStateError(
                f"the state {state.history()} is not a chance node: only chance nodes deal"
            )
        outcome = self._chance(tuple(state.history()), rng)
        self._counter._chance_draws += 1
        return outcome

    def sample_payoff(self, state: State, rng: np.random.Generator) -> list[float]:
        """The payoffs of the finished hand ``state``, drawn from the environment's ``r*``
        (one episode on the counter).

        Raises:
            ConfigError: if ``state`` is not a state of this environment's base game or ``rng``
                is not a ``numpy.random.Generator``.
            EnvStateError: if the hand is not over.
        """
        self._check(state, rng)
        if state.current_player() != TERMINAL:
            raise EnvStateError(f"the hand {state.history()} is not over: nothing is paid yet")
        terminal = self._structure.terminal_index[tuple(state.history())]
        paid = [float(r) for r in self._payoff(terminal, rng)]
        self._counter._episodes += 1
        return paid

    def play(
        self,
        tree: CompiledTree,
        probs: np.ndarray,
        num_episodes: int,
        rng: np.random.Generator,
        *,
        hands: HandSamplerFactory,
    ) -> EpisodeBatch:
        """Play ``num_episodes`` whole hands in the environment, all at once, every seat
        following ``probs``; return what they revealed (counted as episodes and chance draws).

        Args:
            tree: a tree the agent compiled of this environment's base game (any believed
                model); ``probs`` is aligned with it.
            probs: ``[num_infosets, num_actions]`` the behaviour profile (each seat reads its
                own information sets), rows summing to 1 over legal actions.
            num_episodes: hands to play.
            rng: the agent's generator.
            hands: builds the hand sampler of a game (``pokerzoo.tree.episodes
                .environment_hands``); called once, on the first play, with the game that
                deals with d*, and what it builds stays inside this sampler.

        Raises:
            ConfigError: for a tree of another base game, a profile of the wrong shape, a bad
                ``rng`` or a negative count.
        """
        if not isinstance(rng, np.random.Generator):
            raise ConfigError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        structure = getattr(tree.game, "structure", None)
        if structure is not self._structure and (
            structure is None or structure.base_game != self._structure.base_game
        ):
            raise ConfigError(
                f"the tree is not a tree of an unknown game over {self._structure.base_game!r}"
            )
        if np.shape(probs) != tree.infoset_mask.shape:
            raise ConfigError(
                f"probs must have the tree's shape {tree.infoset_mask.shape}, got "
                f"{np.shape(probs)}"
            )
        if isinstance(num_episodes, bool) or not isinstance(num_episodes, int | np.integer) or (
            num_episodes < 0
        ):
            raise ConfigError(f"num_episodes must be an integer >= 0, got {num_episodes!r}")
        batch = self._play(
            tree, np.asarray(probs, dtype=np.float64), int(num_episodes), rng, hands
        )
        self._counter._episodes += int(num_episodes)
        self._counter._chance_draws += int(batch.chance_slots.size)
        return batch

    def resampled(self, rng: np.random.Generator) -> EnvironmentSampler:
        """A sampler of a new environment drawn from the prior with ``rng`` (the same draw as
        ``UnknownPokerGame.with_resampled_environment(rng)``), counting on the same counter.

        Raises:
            ConfigError: if ``rng`` is not a ``numpy.random.Generator``.
        """
        if not isinstance(rng, np.random.Generator):
            raise ConfigError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        model = self._prior.sample(self._structure, rng)
        return EnvironmentSampler(model, self._prior, self._counter)

    def _check(self, state: State, rng: Any) -> None:
        if not isinstance(rng, np.random.Generator):
            raise ConfigError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        game = getattr(state, "game", None)
        structure = getattr(game, "structure", None)
        if structure is not self._structure and (
            structure is None or structure.base_game != self._structure.base_game
        ):
            raise ConfigError(
                f"the state is not a state of an unknown game over "
                f"{self._structure.base_game!r}; this sampler plays that game"
            )

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise HiddenModelError(
            "an environment sampler cannot be pickled: the pickle would hold the hidden model "
            "d*. Pickle the environment game (load_game's) and call interaction_view() on it"
        )

    def __copy__(self) -> EnvironmentSampler:
        return self  # copies share the environment and its counter

    def __deepcopy__(self, memo: dict) -> EnvironmentSampler:
        return self

    def __repr__(self) -> str:
        return f"EnvironmentSampler({self._structure.base_game!r}, {self._counter!r})"
