"""Unknown-environment poker: a base game whose chance and rewards follow a hidden model d*.

``load_game("unknown_leduc_holdem", base="leduc4", prior="psrlcfr", seed=0)`` draws the true
model ``d* = (c*, r*)`` from the prior with ``seed``. The rules, information states and
observations are the base game's; only chance probabilities and rewards change:

* ``state.chance_outcomes()`` are ``c*``'s; ``state.sample_chance_outcome(rng)`` draws from them;
* ``state.returns()`` are the *expected* payoffs under ``r*`` (what a compiled tree and exact
  evaluation need); ``state.sample_returns(rng)`` draws the payoff actually paid (what the envs
  pay, see ``pokerzoo.envs.unknown_env``).

``game.true_model`` is for evaluators (``pokerzoo.tree.build(game)`` compiles d*); agents build
trees from the model they believe (``build(game, model=m)``, which calls ``game.with_model(m)``).
``game.resample_environment(rng)`` draws a new d*.

>>> from pokerzoo import load_game
>>> game = load_game("unknown_kuhn_poker", seed=3)
>>> game.true_model == load_game("unknown_kuhn_poker", seed=3).true_model
True
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pokerzoo.games.base import CHANCE, TERMINAL, ConfigError, Game, GameConfig, State, TensorLayout
from pokerzoo.games.leduc import LEDUC_VARIANTS
from pokerzoo.games.registry import load_game, register_game
from pokerzoo.games.unknown.model import EnvironmentModel, ModelStructure
from pokerzoo.games.unknown.priors import Prior, make_prior

# ---------------------------------------------------------------------------------------------
# Config
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnknownConfig(GameConfig):
    """Parameters of an unknown-environment game (each game's ``BASES`` name its base games)."""

    base: str | Mapping[str, Any] | tuple | None = None
    """The base game: a variant name (see the game's ``BASES``) or a dict of the base game's
    parameters; ``None`` for the game's default base."""
    prior: str | Mapping[str, Any] | Prior = "psrlcfr"
    """The prior of d*: ``"psrlcfr"``, ``"poker_payoffs"``, a ``{"name": ..., ...}`` dict or a
    ``Prior`` (see ``pokerzoo.games.unknown.priors``)."""
    seed: int = 0
    """Seed of the draw of d* from the prior (same seed, same d*)."""

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"seed must be an integer >= 0, got {self.seed!r}")
        object.__setattr__(self, "prior", make_prior(self.prior))
        base = self.base
        if isinstance(base, Mapping):
            # Stored as sorted pairs so the config stays hashable (games are hashed by config).
            fixed = {k: tuple(v) if isinstance(v, list) else v for k, v in base.items()}
            object.__setattr__(self, "base", tuple(sorted(fixed.items())))
        elif base is not None and not isinstance(base, str | tuple):
            raise ConfigError(f"base must be a variant name or a dict of parameters, got {base!r}")

    def to_dict(self) -> dict[str, Any]:
        base = dict(self.base) if isinstance(self.base, tuple) else self.base
        return {"base": base, "prior": self.prior, "seed": self.seed}


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------


