"""The sequence-form view of a ``GameTree``: what full-width solvers need, and nothing more.

A player's *sequence* is one of their (information set, action) pairs, numbered
``infoset * num_actions + action`` as in ``TabularPolicy.probs.ravel()``, plus one shared *empty*
sequence (``empty``, the last id) for "no action of this player yet". With perfect recall every
history has one sequence per player: the last action that player took on the way to it.

Sequence form turns one full-width CFR iteration into three short loops (von Stengel 1996; the
same quantities as the history-by-history sweep, summed in another order):

1. realization plans: ``x[I*A + a] = x[parent_sequence[I]] * sigma[I, a]``, over each player's
   information sets in topological order (``player_infosets``);
2. the terminal payoffs, merged by their tuple of sequences: for player ``p``,
   ``q[seq_p] += coef[p] * prod_{r != p} x[seq_r]``; this gives the counterfactual value of the
   action that ends each line of play;
3. bottom-up over ``p``'s information sets: ``w(I) = sum_a sigma(I, a) q(I, a)``, added to
   ``q[parent_sequence[I]]``, so that ``q(I, a)`` is ``I``'s counterfactual action value.

Terminals that share every player's sequence (suit-isomorphic deals when information sets see
only ranks, say) become one entry, so the payoff loop can be shorter than the list of terminals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from pokerzoo.games.base import TERMINAL
from pokerzoo.tree.game_tree import GameTree


@dataclass(frozen=True)
class SequenceForm:
    """A tree's payoffs by sequence tuple and its information sets as sequence trees.

    Attributes:
        num_players, num_actions: as in the tree.
        empty: the id of the empty sequence (``num_infosets * num_actions``); arrays indexed by
            sequence have ``empty + 1`` entries.
        parent_sequence: ``[num_infosets]``, the owner's sequence leading to each infoset.
        player_infosets: every player's infosets, in topological order (parents first), one
            block per player; ``player_offsets[p]:player_offsets[p+1]`` is player ``p``'s block.
        payoff_sequences: ``[num_entries, num_players]`` sequence tuples of the merged terminals.
        payoff_coef: ``[num_players, num_entries]``, summed chance reach times utility.
        sorted_entries: for two players, entry indices sorted by player ``p``'s sequence, one
            row per player (``[2, num_entries]``), so that payoff loops read runs of equal
            sequences; empty for other player counts.
    """

    num_players: int
    num_actions: int
    empty: int
    parent_sequence: np.ndarray
    player_infosets: np.ndarray
    player_offsets: np.ndarray
    payoff_sequences: np.ndarray
    payoff_coef: np.ndarray
    sorted_entries: np.ndarray

    def __post_init__(self) -> None:
        # Read-only like the tree it comes from: solvers share one SequenceForm per tree.
        for array in (
            self.parent_sequence, self.player_infosets, self.player_offsets,
            self.payoff_sequences, self.payoff_coef, self.sorted_entries,
        ):
            array.flags.writeable = False

    @property
    def num_sequences(self) -> int:
        """Length of arrays indexed by sequence (the empty sequence included)."""
        return self.empty + 1

    def infosets_of(self, player: int) -> np.ndarray:
        """``player``'s infosets, parents before children."""
        return self.player_infosets[self.player_offsets[player] : self.player_offsets[player + 1]]

    def realization_plan(self, sigma: np.ndarray) -> np.ndarray:
        """Every player's realization weight of every sequence under ``sigma`` (``x[empty]=1``)."""
        x = np.zeros(self.num_sequences)
        x[self.empty] = 1.0
        fill_realization(
            self.player_infosets, self.parent_sequence, np.ravel(sigma), self.num_actions, x
        )
        return x

    def expected_values(self, sigma: np.ndarray) -> np.ndarray:
        """Each player's expected payoff under ``sigma`` (``[num_infosets, num_actions]``)."""
        x = self.realization_plan(sigma)
        reach = np.prod(x[self.payoff_sequences], axis=1)
        return self.payoff_coef @ reach


