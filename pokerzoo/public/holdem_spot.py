"""A heads-up hold'em spot as users write it, and its public tree.

A :class:`HoldemSpot` holds a board of 3, 4 or 5 cards, the starting pot, the effective stack,
both ranges in PioSOLVER's syntax (player 0 is out of position and acts first on every
street), bet and raise sizes per street and player, donk sizes and the tree options of
:mod:`pokerzoo.public.bet_sizes`. Every field is checked on construction; a bad one raises a
one-line :class:`~pokerzoo.errors.ConfigError` saying what is allowed.

:func:`build_spot_tree` lays the spot out through :class:`~pokerzoo.public.tree.PublicTreeBuilder`:
the betting of each street (``bet_sizes.Betting``), a chance node after each street that
ends in a call or two checks (every card off the board, weight 1/45 on the turn and 1/44 on
the river, see :mod:`pokerzoo.public.holdem_terminal`), fold and showdown terminals. After an
all-in and call the remaining cards are dealt without betting. Suit isomorphism of chance
cards is not used: every card is its own child.

Chips at the root: each player has put in half the starting pot (``contrib[0] = pot / 2``), so
a value in the tree's convention plus ``pot / 2`` is the share of the pot a player ends with,
the "EV" solvers report.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError, TreeTooLargeError
from pokerzoo.games.holdem.cards import card_to_string, cards_from_string
from pokerzoo.public.bet_sizes import Betting, StreetSizes, TreeOptions, parse_sizes
from pokerzoo.public.holdem_terminal import HoldemTerminals, chance_weight
from pokerzoo.public.ranges import COMBO_INDEX, combo_name, parse_range, range_combos
from pokerzoo.public.tree import FOLD, SHOWDOWN, PublicTree, PublicTreeBuilder

SizePair = tuple[str, str]
"""``(bet sizes, raise sizes)`` of one player on one street, e.g. ``("52%", "45%")``."""
STREET_NAMES = ("flop", "turn", "river")
DEFAULT_MAX_NODES = 5_000_000
"""Most public nodes :func:`build_spot_tree` lays out before refusing (about 1 KB each while
building)."""


def _size_pairs(name: str, value: object) -> tuple[SizePair, SizePair]:
    """``"52%"`` (bets of both, no raises), ``("52%", "45%")`` (both players) or
    ``(("52%", "45%"), ("33%", "2.5x"))`` (per player) -> one pair per player."""
    if isinstance(value, str):
        pair: Any = (value, "")
        return (pair, pair)
    if isinstance(value, Sequence) and len(value) == 2:
        if all(isinstance(v, str) for v in value):
            return ((value[0], value[1]), (value[0], value[1]))
        if all(isinstance(v, Sequence) and not isinstance(v, str) and len(v) == 2
               and all(isinstance(s, str) for s in v) for v in value):
            return ((value[0][0], value[0][1]), (value[1][0], value[1][1]))
    raise ConfigError(
        f"{name} must be a size string ('52%'), a (bets, raises) pair of strings, or one such "
        f"pair per player, got {value!r}"
    )


@dataclass(frozen=True)
class HoldemSpot:
    """A heads-up postflop spot (amounts in integer chips); player 0 is out of position."""

    board: str
    """3, 4 or 5 cards, e.g. ``"QsJh2h"``."""
    starting_pot: int
    effective_stack: int
    oop_range: str
    ip_range: str
    flop_sizes: Any = ("", "")
    """Sizes on the flop: ``"52%"``, ``("52%", "45%")`` (bets, raises) or one pair per player."""
    turn_sizes: Any = ("", "")
    river_sizes: Any = ("", "")
    turn_donk: str | None = None
    """Sizes of player 0 leading the turn after calling the flop (None: its usual bet sizes)."""
    river_donk: str | None = None
    add_allin_threshold: float = 0.0
    force_allin_threshold: float = 0.0
    merging_threshold: float = 0.0
    raise_cap: int | None = None
    _parsed: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.board, str):
            raise ConfigError(f"board must be a card string such as 'QsJh2h', got {self.board!r}")
        board = cards_from_string(self.board)
        if not 3 <= len(board) <= 5 or len(set(board)) != len(board):
            raise ConfigError(f"board must hold 3, 4 or 5 different cards, got {self.board!r}")
        for name in ("starting_pot", "effective_stack"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ConfigError(f"{name} must be an integer number of chips, got {v!r}")
        if self.starting_pot <= 0:
            raise ConfigError(f"starting_pot must be > 0 chips, got {self.starting_pot}")
        if self.effective_stack < 0:
            raise ConfigError(f"effective_stack must be >= 0 chips, got {self.effective_stack}")
        weights = []
        for name in ("oop_range", "ip_range"):
            try:
                weights.append(parse_range(getattr(self, name), board))
            except ConfigError as err:
                raise ConfigError(f"{name}: {err}") from None
        sizes = []
        for street in STREET_NAMES:
            pairs = _size_pairs(f"{street}_sizes", getattr(self, f"{street}_sizes"))
            try:
                sizes.append(tuple(StreetSizes.parse(b, r) for b, r in pairs))
            except ConfigError as err:
                raise ConfigError(f"{street}_sizes: {err}") from None
        donks = []
        for name in ("turn_donk", "river_donk"):
            text = getattr(self, name)
            donks.append(None if text is None else parse_sizes(text, False))
        options = TreeOptions(self.add_allin_threshold, self.force_allin_threshold,
                              self.merging_threshold, self.raise_cap)
        self._parsed.update(board=tuple(board), weights=tuple(weights), sizes=tuple(sizes),
                            donk=(None, donks[0], donks[1]), options=options)

    @property
    def board_cards(self) -> tuple[int, ...]:
        return self._parsed["board"]

    @property
    def options(self) -> TreeOptions:
        return self._parsed["options"]

    def weights(self, player: int) -> np.ndarray:
        """The range of ``player`` as weights over the 1,326 combos (board combos 0)."""
        return self._parsed["weights"][player]

    @property
    def street(self) -> int:
        """0 flop, 1 turn, 2 river: the street the spot starts on."""
        return len(self.board_cards) - 3

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HoldemSpot:
        """A spot from a mapping (a parsed TOML file): the field names, with the sizes also
        accepted as tables ``{oop = ["52%", "45%"], ip = [...]}``."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"a spot must be a table of fields, got {type(data).__name__}")
        names = {f.name for f in fields(cls) if f.init}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ConfigError(f"unknown spot field(s) {unknown}; allowed: {sorted(names)}")
        missing = sorted(n for n in ("board", "starting_pot", "effective_stack", "oop_range",
                                     "ip_range") if n not in data)
        if missing:
            raise ConfigError(f"spot lacks field(s) {missing}")
        kwargs = dict(data)
        for street in STREET_NAMES:
            value = kwargs.get(f"{street}_sizes")
            if isinstance(value, Mapping):
                if set(value) != {"oop", "ip"}:
                    raise ConfigError(f"{street}_sizes as a table needs keys 'oop' and 'ip'")
                kwargs[f"{street}_sizes"] = (tuple(value["oop"]), tuple(value["ip"]))
            elif isinstance(value, list):
                kwargs[f"{street}_sizes"] = tuple(
                    tuple(v) if isinstance(v, list) else v for v in value)
        return cls(**kwargs)

    @classmethod
    def from_toml(cls, path: str | Path) -> HoldemSpot:
        """A spot from a TOML file (top-level keys, or a ``[spot]`` table)."""
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except OSError as err:
            raise ConfigError(f"cannot read spot file {str(path)!r}: {err.strerror}") from None
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"spot file {str(path)!r} is not valid TOML: {err}") from None
        return cls.from_dict(data.get("spot", data))


