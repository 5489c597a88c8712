"""Unknown-environment poker: a base game whose chance and rewards follow a hidden model d*.

``load_game("unknown_leduc_holdem", base="leduc4", prior="psrlcfr", seed=0)`` draws the true
model ``d* = (c*, r*)`` from the prior with ``seed``. The rules, information states and
observations are the base game's; only chance probabilities and rewards change. Without a
``seed``, 128 bits from the operating system seed the draw (and ``params()`` records them): a
small seed can be enumerated by a learner that knows the prior (try each, keep the d* that
explains the hands seen), so experiments that hide d* leave it out or pass a large one.

Two objects, three roles:

* ``UnknownPokerGame`` (what ``load_game`` returns) *is the environment*. Its states deal from
  ``c*`` (``chance_outcomes()``, ``sample_chance_outcome(rng)``), report ``r*``'s expected
  payoffs (``returns()``) and draw the payoff actually paid (``sample_returns(rng)``). It is for
  env internals and evaluators; exact evaluation in d* goes through
  ``pokerzoo.evaluation.unknown`` (``true_model_of``, ``true_model_tree``,
  ``exploitability_in_true_model``).
* ``AgentGameView`` (``game.agent_view()``: the ``env.game`` of the unknown envs, and what
  ``train.py`` hands a full-width solver) is what an agent may know: the base game's rules, the
  ``ModelStructure``, the prior and a *believed* model (the prior mean, unless it is given
  another, e.g. a posterior mean). Its states deal and pay with the believed model, so trees
  and full-width solvers built on it solve the believed model. Asking it for ``true_model``
  raises ``HiddenModelError``. It keeps no reference to the environment, nor the environment's
  seed or fingerprint (either would rebuild d*).
* An *interaction view* (``game.interaction_view()``: what ``train.py`` hands a sample-based
  learner such as NFSP, and what the unknown envs deal through) is an ``AgentGameView`` that
  may also *play* the environment: it carries an ``EnvironmentSampler``, which draws deals and
  payoffs from d* and counts them, but has no way to read d* back.

What each call on a state of an interaction view reads:

* ``state.chance_outcomes()``: the believed model (probabilities an agent may know);
* ``state.returns()`` at the end: the believed model's expected payoff (or what the env
  recorded as paid, ``record_paid``);
* ``state.sample_chance_outcome(rng)``: **samples the environment**, a deal drawn from ``c*``;
* ``state.sample_returns(rng)``: **samples the environment**, a payoff drawn from ``r*``;
* ``tree.build(view)``, solvers, searches over ``chance_outcomes()``: the believed model.

A plain view's ``sample_*`` calls draw from its believed model (a simulation of what it
believes). Every draw from d* is counted on the view's ``sampler.counter``
(``InteractionCounter``: ``episodes``, one per payoff drawn, i.e. per finished hand, as
``pokerzoo.evaluation.unknown.InteractionRunner`` counts; ``chance_draws``). Interaction views
cannot be pickled (a pickle would write d* out); ``copy``/``deepcopy`` share them.

What the hiding guarantees: an interface that keeps honest code honest and counts every
interaction, not a sandbox. No attribute, property, closure cell, ``__dict__`` or bound
method leads from a view, its sampler or its counter to d* (the sampler keeps the environment
in its module's private table; see ``pokerzoo.games.unknown.sampler``), every draw from d* is
counted, and counts cannot be set, deleted or reset. Code that inspects the interpreter
(``gc.get_objects()``, frames, ``ctypes``, private module names) reaches anything in the
process, d* included: experiments that must rule that out run the learner in another process.

Games are immutable: ``game.with_resampled_environment(rng)`` returns a new game with a new d*,
``game.with_model(m)`` a game whose states deal and pay with ``m``; assigning an attribute
raises ``FrozenInstanceError``. The model takes part in equality, hashing and ``params()``
(``model_fingerprint``: SHA-256 of the model's arrays), so a checkpoint records which
environment it was made in, and ``load_game(name, **game.params())`` rebuilds the game or says
that its model does not come from those parameters (a resampled environment).

``pokerzoo.tree.build(game)`` compiles the believed model of the agent's view (the prior mean)
for either object: d* is never compiled implicitly (pass ``model=``).

>>> from pokerzoo import load_game
>>> game = load_game("unknown_kuhn_poker", seed=3)
>>> game == load_game("unknown_kuhn_poker", seed=3)
True
>>> view = game.agent_view()
>>> view.model_source, hasattr(view, "true_model"), view.interactive
('prior mean', False, False)
>>> play = game.interaction_view()
>>> state = play.new_initial_state()
>>> state.chance_outcomes() == view.new_initial_state().chance_outcomes()  # believed model
True
>>> card = state.sample_chance_outcome(np.random.default_rng(0))  # drawn from d*
>>> play.sampler.counter
InteractionCounter(episodes=0, chance_draws=1)
"""

