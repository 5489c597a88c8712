"""Multi-valued leaves (Brown, Sandholm & Amos 2018, "Depth-Limited Solving for Imperfect-
Information Games", NeurIPS): at each depth-limit leaf the opponent of the searching player
chooses, per hand, one of K continuation strategies for the rest of the game, while the
searcher plays its blueprint there.

The continuations are the blueprint's own and biased copies of it: at the opponent's
decisions the probability of one kind of action (``"fold"``, ``"call"``, ``"raise"``, the public
tree's labels) is multiplied by ``factor`` and the column renormalised (the paper's biased
strategies used a factor of 5). Every choice's payoff is a fixed ``[H0, H1]`` matrix per leaf
(the rest of the game played by that profile, chance included), computed once per leaf; the
choice itself is an extra opponent decision at the leaf, learnt by regret matching with the
trunk's discounts inside ``DepthLimitedSolver``'s passes (the ``LeafGame`` face).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.public.engine.small_games import policy_blocks
from pokerzoo.public.engine.solver import PublicSolver
from pokerzoo.public.engine.tree import DECISION
from pokerzoo.public.subgames.subgame import Subgame, cut_tree, full_tree
from pokerzoo.schedule import NO_UPDATE

BIASES = ("fold", "call", "raise")


class MultiValuedLeaves:
    """Leaf values where ``1 - player`` picks among continuation strategies per hand.

    Args:
        game: the game (its whole public tree is built once).
        blueprint: the blueprint over the whole game's public tree: ``{decision node:
            [actions, hands]}`` for every decision node of ``full_tree(game).tree``, or a
            policy answering ``action_probabilities(state)`` (read through ``policy_blocks``).
        player: the searching player (its continuation is the blueprint).
        biases: the action labels the opponent's extra continuations favour (the first
            continuation is always the unbiased blueprint); ``()`` leaves one value per leaf.
        factor: how much a biased continuation multiplies the favoured action's probability.
    """

    def __init__(self, game: Game, blueprint: Mapping[int, Any] | Any, player: int,
                 biases: Sequence[str] = BIASES, factor: float = 5.0) -> None:
        if isinstance(player, bool) or player not in (0, 1):
            raise ConfigError(f"player must be 0 or 1, not {player!r}")
        if isinstance(factor, bool) or not isinstance(factor, int | float) or not factor > 0:
            raise ConfigError(f"factor must be a number > 0, not {factor!r}")
        self.small = full_tree(game)
        tree = self.small.tree
        known = set(tree.labels)
        for bias in biases:
            if bias not in known:
                raise ConfigError(f"bias {bias!r} names no action of {game.name}; "
                                  f"its actions: {sorted(known - set(tree.hand_names[0]))}")
        blocks = blueprint if isinstance(blueprint, Mapping) else policy_blocks(self.small,
                                                                                blueprint)
        decisions = set(np.flatnonzero(tree.kind == DECISION).tolist())
        if set(int(n) for n in blocks) != decisions:
            raise ConfigError("the blueprint needs a strategy at every decision node of the "
                              "whole game's public tree, and only there")
        self.blueprint = {int(n): np.asarray(s, dtype=np.float64) for n, s in blocks.items()}
        self.player = int(player)
        self.chooser = 1 - self.player
        self.biases = tuple(biases)
        self.factor = float(factor)
        self._matrices: dict[int, np.ndarray] = {}
        # Per subgame object (dropped with it): each leaf's choice regrets and sums.
        self._state: weakref.WeakKeyDictionary[
            Subgame, dict[int, tuple[np.ndarray, np.ndarray]]] = weakref.WeakKeyDictionary()

    @property
    def num_choices(self) -> int:
        return 1 + len(self.biases)

    def profile(self, choice: int) -> dict[int, np.ndarray]:
        """Continuation ``choice`` over the whole tree (0: the blueprint; ``k``: the
        opponent's actions labelled ``biases[k - 1]`` multiplied by ``factor``)."""
        if choice == 0:
            return dict(self.blueprint)
        tree = self.small.tree
        bias = self.biases[choice - 1]
        out: dict[int, np.ndarray] = {}
        for node, strategy in self.blueprint.items():
            if int(tree.player[node]) != self.chooser:
                out[node] = strategy
                continue
            scale = np.array([self.factor if tree.label(c) == bias else 1.0
                              for c in tree.children(node)])
            biased = strategy * scale[:, None]
            out[node] = biased / biased.sum(axis=0, keepdims=True)
        return out

    def matrices(self, node: int) -> np.ndarray:
        """``[K, H0, H1]``: player 0's expected chips below the whole game's ``node`` per hand
        pair under each continuation (0 where the hands share a card or the board)."""
        cached = self._matrices.get(node)
        if cached is not None:
            return cached
        full = self.small.tree
        ones = (np.ones(full.num_hands(0)), np.ones(full.num_hands(1)))
        rest, full_node, _ = cut_tree(full, node, ones, None)
        h0, h1 = rest.num_hands(0), rest.num_hands(1)
        out = np.zeros((self.num_choices, h0, h1))
        decisions = np.flatnonzero(rest.kind == DECISION).tolist()
        for k in range(self.num_choices):
            profile = self.profile(k)
            locks = {n: profile[int(full_node[n])] for n in decisions}
            solver = PublicSolver(rest, locks=locks)
            for j in range(h1):
                opp = np.zeros(h1)
                opp[j] = 1.0
                out[k, :, j] = solver.expected_values(0, reaches=(np.ones(h0), opp)).values
        out.flags.writeable = False
        self._matrices[node] = out
        return out

    def _tables(self, subgame: Subgame, leaf: int) -> tuple[np.ndarray, np.ndarray]:
        tables = self._state.setdefault(subgame, {})
        if leaf not in tables:
            shape = (self.num_choices, subgame.tree.num_hands(self.chooser))
            tables[leaf] = (np.zeros(shape), np.zeros(shape))
        return tables[leaf]

    def choices(self, subgame: Subgame, leaf: int, average: bool = True) -> np.ndarray:
        """``[K, H_chooser]``: the opponent's choice at leaf ``leaf`` per hand (average or
        current; uniform where it has nothing yet)."""
        regrets, sums = self._tables(subgame, leaf)
        table = sums if average else np.maximum(regrets, 0.0)
        total = table.sum(axis=0, keepdims=True)
        return np.divide(table, total, out=np.full(table.shape, 1.0 / self.num_choices),
                         where=total > 0)

    def values(self, subgame: Subgame, leaves: np.ndarray, reach0: np.ndarray,
               reach1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both players' values with the opponent's average choices (the ``LeafValues``
        face; learning happens through ``leaf_values``)."""
        return (self.leaf_values(subgame, leaves, reach0, reach1, "average", 0, NO_UPDATE),
                self.leaf_values(subgame, leaves, reach0, reach1, "average", 1, NO_UPDATE))

    def leaf_values(self, subgame: Subgame, leaves: np.ndarray, reach0: np.ndarray,
                    reach1: np.ndarray, mode: str, traverser: int,
                    scalars: tuple[float, float, bool, float, float]) -> np.ndarray:
        """``traverser``'s values at ``leaves`` for one pass of ``DepthLimitedSolver``."""
        if mode not in ("cfr", "average", "best_response"):
            raise ConfigError(f"mode must be 'cfr', 'average' or 'best_response', not {mode!r}")
        if subgame.whole.tree.num_nodes != self.small.tree.num_nodes:
            raise ConfigError("these multi-valued leaves belong to another game")
        out = np.zeros((len(leaves), subgame.tree.num_hands(traverser)))
        for row, leaf in enumerate(np.asarray(leaves, dtype=np.int64).tolist()):
            m = self.matrices(int(subgame.leaf_full_nodes[leaf]))
            # Each choice's counterfactual values for both players: [K, H0] and [K, H1].
            q0 = m @ reach1[row]
            q1 = -(reach0[row] @ m)
            q = (q0, q1)
            if traverser == self.chooser:
                out[row] = self._chooser_values(subgame, leaf, q[traverser], mode, scalars,
                                                (reach0, reach1)[traverser][row])
            else:
                pick = self.choices(subgame, leaf, average=mode != "cfr")
                weighted = (reach1[row] if self.chooser == 1 else reach0[row]) * pick
                if traverser == 0:
                    out[row] = np.einsum("kij,kj->i", m, weighted)
                else:
                    out[row] = -np.einsum("kij,ki->j", m, weighted)
        return out

    def _chooser_values(self, subgame: Subgame, leaf: int, q: np.ndarray, mode: str,
                        scalars: tuple[float, float, bool, float, float],
                        own: np.ndarray) -> np.ndarray:
        if mode == "best_response":
            return q.max(axis=0)
        if mode == "average":
            return (self.choices(subgame, leaf, average=True) * q).sum(axis=0)
        pos, neg, floor, sum_discount, sum_weight = scalars
        current = self.choices(subgame, leaf, average=False)
        value = (current * q).sum(axis=0)
        regrets, sums = self._tables(subgame, leaf)
        regrets[:] = np.where(regrets > 0, regrets * pos, regrets * neg) + q - value
        if floor:
            np.maximum(regrets, 0.0, out=regrets)
        sums[:] = sums * sum_discount + sum_weight * own * current
        return value