@dataclass
class _Walk:
    spot: HoldemSpot
    builder: PublicTreeBuilder
    terminals: HoldemTerminals
    max_nodes: int
    count: int = 0

    def _tick(self) -> None:
        self.count += 1
        if self.count > self.max_nodes:
            raise TreeTooLargeError(
                f"the spot's public tree has more than {self.max_nodes:,} nodes; use fewer "
                "sizes, a raise cap, a later street or a larger max_nodes",
                estimated_nodes=self.count,
            )

    def _amounts(self, state: Betting) -> tuple[float, tuple[float, float]]:
        half = self.spot.starting_pot / 2.0
        contrib = (half + state.contrib[0], half + state.contrib[1])
        return contrib[0] + contrib[1], contrib

    def street(self, parent: int, label: str, card: int, weight: float, state: Betting,
               board: tuple[int, ...]) -> None:
        """A decision node and, below it, the rest of its street."""
        self._tick()
        pot, contrib = self._amounts(state)
        node = self.builder.add_decision(parent, label, state.actor, pot, contrib, board,
                                         card=card, weight=weight)
        for action in state.actions(self.spot.options):
            after = state.after(action)
            if after.closed:
                self.end(node, action.label, -1, 1.0, after, board, folder=state.actor)
            else:
                self.street(node, action.label, -1, 1.0, after, board)

    def end(self, parent: int, label: str, card: int, weight: float, state: Betting,
            board: tuple[int, ...], folder: int) -> None:
        """A closed street: fold, showdown, or a chance node dealing the next card."""
        self._tick()
        pot, contrib = self._amounts(state)
        b = self.builder
        if state.closed == "fold":
            b.add_terminal(parent, label, FOLD, pot, contrib, board, folder=folder,
                           card=card, weight=weight)
            return
        if len(board) == 5:
            b.add_terminal(parent, label, SHOWDOWN, pot, contrib, board,
                           data=self.terminals.showdown_board(board), card=card, weight=weight)
            return
        node = b.add_chance(parent, label, pot, contrib, board, card=card, weight=weight)
        w = chance_weight(len(board))
        street = len(board) - 2  # the street being dealt: 1 turn, 2 river
        parsed = self.spot._parsed
        for c in range(52):
            if c in board:
                continue
            nb = board + (c,)
            if state.all_in():
                self.end(node, card_to_string(c), c, w, state, nb, folder)
            else:
                nxt = Betting.start(
                    self.spot.starting_pot, self.spot.effective_stack, street,
                    parsed["sizes"][street], parsed["donk"][street], state.contrib,
                    state.oop_called,
                )
                self.street(node, card_to_string(c), c, w, nxt, nb)


