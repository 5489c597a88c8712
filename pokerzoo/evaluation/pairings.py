"""Exact pairings of tabular policies: each one's expected chips against each other one."""

from __future__ import annotations

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.exact import expected_values, policy_array
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.tree.tabular_policy import TabularPolicy


def pairing_matrix(tree: GameTree, policies: list[TabularPolicy]) -> np.ndarray:
    """``M[i, j]``: policy i's expected chips per game against policy j, averaged over seats.

    Two-player games only.

    >>> from pokerzoo.games.registry import load_game
    >>> from pokerzoo.tree import build
    >>> tree = build(load_game("kuhn_poker"))
    >>> uniform = TabularPolicy.uniform(tree)
    >>> pairing_matrix(tree, [uniform, uniform]).round(6).tolist()
    [[0.0, 0.0], [0.0, 0.0]]
    """
    if tree.num_players != 2:
        raise ConfigError("pairings are defined for two-player games")
    arrays = [policy_array(tree, p) for p in policies]
    seat0 = tree.infoset_player == 0
    n = len(arrays)
    matrix = np.zeros((n, n))
    # n^2 exact evaluations, each one vectorised pass over the tree; n is the entrant count.
    for i in range(n):
        for j in range(n):
            as_first = np.where(seat0[:, None], arrays[i], arrays[j])
            as_second = np.where(seat0[:, None], arrays[j], arrays[i])
            matrix[i, j] = 0.5 * (
                expected_values(tree, as_first)[0] + expected_values(tree, as_second)[1]
            )
    return matrix