from __future__ import annotations

import dataclasses
import functools
import secrets
from collections.abc import Hashable, Mapping
from dataclasses import FrozenInstanceError, dataclass
from typing import Any, ClassVar

import numpy as np

from pokerzoo.errors import EnvStateError, HiddenModelError
from pokerzoo.games.base import (
    CHANCE,
    TERMINAL,
    ConfigError,
    Game,
    GameConfig,
    GameType,
    State,
    TensorLayout,
    check_int,
)
from pokerzoo.games.leduc import LEDUC_VARIANTS
from pokerzoo.games.registry import load_game, register_game
from pokerzoo.games.unknown.model import EnvironmentModel, ModelStructure
from pokerzoo.games.unknown.priors import REWARD_PRIORS, Prior, fixed_rewards, make_prior
from pokerzoo.games.unknown.sampler import EnvironmentSampler, InteractionCounter

# ---------------------------------------------------------------------------------------------
# Config
# ---------------------------------------------------------------------------------------------

SEED_BITS = 128
"""Bits of the seed drawn from the operating system when a game is built without one: too many
for a learner to enumerate (``secrets.randbits``, as ``numpy.random.SeedSequence()`` draws)."""
FORMER_DEFAULT_SEED = 0
"""The seed a game built without one used before seeds were drawn: run folders
written then name no seed, and were trained in this seed's d*."""



