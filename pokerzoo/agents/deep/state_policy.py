"""Network-backed state policies of the deep solvers, for games without a compiled tree.

``NetworkStatePolicy`` answers ``action_probabilities(state)`` from card/betting networks: one
network per seat, either read as logits (a strategy network: softmax over the legal actions)
or as advantages (regret matching, the argmax legal action when none is positive). It also
answers a batch of information-state tensors at once (``probabilities``), which is what the
state traversals and the flop-spot analysis of ``bench/hunl_deep.py`` call, and tabularises on
a compiled tree in one call per seat (``tabular``), so exact evaluators score it on Kuhn and
Leduc.

Range sweeps: the local best response (``evaluation.lbr``) asks the policy about one public
state with each of the opponent's 1,326 hole-card pairs in turn. Asked about a hold'em public
state a second time with other hole cards, the policy answers every pair in one batched call
(the tensors differ only in the ``hole_cards`` field) and keeps the table for the following
questions, so a sweep costs one network call instead of 1,326. With a ``CardBettingNet`` that
call runs the betting branch and the board once (``CardBettingNet.vary_cards``), about half
the time of 1,326 full forward passes.

>>> from pokerzoo import load_game
>>> game = load_game("kuhn_poker")
>>> state = game.new_initial_state()
>>> state.apply_action(0); state.apply_action(1)
>>> NetworkStatePolicy(game, [None, None]).action_probabilities(state)
{0: 0.5, 1: 0.5}
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, cast

import numpy as np
import torch

from pokerzoo.agents.deep.base import regret_matching
from pokerzoo.agents.deep.network import CardBettingNet
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game, State
from pokerzoo.games.holdem.state import HoldemState
from pokerzoo.tree.tabular_policy import TabularPolicy

_PAIRS = np.array([(i, j) for i in range(52) for j in range(i + 1, 52)], dtype=np.int64)
"""The 1,326 hole-card pairs in ``evaluation.lbr.COMBOS``'s order."""
_PAIR_INDEX = np.full((52, 52), -1, dtype=np.int64)
_PAIR_INDEX[_PAIRS[:, 0], _PAIRS[:, 1]] = np.arange(len(_PAIRS))
_PAIR_INDEX[_PAIRS[:, 1], _PAIRS[:, 0]] = np.arange(len(_PAIRS))
MAX_CACHED = 4_096
"""Public states whose range table (or last hand) is kept; the caches are emptied beyond."""


