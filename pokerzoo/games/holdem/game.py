"""Limit and no-limit Texas hold'em for 2 to 6 players: the games ``limit_holdem`` and
``no_limit_holdem``.

Rules are standard (see ``holdem_config`` for seats and blinds, ``holdem_state`` for betting,
side pots and showdown); every amount is an integer number of chips and ``returns()`` are chips
won or lost. Modules: ``holdem_cards`` (cards, hand evaluation), ``holdem_config``
(parameters), ``holdem_state`` (the rules), ``holdem_obs`` (tensors and the public view).

Action ids are fixed for a given config, so action masks have a constant width:

=========  =====================================  ==========================================
id         limit_holdem                           no_limit_holdem
=========  =====================================  ==========================================
0          fold (only when facing a bet)          fold (only when facing a bet)
1          check / call                           check / call
2          bet / raise one fixed bet              bet / raise ``bet_fractions[0]`` of the pot
2 + i      -                                           bet / raise ``bet_fractions[i]`` of the pot
2 + k      -                                           all-in (``k = len(bet_fractions)``)
=========  =====================================  ==========================================

A pot-fraction raise below the minimum raise is raised to the minimum; a size that would put
the player all-in (or beyond) is not offered (the all-in action is), and a size equal to a
smaller one's is not offered twice. Chance actions are card ints 0..51.

>>> from pokerzoo.games import load_game
>>> game = load_game("no_limit_holdem")
>>> state = game.new_initial_state()
>>> for card in [51, 47, 0, 5]:  # As Ks to seat 0 (button, small blind), 2c 3d to seat 1
...     state.apply_action(card)
>>> state.current_player(), state.legal_actions()
(0, [0, 1, 2, 3, 4])
>>> state.apply_action(4)  # all-in
>>> state.apply_action(0)  # the big blind folds
>>> state.returns()
[100.0, -100.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerzoo.games.base import Game, GameType, State, TensorLayout, count_histories
from pokerzoo.games.holdem.cards import card_to_string
from pokerzoo.games.holdem.config import (
    MAX_PLAYERS,
    HoldemConfig,
    LimitHoldemConfig,
    NoLimitHoldemConfig,
)
from pokerzoo.games.holdem.observation import AmountBounds, history_slots, holdem_layout
from pokerzoo.games.holdem.state import CALL, FOLD, HoldemState
from pokerzoo.games.registry import register_game

ARRAY_BACKEND = "pokerzoo.games.holdem.arrays:HoldemArrays"
"""The batched rules of both hold'em games (``pokerzoo.games.holdem.arrays``)."""


def holdem_type(phh_variant: str) -> GameType:
    """What a hold'em game is: 2 to 6 seats, LBR for heads-up, PHH, charts, array rules."""
    return GameType(
        min_players=2, max_players=MAX_PLAYERS, lbr=True, phh_variant=phh_variant,
        hole_card_charts=True, array_backend=ARRAY_BACKEND,
    )


__all__ = [
    "ARRAY_BACKEND",
    "CALL",
    "FOLD",
    "HoldemGame",
    "HoldemState",
    "LimitHoldem",
    "LimitHoldemConfig",
    "NoLimitHoldem",
    "NoLimitHoldemConfig",
]