@dataclass(frozen=True)
class UnknownConfig(GameConfig):
    """Parameters of an unknown-environment game (each game's ``BASES`` name its base games)."""

    base: str | Mapping[str, Any] | tuple | None = None
    """The base game: a variant name (see the game's ``BASES``) or a dict of the base game's
    parameters; ``None`` for the game's default base."""
    prior: str | Mapping[str, Any] | Prior = "psrlcfr"
    """The prior of d*: ``"psrlcfr"``, ``"poker_payoffs"``, a ``{"name": ..., ...}`` dict or a
    ``Prior`` (see ``pokerzoo.games.unknown.priors``)."""
    seed: int | None = None
    """Seed of the draw of d* from the prior (same seed, same d*). Left out, 128 bits are drawn
    from the operating system and kept here (so ``params()`` and run folders rebuild the same
    d*). A small seed is enumerable: a learner that knows the prior can try every small seed
    and keep the d* that best explains the hands it saw, so experiments meant to hide d* leave
    it out or give a large one."""
    reward_prior: str = "bernoulli"
    """How d*'s rewards are read (``pokerzoo.games.unknown.priors.REWARD_PRIORS``):
    ``"bernoulli"`` (each visit pays a fresh draw from the terminal's reward distribution) or
    ``"fixed"`` (each terminal pays one outcome, drawn once from that distribution, on every
    visit). Agents' posteriors are told the prior, not this: they assume ``"bernoulli"``."""

    def __post_init__(self) -> None:
        if self.reward_prior not in REWARD_PRIORS:
            raise ConfigError(
                f"reward_prior must be one of {list(REWARD_PRIORS)}, got {self.reward_prior!r}"
            )
        seed = secrets.randbits(SEED_BITS) if self.seed is None else self.seed
        object.__setattr__(self, "seed", check_int("seed", seed, 0))
        object.__setattr__(self, "prior", make_prior(self.prior))
        base = self.base
        if isinstance(base, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in base):
            base = dict(base)  # the stored form of a dict base, given back (e.g. by params())
        if isinstance(base, Mapping):
            if not all(isinstance(k, str) for k in base):
                raise ConfigError(f"a base's parameter names must be strings, got {base!r}")
            # Stored as sorted pairs so the config stays hashable (games are hashed by config).
            fixed = {k: tuple(v) if isinstance(v, list) else v for k, v in base.items()}
            base = tuple(sorted(fixed.items()))
            try:
                hash(base)
            except TypeError:
                raise ConfigError(f"base parameters must be plain values, got {base!r}") from None
            object.__setattr__(self, "base", base)
        elif base is not None and not isinstance(base, str):
            raise ConfigError(f"base must be a variant name or a dict of parameters, got {base!r}")

    def to_dict(self) -> dict[str, Any]:
        base = dict(self.base) if isinstance(self.base, tuple) else self.base
        out = {"base": base, "prior": self.prior, "seed": self.seed}
        # The default is left out so games (and run folders) made before the option keep
        # their params; fixed rewards are a different game and say so.
        if self.reward_prior != "bernoulli":
            out["reward_prior"] = self.reward_prior
        return out


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------


class UnknownState(State):
    """A history of the base game, with chance and rewards from one environment model.

    States of an ``UnknownPokerGame`` use d*; states of an ``AgentGameView`` use its believed
    model, except that the ``sample_*`` draws of an interaction view's states sample the
    environment through the view's ``EnvironmentSampler`` (see the module doc). ``paid``
    (``record_paid``; the unknown envs record it on the states they deal) is what the hand
    actually paid: ``returns()`` reports it at the end instead of the model's expectation.
    """

    __slots__ = ("game", "_base", "_history", "_model", "_paid")
    game: UnknownGameBase

    def __init__(
        self,
        game: UnknownGameBase,
        base: State,
        model: EnvironmentModel,
        paid: list[float] | None = None,
    ) -> None:
        self.game = game
        self._base = base
        self._history: tuple[int, ...] = ()
        # A hand keeps the model it started with (games are immutable; a resampled
        # environment is a new game, and hands already dealt stay in the old one).
        self._model = model
        self._paid = paid

    def current_player(self) -> int:
        return self._base.current_player()

    def legal_actions(self, player: int | None = None) -> list[int]:
        return self._base.legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._base.current_player() != CHANCE:
            return []
        return self._model.chance_outcomes(self._history)

    def sample_chance_outcome(self, rng: np.random.Generator) -> int:
        """A chance outcome drawn with ``rng`` (the env's hook): from the environment's ``c*``
        for a state of an interaction view (counted on its sampler), else from the model."""
        sampler = self.game._sampler
        if sampler is not None:
            return sampler.sample_chance_outcome(self, rng)
        return self._model.sample_chance(self._history, rng)

    def _apply(self, action: int) -> None:
        # ``apply_action`` has already checked legality against the base state's legal actions.
        self._base._apply(action)
        self._history = (*self._history, action)

    def terminal_index(self) -> int:
        """This terminal's index in the model structure (``EnvStateError`` before the end)."""
        if self._base.current_player() != TERMINAL:
            raise EnvStateError(
                f"the hand {list(self._history)} is not over: only terminals have an index"
            )
        return self._model.structure.terminal_index[self._history]

    def returns(self) -> list[float]:
        """At the end: what the hand paid if this state records it (``paid``), else the expected
        payoffs under the model; zeros before the end."""
        if self._base.current_player() != TERMINAL:
            return [0.0] * self.game.num_players
        if self._paid is not None:
            return list(self._paid)
        return [float(r) for r in self._model.expected_returns[self.terminal_index()]]

    def sample_returns(self, rng: np.random.Generator) -> list[float]:
        """Payoffs drawn with ``rng`` (the env's hook): from the environment's ``r*`` for a
        state of an interaction view (one episode on its sampler's counter), else from the
        terminal's reward distribution in the model."""
        sampler = self.game._sampler
        if sampler is not None:
            return sampler.sample_payoff(self, rng)
        return [float(r) for r in self._model.sample_returns(self.terminal_index(), rng)]

    def information_state_key(self, player: int | None = None) -> Hashable:
        return self._base.information_state_key(player)

    def information_state_tensor(self, player: int | None = None) -> np.ndarray:
        return self._base.information_state_tensor(player)

    def public_state(self) -> dict[str, Any]:
        return self._base.public_state()

    def private_cards(self) -> list[list[int]]:
        return self._base.private_cards()

    def history(self) -> list[int]:
        return list(self._history)

    def record_paid(self, paid: list[float]) -> None:
        """Record what this finished hand paid: ``returns()`` reports it from now on (the
        unknown envs call this on the view states they deal, which hold no d*)."""
        if self._base.current_player() != TERMINAL:
            raise EnvStateError(f"the hand {list(self._history)} is not over: nothing was paid")
        self._paid = [float(r) for r in paid]

    def clone(self) -> UnknownState:
        c = UnknownState.__new__(UnknownState)
        c.game = self.game
        c._base = self._base.clone()
        c._history = self._history
        c._model = self._model
        c._paid = None if self._paid is None else list(self._paid)
        return c


