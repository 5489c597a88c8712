"""Ranges of a heads-up hold'em blueprint along a public line.

A seat's range at a public state is the blueprint's reach of each of its 1,326 hole-card
pairs (``pokerzoo.public.spots.ranges.COMBO_CARDS`` order): the product, over the seat's own
actions on the line, of the probability the blueprint gives that action holding the pair.
Pairs holding a board card are 0. The opponent's cards do not enter: a seat's policy sees only
its own cards and the public line.

A network blueprint (Deep CFR's ``NetworkStatePolicy``, whose information-state tensors hold
the hole cards as a one-hot field) is asked once per decision for all pairs, in one batch;
any other state policy is asked pair by pair on a copy of the state with the seat's cards
replaced (correct for every policy, 1,326 calls per decision).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.games.base import Game, State
from pokerzoo.public.spots.ranges import COMBO_CARDS

NUM_COMBOS = len(COMBO_CARDS)


def board_blocked(board: Any) -> np.ndarray:
    """``[1326]`` bool: the pairs holding one of ``board``'s cards."""
    cards = np.asarray(list(board), dtype=np.int64)
    if cards.size == 0:
        return np.zeros(NUM_COMBOS, dtype=bool)
    return np.asarray(np.isin(COMBO_CARDS, cards).any(axis=1), dtype=bool)


def _network(policy: object) -> Any:
    """The policy if it is a deep agent's network state policy (looked up only when its module
    is already imported, so other blueprints never import torch), else ``None``."""
    module = sys.modules.get("pokerzoo.agents.deep.state_policy")
    cls = getattr(module, "NetworkStatePolicy", None) if module else None
    return policy if cls is not None and isinstance(policy, cls) else None


def _has_hole_field(game: Game) -> bool:
    return any(f.name == "hole_cards" for f in game.information_state_layout.fields)


def pair_probabilities(game: Game, policy: Any, state: State) -> np.ndarray:
    """``[1326, num_actions]``: the acting seat's action probabilities at ``state`` for every
    hole-card pair it could hold (rows of pairs holding a board card are 0)."""
    seat = state.current_player()
    legal = state.legal_actions()
    blocked = board_blocked(state.public_state()["public_cards"])
    net = _network(policy)
    if net is not None and _has_hole_field(game):
        out = np.array(net.range_table(state, seat), dtype=np.float64)  # one batch, same order
    else:
        # Any state policy: one question per pair on a scratch copy (never played on).
        out = np.zeros((NUM_COMBOS, game.num_distinct_actions))
        scratch: Any = state.clone()  # a HoldemState: replace_private_cards
        for combo in np.flatnonzero(~blocked):
            scratch.replace_private_cards(seat, [int(c) for c in COMBO_CARDS[combo]])
            answer = policy.action_probabilities(scratch)
            if not isinstance(answer, Mapping):
                raise InvalidPolicyError(f"the blueprint's action_probabilities returned a "
                                         f"{type(answer).__name__}; it must return a dict")
            for a in legal:
                out[combo, a] = float(answer.get(a, 0.0))
    out[blocked] = 0.0
    return out


def betting_steps(game: Game, state: State) -> list[tuple[State, int]]:
    """The betting decisions of ``state``'s history in order: ``(state before, action)``,
    replayed from the start with the same cards."""
    replay = game.new_initial_state()
    steps = []
    for action in state.history():
        if not replay.is_chance_node():
            steps.append((replay.clone(), int(action)))
        replay.apply_action(int(action))
    return steps


def blueprint_factor(game: Game, policy: Any, steps: list[tuple[State, int]],
                     seat: int) -> np.ndarray:
    """``[1326]``: the product of the blueprint's probabilities of ``seat``'s actions among
    ``steps`` (1 where the seat takes none of them)."""
    factor = np.ones(NUM_COMBOS)
    for before, action in steps:
        if before.current_player() == seat:
            factor *= pair_probabilities(game, policy, before)[:, action]
    return factor


class EmptyRangeError(ConfigError):
    """A seat's range at a public state is empty: nothing to re-solve from."""


def check_range(weights: np.ndarray, seat: int, where: str) -> None:
    """EmptyRangeError when a seat's range at a public state is empty (the blueprint never
    plays the line): there is nothing to re-solve from."""
    if not float(np.max(weights, initial=0.0)) > 0.0:
        raise EmptyRangeError(f"the blueprint never reaches {where} with seat {seat}: its range "
                          "there is empty, so the street cannot be re-solved from it")


__all__ = ["EmptyRangeError", "NUM_COMBOS", "betting_steps", "blueprint_factor",
           "board_blocked", "check_range", "pair_probabilities"]
