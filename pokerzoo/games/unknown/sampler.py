"""Playing an unknown environment without reading it: ``EnvironmentSampler`` and its counter.

An ``EnvironmentSampler`` is what an interaction view (``game.interaction_view()``, see
``pokerzoo.games.unknown.game``) carries: it draws chance outcomes from ``c*`` and payoffs from
``r*`` for states of the game, and counts the draws on an ``InteractionCounter``.

What it guarantees, and what it does not. Every way the sampler offers to draw from d*
(``sample_chance_outcome``, ``sample_payoff``, ``play``, ``resampled``) counts what it drew, and
there is no other: no uncounted helper, no writable count. Neither the sampler nor its counter
holds anything (both have empty ``__slots__`` and refuse assignment with ``HiddenModelError``):
the environment the sampler draws from and the counts live in this module's private tables,
keyed by the objects weakly, so no attribute, closure cell, ``__dict__`` or bound method's
``__self__`` leads from a learner's objects to d*'s numbers. It has no fingerprint or seed, its
``repr`` names only the base game, and pickling it raises ``HiddenModelError`` (a pickle
would write d* out); copies share it. This keeps honest code honest and makes every
interaction counted; it is not a sandbox. Python cannot be one: code that inspects the
interpreter (``gc.get_objects()``, ``gc.get_referrers``, frames, ``ctypes``, this module's
private names) reaches anything, d* included. And draws use the caller's generator: a caller
that sets its generator's state knows the uniform behind each draw, so a (counted) draw tells
it more than an independent sample would; likewise a resampled environment (``resampled(rng)``,
an env's ``resample_environment``) is the prior's draw with the caller's generator, which a
caller holding a copy of that generator can redo.

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
>>> sampler.counter.episodes = 0  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
pokerzoo.errors.HiddenModelError: an InteractionCounter cannot be changed (refused: setting ...
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, cast

import numpy as np

from pokerzoo.errors import ConfigError, EnvStateError, HiddenModelError
from pokerzoo.games.base import CHANCE, TERMINAL, State

if TYPE_CHECKING:
    from pokerzoo.games.base import Game
    from pokerzoo.games.unknown.game import UnknownPokerGame
    from pokerzoo.games.unknown.model import EnvironmentModel, EpisodeBatch, ModelStructure


# Private tables (see the module doc): what a sampler draws from, and every counter's counts.
# Keyed weakly, so an entry goes with its sampler or counter; nothing of ours references them
# but the functions of this module.
_COUNTS: weakref.WeakKeyDictionary[InteractionCounter, list[int]] = weakref.WeakKeyDictionary()
_ENVIRONMENTS: weakref.WeakKeyDictionary[EnvironmentSampler, _Environment] = (
    weakref.WeakKeyDictionary()
)


def _refuse(what: str, name: str, action: str, why: str) -> NoReturn:
    raise HiddenModelError(f"{what} cannot be changed (refused: {action} {name!r}); {why}")


class InteractionCounter:
    """How often an environment was sampled through its samplers (read-only to callers).

    One counter may be shared by several samplers (an env's sampler and the samplers of its
    resampled environments), so an experiment reports all of its interactions. Only the
    samplers' draws move it: it holds no attribute, and setting or deleting one raises
    ``HiddenModelError``.

    Attributes:
        episodes: payoffs drawn, i.e. hands played to the end in the environment (the unit of
            ``pokerzoo.evaluation.unknown.InteractionRunner.episodes``).
        chance_draws: chance outcomes drawn from the environment.
    """

    __slots__ = ("__weakref__",)

    def __new__(cls) -> InteractionCounter:
        # Counts are set up here, not in __init__, which anyone may call again on a counter.
        counter = super().__new__(cls)
        _COUNTS[counter] = [0, 0]
        return counter

    @property
    def episodes(self) -> int:
        return _COUNTS[self][0]

    @property
    def chance_draws(self) -> int:
        return _COUNTS[self][1]

    def __setattr__(self, name: str, value: Any) -> None:
        _refuse("an InteractionCounter", name, "setting",
                "only draws from the environment move it")

    def __delattr__(self, name: str) -> None:
        _refuse("an InteractionCounter", name, "deleting",
                "only draws from the environment move it")

    def __reduce__(self) -> Any:
        return _counter_holding, (self.episodes, self.chance_draws)

    def __copy__(self) -> InteractionCounter:
        return self  # copies count together, as the samplers that share them do

    def __deepcopy__(self, memo: dict) -> InteractionCounter:
        return self

    def __repr__(self) -> str:
        return f"InteractionCounter(episodes={self.episodes}, chance_draws={self.chance_draws})"


def _counter_holding(episodes: int, chance_draws: int) -> InteractionCounter:
    """A new counter with these counts (what an unpickled counter is: a record of counts, apart
    from the counter it was pickled from)."""
    counter = InteractionCounter()
    _COUNTS[counter][:] = [int(episodes), int(chance_draws)]
    return counter


def _count(counter: InteractionCounter, episodes: int = 0, chance_draws: int = 0) -> None:
    counts = _COUNTS[counter]
    counts[0] += episodes
    counts[1] += chance_draws


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
"""Builds the ``HandSampler`` of a game: ``pokerzoo.tree.episodes.environment_hands``, and only
it (it is handed the game that deals with d*, so no other callable is; the rules layer names it
without importing the tree layer, which supplies it)."""

ENVIRONMENT_HANDS = ("pokerzoo.tree.episodes", "environment_hands")
"""Module and name of the one ``HandSamplerFactory`` ``EnvironmentSampler.play`` accepts."""


def _library_hands(hands: object) -> HandSamplerFactory:
    module = sys.modules.get(ENVIRONMENT_HANDS[0])
    trusted = getattr(module, ENVIRONMENT_HANDS[1], None) if module is not None else None
    if trusted is None or hands is not trusted:
        raise HiddenModelError(
            f"hands must be {'.'.join(ENVIRONMENT_HANDS)}, got {hands!r}: the hand sampler is "
            "built on the game that deals with d*, which is handed to no other code"
        )
    return cast(HandSamplerFactory, trusted)


class _Environment:
    """What a sampler draws from (held only in ``_ENVIRONMENTS``): the environment game and
    its model d*, the counter, and the hand sampler of d* once ``play`` has built it."""

    __slots__ = ("game", "model", "counter", "hands")

    def __init__(self, game: UnknownPokerGame, counter: InteractionCounter) -> None:
        self.game = game
        # The model the game's states deal with (its ``true_model``, read as the game's own
        # states read it: the evaluators' accessor stays theirs).
        self.model: EnvironmentModel = game._model
        self.counter = counter
        self.hands: HandSampler | None = None


class EnvironmentSampler:
    """Draws deals and payoffs from an environment's hidden model d*, and counts them.

    Build it with ``UnknownPokerGame.interaction_view()`` (its ``sampler``); the constructor
    is for that method. It holds no attribute (see the module doc): setting or deleting one
    raises ``HiddenModelError``.

    Args:
        environment: the environment game (what ``load_game`` returns), kept where the
            sampler's users cannot reach it.
        counter: where draws are counted (a new counter if ``None``).
    """

    __slots__ = ("__weakref__",)

    def __new__(
        cls, environment: UnknownPokerGame, counter: InteractionCounter | None = None
    ) -> EnvironmentSampler:
        # Set up here, not in __init__, which anyone may call again on a sampler.
        if counter is not None and not isinstance(counter, InteractionCounter):
            raise ConfigError(
                f"counter must be an InteractionCounter or None, got {type(counter).__name__}"
            )
        kind = getattr(environment, "game_type", None)
        if kind is None or not kind.is_environment:
            raise ConfigError(
                f"an EnvironmentSampler samples an environment game (what load_game returns "
                f"for an unknown-environment game), got {environment!r}"
            )
        sampler = super().__new__(cls)
        counter = counter if counter is not None else InteractionCounter()
        _ENVIRONMENTS[sampler] = _Environment(environment, counter)
        return sampler

    @property
    def counter(self) -> InteractionCounter:
        """The ``InteractionCounter`` these draws are counted on."""
        return _environment(self).counter

    @property
    def episodes(self) -> int:
        """Payoffs drawn so far (hands played to the end), as ``counter.episodes``."""
        return self.counter.episodes

    @property
    def structure(self) -> ModelStructure:
        """The ``ModelStructure`` of the environment's base game (what any view shows)."""
        return _environment(self).game.structure

    def sample_chance_outcome(self, state: State, rng: np.random.Generator) -> int:
        """A chance outcome of ``state`` (a chance node) drawn from the environment's ``c*``.

        Raises:
            ConfigError: if ``state`` is not a state of this environment's base game or ``rng``
                is not a ``numpy.random.Generator``.
            EnvStateError: if ``state`` is not a chance node.
        """
        env = _environment(self)
        self._check(state, rng)
        history = tuple(state.history())
        if state.current_player() != CHANCE or history not in self.structure.chance_index:
            raise EnvStateError(
                f"the state {list(history)} is not a chance node: only chance nodes deal"
            )
        outcome = env.model.sample_chance(history, rng)
        _count(env.counter, chance_draws=1)
        return outcome

    def sample_payoff(self, state: State, rng: np.random.Generator) -> list[float]:
        """The payoffs of the finished hand ``state``, drawn from the environment's ``r*``
        (one episode on the counter).

        Raises:
            ConfigError: if ``state`` is not a state of this environment's base game or ``rng``
                is not a ``numpy.random.Generator``.
            EnvStateError: if the hand is not over.
        """
        env = _environment(self)
        self._check(state, rng)
        history = tuple(state.history())
        terminal = self.structure.terminal_index.get(history)
        if state.current_player() != TERMINAL or terminal is None:
            raise EnvStateError(f"the hand {list(history)} is not over: nothing is paid yet")
        paid = [float(r) for r in env.model.sample_returns(terminal, rng)]
        _count(env.counter, episodes=1)
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
            hands: ``pokerzoo.tree.episodes.environment_hands`` (no other callable: it is
                called once, on the first play, with the game that deals with d*, and what it
                builds stays with the sampler).

        Raises:
            ConfigError: for a tree of another base game, a profile of the wrong shape, a bad
                ``rng`` or a negative count.
            HiddenModelError: if ``hands`` is any other callable.
        """
        env = _environment(self)
        build_hands = _library_hands(hands)
        if not isinstance(rng, np.random.Generator):
            raise ConfigError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        structure = getattr(tree.game, "structure", None)
        if structure is not self.structure and (
            structure is None or structure.base_game != self.structure.base_game
        ):
            raise ConfigError(
                f"the tree is not a tree of an unknown game over {self.structure.base_game!r}"
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
        if env.hands is None:
            env.hands = build_hands(env.game.agent_view(env.model, "environment"))
        batch = env.hands.sample(np.asarray(probs, dtype=np.float64), int(num_episodes), rng)
        _count(env.counter, episodes=int(num_episodes), chance_draws=int(batch.chance_slots.size))
        return batch

    def resampled(self, rng: np.random.Generator) -> EnvironmentSampler:
        """A sampler of a new environment drawn from the prior with ``rng`` (the same draw as
        ``UnknownPokerGame.with_resampled_environment(rng)``), counting on the same counter.

        Raises:
            ConfigError: if ``rng`` is not a ``numpy.random.Generator``.
        """
        env = _environment(self)
        return EnvironmentSampler(env.game.with_resampled_environment(rng), env.counter)

    def _check(self, state: State, rng: Any) -> None:
        if not isinstance(rng, np.random.Generator):
            raise ConfigError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        game = getattr(state, "game", None)
        structure = getattr(game, "structure", None)
        if structure is not self.structure and (
            structure is None or structure.base_game != self.structure.base_game
        ):
            raise ConfigError(
                f"the state is not a state of an unknown game over "
                f"{self.structure.base_game!r}; this sampler plays that game"
            )

    def __setattr__(self, name: str, value: Any) -> None:
        _refuse("an EnvironmentSampler", name, "setting",
                "it draws from its environment and counts on its counter, both fixed when "
                "interaction_view() built it")

    def __delattr__(self, name: str) -> None:
        _refuse("an EnvironmentSampler", name, "deleting",
                "it draws from its environment and counts on its counter, both fixed when "
                "interaction_view() built it")

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
        return f"EnvironmentSampler({self.structure.base_game!r}, {self.counter!r})"


def _environment(sampler: EnvironmentSampler) -> _Environment:
    env = _ENVIRONMENTS.get(sampler)
    if env is None:  # only a sampler made without its constructor (__new__ bypassed)
        raise HiddenModelError(
            "this sampler samples no environment; interaction views of an environment game "
            "(game.interaction_view()) carry one that does"
        )
    return env