def build_spot_tree(spot: HoldemSpot, max_nodes: int = DEFAULT_MAX_NODES) -> PublicTree:
    """The public tree of a spot, with :class:`HoldemTerminals` attached (refused with
    :class:`TreeTooLargeError` past ``max_nodes``)."""
    if not isinstance(spot, HoldemSpot):
        raise ConfigError(f"spot must be a HoldemSpot, got {type(spot).__name__}")
    hands, reach, names = [], [], []
    for p in range(2):
        cards, weights = range_combos(spot.weights(p))
        hands.append(cards.astype(np.int64))
        reach.append(weights)
        idx = np.flatnonzero(spot.weights(p) > 0)
        names.append([combo_name(int(i)) for i in idx])
    builder = PublicTreeBuilder(hands, reach, num_cards=52,
                                starting_pot=float(spot.starting_pot), hand_names=names)
    terminals = HoldemTerminals((hands[0], hands[1]))
    walk = _Walk(spot, builder, terminals, max_nodes)
    parsed = spot._parsed
    street = spot.street
    start = Betting.start(spot.starting_pot, spot.effective_stack, street,
                          parsed["sizes"][street], parsed["donk"][street])
    walk.street(-1, "", -1, 1.0, start, spot.board_cards)
    tree, _ = builder.build(terminals)
    terminals.attach(tree)
    return tree


def combo_indices(tree: PublicTree, player: int) -> np.ndarray:
    """The 0..1325 combo index of each of ``player``'s hands in a spot's tree."""
    h = tree.hands[player]
    return COMBO_INDEX[h[:, 0], h[:, 1]].astype(np.int64)


__all__ = ["DEFAULT_MAX_NODES", "HoldemSpot", "STREET_NAMES", "build_spot_tree", "combo_indices"]