# ---------------------------------------------------------------------------------------------
# Games
# ---------------------------------------------------------------------------------------------


class UnknownGameBase(Game):
    """What an unknown-environment game and an agent's view of it share: the base game's rules,
    the model structure, the prior, and one model the states deal and pay with.

    Instances are immutable: every ``with_*`` method returns a new object, and assigning an
    attribute raises ``FrozenInstanceError`` (cached derived data lives in
    ``functools.cached_property``, which writes the instance dict directly).

    Attributes:
        base_game: the base game (its rules, information states and own payoffs).
        structure: the ``ModelStructure`` of the base game (indices shared by models,
            posteriors and episode batches).
        prior: the prior the environment's model is drawn from.
    """

    base_game: Game
    structure: ModelStructure
    prior: Prior
    _model: EnvironmentModel
    game_type = GameType(min_players=2, max_players=10, hidden_model=True, single_agent_env=False)
    _sampler: EnvironmentSampler | None = None
    """The environment sampler of an interaction view; ``None`` for every other game."""
    _CORE: ClassVar[tuple[str, ...]] = ("config", "base_game", "structure", "prior", "_model")

    # Immutability ---------------------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_frozen", False):
            raise FrozenInstanceError(
                f"{type(self).__name__} is immutable (cannot set {name!r}); use "
                "with_model(model) or with_resampled_environment(rng) for another model"
            )
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"{type(self).__name__} is immutable (cannot delete {name!r})")

    def _freeze(self) -> None:
        object.__setattr__(self, "_frozen", True)

    def _replace(self, **changes: Any) -> Any:
        """A copy with some core attributes replaced (and no cached derived data)."""
        other = object.__new__(type(self))
        state = {key: self.__dict__[key] for key in self._CORE}
        state.update(changes)
        other.__dict__.update(state)
        other._freeze()
        return other

    def __getstate__(self) -> dict[str, Any]:
        # Only the core: cached derived data (views, fingerprints) is rebuilt on demand.
        return {key: self.__dict__[key] for key in self._CORE}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._freeze()

    def __copy__(self) -> Any:
        return self  # immutable: a copy is the object itself

    def __deepcopy__(self, memo: dict) -> Any:
        return self

    # The protocol, from the base game ---------------------------------------------------------

    @property
    def num_players(self) -> int:
        return self.base_game.num_players

    @property
    def num_distinct_actions(self) -> int:
        return self.base_game.num_distinct_actions

    @property
    def max_game_length(self) -> int:
        return self.base_game.max_game_length

    @property
    def information_state_layout(self) -> TensorLayout:
        return self.base_game.information_state_layout

    @property
    def chip_unit(self) -> float:
        return self.base_game.chip_unit

    def estimated_tree_size(self, limit: int) -> int | None:
        """The base game's: a model changes numbers, not histories."""
        return self.base_game.estimated_tree_size(limit)

    def new_initial_state(self) -> UnknownState:
        return UnknownState(self, self.base_game.new_initial_state(), self._model)

    def action_to_string(self, action: int, state: State | None = None) -> str:
        base_state = state._base if isinstance(state, UnknownState) else state
        return self.base_game.action_to_string(action, base_state)

    def card_to_string(self, card: int) -> str:
        return self.base_game.card_to_string(card)

    def _check_model(self, model: object) -> EnvironmentModel:
        if not isinstance(model, EnvironmentModel):
            raise ConfigError(f"model must be an EnvironmentModel, got {type(model).__name__}")
        if model.structure is not self.structure and model.structure.base_game != self.base_game:
            raise ConfigError(
                f"the model describes {model.structure.base_game!r}, this game is over "
                f"{self.base_game!r}"
            )
        return model

    @functools.cached_property
    def prior_mean_model(self) -> EnvironmentModel:
        """The prior's mean model: what an agent believes before any data."""
        return self.prior.mean(self.structure)


