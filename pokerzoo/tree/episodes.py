"""Sampling whole hands on the compiled tree of an unknown-environment game, in batches.

``TreeEpisodeSampler`` plays a batch of hands on a tree: chance edges follow the tree's
``chance_prob``, decisions a tabular profile, and each terminal pays a reward drawn from the
reward distribution of the model the tree was compiled from. All hands of a batch advance
together, one depth at a time (array operations per depth, no loop over hands).

Who may sample which tree: evaluators sample the tree of d* (``InteractionRunner``); an
agent's interaction view samples d* through its ``EnvironmentSampler.play``, which builds
this sampler (``environment_hands``) inside a closure so the agent never holds d*'s tree; a
tree an agent compiled from a believed model samples that belief.

>>> from pokerzoo import load_game
>>> from pokerzoo.tree import build
>>> import numpy as np
>>> view = load_game("unknown_kuhn_poker", seed=0).agent_view()
>>> tree = build(view)
>>> uniform = tree.infoset_mask / tree.infoset_mask.sum(axis=1, keepdims=True)
>>> batch = TreeEpisodeSampler(tree).sample(uniform, 5, np.random.default_rng(0))
>>> len(batch), batch.rewards.shape
(5, (5, 2))
"""

from __future__ import annotations

from typing import cast

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.games.unknown.game import UnknownGameBase
from pokerzoo.games.unknown.model import EnvironmentModel, EpisodeBatch
from pokerzoo.tree.game_tree import GameTree, build, model_maps


def environment_hands(game: Game) -> TreeEpisodeSampler:
    """The hand sampler ``EnvironmentSampler.play`` plays an environment with (its ``hands``
    argument): a ``TreeEpisodeSampler`` on the compiled tree of ``game``, the game dealing
    and paying with the environment's model."""
    return TreeEpisodeSampler(build(game))


class TreeEpisodeSampler:
    """Samples batches of whole hands on ``tree``, a tree of an unknown-environment game.

    Attributes:
        tree: the tree hands are played on.
        leaf_of_terminal: ``[num_terminals]`` the tree row of each terminal index (agents that
            learn from paths, such as outcome-sampling MCCFR, walk up from it).
    """

    def __init__(self, tree: GameTree) -> None:
        if not tree.game.game_type.hidden_model:
            raise ConfigError(f"{tree.game!r} is not an unknown-environment game")
        self.tree = tree
        # The model the tree's numbers come from.
        self._model: EnvironmentModel = cast(UnknownGameBase, tree.game)._model
        maps = model_maps(tree)
        n = tree.num_nodes
        self.slot_of_node = np.full(n, -1, dtype=np.int64)
        self.slot_of_node[maps.chance_children] = maps.slots
        self.terminal_of_node = np.full(n, -1, dtype=np.int64)
        self.terminal_of_node[maps.terminals] = maps.terminal_ids
        self.leaf_of_terminal = np.empty(len(maps.terminal_ids), dtype=np.int64)
        self.leaf_of_terminal[maps.terminal_ids] = maps.terminals
        self._max_children = int(tree.num_children.max())

    def sample(
        self, probs: np.ndarray, num_episodes: int, rng: np.random.Generator
    ) -> EpisodeBatch:
        """``num_episodes`` hands with every player following ``probs`` (``[num_infosets,
        num_actions]``, aligned with the tree; each seat reads its own information sets)."""
        leaves = self.sample_leaves(probs, num_episodes, rng)
        return self.episodes(leaves, rng)

    def sample_leaves(
        self, probs: np.ndarray, num_episodes: int, rng: np.random.Generator
    ) -> np.ndarray:
        """The tree rows where ``num_episodes`` hands following ``probs`` end (no rewards)."""
        tree = self.tree
        parents = tree.parent[1:]
        decision = np.flatnonzero(tree.player[parents] >= 0) + 1
        edge = tree.chance_prob.copy()  # 1 below decision nodes, replaced by the policy:
        edge[decision] = probs[tree.infoset[tree.parent[decision]], tree.action[decision]]
        # Inclusive cumulative probability among siblings: children are contiguous rows.
        total = np.cumsum(edge)
        cum = total.copy()
        cum[1:] -= total[tree.first_child[parents] - 1]
        node = np.zeros(num_episodes, dtype=np.int64)
        while True:
            k = tree.num_children[node]
            live = k > 0
            if not live.any():
                return node
            first = tree.first_child[node[live]]
            kk = k[live]
            u = rng.random(int(live.sum())) * cum[first + kk - 1]
            choice = np.zeros(len(first), dtype=np.int64)
            for j in range(self._max_children - 1):
                # Move past child j while u lies beyond its cumulative share.
                beyond = (j < kk - 1) & (cum[np.minimum(first + j, len(cum) - 1)] <= u)
                choice += beyond
            node[live] = first + choice

    def episodes(self, leaves: np.ndarray, rng: np.random.Generator) -> EpisodeBatch:
        """The ``EpisodeBatch`` of hands ending at tree rows ``leaves``: their chance edges
        and a reward drawn for each from the tree's model."""
        tree = self.tree
        leaves = np.asarray(leaves, dtype=np.int64)
        depth = int(tree.depth.max()) + 1
        # Ancestors of every leaf, deepest first; -1 above the root.
        path = np.full((len(leaves), depth), -1, dtype=np.int64)
        node = leaves.copy()
        for d in range(depth):
            path[:, depth - 1 - d] = np.where(node > 0, node, -1)
            node = np.where(node > 0, tree.parent[np.maximum(node, 0)], 0)
        steps = np.where(path >= 0, self.slot_of_node[np.maximum(path, 0)], -1)
        taken = steps >= 0
        terminals = self.terminal_of_node[leaves]
        outcomes = self._model.sample_reward_outcomes(terminals, rng)
        return EpisodeBatch(
            steps[taken],  # row-major: each episode's chance edges in order
            taken.sum(axis=1),
            terminals,
            self._model.reward_values[terminals, outcomes],
        )

