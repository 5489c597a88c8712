"""A heads-up hold'em spot as users write it, and its public tree.

A :class:`HoldemSpot` holds a board of 3, 4 or 5 cards, the starting pot, the effective stack,
both ranges in PioSOLVER's syntax (player 0 is out of position and acts first on every
street), bet and raise sizes per street and player, donk sizes and the tree options of
:mod:`pokerzoo.public.spots.bet_sizes`. Every field is checked on construction; a bad one raises a
one-line :class:`~pokerzoo.errors.ConfigError` saying what is allowed.

:func:`build_spot_tree` lays the spot out through
:class:`~pokerzoo.public.engine.tree_builder.PublicTreeBuilder`:
the betting of each street (``bet_sizes.Betting``), a chance node after each street that
ends in a call or two checks (every card off the board, weight 1/45 on the turn and 1/44 on
the river, see :mod:`pokerzoo.public.engine.holdem_terminal`), fold and showdown terminals. After an
all-in and call the remaining cards are dealt without betting. Suit isomorphism of chance
cards is used where the ranges allow it (``suit_isomorphism``, on by default): a card that a
suit swap fixing the board and both ranges maps onto a lower card is not dealt as its own
child; the lower card's child stands for it with each player's hands permuted (the tree's
``iso_*`` arrays; exact while the strategies are symmetric under the swap, which they stay
from a symmetric start because every update is symmetric too). The betting below a chance
node is the same whichever card comes, so it is walked once per distinct betting state (a
graph of 302 nodes on the benchmark flop) and the compiled
``tree_builder.expand_templates`` lays out the full tree from it and the boards' deals: the
benchmark flop's 511,606 nodes in 0.2-0.4 s (a recursive walk calling the builder per
node took 16-28 s), the same arrays.

Chips at the root: each player has put in half the starting pot (``contrib[0] = pot / 2``), so
a value in the tree's convention plus ``pot / 2`` is the share of the pot a player ends with,
the "EV" solvers report. A spot may start at a decision inside its first street
(``street_chips``, ``street_bets``, ``to_act``: facing a bet or raise, or after a check), what
re-solving from the current decision needs; the root's chips are then ``pot / 2`` plus each
player's street chips, and exploitability stays in % of ``starting_pot``.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError, PokerzooWarning, TreeTooLargeError
from pokerzoo.games.holdem.cards import card_to_string, cards_from_string
from pokerzoo.public.engine.holdem_terminal import (
    HoldemTerminals,
    board_mask,
    chance_weight,
    fold_reach,
    same_combo_index,
)
from pokerzoo.public.engine.tree import BOARD_SLOTS, CHANCE, DECISION, FOLD, SHOWDOWN, PublicTree
from pokerzoo.public.engine.tree_builder import (
    PublicTreeBuilder,
    expand_templates,
    first_seen,
    iso_arrays,
    iso_index_dtype,
)
from pokerzoo.public.spots.bet_sizes import Betting, StreetSizes, TreeOptions, parse_sizes
from pokerzoo.public.spots.ranges import (
    COMBO_CARDS,
    COMBO_INDEX,
    class_grid,
    combo_name,
    parse_range,
    range_combos,
)

SizePair = tuple[str, str]
"""``(bet sizes, raise sizes)`` of one player on one street, e.g. ``("52%", "45%")``."""
STREET_NAMES = ("flop", "turn", "river")
DEFAULT_MAX_NODES = 5_000_000
"""Most public nodes :func:`build_spot_tree` lays out before refusing (about 1 KB each while
building)."""


DEEP_STACK_WARN_RATIO = 1e3
"""Stacks per starting pot past which a spot is accepted with a :class:`PokerzooWarning`: the
regret methods' exploitability bound grows with the payoff range (the stack), so in % of the
pot the iterations a target needs grow like (stack / pot) squared; float64 regrets and sums do
not help (swapped in at 10^7 pots: 12.33% of the pot after 2,000 iterations, as in float32).
Measured on an all-in-only river spot, pot 100, exploitability after 20,000 iterations: 0.0068%
of the pot at 10^2 pots of stack, 0.024% at 10^3, 0.35% at 10^4, 1.3% at 10^5, 9.2% at 10^6,
11.9% at 10^7 (stalled)."""
DEEP_STACK_MAX_RATIO = 1e5
"""Stacks per starting pot past which a spot is refused (ConfigError): beyond it the solve
stays near 10% of the pot after 20,000 iterations (the measurements above)."""


def check_stack_depth(starting_pot: int, effective_stack: int,
                      warn_ratio: float | None = None, max_ratio: float | None = None) -> None:
    """Warn (PokerzooWarning) past ``warn_ratio`` and refuse (ConfigError) past ``max_ratio``
    stacks per starting pot (None: :data:`DEEP_STACK_WARN_RATIO`, :data:`DEEP_STACK_MAX_RATIO`)."""
    warn_at = DEEP_STACK_WARN_RATIO if warn_ratio is None else warn_ratio
    most = DEEP_STACK_MAX_RATIO if max_ratio is None else max_ratio
    ratio = effective_stack / starting_pot
    if ratio > most:
        raise ConfigError(f"effective_stack / starting_pot is {ratio:.3g}, more than "
                          f"{most:.3g}: the solve cannot converge that deep (its error grows "
                          f"with stack / pot); use a stack of at most {most:.3g} pots")
    if ratio > warn_at:
        warnings.warn(f"effective_stack / starting_pot is {ratio:.3g}, more than {warn_at:.3g}: "
                      "the solve converges slowly that deep (its error grows with stack / pot); "
                      "check its exploitability", PokerzooWarning, stacklevel=3)


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


def _short(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[:most] + "..."


def _check_pairs_exist(oop: np.ndarray, ip: np.ndarray, spot: HoldemSpot) -> None:
    """ConfigError when no hand of one range can face a hand of the other (every pair
    shares a card): the solver's values are per pair of hands and would divide by zero."""
    held = np.zeros(52)
    np.add.at(held, COMBO_CARDS[:, 0], ip)
    np.add.at(held, COMBO_CARDS[:, 1], ip)
    # ip weight of combos sharing a card with each combo (the same combo is counted twice)
    blocked = held[COMBO_CARDS[:, 0]] + held[COMBO_CARDS[:, 1]] - ip
    if not np.any((oop > 0) & (ip.sum() - blocked > 1e-12)):
        raise ConfigError(f"oop_range {_short(spot.oop_range)!r} and ip_range "
                          f"{_short(spot.ip_range)!r} share a card in every pair of hands on "
                          f"board {spot.board!r}; each range needs a hand that the other "
                          "does not block")