class UnknownPokerGame(UnknownGameBase):
    """A base game with chance and rewards from a hidden model ``d*`` drawn from a prior.

    This object *is the environment* (see the module doc): give agents ``agent_view()``.

    Args:
        config: an ``UnknownConfig`` (or its fields as keywords).
        model_fingerprint: if given, the fingerprint the drawn model must have (``params()``
            records it, so ``load_game(name, **game.params())`` checks that the rebuilt game
            deals with the same model).
    """

    config_class = UnknownConfig
    config: UnknownConfig
    base_name: ClassVar[str]
    BASES: ClassVar[dict[str, dict[str, Any]]]
    DEFAULT_BASE: ClassVar[str]

    def __init__(
        self,
        config: UnknownConfig | None = None,
        *,
        model_fingerprint: str | None = None,
        **params: Any,
    ) -> None:
        super().__init__(config, **params)
        self.base_game = load_game(self.base_name, **self._base_params())
        self.structure = ModelStructure.of(self.base_game)
        self.prior: Prior = self.config.prior  # type: ignore[assignment]
        self._model = self._draw_model(np.random.default_rng(self.config.seed))
        self._freeze()
        if model_fingerprint is not None:
            if not isinstance(model_fingerprint, str):
                raise ConfigError(
                    f"model_fingerprint must be a string, got {type(model_fingerprint).__name__}"
                )
            if model_fingerprint != self.model_fingerprint:
                raise ConfigError(
                    f"{self.name} with seed {self.config.seed} draws the model "
                    f"{self.model_fingerprint}, not {model_fingerprint}: the game these "
                    "parameters describe had its environment resampled or replaced, so it "
                    "cannot be rebuilt from its parameters"
                )

    def _base_params(self) -> dict[str, Any]:
        base = self.config.base if self.config.base is not None else self.DEFAULT_BASE
        if isinstance(base, tuple):
            return dict(base)
        if base not in self.BASES:
            raise ConfigError(
                f"unknown base {base!r} for {self.name}; valid bases are {sorted(self.BASES)} "
                f"or a dict of {self.base_name} parameters"
            )
        return dict(self.BASES[base])

    # The model ----------------------------------------------------------------------------------

    @property
    def true_model(self) -> EnvironmentModel:
        """The environment model this game deals and pays with (for evaluators only; they read
        it through ``pokerzoo.evaluation.unknown.true_model_of``)."""
        return self._model

    @functools.cached_property
    def model_fingerprint(self) -> str:
        """SHA-256 of the model's arrays: equal for equal models (see ``EnvironmentModel``)."""
        return self._model.fingerprint

    def with_model(self, model: EnvironmentModel) -> UnknownPokerGame:
        """A new game dealing and paying with ``model`` (``tree.build(game, model=m)``).

        Raises:
            ConfigError: if ``model`` is not an ``EnvironmentModel`` of this base game.
        """
        model = self._check_model(model)
        if model is self._model:
            return self
        return self._replace(_model=model)

    def with_resampled_environment(self, rng: np.random.Generator) -> UnknownPokerGame:
        """A new game whose true model is drawn from the prior with ``rng``; this game, its
        states and everything holding it keep their model.

        Raises:
            ConfigError: if ``rng`` is not a ``numpy.random.Generator``.
        """
        if not isinstance(rng, np.random.Generator):
            raise ConfigError(
                f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
            )
        return self._replace(_model=self._draw_model(rng))

    def _draw_model(self, rng: np.random.Generator) -> EnvironmentModel:
        # Fixed rewards draw after the Bernoulli model, so a seed's chance model is the same
        # under both readings and the Bernoulli draw is what it always was.
        model = self.prior.sample(self.structure, rng)
        if self.config.reward_prior == "fixed":
            model = fixed_rewards(model, rng)
        return model

    def agent_view(
        self, model: EnvironmentModel | None = None, source: str | None = None
    ) -> AgentGameView:
        """What an agent may know of this game: rules, structure, prior, and a believed model.

        Args:
            model: the believed model (default: the prior mean).
            source: what the believed model is, for descriptions (e.g. ``"posterior mean"``;
                default ``"prior mean"`` or ``"given model"``).
        """
        view = self._prior_view
        return view if model is None else view.with_model(model, source)

    @functools.cached_property
    def _prior_view(self) -> AgentGameView:
        return AgentGameView(self)

    def interaction_view(
        self,
        model: EnvironmentModel | None = None,
        source: str | None = None,
        counter: InteractionCounter | None = None,
    ) -> AgentGameView:
        """An agent's view that may also play this environment (see the module doc): its
        states answer ``chance_outcomes()`` and ``returns()`` from the believed model, but
        ``sample_chance_outcome(rng)`` and ``sample_returns(rng)`` draw from d* through
        ``view.sampler``, which counts every draw and cannot be read.

        Args:
            model, source: the believed model and what it is (as for ``agent_view``).
            counter: the ``InteractionCounter`` to count on (a new one if ``None``; pass an
                earlier view's ``sampler.counter`` to keep counting across environments).

        Each call makes a new sampler: views of separate calls count separately and do not
        compare equal.
        """
        view = self.agent_view(model, source)
        return view._replace(_sampler=EnvironmentSampler(self, counter))

    # Identity ------------------------------------------------------------------------------------

    def params(self) -> dict[str, Any]:
        """The parameters and the model's fingerprint, as plain data: ``load_game(name,
        **params)`` rebuilds the game (or raises ``ConfigError`` if its model was resampled)."""
        out = self.config.to_dict()
        out["prior"] = self.prior.spec()
        out["model_fingerprint"] = self.model_fingerprint
        return out

    def __repr__(self) -> str:
        params = self.params()
        params["model_fingerprint"] = params["model_fingerprint"][:12]
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in params.items())})"

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        return (
            type(other) is type(self)
            and other.config == self.config
            and other.model_fingerprint == self.model_fingerprint
        )

    def __hash__(self) -> int:
        return hash((type(self), self.config, self.model_fingerprint))


