"""The Leduc hold'em family: OpenSpiel's ``leduc_poker`` by default, and the papers' variants.

Rules (defaults give OpenSpiel's ``leduc_poker`` tree exactly, 9,457 histories):

* A deck of ``num_ranks * num_suits`` cards; card ``c`` has rank ``c // num_suits``.
* Each player antes ``ante`` and, with ``blinds``, seat ``i`` also posts ``blinds[i]``; then each
  is dealt one private card (chance, uniform over the deck left).
* Two betting rounds. In round ``r`` a raise puts the raiser ``raise_sizes[r]`` above the highest
  contribution; fold is legal only when facing a bet (always, with ``fold_unopposed``); at most
  ``max_raises_per_round`` raises per round (``None``: no limit; blinds are not raises), and, with
  ``bet_cap``, no raise may take a player's contribution above ``bet_cap * ante``. A round ends
  when every player still in has acted since the last raise and matched it (so the big blind
  gets its option when the others just call). Seat 0 opens round one; round two is opened by the
  first seat still in from seat 0, or with ``second_round_opener="after_closer"`` by the next
  seat still in after the one whose action ended round one.
* Between the rounds one public card is dealt. At the showdown a pair with the public card beats
  any unpaired hand, otherwise the higher rank wins; ties split the pot.

Named variants (``LEDUC_VARIANTS``): the papers' 5-Leduc, RLCard's Leduc (``"rlcard"``,
``"5leduc_rlcard"``), and our reading of Leduc(4)/Leduc(5) ("each player bids at most 4 or 5
times the big blind"): 9,637 / 15,577 histories. The papers report 9,435 / 34,776 (PSRLCFR) and
9,652 / 34,438 (VCFR); no rule set we tried gives either pair. ``docs/leduc_variants.md`` lists
the rule sets and counting conventions tried.

RLCard's Leduc hold'em (rlcard 1.2, ``rlcard/games/leducholdem`` on ``limitholdem``'s round),
which the ``"rlcard"`` variant plays:

* No ante. A small blind of 1 and a big blind of 2; the small-blind seat is drawn at random each
  hand and the big blind sits next to it. Here seat 0 is always the small blind (one of RLCard's
  two seatings): ``ante=0, blinds=(1, 2)``.
* The small blind acts first in round one, so its "call" puts in 1 more to complete the blind;
  the big blind may then check or raise. Blinds are not raises.
* Raises are ``big_blind`` (2) in round one and 4 in round two, at most 2 per round, each above
  the highest contribution: the same sizes and cap as OpenSpiel's Leduc.
* Round two is opened by the player after the one whose action closed round one (RLCard keeps
  its turn pointer across the deal): after small blind calls, big blind checks, the small blind
  opens; after call, raise, call, the big blind does. ``second_round_opener="after_closer"``.
* Fold is offered at every decision, even when checking is free: ``fold_unopposed=True``.
* Showdown as here (a pair with the board wins, else the higher rank, ties split the pot).
  ``get_payoffs`` divides chips won by the big blind, so RLCard payoffs are ours / 2.

RLCard's round logic counts "non-raises" towards ``num_players`` without discounting folded
players, so with three or more players its rounds can run past the point where everyone left has
matched; the fields here follow the usual rules for any number of players and match RLCard
exactly heads-up (``tests/games/test_leduc_blinds.py`` replays random hands through RLCard).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerzoo.games.base import (
    CHANCE,
    TERMINAL,
    ConfigError,
    Field,
    Game,
    GameConfig,
    GameType,
    State,
    TensorLayout,
    check_int,
    count_histories,
)
from pokerzoo.games.registry import register_game

FOLD, CALL, RAISE = 0, 1, 2
_ACTION_NAMES = {FOLD: "fold", CALL: "call", RAISE: "raise"}
_OPENERS = ("first_seat", "after_closer")
_TENSOR_CACHE_SIZE = 200_000  # information states kept per game (a few MB at most)
# Bounds that keep layouts and amounts small enough to hold: OpenSpiel's leduc_poker allows
# up to 10 players; a round has at most MAX_RAISES_PER_ROUND raises (tensor slots grow with
# it); chip amounts stay exact in float32 tensors.
MAX_PLAYERS = 10
MAX_RANKS = 64
MAX_SUITS = 16
MAX_RAISES_PER_ROUND = 100
MAX_CHIPS = 10**6


@dataclass(frozen=True)
class LeducConfig(GameConfig):
    """Parameters of the Leduc hold'em family (defaults: OpenSpiel's ``leduc_poker``)."""

    num_players: int = 2
    """Number of players, 2 to 10 (the deck must hold one card per player plus the board)."""
    num_ranks: int = 3
    """Number of card ranks (the BUFP paper's 5-Leduc uses 5)."""
    num_suits: int = 2
    """Number of cards of each rank."""
    ante: int = 1
    """Chips each player puts in before the deal (the unit of ``bet_cap``; 0 needs ``blinds``)."""
    raise_sizes: tuple[int, ...] = (2, 4)
    """Raise amount in each of the two betting rounds."""
    max_raises_per_round: int | None = 2
    """Raises allowed per round; ``None`` for no limit (then ``bet_cap`` bounds the betting)."""
    bet_cap: int | None = None
    """Most a player may put in, in multiples of ``ante`` (Leduc(4): 4, Leduc(5): 5)."""
    blinds: tuple[int, ...] | None = None
    """Forced bets per seat on top of the ante, e.g. RLCard's ``(1, 2)`` with ``ante=0``: seat 0
    posts the small blind and, as always, opens round one. ``None``: no blinds."""
    fold_unopposed: bool = False
    """Whether fold is legal when checking is free (RLCard offers it; OpenSpiel does not)."""
    second_round_opener: str = "first_seat"
    """Who opens round two: ``"first_seat"``, the first seat still in from seat 0 (OpenSpiel), or
    ``"after_closer"``, the next seat still in after the one whose action ended round one
    (RLCard)."""

    def __post_init__(self) -> None:
        n = self._set_int("num_players", 2, MAX_PLAYERS)
        self._set_int("num_ranks", 1, MAX_RANKS)
        self._set_int("num_suits", 1, MAX_SUITS)
        self._set_int("ante", 0, MAX_CHIPS)
        if self.num_ranks * self.num_suits < n + 1:
            raise ConfigError(
                f"a deck of {self.num_ranks}x{self.num_suits} cards cannot deal "
                f"{n} private cards and a public card"
            )
        sizes = self.raise_sizes
        if not isinstance(sizes, tuple) or len(sizes) != 2:
            raise ConfigError(
                f"raise_sizes needs a tuple of one size per round (2), got {sizes!r}"
            )
        self._set(
            "raise_sizes", tuple(check_int("each raise size", v, 1, MAX_CHIPS) for v in sizes)
        )
        if self.max_raises_per_round is not None:
            self._set_int("max_raises_per_round", 0, MAX_RAISES_PER_ROUND)
        if self.bet_cap is not None:
            self._set_int("bet_cap", 1, MAX_CHIPS)
        if self.max_raises_per_round is None and self.bet_cap is None:
            raise ConfigError("max_raises_per_round=None needs a bet_cap to bound the betting")
        self._check_blinds()
        if not isinstance(self.fold_unopposed, bool | np.bool_):
            raise ConfigError(f"fold_unopposed must be True or False, got {self.fold_unopposed!r}")
        self._set("fold_unopposed", bool(self.fold_unopposed))
        if not isinstance(self.second_round_opener, str) or (
            self.second_round_opener not in _OPENERS
        ):
            raise ConfigError(
                f"second_round_opener must be one of {_OPENERS}, got {self.second_round_opener!r}"
            )
        if self.raises_bound() > MAX_RAISES_PER_ROUND:
            raise ConfigError(
                f"bet_cap={self.bet_cap} with raise_sizes={self.raise_sizes} allows "
                f"{self.raises_bound()} raises per round; at most {MAX_RAISES_PER_ROUND} are "
                "supported (lower bet_cap or set max_raises_per_round)"
            )

    def _set_int(self, name: str, low: int, high: int) -> int:
        value = check_int(name, getattr(self, name), low, high)
        self._set(name, value)
        return value

    def _check_blinds(self) -> None:
        blinds = self.blinds
        if blinds is not None:
            if not isinstance(blinds, tuple) or len(blinds) != self.num_players:
                raise ConfigError(
                    f"blinds must be None or a tuple of one forced bet per seat "
                    f"({self.num_players}), got {blinds!r}"
                )
            blinds = tuple(check_int("each blind", b, 0, MAX_CHIPS) for b in blinds)
            self._set("blinds", blinds)
        if self.ante == 0:
            if blinds is None or not any(blinds):
                raise ConfigError("ante=0 needs blinds: someone must put chips in before the deal")
            if self.bet_cap is not None:
                raise ConfigError("bet_cap counts antes, so it needs ante >= 1")
        elif self.bet_cap is not None:
            cap = self.bet_cap * self.ante
            if max(self.initial_contributions()) > cap:
                raise ConfigError(f"the blinds {blinds!r} put a seat above bet_cap * ante = {cap}")

    def initial_contributions(self) -> tuple[int, ...]:
        """Chips each seat has in before the first decision: the ante plus its blind."""
        if self.blinds is None:
            return (self.ante,) * self.num_players
        return tuple(self.ante + b for b in self.blinds)

    @property
    def deck_size(self) -> int:
        return self.num_ranks * self.num_suits

    @property
    def big_blind(self) -> int:
        """The unit of money: the largest blind (RLCard divides payoffs by it), else the ante."""
        return max(self.blinds) if self.blinds is not None and any(self.blinds) else self.ante

    def raises_bound(self) -> int:
        """The most raises one round can hold under these rules."""
        bound = self.max_raises_per_round if self.max_raises_per_round is not None else 10**9
        if self.bet_cap is not None:
            # Every contribution starts at the ante or above, and each raise lifts the top.
            room = self.bet_cap * self.ante - self.ante
            bound = min(bound, room // min(self.raise_sizes))
        return bound

    def max_contribution(self) -> int:
        """The most chips one player can put in over the whole hand."""
        start = max(self.initial_contributions())
        total = start + sum(self.raises_bound() * size for size in self.raise_sizes)
        if self.bet_cap is not None:
            total = min(total, self.bet_cap * self.ante)
        return total


_RLCARD: dict[str, Any] = {
    "ante": 0,
    "blinds": (1, 2),
    "fold_unopposed": True,
    "second_round_opener": "after_closer",
}

LEDUC_VARIANTS: dict[str, dict[str, Any]] = {
    # Each player may put in at most 4 (5) antes, with no other limit on raises (our reading;
    # see the module docstring for why the papers' counts differ).
    "leduc4": {"max_raises_per_round": None, "bet_cap": 4, "raise_sizes": (1, 1)},
    "leduc5": {"max_raises_per_round": None, "bet_cap": 5, "raise_sizes": (1, 1)},
    # The BUFP paper's 5-Leduc: five ranks, ten cards, otherwise standard Leduc.
    "5leduc": {"num_ranks": 5},
    # RLCard's Leduc (see the module docstring): blinds 1/2, the small blind (seat 0) first.
    "rlcard": dict(_RLCARD),
    # 5-Leduc as the BUFP paper ran it, on RLCard's rules.
    "5leduc_rlcard": {**_RLCARD, "num_ranks": 5},
}
"""Parameter sets of the papers' games: ``load_game("leduc_holdem", **LEDUC_VARIANTS[name])``."""


class LeducState(State):
    """A Leduc hold'em history."""

    __slots__ = (
        "game",
        "_cfg",
        "_n",
        "_cards",
        "_public",
        "_round",
        "_contrib",
        "_folded",
        "_pending",
        "_player",
        "_raises",
        "_betting",
        "_history",
        "_over",
        "_closer",
    )
    game: LeducHoldem  # narrows State.game for the type checker (a slot, not a class attribute)

    def __init__(self, game: LeducHoldem) -> None:
        self.game = game
        cfg = game.config
        self._cfg = cfg
        self._n = cfg.num_players
        self._cards: list[int] = []
        self._public = -1
        self._round = 0
        self._contrib = list(game._initial_contrib)
        self._folded = [False] * self._n
        self._pending = self._n  # players still to act this round
        self._player = CHANCE
        self._raises = 0
        # Tuples, so that information-state keys (asked for every seat at every env step) reuse
        # them instead of copying the betting lists.
        self._betting: list[tuple[int, ...]] = [(), ()]
        self._history: list[int] = []
        self._over = False
        self._closer = -1  # the seat whose action ended round one

    # Protocol --------------------------------------------------------------------------------

    def current_player(self) -> int:
        return self._player

    def legal_actions(self, player: int | None = None) -> list[int]:
        p = self._player
        if p == TERMINAL or (player is not None and player != p):
            return []
        if p == CHANCE:
            return [c for c in range(self._cfg.deck_size) if c not in self._dealt()]
        contrib = self._contrib
        top = max(contrib)
        game = self.game
        actions = [FOLD, CALL] if contrib[p] < top or game._fold_unopposed else [CALL]
        # A raise needs room under the raise cap and under bet_cap (see LeducHoldem.__init__).
        if self._raises < game._max_raises and top <= game._raise_room[self._round]:
            actions.append(RAISE)
        return actions

    def sample_chance_outcome(self, rng: np.random.Generator) -> int:
        if self._player != CHANCE:
            raise ConfigError(f"{self} is not a chance node")
        dealt = self._cards  # the public card is dealt last: never dealt at a chance node
        # Uniform over the cards left: draw a rank among them, then skip the dealt ones.
        k = int(rng.integers(self.game._deck_size - len(dealt)))
        for card in sorted(dealt):
            if card <= k:
                k += 1
        return k

    def _dealt(self) -> list[int]:
        return self._cards + ([self._public] if self._public >= 0 else [])

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._player != CHANCE:
            return []
        left = self.legal_actions()
        prob = 1.0 / len(left)
        return [(c, prob) for c in left]

    def _apply(self, action: int) -> None:
        self._history.append(action)
        if self._player == CHANCE:
            if len(self._cards) < self._n:
                self._cards.append(action)
                if len(self._cards) == self._n:
                    self._player = 0
            else:
                self._public = action
                self._round = 1
                self._start_round()
            return
        p = self._player
        self._betting[self._round] += (action,)
        contrib = self._contrib
        top = max(contrib)
        if action == FOLD:
            self._folded[p] = True
            self._pending -= 1
        elif action == CALL:
            contrib[p] = top
            self._pending -= 1
        else:
            contrib[p] = top + self._cfg.raise_sizes[self._round]
            self._raises += 1
            # Everyone else still in must answer the raise.
            self._pending = self._n - sum(self._folded) - 1
        if action == FOLD and self._n - sum(self._folded) == 1:  # only a fold can end it so
            self._finish()
        elif self._pending == 0:
            if self._round == 0:
                self._player = CHANCE
                self._closer = p
            else:
                self._finish()
        else:
            self._player = self._next_in_hand(p + 1)

    def _start_round(self) -> None:
        self._raises = 0
        self._pending = self._n - sum(self._folded)
        after_closer = self._cfg.second_round_opener == "after_closer"
        self._player = self._next_in_hand(self._closer + 1 if after_closer else 0)

    def _next_in_hand(self, seat: int) -> int:
        for k in range(self._n):
            q = (seat + k) % self._n
            if not self._folded[q]:
                return q
        raise AssertionError("no player left in the hand")

    def _finish(self) -> None:
        self._over = True
        self._player = TERMINAL

    def hand_strength(self, player: int) -> int:
        """Showdown strength: pairs above every unpaired hand, then rank."""
        rank = self._cards[player] // self._cfg.num_suits
        paired = self._public >= 0 and rank == self._public // self._cfg.num_suits
        return rank + (self._cfg.num_ranks if paired else 0)

    def returns(self) -> list[float]:
        if not self._over:
            return [0.0] * self._n
        folded, contrib = self._folded, self._contrib
        alive = [p for p in range(self._n) if not folded[p]]
        if len(alive) > 1:  # showdown: hand_strength of each player left, inlined
            cfg, cards = self._cfg, self._cards
            suits, ranks = cfg.num_suits, cfg.num_ranks
            board = self._public // suits
            strength = [cards[p] // suits for p in alive]
            strength = [r + ranks if r == board else r for r in strength]
            best = max(strength)
            alive = [p for p, s in zip(alive, strength) if s == best]
        share = sum(contrib) / len(alive)
        return [(share if p in alive else 0.0) - contrib[p] for p in range(self._n)]

    def information_state_key(self, player: int | None = None) -> tuple[Any, ...]:
        p = self._player if player is None else player
        if not 0 <= p < self._n:
            p = self._player_or_current(player)  # raises, naming the seats
        cards, betting = self._cards, self._betting
        card = cards[p] if p < len(cards) else -1
        return (p, card, self._public, betting[0], betting[1])

    def information_state_tensor(self, player: int | None = None) -> np.ndarray:
        key = self.information_state_key(player)
        p = key[0]
        # The tensor is a function of the information state, and Leduc has few of them: envs
        # ask for one every step, so each is built once per game and copied out after.
        cache = self.game._tensor_cache
        cached = cache.get(key)
        if cached is None:
            cached = self._build_tensor(p)
            if len(cache) < _TENSOR_CACHE_SIZE:
                cache[key] = cached
        return cached.copy()

    def _build_tensor(self, p: int) -> np.ndarray:
        game = self.game
        t = game.information_state_layout.new()
        o = game._offsets
        t[o["player"] + p] = 1.0
        if p < len(self._cards):
            card = self._cards[p]
            t[o["private_card"] + card] = 1.0
            t[o["private_rank"] + card // self._cfg.num_suits] = 1.0
        if self._public >= 0:
            t[o["public_card"] + self._public] = 1.0
            t[o["public_rank"] + self._public // self._cfg.num_suits] = 1.0
        t[o["round"] + self._round] = 1.0
        scale = 1.0 / game._max_contribution
        for q in range(self._n):
            t[o["contributions"] + q] = self._contrib[q] * scale
        for r in (0, 1):
            base = o[f"betting_round_{r}"]
            for i, a in enumerate(self._betting[r]):
                t[base + 3 * i + a] = 1.0
        return t

    def public_state(self) -> dict[str, Any]:
        return {
            "pot": sum(self._contrib),
            "contributions": list(self._contrib),
            "public_cards": [self._public] if self._public >= 0 else [],
            "betting": [[_ACTION_NAMES[a] for a in r] for r in self._betting[: self._round + 1]],
            "round": self._round,
            "folded": list(self._folded),
        }

    def private_cards(self) -> list[list[int]]:
        return [[self._cards[p]] if p < len(self._cards) else [] for p in range(self._n)]

    def history(self) -> list[int]:
        return list(self._history)

    def clone(self) -> LeducState:
        c = LeducState.__new__(LeducState)
        c.game = self.game
        c._cfg = self._cfg
        c._n = self._n
        c._cards = list(self._cards)
        c._public = self._public
        c._round = self._round
        c._contrib = list(self._contrib)
        c._folded = list(self._folded)
        c._pending = self._pending
        c._player = self._player
        c._raises = self._raises
        c._betting = list(self._betting)  # tuples: shared, never mutated
        c._history = list(self._history)
        c._over = self._over
        c._closer = self._closer
        return c


@register_game
class LeducHoldem(Game):
    """Leduc hold'em and its variants (Southey et al. 2005; OpenSpiel's ``leduc_poker``).

    Actions: 0 fold, 1 check/call, 2 bet/raise. Information-state tensor layout for the default
    game (generated from the declaration in the code; sizes scale with the parameters):

    {layout}
    """

    name = "leduc_holdem"
    config_class = LeducConfig
    config: LeducConfig
    game_type = GameType(
        min_players=2, max_players=MAX_PLAYERS,
        array_backend="pokerzoo.envs.vector_backends:LeducArrays",
    )

    def __init__(self, config: LeducConfig | None = None, **params: Any) -> None:
        super().__init__(config, **params)
        cfg = self.config
        # Enough action slots for the longest round: every raise answered by everyone else.
        self._slots_per_round = (cfg.raises_bound() + 1) * cfg.num_players
        self._max_contribution = cfg.max_contribution()
        self._initial_contrib = cfg.initial_contributions()
        # The rules' limits as plain attributes, for the states' hot paths: raises allowed per
        # round, and per round the highest contribution from which a raise stays within
        # bet_cap (a raise from top reaches top + raise_sizes[round]).
        self._deck_size = cfg.deck_size
        self._fold_unopposed = cfg.fold_unopposed
        max_raises = cfg.max_raises_per_round
        self._max_raises = max_raises if max_raises is not None else 1 << 62
        cap = cfg.bet_cap * cfg.ante if cfg.bet_cap is not None else 1 << 62
        self._raise_room = tuple(cap - size for size in cfg.raise_sizes)
        self._layout = TensorLayout(_layout_fields(cfg, self._slots_per_round))
        self._offsets = {f.name: self._layout.slice(f.name).start for f in self._layout.fields}
        self._tensor_cache: dict[Hashable, np.ndarray] = {}

    def __getstate__(self) -> dict[str, Any]:
        # The tensor cache is rebuilt on demand; pickles stay small.
        return {**self.__dict__, "_tensor_cache": {}}

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def num_distinct_actions(self) -> int:
        return 3

    @property
    def max_game_length(self) -> int:
        return self.config.num_players + 1 + 2 * self._slots_per_round

    @property
    def information_state_layout(self) -> TensorLayout:
        return self._layout

    @property
    def chip_unit(self) -> float:
        """The big blind where the game has blinds (RLCard's Leduc: 2), else the ante."""
        return float(self.config.big_blind)

    def new_initial_state(self) -> LeducState:
        return LeducState(self)

    def estimated_tree_size(self, limit: int) -> int:
        """Exact: the betting does not depend on the cards (see ``count_histories``)."""
        return count_histories(self, limit)

    def action_to_string(self, action: int, state: State | None = None) -> str:
        if state is not None and state.is_chance_node():
            return f"deal {self.card_to_string(action)}"
        return _ACTION_NAMES.get(action, f"action {action}")

    def card_to_string(self, card: int) -> str:
        ranks = "JQKA23456789T"
        rank = card // self.config.num_suits
        name = ranks[rank] if rank < len(ranks) else f"R{rank}"
        suit = card % self.config.num_suits
        return name + ("shdc"[suit] if self.config.num_suits <= 4 else str(suit))


def _layout_fields(cfg: LeducConfig, slots: int) -> list[Field]:
    return [
        Field("player", cfg.num_players, "one-hot: the observing player's seat"),
        Field("private_card", cfg.deck_size, "one-hot: the observer's card"),
        Field("private_rank", cfg.num_ranks, "one-hot: the rank of the observer's card"),
        Field("public_card", cfg.deck_size, "one-hot: the public card (zeros before the flop)"),
        Field("public_rank", cfg.num_ranks, "one-hot: the rank of the public card"),
        Field("round", 2, "one-hot: the current betting round"),
        Field("contributions", cfg.num_players, "chips each seat put in / most a seat can put in"),
        Field("betting_round_0", 3 * slots, "per action slot of round 1: one-hot fold/call/raise"),
        Field("betting_round_1", 3 * slots, "per action slot of round 2: one-hot fold/call/raise"),
    ]


LeducHoldem.__doc__ = (LeducHoldem.__doc__ or "").replace(
    "{layout}",
    TensorLayout(_layout_fields(LeducConfig(), (LeducConfig().raises_bound() + 1) * 2))
    .table()
    .replace("\n", "\n    "),
)