class UnknownState(State):
    """A history of the base game, with chance and rewards from one environment model."""

    __slots__ = ("game", "_base", "_history", "_model")

    def __init__(self, game: UnknownPokerGame, base: State, model: EnvironmentModel) -> None:
        self.game = game
        self._base = base
        self._history: tuple[int, ...] = ()
        # A hand keeps the model it started with, even if the game's d* is resampled meanwhile.
        self._model = model

    def current_player(self) -> int:
        return self._base.current_player()

    def legal_actions(self, player: int | None = None) -> list[int]:
        return self._base.legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._base.current_player() != CHANCE:
            return []
        return self._model.chance_outcomes(self._history)

    def sample_chance_outcome(self, rng: np.random.Generator) -> int:
        """A chance outcome drawn from the model with ``rng`` (the env's hook)."""
        return self._model.sample_chance(self._history, rng)

    def _apply(self, action: int) -> None:
        # ``apply_action`` has already checked legality against the base state's legal actions.
        self._base._apply(action)
        self._history = (*self._history, action)

    def terminal_index(self) -> int:
        """This terminal's index in the model structure (``ValueError`` before the end)."""
        if self._base.current_player() != TERMINAL:
            raise ValueError("the hand is not over")
        return self._model.structure.terminal_index[self._history]

    def returns(self) -> list[float]:
        """Expected payoffs under the model at the end (zeros before)."""
        if self._base.current_player() != TERMINAL:
            return [0.0] * self.game.num_players
        return [float(r) for r in self._model.expected_returns[self.terminal_index()]]

    def sample_returns(self, rng: np.random.Generator) -> list[float]:
        """Payoffs drawn from the terminal's reward distribution with ``rng`` (the env's hook)."""
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

    def clone(self) -> UnknownState:
        c = UnknownState.__new__(UnknownState)
        c.game = self.game
        c._base = self._base.clone()
        c._history = self._history
        c._model = self._model
        return c


# ---------------------------------------------------------------------------------------------
# Games
# ---------------------------------------------------------------------------------------------


class UnknownPokerGame(Game):
    """A base game with chance and rewards from a hidden model ``d*`` drawn from a prior.

    Attributes:
        base_game: the base game (its rules, information states and own payoffs).
        structure: the ``ModelStructure`` of the base game (indices shared by models,
            posteriors and episode batches).
        prior: the prior d* was drawn from.
    """

    config_class = UnknownConfig
    config: UnknownConfig
    base_name: ClassVar[str]
    BASES: ClassVar[dict[str, dict[str, Any]]]
    DEFAULT_BASE: ClassVar[str]

    def __init__(self, config: UnknownConfig | None = None, **params: Any) -> None:
        super().__init__(config, **params)
        self.base_game = load_game(self.base_name, **self._base_params())
        self.structure = ModelStructure.of(self.base_game)
        self.prior: Prior = self.config.prior  # type: ignore[assignment]
        self._model = self.prior.sample(self.structure, np.random.default_rng(self.config.seed))

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
        """The environment model this game deals and pays with (for evaluators only)."""
        return self._model

    def with_model(self, model: EnvironmentModel) -> UnknownPokerGame:
        """The same game, dealing and paying with ``model`` (for ``tree.build(game, model=m)``).

        Raises:
            ValueError: if ``model`` describes another base game.
        """
        if not isinstance(model, EnvironmentModel):
            raise TypeError(f"model must be an EnvironmentModel, got {type(model).__name__}")
        if model.structure is not self.structure and model.structure.base_game != self.base_game:
            raise ValueError(
                f"the model describes {model.structure.base_game!r}, this game is over "
                f"{self.base_game!r}"
            )
        other = copy.copy(self)
        other._model = model
        return other

    def resample_environment(self, rng: np.random.Generator) -> None:
        """Draw a new true model from the prior with ``rng`` (hands already dealt keep theirs)."""
        self._model = self.prior.sample(self.structure, rng)

    # The protocol, from the base game -------------------------------------------------------------

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
    def information_state_bounds(self) -> tuple[float, float]:
        """Bounds of the tensor entries: the base games' one-hots and fractions lie in [0, 1]."""
        return 0.0, 1.0

    def new_initial_state(self) -> UnknownState:
        return UnknownState(self, self.base_game.new_initial_state(), self._model)

    def action_to_string(self, action: int, state: State | None = None) -> str:
        base_state = state._base if isinstance(state, UnknownState) else state
        return self.base_game.action_to_string(action, base_state)

    def card_to_string(self, card: int) -> str:
        return self.base_game.card_to_string(card)

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and other.config == self.config  # type: ignore[attr-defined]
            and other._model == self._model  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        return hash((type(self), self.config))


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