@dataclass(frozen=True)
class AgentViewConfig(GameConfig):
    """What an agent's view records of an unknown game's parameters: the base and the prior,
    not the seed (which would rebuild d*)."""

    base: str | tuple | None = None
    prior: Prior | None = None

    def to_dict(self) -> dict[str, Any]:
        base = dict(self.base) if isinstance(self.base, tuple) else self.base
        return {"base": base, "prior": None if self.prior is None else self.prior.spec()}


class AgentGameView(UnknownGameBase):
    """An agent's view of an unknown-environment game (``game.agent_view()``).

    It has the base game's rules, the ``ModelStructure``, the prior and a *believed* model
    (``believed_model``; the prior mean unless given another), but not d*: its states deal
    and pay with the believed model, ``tree.build(view)`` compiles the believed model, and
    ``view.true_model`` raises ``HiddenModelError``. Views are immutable and compare equal
    when their base, prior and believed model are equal and they sample the same environment
    (interaction views: the same ``sampler``) or none (plain views).

    An interaction view (``UnknownPokerGame.interaction_view()``; ``interactive`` is true) also
    carries ``sampler``, an ``EnvironmentSampler``: its states' ``sample_chance_outcome`` and
    ``sample_returns`` draw from d* (counted on ``sampler.counter``), while everything that
    reads probabilities or expectations still reads the believed model.
    """

    config_class = AgentViewConfig
    config: AgentViewConfig
    game_type = dataclasses.replace(UnknownGameBase.game_type, agent_view=True)
    _CORE = (*UnknownGameBase._CORE, "name", "model_source", "_sampler")

    def __init__(self, game: UnknownPokerGame) -> None:
        # Copy the public parts only: the view must not lead back to the environment.
        object.__setattr__(self, "name", game.name)
        base = game.config.base  # normalised by UnknownConfig: a name, sorted pairs or None
        self.config = AgentViewConfig(base if not isinstance(base, Mapping) else None, game.prior)
        self.base_game = game.base_game
        self.structure = game.structure
        self.prior = game.prior
        self._model = game.prior_mean_model
        self.model_source = "prior mean"
        self._sampler = None
        self._freeze()

    @property
    def true_model(self) -> EnvironmentModel:
        """Not available: raises ``HiddenModelError``."""
        raise HiddenModelError(
            f"an agent's view of {self.name} does not hold the true model d*; agents see its "
            "believed model (view.believed_model, here the "
            f"{self.model_source}). Evaluators read d* from the game load_game returns, "
            "through pokerzoo.evaluation.unknown.true_model_of(game)"
        )

    @property
    def believed_model(self) -> EnvironmentModel:
        """The model this view's states deal and pay with (and an interaction view's states
        answer ``chance_outcomes()`` and ``returns()`` from)."""
        return self._model

    @property
    def interactive(self) -> bool:
        """Whether this view can sample the environment (an interaction view)."""
        return self._sampler is not None

    @property
    def sampler(self) -> EnvironmentSampler:
        """The ``EnvironmentSampler`` of an interaction view (draws from d*, counts them).

        Raises:
            HiddenModelError: for a plain view, which cannot sample the environment.
        """
        if self._sampler is None:
            raise HiddenModelError(
                f"this view of {self.name} cannot sample the environment; learners that play "
                "it get game.interaction_view() from the environment game"
            )
        return self._sampler

    @property
    def with_resampled_environment(self) -> Any:
        """For an interaction view, ``f(rng)``: the same view sampling a new environment drawn
        from the prior with ``rng`` (the draw of ``UnknownPokerGame.with_resampled_environment``),
        counting on the same counter. A plain view has no environment: the attribute raises
        ``HiddenModelError`` (an ``AttributeError``, so ``getattr(view, name, None)`` is None
        and the envs' resampling is a no-op for it)."""
        sampler = self._sampler
        if sampler is None:
            raise HiddenModelError(
                f"a plain view of {self.name} has no environment to resample; resample the "
                "environment game or an interaction view"
            )

        def resample(rng: np.random.Generator) -> AgentGameView:
            return self._replace(_sampler=sampler.resampled(rng))

        return resample

    def with_model(self, model: EnvironmentModel, source: str | None = None) -> AgentGameView:
        """A view believing ``model`` (``source`` says what it is, e.g. ``"posterior mean"``).

        An interaction view stays one: it samples the same environment.

        Raises:
            ConfigError: if ``model`` is not an ``EnvironmentModel`` of this base game.
        """
        model = self._check_model(model)
        if source is None:
            source = "prior mean" if model == self.prior_mean_model else "given model"
        if model is self._model and source == self.model_source:
            return self
        return self._replace(_model=model, model_source=str(source))

    def agent_view(
        self, model: EnvironmentModel | None = None, source: str | None = None
    ) -> AgentGameView:
        """The plain view (no sampler) believing ``model`` (``None``: this view's believed
        model); a plain view returns itself. Trees, and states handed to policies by
        evaluators, use it, so they never sample the environment."""
        plain = self if self._sampler is None else self._replace(_sampler=None)
        return plain if model is None else plain.with_model(model, source)

    def params(self) -> dict[str, Any]:
        """Base, prior and what the view believes: the prior mean, or a model's fingerprint;
        ``"interaction": True`` for an interaction view."""
        out = self.config.to_dict()
        if self.model_source == "prior mean":
            out["believed_model"] = "prior mean"
        else:
            out["believed_model"] = f"{self.model_source} {self._model.fingerprint}"
        if self._sampler is not None:
            out["interaction"] = True
        return out

    def __repr__(self) -> str:
        base = self.config.to_dict()["base"]
        plays = ", samples the environment" if self._sampler is not None else ""
        return (
            f"AgentGameView({self.name}, base={base!r}, believes the {self.model_source}{plays})"
        )

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        return (
            type(other) is type(self)
            and other.name == self.name
            and other.config == self.config
            and other._model.fingerprint == self._model.fingerprint
            and other._sampler is self._sampler
        )

    def __hash__(self) -> int:
        return hash(
            (type(self), self.name, self.config, self._model.fingerprint, self.interactive)
        )


