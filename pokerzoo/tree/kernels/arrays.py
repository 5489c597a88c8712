"""The tree arrays compiled kernels read, bundled in one named tuple.

numba takes a ``NamedTuple`` of arrays as one argument and reads its fields by name at no cost
inside the compiled loop, so kernels that sweep a ``GameTree`` take ``TreeArrays`` instead of a
dozen positional arrays (which are easy to pass in the wrong order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from pokerzoo.tree.game_tree import GameTree


class TreeArrays(NamedTuple):
    """A ``GameTree``'s flat arrays as compiled kernels read them (see ``GameTree``)."""

    parent: np.ndarray
    player: np.ndarray
    infoset: np.ndarray
    action: np.ndarray
    chance_prob: np.ndarray
    utilities: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    depth_offsets: np.ndarray
    infoset_player: np.ndarray
    infoset_mask: np.ndarray
    infoset_size: np.ndarray
    """``[num_infosets]`` float: the number of histories in each information set."""


def tree_arrays(tree: GameTree) -> TreeArrays:
    """The arrays of ``tree`` that kernels read (views, no copies)."""
    return TreeArrays(
        tree.parent, tree.player, tree.infoset, tree.action, tree.chance_prob, tree.utilities,
        tree.first_child, tree.num_children, tree.depth_offsets, tree.infoset_player,
        tree.infoset_mask, tree.infoset_sizes,
    )