@dataclass(frozen=True)
class HoldemSpot:
    """A heads-up postflop spot (amounts in integer chips); player 0 is out of position."""

    board: str
    """3, 4 or 5 cards, e.g. ``"QsJh2h"``: the street the spot starts on (flop, turn, river)."""
    starting_pot: int
    """Chips in the pot at the start of the spot's street (> 0); exploitability is in % of it."""
    effective_stack: int
    """Chips each player has left behind at the start of the spot's street (>= 0)."""
    oop_range: str
    """The out-of-position player's (player 0's) range in PioSOLVER's syntax, e.g.
    ``"QQ+,AKs,T9s:0.5"``; combos touching the board are dropped."""
    ip_range: str
    """The in-position player's (player 1's) range, in the same syntax."""
    flop_sizes: Any = ("", "")
    """Sizes on the flop: ``"52%"`` (bets of both players, no raises), ``["52%", "45%"]``
    (bets, raises of both) or one pair per player (a table ``{oop = [...], ip = [...]}``)."""
    turn_sizes: Any = ("", "")
    """Sizes on the turn, in the forms of ``flop_sizes``."""
    river_sizes: Any = ("", "")
    """Sizes on the river, in the forms of ``flop_sizes``."""
    turn_donk: str | None = None
    """Sizes of player 0 leading the turn after calling the flop (None: its usual bet sizes)."""
    river_donk: str | None = None
    """Sizes of player 0 leading the river after calling the turn (None: its usual bet sizes)."""
    add_allin_threshold: float = 0.0
    """Add an all-in when it is at most this many pots (0: never; postflop-solver suggests
    1.5)."""
    force_allin_threshold: float = 0.0
    """Replace a bet by all-in when the stack left after the call is at most this fraction of
    the pot after the call (0: never; postflop-solver suggests 0.15)."""
    merging_threshold: float = 0.0
    """Drop a size within this relative distance of the next larger one, PioSOLVER's rule
    (0: never; postflop-solver suggests 0.1)."""
    raise_cap: int | None = None
    """Most bets plus raises per street (None: no cap but the stacks)."""
    suit_isomorphism: bool = True
    """Deal only one card of each set of cards that a suit swap fixing the board and both
    ranges maps onto each other; the others reuse its subtree with the hands permuted."""
    street_chips: tuple[int, int] = (0, 0)
    """Chips each player (out of position first) has put in on the spot's first street
    before the root, beyond ``starting_pot``: a spot starting at a decision inside a street
    (facing a bet or raise). The root's pot is ``starting_pot`` plus both."""
    street_bets: int = 0
    """Bets and raises made on the spot's first street before the root (``raise_cap`` counts
    them)."""
    to_act: int = 0
    """The player acting at the root (1 with no chips in: out of position checked)."""
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
        check_stack_depth(self.starting_pot, self.effective_stack)
        weights = []
        for name in ("oop_range", "ip_range"):
            try:
                weights.append(parse_range(getattr(self, name), board))
            except ConfigError as err:
                raise ConfigError(f"{name}: {err}") from None
        _check_pairs_exist(weights[0], weights[1], self)
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
        if not isinstance(self.suit_isomorphism, bool):
            raise ConfigError(f"suit_isomorphism must be true or false, got "
                              f"{self.suit_isomorphism!r}")
        options = TreeOptions(self.add_allin_threshold, self.force_allin_threshold,
                              self.merging_threshold, self.raise_cap)
        chips = self.street_chips
        if not isinstance(chips, Sequence) or isinstance(chips, str) or len(chips) != 2:
            raise ConfigError(f"street_chips must be two chip counts (out of position, in "
                              f"position), got {chips!r}")
        object.__setattr__(self, "street_chips", tuple(chips))  # a TOML / JSON list
        donk = (None, donks[0], donks[1])
        first = len(board) - 3  # the street the spot starts on
        oop, ip = sizes[first]
        root = Betting.resume(self.starting_pot, self.effective_stack, first, (oop, ip),
                              donk[first], self.street_chips, self.street_bets, self.to_act)
        self._parsed.update(board=tuple(board), weights=tuple(weights), sizes=tuple(sizes),
                            donk=donk, options=options, root=root)

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

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain data (``from_dict`` reads it back)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.init}

    @classmethod
    def from_toml(cls, path: str | Path) -> HoldemSpot:
        """A spot from a TOML file (top-level keys, or a ``[spot]`` table; its ``[locks]`` are
        read by ``pokerzoo.public.spots.spot_locks.spot_file_locks``); the file is read and
        type-checked by :func:`pokerzoo.public.spots.spot_file.read_spot_file`."""
        from pokerzoo.public.spots.spot_file import read_spot_file

        table = read_spot_file(path)
        return cls.from_dict({k: v for k, v in table.items() if k != "locks"})


