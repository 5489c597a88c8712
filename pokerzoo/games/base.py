"""The game protocol every pokerzoo game follows, modelled on OpenSpiel's ``Game``/``State``.

A *game* is pure rules: no rendering, no agents, no randomness of its own. Chance is an explicit
player (``CHANCE``) whose outcomes and probabilities ``State.chance_outcomes()`` lists, so the same
rules serve sampling (envs) and full-width enumeration (``pokerzoo.tree.build``).
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pokerzoo.errors import ConfigError, IllegalActionError

CHANCE = -1
"""``current_player()`` of a chance node (OpenSpiel's ``kChancePlayerId``)."""
TERMINAL = -4
"""``current_player()`` of a terminal state (OpenSpiel's ``kTerminalPlayerId``)."""


# ---------------------------------------------------------------------------------------------
# Declarative tensor layouts
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One named slice of an information-state tensor."""

    name: str
    size: int
    doc: str


class TensorLayout:
    """A list of named fields that builds a flat float32 tensor, its views and its doc table.

    The same declaration is used to write tensors (``new()``, ``view()``) and to document them
    (``table()``), so the documentation cannot drift from the code.

    >>> layout = TensorLayout([Field("card", 3, "one-hot private card"), Field("pot", 1, "pot")])
    >>> layout.size
    4
    >>> layout.slice("pot")
    slice(3, 4, None)
    """

    def __init__(self, fields: Sequence[Field]) -> None:
        self.fields: tuple[Field, ...] = tuple(fields)
        self._slices: dict[str, slice] = {}
        offset = 0
        for f in self.fields:
            if f.name in self._slices:
                raise ValueError(f"duplicate field name {f.name!r}")
            self._slices[f.name] = slice(offset, offset + f.size)
            offset += f.size
        self.size = offset

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    def slice(self, name: str) -> slice:
        """The slice of field ``name`` in the flat tensor."""
        try:
            return self._slices[name]
        except KeyError:
            raise KeyError(f"no field {name!r}; fields are {list(self._slices)}") from None

    def new(self) -> np.ndarray:
        """A zero tensor of this layout."""
        return np.zeros(self.size, dtype=np.float32)

    def views(self, tensor: np.ndarray) -> dict[str, np.ndarray]:
        """Named views (no copies) of a tensor (or a batch of tensors on the last axis)."""
        return {name: tensor[..., s] for name, s in self._slices.items()}

    def table(self) -> str:
        """A reStructuredText-style table of the fields: offset, size, name, meaning."""
        rows = [("offset", "size", "field", "meaning")]
        for f in self.fields:
            s = self._slices[f.name]
            rows.append((str(s.start), str(f.size), f.name, f.doc))
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        rule = "  ".join("=" * w for w in widths)
        lines = [rule, "  ".join(c.ljust(w) for c, w in zip(rows[0], widths)).rstrip(), rule]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows[1:]]
        lines.append(rule)
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Configs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameConfig:
    """Base of every game's frozen parameter dataclass; subclasses validate in ``__post_init__``."""

    @classmethod
    def from_params(cls, **params: Any) -> GameConfig:
        """Build a config from keyword parameters with a clear error for unknown names."""
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(params) - set(names))
        if unknown:
            raise ConfigError(
                f"unknown parameter(s) {unknown} for {cls.__name__}; valid parameters are {names}"
            )
        # TOML/JSON give lists where the dataclasses hold tuples.
        fixed = {k: tuple(v) if isinstance(v, list) else v for k, v in params.items()}
        return cls(**fixed)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# ---------------------------------------------------------------------------------------------
# Game and State
# ---------------------------------------------------------------------------------------------


