"""Chance-sampling CFR as RLCard runs it, on RLCard's observation-keyed information sets.

RLCard's ``CFRAgent`` (rlcard/agents/cfr_agent.py, the CFR the BUFP paper compared against)
differs from textbook CFR in four ways, all kept here:

* **chance sampling**: each iteration, for each player in turn, one deal is drawn (the private
  cards and the board, fixed before play as RLCard shuffles its deck once per game) and every
  action of both players is explored under it;
* **observation keys**: regrets and averages are stored per *observation* of the acting
  player: for Leduc its private rank, the board's rank and both players' chips, with no
  betting history and no seat. Histories with the same observation share one entry (an
  imperfect-recall abstraction: e.g. opening round two and facing a check there);
* **one policy per iteration**: both players' traversals read the regret-matched policy of
  the previous iteration; regret matching runs over every action, then the illegal ones are
  removed and the rest renormalised (uniform over the legal ones if none is left);
* **linear averaging**: the average adds ``t * (own reach) * sigma`` at iteration t.

The traversal is compiled (``_iterate``): an explicit stack over the compiled tree, the k-th
chance event of a traversal decided by the k-th of its pre-drawn uniforms, so every branch of
one traversal sees the same cards.

>>> from pokerzoo import load_game
>>> from pokerzoo.evaluation import exploitability
>>> perfect_recall = lambda state, player: state.information_state_key(player)
>>> solver = ChanceSamplingCFR(load_game("kuhn_poker"), seed=0, key=perfect_recall)
>>> solver.iterate(3000)
>>> exploitability(solver.tree, solver.average_policy()) < 0.02
True
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import numba
import numpy as np

from pokerzoo import schedule
from pokerzoo.agents.base import check_units
from pokerzoo.games.base import CHANCE, TERMINAL, Game, State
from pokerzoo.tree.game_tree import GameTree, build
from pokerzoo.tree.tabular_policy import TabularPolicy

LINEAR_AVERAGING = schedule.custom_rule(floor=False, averaging_power=1.0)
"""The schedule of RLCard's CFR: regrets kept as they are, iteration t weighing t."""


