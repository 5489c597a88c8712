"""Kuhn poker for 2 or more players, with OpenSpiel's rules, actions and tree.

Each player antes 1 and is dealt one card from a deck of ``num_players + 1`` cards (0 lowest).
Players act in turn: pass (0) or bet (1). Once someone bets, every other player gets exactly one
more turn, going around the table from the bettor: bet (call) or pass (fold). The pot goes to the
highest card among those who bet, or, if nobody bet, among everyone.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import (
    CHANCE,
    TERMINAL,
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

PASS, BET = 0, 1
MAX_PLAYERS = 10


@dataclass(frozen=True)
class KuhnConfig(GameConfig):
    """Parameters of Kuhn poker."""

    num_players: int = 2
    """Number of players, 2 to ``MAX_PLAYERS`` (10, as OpenSpiel); the deck has
    ``num_players + 1`` cards."""

    def __post_init__(self) -> None:
        self._set("num_players", check_int("num_players", self.num_players, 2, MAX_PLAYERS))


class KuhnState(State):
    """A Kuhn poker history."""

    __slots__ = ("game", "_cards", "_bets", "_actions", "_first_bettor", "_n")

    def __init__(self, game: KuhnPoker) -> None:
        self.game = game
        self._n = game.num_players
        self._cards: list[int] = []
        self._actions: list[int] = []
        self._bets = [0] * self._n
        self._first_bettor = -1

    def current_player(self) -> int:
        if len(self._cards) < self._n:
            return CHANCE
        if self._finished():
            return TERMINAL
        # Turns go round the table; after a bet each other player gets exactly one more turn.
        return len(self._actions) % self._n

    def _finished(self) -> bool:
        if self._first_bettor < 0:
            return len(self._actions) == self._n
        return len(self._actions) == self._first_bettor + self._n

    def legal_actions(self, player: int | None = None) -> list[int]:
        p = self.current_player()
        if p == TERMINAL or (player is not None and player != p):
            return []
        if p == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        return [PASS, BET]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE:
            return []
        remaining = [c for c in range(self._n + 1) if c not in self._cards]
        prob = 1.0 / len(remaining)
        return [(c, prob) for c in remaining]

    def sample_chance_outcome(self, rng: np.random.Generator) -> int:
        if self.current_player() != CHANCE:
            raise ConfigError(f"{self} is not a chance node")
        k = int(rng.integers(self._n + 1 - len(self._cards)))
        for card in sorted(self._cards):
            if card <= k:
                k += 1
        return k

    def _apply(self, action: int) -> None:
        if len(self._cards) < self._n:
            self._cards.append(action)
            return
        player = self.current_player()
        if action == BET:
            self._bets[player] = 1
            if self._first_bettor < 0:
                self._first_bettor = player
        self._actions.append(action)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._n
        in_hand = [p for p in range(self._n) if self._bets[p] or self._first_bettor < 0]
        winner = max(in_hand, key=lambda p: self._cards[p])
        contributions = [1 + b for b in self._bets]
        pot = sum(contributions)
        return [float((pot if p == winner else 0) - contributions[p]) for p in range(self._n)]

    def information_state_key(self, player: int | None = None) -> Hashable:
        p = self._player_or_current(player)
        card = self._cards[p] if p < len(self._cards) else -1
        return (p, card, tuple(self._actions))

    def information_state_tensor(self, player: int | None = None) -> np.ndarray:
        p = self._player_or_current(player)
        layout = self.game.information_state_layout
        t = layout.new()
        t[layout.slice("player").start + p] = 1.0
        if p < len(self._cards):
            t[layout.slice("private_card").start + self._cards[p]] = 1.0
        base = layout.slice("betting").start
        for i, a in enumerate(self._actions):
            t[base + 2 * i + a] = 1.0
        return t

    def public_state(self) -> dict[str, Any]:
        return {
            "pot": self._n + sum(self._bets),
            "contributions": [1 + b for b in self._bets],
            "public_cards": [],
            "betting": [[self.game.action_to_string(a) for a in self._actions]],
            "round": 0,
        }

    def history(self) -> list[int]:
        return self._cards + self._actions

    def private_cards(self) -> list[list[int]]:
        return [[self._cards[p]] if p < len(self._cards) else [] for p in range(self._n)]

    def clone(self) -> KuhnState:
        c = KuhnState.__new__(KuhnState)
        c.game = self.game
        c._n = self._n
        c._cards = list(self._cards)
        c._actions = list(self._actions)
        c._bets = list(self._bets)
        c._first_bettor = self._first_bettor
        return c


@register_game
class KuhnPoker(Game):
    """Kuhn poker (Kuhn 1950), N-player version as in OpenSpiel's ``kuhn_poker(players=N)``.

    Information-state tensor layout (generated from the declaration in the code):

    {layout}
    """

    name = "kuhn_poker"
    config_class = KuhnConfig
    config: KuhnConfig
    game_type = GameType(
        min_players=2, max_players=MAX_PLAYERS,
        array_backend="pokerzoo.envs.vector_backends:KuhnArrays",
    )

    def __init__(self, config: KuhnConfig | None = None, **params: Any) -> None:
        super().__init__(config, **params)
        n = self.config.num_players
        self._layout = TensorLayout(_layout_fields(n))

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def num_distinct_actions(self) -> int:
        return 2

    @property
    def max_game_length(self) -> int:
        return 3 * self.config.num_players - 1

    @property
    def information_state_layout(self) -> TensorLayout:
        return self._layout

    @property
    def chip_unit(self) -> float:
        """Kuhn poker has no blinds; its unit is the one-chip ante."""
        return 1.0

    def new_initial_state(self) -> KuhnState:
        return KuhnState(self)

    def estimated_tree_size(self, limit: int) -> int:
        """Exact: the betting does not depend on the cards (see ``count_histories``)."""
        return count_histories(self, limit)

    def action_to_string(self, action: int, state: State | None = None) -> str:
        if state is not None and state.is_chance_node():
            return f"deal card {action}"
        return {PASS: "pass", BET: "bet"}.get(action, f"action {action}")

    def card_to_string(self, card: int) -> str:
        """The papers' names J, Q, K (and A with 3 players); bigger decks keep the numbers."""
        names = "JQKA"
        return names[card] if self.config.num_players <= 3 and 0 <= card < 4 else str(card)


def _layout_fields(n: int) -> list[Field]:
    return [
        Field("player", n, "one-hot: the observing player's seat"),
        Field("private_card", n + 1, "one-hot: the observer's card (0 is the lowest)"),
        Field("betting", 2 * (2 * n - 1), "per betting turn in order, one-hot pass / bet"),
    ]


KuhnPoker.__doc__ = (KuhnPoker.__doc__ or "").replace(
    "{layout}", TensorLayout(_layout_fields(2)).table().replace("\n", "\n    ")
)