class State(ABC):
    """A history of a game: everything that happened so far, including hidden chance outcomes."""

    game: Game

    @abstractmethod
    def current_player(self) -> int:
        """The player to act, ``CHANCE`` at chance nodes or ``TERMINAL`` at the end."""

    @abstractmethod
    def legal_actions(self, player: int | None = None) -> list[int]:
        """Legal actions (sorted ints) of the player to act; empty at terminal states.

        At chance nodes these are the chance outcomes with positive probability.
        """

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` pairs at a chance node; probabilities sum to 1."""

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Apply a legal action (validated by ``apply_action``)."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Each player's total payoff; only meaningful at terminal states (else zeros)."""

    @abstractmethod
    def information_state_key(self, player: int | None = None) -> Hashable:
        """A hashable key, equal for two states exactly when ``player`` cannot tell them apart."""

    @abstractmethod
    def information_state_tensor(self, player: int | None = None) -> np.ndarray:
        """A float32 tensor of shape ``game.information_state_shape`` (see the game's layout)."""

    @abstractmethod
    def public_state(self) -> dict[str, Any]:
        """What every player sees, as a dict with at least these keys (renderers rely on them):

        ``pot`` (chips in the middle), ``contributions`` (chips each seat put in),
        ``public_cards`` (list of card ints), ``betting`` (one list of action strings per
        betting round so far), ``round`` (index of the current betting round), and, where the
        game has stacks, ``stacks`` (chips each seat has behind).
        """

    @abstractmethod
    def private_cards(self) -> list[list[int]]:
        """Each seat's private cards dealt so far (hidden information: for renderers and
        evaluators only, never for agents)."""

    @abstractmethod
    def history(self) -> list[int]:
        """Every action applied so far (chance outcomes included), in order."""

    @abstractmethod
    def clone(self) -> State:
        """An independent copy."""

    # Shared behaviour ------------------------------------------------------------------------

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def apply_action(self, action: int) -> None:
        """Apply ``action``; raises ``IllegalActionError`` naming the legal actions otherwise."""
        legal = self.legal_actions()
        try:
            is_legal = int(action) == action and int(action) in legal
        except (TypeError, ValueError):
            is_legal = False
        if not is_legal:
            raise IllegalActionError(action, legal, f"{self.game.name} at history {self.history()}")
        self._apply(int(action))

    def sample_chance_outcome(self, rng: np.random.Generator) -> int:
        """Draw a chance outcome with the probabilities of ``chance_outcomes()``.

        Games with uniform deals override this with something cheaper; envs call it every deal.
        """
        outcomes = self.chance_outcomes()
        if not outcomes:
            raise ValueError(f"{self} is not a chance node")
        u = rng.random()
        acc = 0.0
        for action, prob in outcomes:
            acc += prob
            if u < acc:
                return action
        return outcomes[-1][0]

    def child(self, action: int) -> State:
        """A copy of this state with ``action`` applied."""
        c = self.clone()
        c.apply_action(action)
        return c

    def legal_actions_mask(self) -> np.ndarray:
        """An int8 mask over ``game.num_distinct_actions`` (all zero off-turn or at the end)."""
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        if self.current_player() >= 0:
            mask[self.legal_actions()] = 1
        return mask

    def action_to_string(self, action: int) -> str:
        return self.game.action_to_string(action, self)

    def _player_or_current(self, player: int | None) -> int:
        p = self.current_player() if player is None else player
        if not 0 <= p < self.game.num_players:
            raise ValueError(
                f"player {p} is not a seat of {self.game.name} (0..{self.game.num_players - 1})"
            )
        return p

    def __str__(self) -> str:
        return f"{self.game.name}{self.history()}"


class Game(ABC):
    """A game: its parameters and how to start it."""

    name: ClassVar[str]
    config_class: ClassVar[type[GameConfig]]
    config: GameConfig

    def __init__(self, config: GameConfig | None = None, **params: Any) -> None:
        if config is not None and params:
            raise ConfigError("pass either a config object or keyword parameters, not both")
        if config is None:
            config = self.config_class.from_params(**params)
        elif not isinstance(config, self.config_class):
            raise ConfigError(
                f"{type(self).__name__} takes a {self.config_class.__name__}, "
                f"got {type(config).__name__}"
            )
        self.config = config

    @property
    @abstractmethod
    def num_players(self) -> int: ...

    @property
    @abstractmethod
    def num_distinct_actions(self) -> int: ...

    @property
    @abstractmethod
    def max_game_length(self) -> int:
        """Upper bound on the number of actions (chance outcomes included) in a history."""

    @property
    @abstractmethod
    def information_state_layout(self) -> TensorLayout: ...

    @property
    def information_state_shape(self) -> tuple[int, ...]:
        return self.information_state_layout.shape

    @abstractmethod
    def new_initial_state(self) -> State: ...

    @abstractmethod
    def action_to_string(self, action: int, state: State | None = None) -> str: ...

    def card_to_string(self, card: int) -> str:
        """A readable name of a card (games with real suits override this)."""
        return str(card)

    @property
    def is_zero_sum(self) -> bool:
        return True

    def params(self) -> dict[str, Any]:
        """The game's parameters as a plain dict (``load_game(name, **params)`` rebuilds it)."""
        return self.config.to_dict()

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{self.name}({args})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.config == self.config  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self.config))