class NetworkStatePolicy:
    """A state policy from one card/betting network per seat (``None``: uniform).

    Args:
        game: the game the networks were trained on.
        nets: per seat, a network or ``None`` (the same network may serve every seat, as
            Deep CFR's single strategy network does).
        regret: read the outputs as advantages and regret-match them; otherwise as logits.
        device: where the networks run (default: where their parameters are).
    """

    def __init__(
        self,
        game: Game,
        nets: Sequence[CardBettingNet | None],
        regret: bool = False,
        device: torch.device | str | None = None,
    ) -> None:
        if len(nets) != game.num_players:
            raise ConfigError(f"{game.name} has {game.num_players} seats, got {len(nets)} nets")
        self.game = game
        self.nets = list(nets)
        self.regret = bool(regret)
        first = next((n for n in self.nets if n is not None), None)
        if device is None:
            device = next(first.parameters()).device if first is not None else "cpu"
        self.device = torch.device(device)
        self.num_actions = game.num_distinct_actions
        self._hole = (
            game.information_state_layout.slice("hole_cards")
            if any(f.name == "hole_cards" for f in game.information_state_layout.fields)
            else None
        )
        self._ranges: dict[Hashable, np.ndarray] = {}
        self._last_hand: dict[Hashable, tuple[int, ...]] = {}

    # -------------------------------------------------------------- batches of tensors

    def probabilities(self, player: int, tensors: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``[B, num_actions]`` probabilities of seat ``player`` at information-state
        ``tensors`` ``[B, size]`` with legal ``masks`` ``[B, num_actions]`` (one network call).
        """
        masks = np.asarray(masks).astype(bool).reshape(-1, self.num_actions)
        net = self.nets[player]
        if net is None:
            return masks / masks.sum(axis=1, keepdims=True)
        x = torch.as_tensor(np.asarray(tensors, dtype=np.float32), device=self.device)
        with torch.no_grad():
            return self._read(net(x.reshape(len(masks), -1)), masks)

    def _read(self, outputs: torch.Tensor, masks: np.ndarray) -> np.ndarray:
        """Probabilities from unmasked network outputs: regret matching of the advantages, or
        a softmax of the logits, over the legal actions."""
        m = torch.as_tensor(masks, device=outputs.device).bool()
        if self.regret:
            adv = outputs.masked_fill(~m, 0.0).cpu().numpy()
            return regret_matching(adv.astype(np.float64), masks)
        logits = outputs.masked_fill(~m, float("-inf"))
        return torch.softmax(logits, dim=-1).cpu().numpy().astype(np.float64)

    def tabular(self, tree: Any) -> TabularPolicy:
        """The policy on every information set of ``tree``, one network call per seat."""
        probs = np.zeros(tree.infoset_mask.shape, dtype=np.float64)
        for p in range(self.game.num_players):
            rows = np.flatnonzero(tree.infoset_player == p)
            if len(rows):
                x = tree.information_state_tensors[rows]
                probs[rows] = self.probabilities(p, x, tree.infoset_mask[rows])
        return TabularPolicy.from_tree(tree, probs)

    # -------------------------------------------------------------- one state at a time

    def action_probabilities(self, state: State, player: int | None = None) -> dict[int, float]:
        """``{action: probability}`` over the legal actions of the player to act."""
        p = state.current_player() if player is None else player
        row = self._row(state, p)
        return {a: float(row[a]) for a in state.legal_actions()}

    def _row(self, state: State, p: int) -> np.ndarray:
        if self._hole is None or not isinstance(state, HoldemState):
            return self.probabilities(
                p, state.information_state_tensor(p)[None], state.legal_actions_mask()[None]
            )[0]
        key = cast(tuple, state.information_state_key(p))  # (seat, hole, board, betting)
        public, hand = (key[0], key[2], key[3]), tuple(key[1])
        table = self._ranges.get(public)
        if table is not None:
            return table[_PAIR_INDEX[hand[0], hand[1]]]
        if self._last_hand.get(public, hand) == hand:
            if len(self._last_hand) >= MAX_CACHED:
                self._last_hand.clear()
            self._last_hand[public] = hand
            return self.probabilities(
                p, state.information_state_tensor(p)[None], state.legal_actions_mask()[None]
            )[0]
        # A second hand at this public state: an evaluator is sweeping a range.
        table = self.range_table(state, p)
        if len(self._ranges) >= MAX_CACHED // 16:
            self._ranges.clear()
        self._ranges[public] = table
        return table[_PAIR_INDEX[hand[0], hand[1]]]

    def range_table(self, state: State, p: int) -> np.ndarray:
        """Probabilities ``[1326, num_actions]`` at ``state`` for every hole-card pair p could
        hold (pairs in ``pokerzoo.public.spots.ranges.COMBO_CARDS`` order: (low, high) card ids),
        in one network call; ConfigError for a game without a hole-card field."""
        if self._hole is None:
            raise ConfigError(f"{self.game.name}'s information states have no hole-card field "
                              "to vary: no range table")
        base = state.information_state_tensor(p)
        net = self.nets[p]
        if isinstance(net, CardBettingNet):
            # Only the hole cards vary: the network's shared parts run once.
            x1 = np.array(base, dtype=np.float32)
            x1[self._hole] = 0.0
            with torch.no_grad():
                out = net.vary_cards(torch.as_tensor(x1, device=self.device),
                                     torch.as_tensor(self._hole.start + _PAIRS,
                                                     device=self.device))
            masks = np.repeat(state.legal_actions_mask()[None], len(_PAIRS), axis=0)
            return self._read(out, masks.astype(bool))
        x = np.repeat(base[None], len(_PAIRS), axis=0)
        x[:, self._hole] = 0.0
        rows = np.arange(len(_PAIRS))
        x[rows, self._hole.start + _PAIRS[:, 0]] = 1.0
        x[rows, self._hole.start + _PAIRS[:, 1]] = 1.0
        mask = np.repeat(state.legal_actions_mask()[None], len(_PAIRS), axis=0)
        return self.probabilities(p, x, mask)

    def __getstate__(self) -> dict[str, Any]:
        # Sent to evaluation workers without the caches.
        state = dict(self.__dict__)
        state["_ranges"], state["_last_hand"] = {}, {}
        return state


def env_turn_probabilities(policy: NetworkStatePolicy, observation: Any) -> np.ndarray:
    """``policy`` at an env turn (``{"observation", "action_mask"}``) whose networks serve
    every seat alike (the deep solvers' single strategy network)."""
    x = np.asarray(observation["observation"], dtype=np.float32)[None]
    mask = np.asarray(observation["action_mask"])[None]
    return policy.probabilities(0, x, mask)[0]
