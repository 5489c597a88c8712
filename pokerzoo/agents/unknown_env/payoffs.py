"""A model's numbers on an agent's compiled tree, without compiling a tree per model.

Model-based agents on unknown games (VCFR, PSRLCFR, the naive baselines) change the model they
solve every round: a posterior sample or mean, plus an exploration bonus per terminal. Every
model of one base game has the same histories, so ``ModelPayoffs`` maps a model (chance
probability per slot, utility per terminal index) onto

* the sequence-form payoff coefficients of the agent's CFR solver (``coefficients``), and
* the node arrays of the tree (``node_numbers``) for solvers that sweep histories (XFP),

with a few array operations over the terminals (no tree build, no loop over nodes).

>>> import numpy as np
>>> from pokerzoo import load_game
>>> from pokerzoo.tree import build
>>> view = load_game("unknown_kuhn_poker", seed=0).agent_view()
>>> tree = build(view)
>>> payoffs = ModelPayoffs(tree)
>>> model = view.believed_model
>>> coef, reach = payoffs.coefficients(model.chance_probs, model.expected_returns)
>>> bool(np.allclose(coef, tree.sequence_form.payoff_coef))
True
"""

from __future__ import annotations

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.tree.game_tree import GameTree, model_maps
from pokerzoo.tree.sequence_form import terminal_entries


class ModelPayoffs:
    """Maps models of an unknown game onto ``tree``'s payoffs (see the module doc).

    Args:
        tree: the agent's tree of the unknown game (any believed model).
    """

    def __init__(self, tree: GameTree) -> None:
        maps = model_maps(tree)
        structure = tree.game.structure  # type: ignore[attr-defined]
        self.tree = tree
        self.num_slots = int(structure.num_slots)
        self.num_terminals = int(structure.num_terminals)
        self._chance_children = maps.chance_children
        self._slots = maps.slots
        rows, self._entry = terminal_entries(tree)
        self.num_entries = int(self._entry.max()) + 1 if len(self._entry) else 0
        self._terminal_rows = rows
        terminal_of_row = np.full(tree.num_nodes, -1, dtype=np.int64)
        terminal_of_row[maps.terminals] = maps.terminal_ids
        self._terminal_id = terminal_of_row[rows]
        # Each terminal's chance edges (slots), padded with a sentinel slot of probability 1.
        slot_of_node = np.full(tree.num_nodes, self.num_slots, dtype=np.int64)
        slot_of_node[maps.chance_children] = maps.slots
        depth = int(tree.depth.max())
        node = rows.copy()
        path = np.full((len(rows), max(depth, 1)), self.num_slots, dtype=np.int64)
        for d in range(depth):
            path[:, d] = slot_of_node[node]
            node = tree.parent[np.maximum(node, 0)]
            node = np.where(node >= 0, node, 0)
        keep = (path != self.num_slots).any(axis=0)
        self._chance_path = np.ascontiguousarray(path[:, keep] if keep.any() else path[:, :1])

    def _check(self, chance_probs: np.ndarray, utilities: np.ndarray) -> tuple[np.ndarray, ...]:
        chance = np.asarray(chance_probs, dtype=np.float64)
        util = np.asarray(utilities, dtype=np.float64)
        players = self.tree.num_players
        if chance.shape != (self.num_slots,) or util.shape != (self.num_terminals, players):
            raise ConfigError(
                f"need chance_probs of shape ({self.num_slots},) and utilities of shape "
                f"({self.num_terminals}, {players}), got {chance.shape} and {util.shape}"
            )
        return chance, util

    def terminal_chance_reach(self, chance_probs: np.ndarray) -> np.ndarray:
        """Chance reach of every terminal row (in ``terminal_rows`` order) under the model."""
        extended = np.append(np.asarray(chance_probs, dtype=np.float64), 1.0)
        reach: np.ndarray = extended[self._chance_path].prod(axis=1)
        return reach

    @property
    def terminal_rows(self) -> np.ndarray:
        """The tree rows of the terminals, in the order of ``terminal_chance_reach``."""
        return self._terminal_rows

    @property
    def terminal_ids(self) -> np.ndarray:
        """The terminal index (of the model structure) of each of ``terminal_rows``."""
        return self._terminal_id

    def coefficients(
        self, chance_probs: np.ndarray, utilities: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(payoff_coef [num_players, num_entries], entry chance reach [num_entries])`` of the
        model with ``chance_probs`` (``[num_slots]``) and ``utilities`` (``[num_terminals,
        num_players]``, by terminal index) over ``tree.sequence_form``'s entries."""
        chance, util = self._check(chance_probs, utilities)
        reach = self.terminal_chance_reach(chance)
        weighted = reach[:, None] * util[self._terminal_id]
        coef = np.stack([
            np.bincount(self._entry, weights=weighted[:, p], minlength=self.num_entries)
            for p in range(weighted.shape[1])
        ])
        return coef, np.bincount(self._entry, weights=reach, minlength=self.num_entries)

    def node_numbers(
        self, chance_probs: np.ndarray, utilities: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(chance_prob [num_nodes], utilities [num_nodes, num_players])``: the tree's node
        arrays for the model (as ``tree.build`` would compile them)."""
        chance, util = self._check(chance_probs, utilities)
        node_chance = self.tree.chance_prob.copy()
        node_chance[self._chance_children] = chance[self._slots]
        node_util = np.zeros_like(self.tree.utilities)
        node_util[self._terminal_rows] = util[self._terminal_id]
        return node_chance, node_util
