"""The game protocol every pokerzoo game follows, modelled on OpenSpiel's ``Game``/``State``.

A *game* is pure rules: no rendering, no agents, no randomness of its own. Chance is an explicit
player (``CHANCE``) whose outcomes and probabilities ``State.chance_outcomes()`` lists, so the same
rules serve sampling (envs) and full-width enumeration (``pokerzoo.tree.build``).
"""

from __future__ import annotations

import dataclasses
import math
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, get_args

import numpy as np

from pokerzoo.entry_points import split as split_entry_point
from pokerzoo.errors import ConfigError, IllegalActionError, TreeTooLargeError

CHANCE = -1
"""``current_player()`` of a chance node (OpenSpiel's ``kChancePlayerId``)."""
TERMINAL = -4
"""``current_player()`` of a terminal state (OpenSpiel's ``kTerminalPlayerId``)."""


# ---------------------------------------------------------------------------------------------
# Validation helpers (every config and entry point checks its input with these)
# ---------------------------------------------------------------------------------------------


def is_integer(value: object) -> bool:
    """Whether ``value`` is an integer (Python or NumPy); booleans are not integers here."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def check_int(name: str, value: object, low: int | None = None, high: int | None = None) -> int:
    """``value`` as a Python ``int`` if it is an integer in ``[low, high]`` (NumPy integers
    accepted, booleans refused), else ``ConfigError`` saying what is allowed.

    >>> check_int("num_players", np.int64(3), 2, 10)
    3
    """
    ok = is_integer(value)
    if ok:
        v = int(value)  # type: ignore[call-overload]
        ok = (low is None or v >= low) and (high is None or v <= high)
    if not ok:
        if low is not None and high is not None:
            allowed = f"an integer from {low} to {high}"
        elif low is not None:
            allowed = f"an integer >= {low}"
        elif high is not None:
            allowed = f"an integer <= {high}"
        else:
            allowed = "an integer"
        raise ConfigError(f"{name} must be {allowed}, got {value!r}")
    return v


def check_number(
    name: str, value: object, low: float | None = None, high: float | None = None,
    low_open: bool = False,
) -> float:
    """``value`` as a finite ``float`` in ``[low, high]`` (``(low, high]`` with ``low_open``),
    else ``ConfigError`` saying what is allowed (NaN and infinities are refused)."""
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )
    if ok:
        v = float(value)  # type: ignore[arg-type]
        ok = math.isfinite(v)
        if ok and low is not None:
            ok = v > low if low_open else v >= low
        if ok and high is not None:
            ok = v <= high
    if not ok:
        parts = []
        if low is not None:
            parts.append(f"{'>' if low_open else '>='} {low}")
        if high is not None:
            parts.append(f"<= {high}")
        where = f" {' and '.join(parts)}" if parts else ""
        raise ConfigError(f"{name} must be a finite number{where}, got {value!r}")
    return v


def count_histories(game: Game, limit: int) -> int:
    """The number of histories (chance, decision and terminal nodes) of ``game``'s tree, or
    ``limit + 1`` as soon as it is known to exceed ``limit``.

    One chance outcome is expanded per chance node and its subtree counted once for all of
    them, so this is exact for games whose betting does not depend on the cards dealt (Kuhn,
    Leduc, hold'em) and costs about ``limit / (product of the chance branchings)`` states:
    microseconds for hold'em, whose deals alone exceed any limit.
    """
    over = limit + 1
    # Explicit stack (no recursion: no-limit lines can be thousands of actions deep). A frame
    # is [state, budget, total, children left, multiplier of the child being counted].
    root = game.new_initial_state()
    stack: list[list[Any]] = [[root, limit, 0, None, 1]]
    result = 0
    returning = False
    while stack:
        frame = stack[-1]
        state, budget = frame[0], frame[1]
        if not returning:
            if budget < 1:
                result, returning = over, True
                stack.pop()
                continue
            player = state.current_player()
            frame[2] = 1
            if player == TERMINAL:
                result, returning = 1, True
                stack.pop()
                continue
            if player == CHANCE:
                outcomes = state.chance_outcomes()
                m = len(outcomes)
                if m == 0:
                    result, returning = 1, True
                    stack.pop()
                    continue
                frame[3], frame[4] = [], m
                stack.append([state.child(outcomes[0][0]), (budget - 1) // m, 0, None, 1])
            else:
                frame[3] = list(reversed(state.legal_actions()))
                frame[4] = 1
                if not frame[3]:
                    result, returning = 1, True
                    stack.pop()
                    continue
                stack.append([state.child(frame[3].pop()), budget - 1, 0, None, 1])
            continue
        # A child returned ``result``.
        child_budget = (budget - 1) // frame[4] if frame[4] > 1 else budget - frame[2]
        if result > child_budget:
            stack.pop()
            result = over
            continue
        frame[2] += frame[4] * result
        if frame[3]:
            returning = False
            stack.append([state.child(frame[3].pop()), budget - frame[2], 0, None, 1])
            continue
        result = frame[2]
        stack.pop()
    return min(result, over)


def check_tree_size(
    game: Game,
    max_nodes: int,
    what: str = "a compiled tree",
    advice: str = "use sampled evaluation instead (matches, local best response) or a smaller game",
) -> int | None:
    """Raise ``TreeTooLargeError`` if ``game``'s tree has more than ``max_nodes`` histories,
    judged by ``game.estimated_tree_size`` before anything is built; returns the estimate
    (``None`` when the game gives none)."""
    max_nodes = check_int("max_nodes", max_nodes, 1)
    estimate = game.estimated_tree_size(max_nodes)
    if estimate is not None and estimate > max_nodes:
        raise TreeTooLargeError(
            f"{game!r} has more than {max_nodes:,} histories, too many for {what}; {advice}",
            estimated_nodes=estimate,
        )
    return estimate


# ---------------------------------------------------------------------------------------------
# Declarative tensor layouts
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One named slice of an information-state tensor, with the range of its entries.

    ``low``/``high`` bound every entry of the field (one-hots and fractions: the default
    [0, 1]); ``high`` may also be a tuple with one bound per entry, for fields that interleave
    one-hots with amounts.
    """

    name: str
    size: int
    doc: str
    low: float = 0.0
    high: float | tuple[float, ...] = 1.0


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
                raise ConfigError(f"duplicate field name {f.name!r}")
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

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``: float32 arrays bounding every entry of a tensor of this layout."""
        low = np.empty(self.size, dtype=np.float32)
        high = np.empty(self.size, dtype=np.float32)
        for f in self.fields:
            s = self._slices[f.name]
            low[s] = f.low
            if isinstance(f.high, tuple) and len(f.high) != f.size:
                raise ConfigError(f"field {f.name!r} has {f.size} entries but {len(f.high)} bounds")
            high[s] = f.high
        low.flags.writeable = False
        high.flags.writeable = False
        return low, high

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
        """Build a config from keyword parameters (``pokerzoo.config.from_mapping``: unknown
        names get a did-you-mean, types are checked, TOML/JSON lists become tuples)."""
        from pokerzoo.config import from_mapping

        return from_mapping(cls, params)

    def _set(self, name: str, value: Any) -> None:
        """Store a normalised value (e.g. a NumPy integer as ``int``) in this frozen config, so
        equal configs compare and hash equal whatever types they were given."""
        object.__setattr__(self, name, value)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# ---------------------------------------------------------------------------------------------
# What a game is
# ---------------------------------------------------------------------------------------------

Chance = Literal["deterministic", "explicit"]
"""``"deterministic"``: no chance nodes; ``"explicit"``: chance nodes list their outcomes and
probabilities (``State.chance_outcomes``), as OpenSpiel's ``kExplicitStochastic``."""
Utility = Literal["zero_sum", "constant_sum", "general_sum"]
"""How the players' returns relate at every terminal (OpenSpiel's ``Utility``)."""

CHANCE_KINDS: tuple[str, ...] = get_args(Chance)
UTILITIES: tuple[str, ...] = get_args(Utility)


@dataclass(frozen=True)
class GameType:
    """What a game is, declared once on its class as ``game_type`` (OpenSpiel's ``GameType``).

    Envs, evaluators and scripts read these fields instead of asking ``isinstance(game,
    SomeGame)``, so a new game gets the tools that apply to it by declaring what it is. A
    subclass inherits its parent's declaration except ``array_backend`` (batched rules replay
    exactly one class's rules); one that changes the rules declares its own.

    >>> GameType(min_players=2, max_players=10).allows_players(3)
    True
    >>> GameType(array_backend="not a module path")
    Traceback (most recent call last):
    ...
    pokerzoo.errors.ConfigError: entry point 'not a module path' must be 'package.module:attribute'
    """

    min_players: int = 2
    """The fewest seats the game's parameters allow."""
    max_players: int = 2
    """The most seats the game's parameters allow."""
    chance: Chance = "explicit"
    """How chance acts: ``"deterministic"`` or ``"explicit"`` (listed outcomes)."""
    utility: Utility = "zero_sum"
    """How the returns relate: ``"zero_sum"``, ``"constant_sum"`` or ``"general_sum"``."""
    hidden_model: bool = False
    """Chance and rewards follow a model the agents do not see (unknown-environment games,
    ``pokerzoo.games.unknown``): the game has ``agent_view()``, ``structure`` and a model
    its states deal with; trees compile a believed model, never the hidden one implicitly."""
    agent_view: bool = False
    """This object is what an agent may know of a hidden-model game (``AgentGameView``): its
    rules and a believed model, no hidden model; ``interactive`` says whether it can also
    sample the environment. False for the environment game itself (``hidden_model`` alone)."""
    lbr: bool = False
    """Local best response (``pokerzoo.evaluation.lbr``) plays its two-player games."""
    phh_variant: str | None = None
    """The Poker Hand History variant code its hands are written as (``"FT"``, ``"NT"``), or
    ``None`` when PHH cannot hold them (then hand logs are plain text)."""
    hole_card_charts: bool = False
    """Each seat holds two cards from a 52-card deck, so 13 x 13 starting-hand charts (pairs,
    suited, offsuit) summarise its strategies (``pokerzoo.evaluation.strategy_view``)."""
    array_backend: str | None = None
    """``"module:Class"`` of the batched rules ``VectorPokerEnv`` plays this exact game with
    (``Class(game, num_envs)``; imported when an env is built), or ``None`` for none (the env
    steps ``State`` objects)."""
    env_version: int = 0
    """The version of the envs derived from this game (``<name>_v<N>``); bump it when what the
    env gives a learner changes (see ``pokerzoo.envs.versions``)."""
    single_agent_env: bool = True
    """Whether a single-agent Gymnasium version (fixed opponents) is registered for it."""

    def __post_init__(self) -> None:
        low = check_int("min_players", self.min_players, 1)
        high = check_int("max_players", self.max_players, low)
        object.__setattr__(self, "min_players", low)
        object.__setattr__(self, "max_players", high)
        if self.chance not in CHANCE_KINDS:
            raise ConfigError(f"chance must be one of {CHANCE_KINDS}, got {self.chance!r}")
        if self.utility not in UTILITIES:
            raise ConfigError(f"utility must be one of {UTILITIES}, got {self.utility!r}")
        if self.agent_view and not self.hidden_model:
            raise ConfigError("agent_view=True is a view of a hidden-model game: set hidden_model")
        if self.phh_variant is not None and not (
            isinstance(self.phh_variant, str) and self.phh_variant
        ):
            raise ConfigError(
                f"phh_variant must be a PHH variant code or None, got {self.phh_variant!r}"
            )
        if self.array_backend is not None:
            split_entry_point(self.array_backend)
        object.__setattr__(self, "env_version", check_int("env_version", self.env_version, 0))

    def allows_players(self, num_players: int) -> bool:
        """Whether ``num_players`` seats are within the declared range."""
        return self.min_players <= num_players <= self.max_players

    @property
    def is_environment(self) -> bool:
        """A hidden-model game that holds its hidden model (not an agent's view of one)."""
        return self.hidden_model and not self.agent_view


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
            raise ConfigError(f"{self} is not a chance node")
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
            raise ConfigError(
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
    game_type: ClassVar[GameType] = GameType()
    """What the game is (see ``GameType``); every game class declares its own."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "game_type" not in cls.__dict__ and cls.game_type.array_backend is not None:
            # Batched rules replay one class's rules exactly, and a subclass may change chance
            # or payoffs: it gets them only by declaring them itself.
            cls.game_type = dataclasses.replace(cls.game_type, array_backend=None)

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

    @property
    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``: read-only float32 arrays bounding every entry of the
        information-state tensor, as the game's layout declares them (env spaces use them)."""
        return self.information_state_layout.bounds()

    @property
    def chip_unit(self) -> float:
        """Chips in one big blind where the game has blinds, else in one ante: the unit of
        mbb/g and bb/100 everywhere (evaluators, reports, reward scaling).

        Games with forced bets other than a one-chip ante override this.
        """
        return 1.0

    @abstractmethod
    def new_initial_state(self) -> State: ...

    @abstractmethod
    def action_to_string(self, action: int, state: State | None = None) -> str: ...

    def card_to_string(self, card: int) -> str:
        """A readable name of a card (games with real suits override this)."""
        return str(card)

    @property
    def is_zero_sum(self) -> bool:
        """Whether the returns sum to zero at every terminal (``game_type.utility``)."""
        return self.game_type.utility == "zero_sum"

    def estimated_tree_size(self, limit: int) -> int | None:
        """The number of histories of the game's tree, or any number above ``limit`` once it is
        known to exceed it; ``None`` when the game cannot tell cheaply (then builders find out
        as they go). Checked before any tree or model structure is built."""
        return None

    def params(self) -> dict[str, Any]:
        """The game's parameters as a plain dict (``load_game(name, **params)`` rebuilds it)."""
        return self.config.to_dict()

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{self.name}({args})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.config == self.config

    def __hash__(self) -> int:
        return hash((type(self), self.config))