def agent_facing(game: Game, interactive: bool = False) -> Game:
    """What an agent may be given of ``game`` (``train.py`` hands learners this): for an
    unknown-environment game its ``agent_view()`` (no d*), or with ``interactive`` its
    ``interaction_view()`` (no d* either, but it samples the environment: for learners that
    learn by playing); the game itself for any other game."""
    if not isinstance(game, UnknownPokerGame):
        return game
    return game.interaction_view() if interactive else game.agent_view()


@register_game
class UnknownKuhnPoker(UnknownPokerGame):
    """Kuhn poker with a hidden chance and reward model (PSRLCFR's and VCFR's unknown Kuhn).

    ``base``: ``"kuhn"`` (two players, the default) or a dict of ``kuhn_poker`` parameters,
    e.g. ``{"num_players": 3}`` (with the ``poker_payoffs`` prior).
    """

    name = "unknown_kuhn_poker"
    base_name = "kuhn_poker"
    BASES: ClassVar[dict[str, dict[str, Any]]] = {"kuhn": {}}
    DEFAULT_BASE = "kuhn"


@register_game
class UnknownLeducHoldem(UnknownPokerGame):
    """Leduc hold'em with a hidden chance and reward model (the papers' Leduc(4), Leduc(5)).

    ``base``: ``"leduc4"`` (the default), ``"leduc5"``, ``"5leduc"`` (``LEDUC_VARIANTS``),
    ``"leduc"`` (OpenSpiel's ``leduc_poker``), or a dict of ``leduc_holdem`` parameters.
    """

    name = "unknown_leduc_holdem"
    base_name = "leduc_holdem"
    BASES: ClassVar[dict[str, dict[str, Any]]] = {"leduc": {}, **LEDUC_VARIANTS}
    DEFAULT_BASE = "leduc4"