def observation_key(state: State, player: int) -> Hashable:
    """RLCard's observation of ``player`` at ``state``: private ranks, board ranks, own chips,
    the others' chips (no history, no seat). Games without suits key by card."""
    suits = int(getattr(getattr(state, "_cfg", None), "num_suits", 1) or 1)
    public = state.public_state()
    chips = list(public["contributions"])
    own = chips.pop(player)
    private = state.private_cards()[player]
    return (tuple(c // suits for c in private), tuple(c // suits for c in public["public_cards"]),
            own, tuple(chips))


def observation_groups(
    tree: GameTree, key: Callable[[State, int], Hashable] = observation_key
) -> np.ndarray:
    """``[num_infosets]``: the observation group of each information set (one key per set:
    every history of an information set gives its player the same observation)."""
    ids: dict[Hashable, int] = {}
    groups = np.empty(tree.num_infosets, dtype=np.int64)
    # Once per information set at construction (a few thousand on Leduc), not per iteration.
    for i in range(tree.num_infosets):
        k = key(tree.infoset_state(i), int(tree.infoset_player[i]))
        groups[i] = ids.setdefault(k, len(ids))
    return groups


def chance_index(tree: GameTree) -> np.ndarray:
    """``[num_nodes]``: how many chance nodes lie above each node (one array step per depth)."""
    out = np.zeros(tree.num_nodes, dtype=np.int64)
    is_chance = (tree.player == CHANCE).astype(np.int64)
    for d in range(1, int(tree.depth.max()) + 1):
        nodes = np.flatnonzero(tree.depth == d)
        out[nodes] = out[tree.parent[nodes]] + is_chance[tree.parent[nodes]]
    return out


class ChanceSamplingCFR:
    """RLCard-style chance-sampling CFR (module docstring) on ``game``'s compiled tree.

    Args:
        game: a game whose tree fits in memory.
        seed: seed of the deals.
        tree: a tree already built for ``game``.
        key: the observation an information set is stored under (``observation_key``).
    """

    def __init__(self, game: Game, seed: int = 0, tree: GameTree | None = None,
                 key: Callable[[State, int], Hashable] = observation_key) -> None:
        self.game = game
        self.tree = tree if tree is not None else build(game)
        self.rng = np.random.default_rng(seed)
        self.groups = observation_groups(self.tree, key)
        shape = (int(self.groups.max()) + 1, self.tree.num_actions)
        self.regrets = np.zeros(shape)
        self.average = np.zeros(shape)
        self.iteration = 0
        self._chance_index = chance_index(self.tree)
        self._depth = int(self.tree.depth.max()) + 2
        n = self.tree.num_nodes
        self._work = (np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                      np.zeros(n, dtype=np.int64), np.zeros(n), np.zeros(n), np.zeros(n))

    @property
    def num_groups(self) -> int:
        return len(self.regrets)

    def iterate(self, n: int = 1) -> None:
        """``n`` iterations: one sampled deal and traversal per player each."""
        n = check_units(n)
        if n == 0:
            return
        t = self.tree
        deals = self.rng.random((n, t.num_players, self._depth))
        # RLCard's CFR: vanilla regrets, iteration t weighing t in the average.
        weights = schedule.rule_table(LINEAR_AVERAGING, self.iteration + 1, n)[:, 4]
        _iterate(deals, weights, t.player, t.infoset, t.action, t.chance_prob, t.utilities,
                 t.first_child, t.num_children, t.infoset_mask, self.groups, self._chance_index,
                 self.regrets, self.average, *self._work)
        self.iteration += n

    def _table(self, weights: np.ndarray) -> TabularPolicy:
        rows = np.where(self.tree.infoset_mask, weights[self.groups], 0.0)
        return TabularPolicy.from_tree(self.tree, rows)

    def current_policy(self) -> TabularPolicy:
        """Regret matching over all actions, restricted to the legal ones."""
        positive = np.maximum(self.regrets, 0.0)
        total = positive.sum(axis=1, keepdims=True)
        matched = np.where(total > 0, positive / np.where(total > 0, total, 1.0), 1.0)
        return self._table(matched)

    def average_policy(self) -> TabularPolicy:
        """The linearly weighted average (uniform where never reached)."""
        return self._table(self.average)


@numba.njit(cache=True)
def _iterate(deals, sum_weights, player, infoset, action, chance_prob, utilities, first_child,
             num_children, infoset_mask, groups, chance_index, regrets, average,
             order, stack, chosen, reach_own, reach_other, values):
    num_groups, num_actions = regrets.shape
    num_players = utilities.shape[1]
    sigma = np.empty((num_groups, num_actions))
    probs = np.empty(num_actions)
    for it in range(deals.shape[0]):
        weight = sum_weights[it]
        # This iteration's policy: regret matching over every action (as RLCard).
        for g in range(num_groups):
            total = 0.0
            for a in range(num_actions):
                if regrets[g, a] > 0:
                    total += regrets[g, a]
            for a in range(num_actions):
                sigma[g, a] = max(regrets[g, a], 0.0) / total if total > 0 else 1.0 / num_actions
        for p in range(num_players):
            u = deals[it, p]
            # Pass 1: the nodes of this deal's subtree, parents first, with their reaches.
            top, count = 0, 0
            stack[0] = 0
            reach_own[0] = 1.0
            reach_other[0] = 1.0
            while top >= 0:
                node = stack[top]
                top -= 1
                order[count] = node
                count += 1
                pl = player[node]
                if pl == TERMINAL:
                    continue
                c0, nc = first_child[node], num_children[node]
                if pl == CHANCE:
                    x, acc, pick = u[chance_index[node]], 0.0, c0 + nc - 1
                    for c in range(c0, c0 + nc):
                        acc += chance_prob[c]
                        if x < acc:
                            pick = c
                            break
                    reach_own[pick] = reach_own[node]
                    reach_other[pick] = reach_other[node]
                    chosen[node] = pick
                    top += 1
                    stack[top] = pick
                    continue
                _legal_sigma(sigma, infoset_mask, groups[infoset[node]], infoset[node], probs)
                for c in range(c0, c0 + nc):
                    q = probs[action[c]]
                    reach_own[c] = reach_own[node] * (q if pl == p else 1.0)
                    reach_other[c] = reach_other[node] * (1.0 if pl == p else q)
                    top += 1
                    stack[top] = c
            # Pass 2: values for p, children before parents; p's regrets and averages.
            for k in range(count - 1, -1, -1):
                node = order[k]
                pl = player[node]
                if pl == TERMINAL:
                    values[node] = utilities[node, p]
                    continue
                if pl == CHANCE:
                    values[node] = values[chosen[node]]
                    continue
                iset = infoset[node]
                g = groups[iset]
                _legal_sigma(sigma, infoset_mask, g, iset, probs)
                c0, nc = first_child[node], num_children[node]
                v = 0.0
                for c in range(c0, c0 + nc):
                    v += probs[action[c]] * values[c]
                if pl == p:
                    for c in range(c0, c0 + nc):
                        a = action[c]
                        regrets[g, a] += reach_other[node] * (values[c] - v)
                        average[g, a] += weight * reach_own[node] * probs[a]
                values[node] = v


@numba.njit(cache=True)
def _legal_sigma(sigma, infoset_mask, g, iset, out):
    """``out``: group ``g``'s policy on the legal actions of ``iset``, renormalised."""
    num_actions = sigma.shape[1]
    total, legal = 0.0, 0
    for a in range(num_actions):
        if infoset_mask[iset, a]:
            total += sigma[g, a]
            legal += 1
    for a in range(num_actions):
        if not infoset_mask[iset, a]:
            out[a] = 0.0
        elif total > 0:
            out[a] = sigma[g, a] / total
        else:
            out[a] = 1.0 / legal
