"""A street of heads-up no-limit hold'em as a range-solver spot, and its actions matched to
the game's by chips.

The spot starts at a decision of the street (its first, or one inside it facing a bet or
raise: ``HoldemSpot``'s ``street_chips``, ``street_bets``, ``to_act``): the board dealt so
far, the pot at the street's start, the smaller stack there, and the game's own action menu
as sizes: each pot fraction of ``bet_fractions`` and all-in, for bets and raises of both
players on every street, so every game action has a spot child putting in (nearly) the same
chips. The two menus round differently (the game floors a pot fraction, the spot rounds it
half up), so a size may differ by a chip; game and spot actions are matched to the nearest
chips of the same kind (fold; check or call; a bet, raise or all-in), and the largest
difference is reported. A raise the spot's tree lacks (past a raise cap) is off the tree.

Tree sizes: a river spot with the full menu is small (hundreds of nodes). A turn spot holds
every river below it: with the full menu and no cap it does not fit a few seconds of
solving, so turn spots cap the bets plus raises per street (``turn_raise_cap``) and give the
river inside them a smaller menu (bets of ``turn_river_sizes``, no raises); the river is
re-solved at its own start anyway when the agent re-solves the river.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pokerzoo.agents.resolver.holdem_ranges import board_blocked
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game, State
from pokerzoo.public.engine.tree import DECISION, PublicTree
from pokerzoo.public.spots.holdem_spot import HoldemSpot, spot_seats
from pokerzoo.public.spots.ranges import combo_name

RANGE_FLOOR = 1e-4
"""Every pair off the board is in a spot's ranges with at least this share of the range's
largest weight: a hand the ranges give (almost) no weight, such as the agent's own hand after
a re-solved street whose strategy never played the line with it, still gets a strategy from
the re-solve (its best play against the ranges, nearly) rather than none."""


def menu(game: Game) -> str:
    """The game's bet and raise sizes as a spot size string (``"50%, 75%, 100%, a"``)."""
    fractions = getattr(game, "bet_fractions", None)
    if not fractions:
        raise ConfigError(f"{game.name} has no pot-fraction sizes: hold'em re-solving needs "
                          "no-limit hold'em (bet_fractions)")
    return ", ".join([f"{100.0 * f:g}%" for f in fractions] + ["a"])


def range_text(weights: np.ndarray, blocked: np.ndarray) -> str:
    """A PioSOLVER range string of ``[1326]`` weights, scaled so the largest is 1, every pair
    not ``blocked`` (by the board) at least ``RANGE_FLOOR``."""
    top = float(np.max(weights, initial=0.0))
    if not top > 0:
        raise ConfigError("a spot's range needs a pair with a positive weight")
    scaled = np.maximum(weights / top, RANGE_FLOOR)
    return ",".join(f"{combo_name(int(c))}:{min(scaled[c], 1.0):.6g}"
                    for c in np.flatnonzero(~blocked))


@dataclass(frozen=True)
class SpotSettings:
    """How a street's spot is laid out (the agent's ``turn_raise_cap`` and friends)."""

    turn_raise_cap: int | None = 2
    river_raise_cap: int | None = None
    turn_river_sizes: str = "75%"


def street_bets(state: State) -> int:
    """Bets and raises made so far on ``state``'s street (game actions 2 and up)."""
    rnd = int(state.public_state()["round"])
    replay = state.game.new_initial_state()
    count = 0
    for action in state.history():
        if not replay.is_chance_node() and int(replay.public_state()["round"]) == rnd:
            count += int(action) >= 2
        replay.apply_action(int(action))
    return count