def read_spot_toml(path: str | Path) -> dict[str, Any]:
    """The parsed TOML of a spot file, read in checked steps
    (:func:`pokerzoo.public.spots.spot_file.read_spot_document`): ConfigError (one line) for a file
    that is not a regular file, too large, not UTF-8 or not TOML."""
    from pokerzoo.public.spots.spot_file import read_spot_document

    return read_spot_document(path)


def _suit_maps() -> list[np.ndarray]:
    """The 23 suit permutations other than the identity, as card maps ``[52]``."""
    out = []
    for perm in itertools.permutations(range(4)):
        if perm != (0, 1, 2, 3):
            out.append(np.array([4 * (c // 4) + perm[c % 4] for c in range(52)], dtype=np.int64))
    return out


_SUIT_MAPS = _suit_maps()


def _canonical_cards(spot: HoldemSpot,
                     board: tuple[int, ...]) -> dict[int, tuple[int, np.ndarray | None]]:
    """Per card off ``board``: the lowest card a suit swap fixing the board and both ranges
    maps it onto (itself when none does), and that swap's card map (None for itself)."""
    maps = []
    if spot.suit_isomorphism:
        board_set = set(board)
        for m in _SUIT_MAPS:
            if {int(m[c]) for c in board} != board_set:
                continue
            combo_map = COMBO_INDEX[m[COMBO_CARDS[:, 0]], m[COMBO_CARDS[:, 1]]]
            if all(np.array_equal(spot.weights(p)[combo_map], spot.weights(p))
                   for p in range(2)):
                maps.append(m)
    canon: dict[int, tuple[int, np.ndarray | None]] = {}
    for c in range(52):
        if c in board:
            continue
        best, via = c, None
        for m in maps:  # the maps form a group: the orbit of c is {m[c]}
            if int(m[c]) < best:
                best, via = int(m[c]), m
        canon[c] = (best, via)
    return canon


def _dealt_cards(spot: HoldemSpot, board: tuple[int, ...]) -> list[int]:
    """The cards a chance node on ``board`` deals as children of their own."""
    return [c for c, (target, _) in _canonical_cards(spot, board).items() if target == c]


def _board_deals(spot: HoldemSpot, hands: Sequence[np.ndarray],
                 board: tuple[int, ...]) -> list[tuple[int, list[Any]]]:
    """The cards a chance node on ``board`` deals as children, each with the isomorphic
    cards it stands for: ``(card, [(other card, hand permutation 0, 1), ...])``, in card
    order (the other cards too); ``hands`` are both players' ``[H, 2]`` hands."""
    deck = [c for c in range(52) if c not in board]
    canon = _canonical_cards(spot, board)
    hand_index = []
    for p in range(2):
        index = np.full(1326, -1, dtype=np.int64)
        h = hands[p]
        index[COMBO_INDEX[h[:, 0], h[:, 1]]] = np.arange(h.shape[0])
        hand_index.append(index)
    out: dict[int, list[Any]] = {c: [] for c in deck if canon[c][0] == c}
    for c in deck:
        target, via = canon[c]
        if via is None:
            continue
        perms = []
        for p in range(2):
            h = hands[p]
            perms.append(hand_index[p][COMBO_INDEX[via[h[:, 0]], via[h[:, 1]]]])
        out[target].append((c, perms[0], perms[1]))
    return sorted(out.items())


class _Templates:
    """The betting of a spot as a graph of its distinct betting states (each street's
    betting below a chance node is the same whichever card comes), for
    ``tree_builder.expand_templates``: per node its kind, actor, chips and edges; chance
    nodes name the node every dealt card leads to. Label codes 0..51 are the cards' names."""

    def __init__(self, spot: HoldemSpot) -> None:
        self.spot = spot
        self.labels: dict[str, int] = {card_to_string(c): c for c in range(52)}
        self.kind: list[int] = []
        self.player: list[int] = []
        self.contrib: list[tuple[float, float]] = []
        self.pot: list[float] = []
        self.folder: list[int] = []
        self.weight: list[float] = []
        self.next: list[int] = []
        self.edges: list[list[tuple[int, int]]] = []
        self._decisions: dict[Betting, int] = {}
        self._ends: dict[tuple[Betting, int, int], int] = {}

    def _node(self, kind: int, player: int, state: Betting, folder: int = -1,
              weight: float = 1.0) -> int:
        half = self.spot.starting_pot / 2.0
        contrib = (half + state.contrib[0], half + state.contrib[1])
        self.kind.append(kind)
        self.player.append(player)
        self.contrib.append(contrib)
        self.pot.append(contrib[0] + contrib[1])
        self.folder.append(folder)
        self.weight.append(weight)
        self.next.append(-1)
        self.edges.append([])
        return len(self.kind) - 1

    def decision(self, state: Betting) -> int:
        """The node of a decision and, below it, the rest of its street."""
        known = self._decisions.get(state)
        if known is not None:
            return known
        g = self._decisions[state] = self._node(DECISION, state.actor, state)
        board_size = 3 + state.street
        for action in state.actions(self.spot.options):
            after = state.after(action)
            child = (self.end(after, board_size, state.actor) if after.closed
                     else self.decision(after))
            code = self.labels.setdefault(action.label, len(self.labels))
            self.edges[g].append((child, code))
        return g

    def end(self, state: Betting, board_size: int, folder: int) -> int:
        """A closed street on a board of ``board_size`` cards: a fold, a showdown, or a chance
        node dealing the next card (to the next street, or on towards the river all in)."""
        key = (state, board_size, folder)
        known = self._ends.get(key)
        if known is not None:
            return known
        if state.closed == "fold":
            g = self._node(FOLD, -1, state, folder=folder)
        elif board_size == 5:
            g = self._node(SHOWDOWN, -1, state)
        else:
            g = self._node(CHANCE, -1, state, weight=chance_weight(board_size))
            if state.all_in():
                self.next[g] = self.end(state, board_size + 1, folder)
            else:
                street = board_size - 2  # the street being dealt: 1 turn, 2 river
                parsed = self.spot._parsed
                self.next[g] = self.decision(Betting.start(
                    self.spot.starting_pot, self.spot.effective_stack, street,
                    parsed["sizes"][street], parsed["donk"][street], state.contrib,
                    state.oop_called,
                ))
        self._ends[key] = g
        return g


@dataclass
class _Boards:
    """Every board a spot's chance nodes reach, in dealt order (one state each, the root's
    board first), with the cards dealt from each, their isomorphic cards and the distinct
    permutation pairs those use."""

    boards: list[tuple[int, ...]]
    deal_start: np.ndarray
    deal_count: np.ndarray
    deal_card: np.ndarray
    deal_state: np.ndarray
    iso_start: np.ndarray
    iso_count: np.ndarray
    iso_card: np.ndarray
    iso_pair: np.ndarray
    pairs: np.ndarray

    @classmethod
    def of(cls, spot: HoldemSpot, hands: Sequence[np.ndarray]) -> _Boards:
        boards = [spot.board_cards]
        starts: list[int] = []
        counts: list[int] = []
        cards: list[int] = []
        states: list[int] = []
        iso_start: list[int] = []
        iso_count: list[int] = []
        iso_card: list[int] = []
        iso_pair: list[int] = []
        pair_ids: dict[bytes, int] = {}
        pairs: list[np.ndarray] = []
        dtype = iso_index_dtype([h.shape[0] for h in hands])
        s = 0
        while s < len(boards):  # grows while the boards of the next street are added
            board = boards[s]
            starts.append(len(cards))
            deals = _board_deals(spot, hands, board) if len(board) < 5 else []
            counts.append(len(deals))
            for card, iso in deals:
                cards.append(card)
                states.append(len(boards))
                boards.append(board + (card,))
                iso_start.append(len(iso_card))
                iso_count.append(len(iso))
                for other, perm0, perm1 in iso:
                    row = np.concatenate([perm0, perm1]).astype(dtype)
                    iso_card.append(other)
                    iso_pair.append(pair_ids.setdefault(row.tobytes(), len(pairs)))
                    if iso_pair[-1] == len(pairs):
                        pairs.append(row)
            s += 1
        width = hands[0].shape[0] + hands[1].shape[0]
        i32 = np.int32
        return cls(boards, np.array(starts, i32), np.array(counts, i32), np.array(cards, i32),
                   np.array(states, i32), np.array(iso_start, np.int64),
                   np.array(iso_count, np.int64), np.array(iso_card, np.int16),
                   np.array(iso_pair, np.int64),
                   np.array(pairs, dtype).reshape(len(pairs), width))


def _spot_arrays(spot: HoldemSpot, hands: Sequence[np.ndarray], num_nodes: int,
                 terminals: HoldemTerminals
                 ) -> tuple[dict[str, np.ndarray], tuple[str, ...], dict[str, Any]]:
    """The laid-out node arrays of a spot's tree, its labels and isomorphism arrays
    (``expand_templates`` over the betting graph and the boards), the showdown boards
    registered with ``terminals`` in the order a recursive walk meets them (the order of its
    saved tables)."""
    graph = _Templates(spot)
    root = graph.decision(spot._parsed["root"])
    deals = _Boards.of(spot, hands)
    edges = [e for row in graph.edges for e in row]
    edge_count = np.array([len(row) for row in graph.edges], dtype=np.int32)
    edge_start = np.zeros_like(edge_count)
    edge_start[1:] = np.cumsum(edge_count)[:-1]
    g_kind = np.array(graph.kind, dtype=np.int8)
    g_of, state, parent, depth, first_child, num_children, label, deal, preorder, size = (
        expand_templates(
            g_kind, edge_start, edge_count, np.array([e[0] for e in edges], np.int32),
            np.array([e[1] for e in edges], np.int32), np.array(graph.next, np.int32),
            deals.deal_start, deals.deal_count, deals.deal_card, deals.deal_state, root, 0,
            num_nodes))
    if size != num_nodes:  # count_spot_nodes and the layout walk the same betting
        raise RuntimeError(f"the spot's tree laid out {size} nodes, counted {num_nodes}")
    kind = g_kind[g_of]
    dealt = deal >= 0
    label_codes, label_index = first_seen(label[1:], len(graph.labels))
    names = {code: name for name, code in graph.labels.items()}
    action_label = np.full(num_nodes, -1, dtype=np.int32)
    action_label[1:] = label_index
    board_states, board_index = first_seen(state, len(deals.boards))
    board_table = np.full((board_states.shape[0], BOARD_SLOTS), -1, dtype=np.int16)
    for b, s in enumerate(board_states.tolist()):
        board_table[b, :len(deals.boards[s])] = deals.boards[s]
    terminal_data = np.full(num_nodes, -1, dtype=np.int32)
    walked = preorder[kind[preorder] == SHOWDOWN]
    if walked.size:
        # One code per set of five cards (the terminals key a board by its sorted cards).
        sets: dict[tuple[int, ...], int] = {}
        set_of = np.array([sets.setdefault(tuple(sorted(b)), len(sets)) for b in deals.boards],
                          dtype=np.int32)
        met, index = first_seen(set_of[state[walked]], len(sets))
        keys = list(sets)
        tables = terminals.showdown_boards(np.array([keys[k] for k in met.tolist()],
                                                    dtype=np.int64).reshape(-1, 5))
        terminal_data[walked] = tables[index]
    deal_of = deal[dealt]
    iso_count = np.zeros(num_nodes, dtype=np.int16)
    iso_count[dealt] = deals.iso_count[deal_of]
    counts = iso_count[dealt].astype(np.int64)
    starts = deals.iso_start[deal_of]
    # Row k of a node: its deal's rows from iso_start, in node order.
    within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    rows = np.repeat(starts, counts) + within
    chance_card = np.full(num_nodes, -1, dtype=np.int16)
    chance_card[dealt] = deals.deal_card[deal_of]
    chance_weight = np.ones(num_nodes, dtype=np.float64)
    chance_weight[dealt] = np.array(graph.weight, dtype=np.float64)[g_of[parent[dealt]]]
    sizes = [h.shape[0] for h in hands]
    g_contrib = np.array(graph.contrib, dtype=np.float64).reshape(-1, 2)
    nodes = dict(
        kind=kind, player=np.array(graph.player, dtype=np.int8)[g_of],
        # Copies: arrays numba allocated have no ndarray base, which the solver's memory
        # count (solver.tree_memory) reads.
        parent=parent.copy(), depth=depth.copy(), first_child=first_child.copy(),
        num_children=num_children.copy(), action_label=action_label,
        pot=np.array(graph.pot, dtype=np.float64)[g_of], contrib=g_contrib[g_of],
        board=board_index.copy(), boards=board_table,
        chance_card=chance_card, chance_weight=chance_weight,
        folder=np.array(graph.folder, dtype=np.int8)[g_of], terminal_data=terminal_data,
    )
    iso = iso_arrays(iso_count, deals.iso_card[rows], deals.pairs, deals.iso_pair[rows], sizes)
    return nodes, tuple(names[int(c)] for c in label_codes), iso


class _CountPastLimit(Exception):
    """Raised inside :func:`count_spot_nodes` once the count passes its limit."""

    def __init__(self, counted: int) -> None:
        super().__init__(counted)
        self.counted = counted


def count_spot_nodes(spot: HoldemSpot, max_nodes: int | None = None) -> int:
    """The exact number of public nodes :func:`build_spot_tree` lays out for ``spot``, counted
    from its sizes and stacks without building anything; TreeTooLargeError as soon as the
    count passes ``max_nodes`` (None: no limit).

    The betting below a chance node is the same whichever card it deals, so each street's
    betting is walked once (memoised on the betting state) and a node after ``k`` deals
    counts as many times as there are ``k``-card deal sequences (suit isomorphism included).
    """
    if not isinstance(spot, HoldemSpot):
        raise ConfigError(f"spot must be a HoldemSpot, got {type(spot).__name__}")
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(
            max_nodes, (int, np.integer)) or max_nodes < 1):
        raise ConfigError(f"max_nodes must be an integer >= 1 or None, got {max_nodes!r}")
    board = spot.board_cards
    first = spot.street
    sequences = [1]  # the number of deal sequences of each length from the root's board
    if first < 2:
        dealt = _dealt_cards(spot, board)
        sequences.append(len(dealt))
        if first == 0:
            sequences.append(sum(len(_dealt_cards(spot, board + (c,))) for c in dealt))
    limit = max_nodes
    parsed = spot._parsed
    options = spot.options
    memo: dict[tuple[Any, ...], int] = {}

    def checked(total: int) -> int:
        if limit is not None and total > limit:
            raise _CountPastLimit(total)
        return total

    def street(state: Betting, deals: int) -> int:
        key = (deals, state.actor, state.contrib, state.street_bet, state.num_bets,
               state.allin, state.oop_called, state.first)
        known = memo.get(key)
        if known is not None:
            return known
        total = sequences[deals]
        for action in state.actions(options):
            after = state.after(action)
            total = checked(total + (end(after, deals) if after.closed else street(after, deals)))
        memo[key] = total
        return total

    def end(state: Betting, deals: int) -> int:
        total = sequences[deals]
        if state.closed == "fold" or first + deals == 2:
            return total
        if state.all_in():
            return checked(total + end(state, deals + 1))
        nxt = first + deals + 1
        start = Betting.start(spot.starting_pot, spot.effective_stack, nxt,
                              parsed["sizes"][nxt], parsed["donk"][nxt], state.contrib,
                              state.oop_called)
        return checked(total + street(start, deals + 1))

    try:
        return street(parsed["root"], 0)
    except _CountPastLimit as past:
        raise TreeTooLargeError(
            f"the spot's public tree has more than {limit:,} nodes (max_nodes; at least "
            f"{past.counted:,} counted from its sizes before building); use fewer sizes, a "
            "raise cap, a later street or a larger max_nodes",
            estimated_nodes=past.counted,
        ) from None


def spot_seats(game: Any) -> tuple[int, int]:
    """The seats of a heads-up no-limit hold'em game that play a spot's player 0 (out of
    position: first to act after the flop) and player 1; ConfigError for any other game."""
    first = int(getattr(game, "postflop_first", -1))
    if game.num_players != 2 or first not in (0, 1) or not hasattr(game, "bet_fractions"):
        raise ConfigError(f"a hold'em spot needs heads-up no-limit hold'em; {game.name} is not")
    return first, 1 - first


def build_spot_tree(spot: HoldemSpot, max_nodes: int = DEFAULT_MAX_NODES) -> PublicTree:
    """The public tree of a spot, with :class:`HoldemTerminals` attached (refused with
    :class:`TreeTooLargeError` past ``max_nodes``)."""
    if not isinstance(spot, HoldemSpot):
        raise ConfigError(f"spot must be a HoldemSpot, got {type(spot).__name__}")
    # Refuses a tree past max_nodes before laying out any; the layout is sized by it.
    num_nodes = count_spot_nodes(spot, max_nodes)
    hands, reach, names = [], [], []
    for p in range(2):
        cards, weights = range_combos(spot.weights(p))
        hands.append(cards.astype(np.int64))
        reach.append(weights)
        idx = np.flatnonzero(spot.weights(p) > 0)
        names.append([combo_name(int(i)) for i in idx])
    # The builder checks the hands and ranges; the compiled expansion lays the nodes out.
    builder = PublicTreeBuilder(hands, reach, num_cards=52,
                                starting_pot=float(spot.starting_pot), hand_names=names)
    terminals = HoldemTerminals((hands[0], hands[1]))
    tree = builder.build_laid_out(*_spot_arrays(spot, hands, num_nodes, terminals), terminals)
    terminals.attach(tree)
    terminals.spot = spot.to_dict()
    return tree


def spot_equity(tree: PublicTree) -> tuple[tuple[np.ndarray, np.ndarray], tuple[float, float]]:
    """Showdown equity at the root, whatever the strategies: per hand (``[H_p]``, the share of
    the pot it wins against the opponent's range over every runout, ties half) and per player
    (weighted by the range and the opponent's compatible weight), as postflop-solver's
    ``equity`` reports at the root."""
    terminals = tree.terminals
    if not isinstance(terminals, HoldemTerminals):
        raise ConfigError("spot_equity needs a hold'em spot's tree (HoldemTerminals)")
    per_hand, total = [], []
    for p in range(2):
        reach = np.asarray(tree.initial_reach[p], dtype=np.float64)
        eq = terminals.equity(tree, 0, p, tree.initial_reach[1 - p])
        mass = tree.compatible_reach(p, np.asarray(tree.initial_reach[1 - p]))
        w = reach * mass
        per_hand.append(eq)
        total.append(float(np.nansum(w * eq) / w.sum()))
    return (per_hand[0], per_hand[1]), (total[0], total[1])


def combo_indices(tree: PublicTree, player: int) -> np.ndarray:
    """The 0..1325 combo index of each of ``player``'s hands in a spot's tree."""
    h = tree.hands[player]
    return COMBO_INDEX[h[:, 0], h[:, 1]].astype(np.int64)




@dataclass
class SpotSolution:
    """A solved (or partly solved) spot: the tree, the solver, and what the solve took.

    Results at any decision node (``node``: a node id, 0 the root, or a line of edge labels
    such as ``["check", "bet 94"]``): the acting player's average strategy per hand and per
    action, aggregated over its range, and per 13 x 13 hand class.
    """

    spot: HoldemSpot
    tree: PublicTree
    solver: Any
    iterations: int = 0
    seconds: float = 0.0
    exploitability_pct: float = float("nan")
    history: list[tuple[int, float, float]] = field(default_factory=list)
    """``(iterations, seconds, exploitability % pot)`` at each check."""

    def node(self, where: int | Sequence[str] = 0) -> int:
        """The node id of ``where`` (an id, or a line of labels from the root)."""
        if isinstance(where, (int, np.integer)) and not isinstance(where, bool):
            if not 0 <= where < self.tree.num_nodes:
                raise ConfigError(f"node {where} is not in the tree (0..{self.tree.num_nodes - 1})")
            return int(where)
        if isinstance(where, (str, bool, int, np.integer)) or not isinstance(where, Sequence):
            raise ConfigError(f"a node is an id or a list of action labels, got {where!r}")
        from pokerzoo.public.spots.spot_locks import node_of_line

        return node_of_line(self.tree, where)

    def reach(self, node: int, player: int) -> np.ndarray:
        """``player``'s reach of its hands at ``node`` under the average strategies: its range
        weights times its own action probabilities on the path, 0 for hands holding a card
        dealt on the way."""
        tree = self.tree
        out = np.array(tree.initial_reach[player], dtype=np.float64)
        child = node
        while child > 0:
            parent = int(tree.parent[child])
            if tree.kind[parent] == DECISION and int(tree.player[parent]) == player:
                out *= self.solver.strategy(parent)[child - int(tree.first_child[parent])]
            elif tree.chance_card[child] >= 0 and tree.kind[parent] != DECISION:
                out[tree.hands_holding(player, int(tree.chance_card[child]))] = 0.0
            child = parent
        return out

    def weights(self, node: int, player: int) -> np.ndarray:
        """Per hand of ``player``: its reach times the opponent's reach over compatible hands
        (postflop-solver's normalized weights), what frequencies are averaged with."""
        tree = self.tree
        hands = (np.ascontiguousarray(tree.hands[0]), np.ascontiguousarray(tree.hands[1]))
        o = 1 - player
        opp = np.empty(len(hands[player]))
        fold_reach(hands[player], same_combo_index(hands[player], hands[o]), hands[o],
                   self.reach(node, o), board_mask(tree.board_cards(node)), opp)
        return self.reach(node, player) * opp

    def strategy(self, where: int | Sequence[str] = 0) -> tuple[list[str], np.ndarray]:
        """The action labels at a decision and the acting player's average strategy
        ``[actions, hands]``."""
        node = self.node(where)
        if self.tree.kind[node] != DECISION:
            raise ConfigError(f"node {node} ({self.tree.line(node)}) is not a decision")
        labels = [self.tree.label(c) for c in self.tree.children(node)]
        return labels, self.solver.strategy(node)

    def action_frequencies(self, where: int | Sequence[str] = 0) -> dict[str, float]:
        """How often the acting player takes each action at a decision, over its range."""
        node = self.node(where)
        labels, strat = self.strategy(node)
        w = self.weights(node, int(self.tree.player[node]))
        total = float(w.sum())
        return {a: float(strat[i] @ w) / total if total > 0 else 0.0
                for i, a in enumerate(labels)}

    def class_strategy(self, where: int | Sequence[str] = 0) -> dict[str, np.ndarray]:
        """Per action, the 13 x 13 chart of its frequency in each hand class (NaN where the
        player holds no hand of the class)."""
        node = self.node(where)
        labels, strat = self.strategy(node)
        p = int(self.tree.player[node])
        combos = combo_indices(self.tree, p)
        w = np.zeros(1326)
        w[combos] = self.weights(node, p)
        out = {}
        for i, a in enumerate(labels):
            v = np.zeros(1326)
            v[combos] = strat[i]
            out[a] = class_grid(v, w)
        return out

    def result(self, where: int | Sequence[str] = 0) -> Any:
        """Everything per hand at a node (reach, EV, strategy, EV per action, equity):
        ``pokerzoo.public.engine.results.node_result``; hands are ``tree.hands[p]``, named by
        ``tree.hand_names[p]``."""
        from pokerzoo.public.engine.results import node_result

        return node_result(self.solver, self.node(where))

    def root_ev(self) -> tuple[float, float]:
        """Each player's expected share of the pot at the root (chips), both playing the
        average strategies: the tree's net value plus the player's chips in at the root (half
        the starting pot and its street chips)."""
        v0, v1 = self.solver.game_value()
        contrib = self.tree.contrib[0]  # half the starting pot, plus any street chips
        return v0 + float(contrib[0]), v1 + float(contrib[1])

    def root_equity(self) -> tuple[float, float]:
        """Each player's showdown equity at the root (see :func:`spot_equity`)."""
        return spot_equity(self.tree)[1]

    def chart(self, path: str | Path, where: int | Sequence[str] = 0) -> Path:
        """A PNG of the acting player's strategy at a decision in the one chart style
        (``pokerzoo.public.spots.class_chart.draw_class_chart``): one 13 x 13 panel per action.
        A link or anything but a regular file at ``path`` is a ConfigError, its target
        unchanged."""
        from pokerzoo.public.spots.class_chart import draw_class_chart

        node = self.node(where)
        grids = self.class_strategy(node)
        freqs = self.action_frequencies(node)
        panels = [(f"{label} ({100 * freqs[label]:.1f}% of hands)", grid)
                  for label, grid in grids.items()]
        who = ("OOP", "IP")[int(self.tree.player[node])]
        line = ", ".join(self.tree.line(node)) or "root"
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        return draw_class_chart(panels, out, f"{self.spot.board}: {who} at {line}",
                                "grey: classes the player does not hold")

    def save(self, path: str | Path) -> None:
        """Write the solved spot (tree, strategies, the spot's fields) through the no-pickle
        checkpoint format (``pokerzoo.public.engine.results.save_solver``)."""
        from pokerzoo.public.engine.results import save_solver

        save_solver(self.solver, path)

    @classmethod
    def load(cls, path: str | Path) -> SpotSolution:
        """A solved spot written by :meth:`save` (nothing in the file is executed).

        The tree is rebuilt from the saved spot's definition and the saved tree must equal it
        exactly (``pokerzoo.public.engine.results.load_solver``), so no tampered array reaches the
        compiled sweeps.

        Raises:
            CheckpointError: naming the saved field that is wrong.
            ConfigError: if the file holds a solver of no hold'em spot.
        """
        from pokerzoo.public.engine.results import load_solver

        solver = load_solver(path)
        terminals = solver.tree.terminals
        fields_ = getattr(terminals, "spot", None)
        if not isinstance(terminals, HoldemTerminals) or not isinstance(fields_, Mapping):
            raise ConfigError(f"{str(path)!r} holds no solved hold'em spot")
        out = cls(HoldemSpot.from_dict(fields_), solver.tree, solver, solver.iterations)
        out.exploitability_pct = solver.exploitability_pct()
        return out

    def summary(self) -> dict[str, Any]:
        """The JSON-ready results at the root (what ``solve.py SPOT.toml --json`` writes)."""
        return {
            "spot": self.spot.board,
            "root_ev": list(self.root_ev()),
            "root_equity": list(self.root_equity()),
            "exploitability_pct_pot": self.exploitability_pct,
            "iterations": self.iterations,
            "seconds": self.seconds,
            "root_strategy": self.action_frequencies(0),
            "nodes": self.tree.num_nodes,
            "memory_bytes": int(getattr(self.solver, "memory_bytes", 0)),
        }


def solve_spot(
    spot: HoldemSpot | str | Path,
    exploitability_pct: float | None = 0.5,
    max_iterations: int = 1000,
    max_seconds: float | None = None,
    check_every: int = 10,
    progress: Any = None,
    max_nodes: int = DEFAULT_MAX_NODES,
    **solver_options: Any,
) -> SpotSolution:
    """Build a spot's tree and solve it (postflop-solver's schedule unless ``algorithm=`` says
    otherwise) until its exploitability is at most ``exploitability_pct`` % of the starting
    pot, ``max_iterations`` or ``max_seconds``; ``progress(iterations, pct)`` after each check.
    ``spot`` may be a TOML file (its ``[locks]`` are applied). ``locks`` (in
    ``solver_options``) locks decisions by line and hand or by node id
    (``pokerzoo.public.spots.spot_locks``); the other ``solver_options`` go to ``PublicSolver``."""
    spot_file = spot if isinstance(spot, (str, Path)) else None
    if isinstance(spot, (str, Path)):
        spot = HoldemSpot.from_toml(spot)
    if exploitability_pct is not None and not (
        isinstance(exploitability_pct, (int, float)) and exploitability_pct > 0
    ):
        raise ConfigError(f"exploitability_pct must be a number > 0 or None, "
                          f"got {exploitability_pct!r}")
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int) or (
            max_iterations < 0):
        raise ConfigError(f"max_iterations must be an int >= 0, got {max_iterations!r}")
    _check_budgets(max_seconds, check_every)
    result = unsolved_spot(spot, spot_file, max_nodes, **solver_options)
    return solve_until(result, exploitability_pct, max_iterations, max_seconds, check_every,
                       progress)


def unsolved_spot(spot: HoldemSpot, spot_file: str | Path | None = None,
                  max_nodes: int = DEFAULT_MAX_NODES, **solver_options: Any) -> SpotSolution:
    """A spot's tree and solver before any iteration (``solve_spot`` without the solve):
    ``locks`` in ``solver_options`` and the ``[locks]`` of ``spot_file`` applied."""
    from pokerzoo.public.engine.solver import PublicSolver
    from pokerzoo.public.spots.spot_locks import spot_locks

    tree = build_spot_tree(spot, max_nodes=max_nodes)
    locks = spot_locks(tree, solver_options.pop("locks", None), spot_file)
    return SpotSolution(spot, tree, PublicSolver(tree, locks=locks, **solver_options))


def _check_budgets(max_seconds: float | None, check_every: int) -> None:
    """ConfigError for a check interval or time budget that would never end or never run."""
    if isinstance(check_every, bool) or not isinstance(check_every, (int, np.integer)) or (
            check_every < 1):
        raise ConfigError(f"check_every must be an integer >= 1 (iterations between "
                          f"exploitability checks), got {check_every!r}")
    if max_seconds is not None and (isinstance(max_seconds, bool) or not isinstance(
            max_seconds, (int, float)) or not max_seconds > 0):
        raise ConfigError(f"max_seconds must be a number > 0 or None, got {max_seconds!r}")


def solve_until(
    result: SpotSolution, exploitability_pct: float | None, max_iterations: int,
    max_seconds: float | None, check_every: int = 10, progress: Any = None,
) -> SpotSolution:
    """Iterate ``result``'s solver (any ``PublicSolver``, a gadget's too) until its
    exploitability is at most ``exploitability_pct`` % of the pot (``None``: no target), it has
    run ``max_iterations`` or ``max_seconds``, checking every ``check_every`` iterations;
    ``result``'s history, iterations, seconds and exploitability are filled in."""
    import time

    _check_budgets(max_seconds, check_every)
    solver = result.solver
    start = time.perf_counter()
    pct = solver.exploitability_pct()
    result.history.append((0, 0.0, pct))
    while solver.iterations < max_iterations:
        if exploitability_pct is not None and pct <= exploitability_pct:
            break
        if max_seconds is not None and time.perf_counter() - start >= max_seconds:
            break
        solver.iterate(min(check_every, max_iterations - solver.iterations))
        pct = solver.exploitability_pct()
        result.history.append((solver.iterations, time.perf_counter() - start, pct))
        if progress is not None:
            progress(solver.iterations, pct)
    result.iterations = solver.iterations
    result.seconds = time.perf_counter() - start
    result.exploitability_pct = pct
    return result


__all__ = [
    "spot_seats",
    "DEFAULT_MAX_NODES", "HoldemSpot", "STREET_NAMES", "SpotSolution", "build_spot_tree",
    "DEEP_STACK_MAX_RATIO", "DEEP_STACK_WARN_RATIO", "check_stack_depth",
    "combo_indices", "count_spot_nodes", "solve_spot", "solve_until", "spot_equity",
]  # fmt: skip