def sequence_form(tree: GameTree) -> SequenceForm:
    """Build the ``SequenceForm`` of ``tree`` (vectorised apart from one compiled node pass)."""
    num_infosets, num_actions = tree.infoset_mask.shape
    empty = num_infosets * num_actions
    seq, own_length, chance_reach = _node_sequences(
        tree.parent, tree.player.astype(np.int64), tree.infoset, tree.action,
        tree.chance_prob, tree.num_players, num_actions, empty,
    )
    terminals, entries, inverse = _merge_terminals(tree, seq)
    weighted = chance_reach[terminals, None] * tree.utilities[terminals]
    coef = np.zeros((tree.num_players, len(entries)))
    for p in range(tree.num_players):
        coef[p] = np.bincount(inverse, weights=weighted[:, p], minlength=len(entries))

    owner = tree.infoset_player.astype(np.int64)
    parent_sequence = seq[tree.infoset_node, owner]
    length = own_length[tree.infoset_node, owner]
    blocks = []
    for p in range(tree.num_players):
        infosets = np.flatnonzero(owner == p)
        # A parent sequence belongs to an infoset one own action shorter: sorting by the number
        # of own actions taken is a topological order.
        blocks.append(infosets[np.argsort(length[infosets], kind="stable")])
    offsets = np.cumsum([0] + [len(b) for b in blocks])
    if tree.num_players == 2:
        sorted_entries = np.stack(
            [np.argsort(entries[:, p], kind="stable") for p in range(2)]
        )
    else:
        sorted_entries = np.zeros((0, len(entries)), dtype=np.int64)
    return SequenceForm(
        num_players=tree.num_players,
        num_actions=num_actions,
        empty=empty,
        parent_sequence=parent_sequence,
        player_infosets=np.concatenate(blocks).astype(np.int64),
        player_offsets=offsets.astype(np.int64),
        payoff_sequences=np.ascontiguousarray(entries, dtype=np.int64),
        payoff_coef=coef,
        sorted_entries=sorted_entries.astype(np.int64),
    )


def _merge_terminals(tree: GameTree, seq: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Terminal rows, the distinct sequence tuples among them, and each terminal's entry."""
    terminals = np.flatnonzero(tree.player == TERMINAL)
    entries, inverse = np.unique(seq[terminals], axis=0, return_inverse=True)
    return terminals, entries, np.ravel(inverse)


def terminal_entries(tree: GameTree) -> tuple[np.ndarray, np.ndarray]:
    """``(terminal rows, entry of each)``: which ``SequenceForm`` payoff entry every terminal of
    ``tree`` is merged into, so other payoffs over the same histories (another model of an
    unknown game) become entry coefficients with one ``bincount``."""
    num_actions = tree.infoset_mask.shape[1]
    seq, _, _ = _node_sequences(
        tree.parent, tree.player.astype(np.int64), tree.infoset, tree.action, tree.chance_prob,
        tree.num_players, num_actions, tree.infoset_mask.shape[0] * num_actions,
    )
    terminals, _, inverse = _merge_terminals(tree, seq)
    return terminals, inverse


@numba.njit(cache=True)
def _node_sequences(parent, player, infoset, action, chance_prob, num_players, num_actions, empty):
    """Per node: each player's last sequence, each player's number of own actions, chance reach.

    Rows are breadth-first, so a parent is always filled in before its children.
    """
    n = parent.shape[0]
    seq = np.empty((n, num_players), np.int64)
    own_length = np.zeros((n, num_players), np.int64)
    chance_reach = np.empty(n)
    seq[0, :] = empty
    chance_reach[0] = 1.0
    for node in range(1, n):
        par = parent[node]
        chance_reach[node] = chance_reach[par] * chance_prob[node]
        seq[node, :] = seq[par, :]
        own_length[node, :] = own_length[par, :]
        mover = player[par]
        if mover >= 0:
            seq[node, mover] = infoset[par] * num_actions + action[node]
            own_length[node, mover] += 1
    return seq, own_length, chance_reach


@numba.njit(cache=True)
def fill_realization(infosets, parent_sequence, sigma_flat, num_actions, x):
    """``x[I*A + a] = x[parent_sequence[I]] * sigma_flat[I*A + a]`` for ``infosets`` in order.

    ``infosets`` must list parents before children, and ``x`` must already hold the weights of
    their parent sequences (``x[empty] = 1``).
    """
    for k in range(infosets.shape[0]):
        iset = infosets[k]
        base = x[parent_sequence[iset]]
        row = iset * num_actions
        for a in range(num_actions):
            x[row + a] = base * sigma_flat[row + a]