def street_spot(game: Game, state: State, ranges: tuple[np.ndarray, np.ndarray],
                settings: SpotSettings) -> HoldemSpot:
    """The spot of ``state``'s street from ``state`` on (its first decision, or any decision
    inside it: the chips each player put in on the street, its bets and raises and who acts
    are the spot's ``street_chips``, ``street_bets``, ``to_act``), with the spot players'
    ranges ``ranges`` (out of position first) as ``[1326]`` weights."""
    public = state.public_state()
    board = "".join(public["public_card_strings"])
    seats = spot_seats(game)
    street_chips = [int(public["round_bets"][s]) for s in seats]
    behind = [int(public["stacks"][s]) for s in seats]
    sizes = menu(game)
    blocked = board_blocked(public["public_cards"])
    street = len(public["public_cards"]) - 3
    if street not in (1, 2):
        raise ConfigError(f"hold'em re-solving starts on the turn or river, not with board "
                          f"{board!r}")
    full = ((sizes, sizes), (sizes, sizes))
    pot = int(public["pot"]) - sum(int(b) for b in public["round_bets"])  # at street start
    stack = min(b + c for b, c in zip(behind, street_chips, strict=True))
    fields: dict = {"board": board, "starting_pot": pot, "effective_stack": stack,
                    "oop_range": range_text(ranges[0], blocked),
                    "ip_range": range_text(ranges[1], blocked),
                    "suit_isomorphism": False,
                    "street_chips": (street_chips[0], street_chips[1]),
                    "street_bets": street_bets(state),
                    "to_act": seats.index(state.current_player())}
    if street == 1:
        inner = (settings.turn_river_sizes, "")  # bets only: a value estimate of the river
        fields.update(turn_sizes=full, river_sizes=(inner, inner),
                      raise_cap=settings.turn_raise_cap)
    else:
        fields.update(river_sizes=full, raise_cap=settings.river_raise_cap)
    return HoldemSpot.from_dict(fields)


def _kind(label: str) -> str:
    word = label.split(" ")[0]
    return {"fold": "fold", "check": "call", "call": "call"}.get(word, "bet")


def _game_moves(state: State) -> dict[int, tuple[str, int]]:
    """Each legal game action: its kind and the chips it puts in."""
    before = sum(int(c) for c in state.public_state()["contributions"])
    out = {}
    for a in state.legal_actions():
        nxt = state.clone()
        nxt.apply_action(a)
        put = sum(int(c) for c in nxt.public_state()["contributions"]) - before
        out[a] = ("fold" if a == 0 else "call" if a == 1 else "bet", put)
    return out


def _spot_moves(tree: PublicTree, node: int) -> list[tuple[int, str, int]]:
    p = int(tree.player[node])
    return [(child, _kind(tree.label(child)),
             int(round(float(tree.contrib[child, p] - tree.contrib[node, p]))))
            for child in tree.children(node)]


def spot_child(tree: PublicTree, node: int, state: State, action: int) -> tuple[int, int] | None:
    """The child of decision ``node`` matching game ``action`` at ``state`` and the chips they
    differ by, or ``None`` when the spot has no action of its kind there (off the tree)."""
    kind, put = _game_moves(state)[action]
    options = [(abs(chips - put), child) for child, k, chips in _spot_moves(tree, node)
               if k == kind]
    if not options:
        return None
    gap, child = min(options)
    return child, gap


def nearest_child(tree: PublicTree, node: int, state: State, action: int) -> int:
    """The child of decision ``node`` standing for game ``action`` at ``state`` in a range
    update: the same kind of action putting in the nearest chips, else (a raise the tree caps)
    the nearest chips among the other actions but fold, so a raise past the cap counts as a
    call (the usual action translation)."""
    found = spot_child(tree, node, state, action)
    if found is not None:
        return found[0]
    _, put = _game_moves(state)[action]
    options = [(abs(chips - put), child) for child, k, chips in _spot_moves(tree, node)
               if k != "fold"]
    if not options:
        raise ConfigError(f"spot node {node} has no action but fold to stand for game action "
                          f"{action}")
    return min(options)[1]


def game_actions(tree: PublicTree, node: int, state: State) -> tuple[list[int], int]:
    """The game action of each child of decision ``node`` at ``state`` (nearest chips of the
    same kind) and the largest chip difference."""
    if tree.kind[node] != DECISION:
        raise ConfigError(f"spot node {node} is not a decision")
    moves = _game_moves(state)
    out, worst = [], 0
    for _, kind, chips in _spot_moves(tree, node):
        options = [(abs(put - chips), a) for a, (k, put) in moves.items() if k == kind]
        if not options:
            raise ConfigError(f"the spot's action puts in {chips} chips as a {kind}; the game "
                              f"has no such action here (its: {sorted(moves.values())})")
        gap, action = min(options)
        out.append(action)
        worst = max(worst, gap)
    return out, worst


__all__ = ["RANGE_FLOOR", "SpotSettings", "game_actions", "menu", "nearest_child", "range_text",
           "spot_child", "street_bets",
           "street_spot"]