class HoldemGame(Game):
    """Shared machinery of the two hold'em games (not registered itself)."""

    config: HoldemConfig
    is_limit: bool = False

    def __init__(self, config: HoldemConfig | None = None, **params: Any) -> None:
        super().__init__(config, **params)
        cfg = self.config
        n = cfg.num_players
        # Precomputed once so the hot paths of the state read plain attributes.
        self.starting_stacks: tuple[int, ...] = cfg.seat_stacks()
        self.button = 0 if n == 2 else n - 1
        self.preflop_first = 2 % n
        self.postflop_first = (self.button + 1) % n
        # Split pots give the odd chip to the first winner left of the button.
        self.odd_chip_order = [(self.postflop_first + k) % n for k in range(n)]
        self.raise_cap = getattr(cfg, "raise_cap", 0)
        self.bet_fractions: tuple[float, ...] = getattr(cfg, "bet_fractions", ())
        bb = cfg.big_blind
        self.bet_sizes = (bb, bb, 2 * bb, 2 * bb)
        # Tensors give amounts in units of 100 big blinds (a default stack).
        self.tensor_amount_scale = 1.0 / (100.0 * bb)
        self._num_actions = 3 if self.is_limit else 3 + len(self.bet_fractions)
        self.all_in_action = -1 if self.is_limit else 2 + len(self.bet_fractions)
        self.history_slots = history_slots(n, self.is_limit, self.raise_cap)
        self._layout = holdem_layout(
            n, self._num_actions, self.history_slots, self._amount_bounds()
        )
        self.layout_offsets = {
            f.name: self._layout.slice(f.name).start for f in self._layout.fields
        }

    def _amount_bounds(self) -> AmountBounds:
        """Bounds of the tensor's amount entries, from the stacks and the forced bets."""
        scale = np.float32(self.tensor_amount_scale)
        # The same float32 products the tensor writes, so rounding cannot lift an entry above.
        with np.errstate(over="ignore"):
            stacks = np.asarray(self.starting_stacks, dtype=np.float64).astype(np.float32)
            seat = tuple(float(x) for x in stacks * scale)
            pot = float(np.float32(float(sum(self.starting_stacks))) * scale)
        cfg = self.config
        first_pot = cfg.small_blind + cfg.big_blind + cfg.num_players * cfg.ante
        return AmountBounds(pot, seat, max(self.starting_stacks) / first_pot)

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def num_distinct_actions(self) -> int:
        return self._num_actions

    @property
    def max_game_length(self) -> int:
        n = self.num_players
        if self.is_limit:
            per_round = (self.raise_cap + 1) * n
        else:
            # Every raise adds at least a big blind, so a round has at most this many raises.
            raises = max(self.starting_stacks) // self.config.big_blind + 1
            per_round = n + raises * n
        return 2 * n + 5 + 4 * per_round

    @property
    def information_state_layout(self) -> TensorLayout:
        return self._layout

    @property
    def chip_unit(self) -> float:
        """The big blind: the unit of bb/100 and mbb/g."""
        return float(self.config.big_blind)

    def new_initial_state(self) -> HoldemState:
        return HoldemState(self)

    def estimated_tree_size(self, limit: int) -> int:
        """Exact up to ``limit`` (the betting does not depend on the cards, see
        ``count_histories``); the deals alone put every hold'em tree above any usable limit,
        which this finds out in microseconds."""
        return count_histories(self, limit)

    def card_to_string(self, card: int) -> str:
        return card_to_string(card)

    def action_to_string(self, action: int, state: State | None = None) -> str:
        if state is not None and state.is_chance_node():
            return f"deal {card_to_string(action)}"
        facing = False
        if isinstance(state, HoldemState) and state.current_player() >= 0:
            facing = state._max_bet > state._bets[state.current_player()]
        if action == FOLD:
            return "fold"
        if action == CALL:
            if state is None:
                return "check/call"
            return "call" if facing else "check"
        if self.is_limit and action == 2:
            return "bet/raise" if state is None else ("raise" if facing else "bet")
        if action == self.all_in_action:
            return "all-in"
        if 2 <= action < self.all_in_action:
            return f"bet/raise {self.bet_fractions[action - 2]:g} pot"
        return f"action {action}"


def _doc(cls: type[HoldemGame], config: HoldemConfig) -> None:
    game = cls(config)
    table = game.information_state_layout.table().replace("\n", "\n    ")
    cls.__doc__ = (cls.__doc__ or "").replace("{layout}", table)


@register_game
class LimitHoldem(HoldemGame):
    """Limit Texas hold'em, 2-6 players (``load_game("limit_holdem", num_players=6)``).

    Information-state tensor layout for two players (generated from the declaration):

    {layout}
    """

    name = "limit_holdem"
    config_class = LimitHoldemConfig
    config: LimitHoldemConfig
    game_type = holdem_type(phh_variant="FT")  # PokerKit's fixed-limit Texas hold'em
    is_limit = True


@register_game
class NoLimitHoldem(HoldemGame):
    """No-limit Texas hold'em, 2-6 players, with a pot-fraction action abstraction.

    Information-state tensor layout for two players and the default abstraction (generated
    from the declaration):

    {layout}
    """

    name = "no_limit_holdem"
    config_class = NoLimitHoldemConfig
    config: NoLimitHoldemConfig
    game_type = holdem_type(phh_variant="NT")  # PokerKit's no-limit Texas hold'em


_doc(LimitHoldem, LimitHoldemConfig())
_doc(NoLimitHoldem, NoLimitHoldemConfig())
