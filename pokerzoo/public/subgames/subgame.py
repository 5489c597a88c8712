"""Public subgames of small games: a trunk of the public tree cut at a public line and depth.

``public_subgame(game, history, ranges, depth)`` cuts a small game's public tree (Kuhn, the
Leduc family; built from the rules by ``pokerzoo.public.engine.small_games``) at the public state
``history`` reaches and keeps ``depth`` of it (see ``pokerzoo.public.subgames.depth_limit`` for the
terms and the solver); ``tree_subgame(tree)`` wraps any public tree (a hold'em spot) as a
subgame without leaves, so that re-solving (``pokerzoo.public.subgames.resolve``) serves it too.

In the trunk every depth-limit leaf is a chance node with one placeholder child that is never
visited (the solver's frontier mode makes chance nodes leaves).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import CHANCE as CHANCE_PLAYER
from pokerzoo.games.base import Game, State
from pokerzoo.public.engine.small_games import DenseTerminals, SmallGameTree, public_game_tree
from pokerzoo.public.engine.tree import CHANCE, DECISION, SHOWDOWN, PublicTree
from pokerzoo.public.engine.tree_builder import PublicTreeBuilder

Depth = str | int | None
LEAF_LABEL = "leaf"
"""The label of a leaf's placeholder child."""

_FULL_TREES: dict[tuple[str, str], SmallGameTree] = {}


def full_tree(game: Game) -> SmallGameTree:
    """The whole game's public tree (built once per game name and parameters)."""
    key = (game.name, repr(sorted(game.params().items())))
    small = _FULL_TREES.get(key)
    if small is None:
        small = _FULL_TREES[key] = public_game_tree(game)
    return small


def public_line(game: Game, state: State) -> list[str]:
    """The public labels (actions and public cards) of ``state``'s history, for
    ``public_subgame``: the private deals are skipped, every later step named as the public
    tree names it."""
    replay = game.new_initial_state()
    line: list[str] = []
    for action in state.history():
        if replay.current_player() == CHANCE_PLAYER:
            if all(replay.private_cards()):
                line.append(game.card_to_string(action))
        else:
            line.append(game.action_to_string(action, replay))
        replay.apply_action(action)
    return line


@dataclass(frozen=True, eq=False)
class Subgame:
    """A trunk of a small game's public tree with its depth-limit leaves.

    ``tree`` is rooted at the public state ``history`` reaches (its ``initial_reach`` the
    ranges); ``full_node[n]`` is trunk node ``n``'s node in ``small.tree`` (the whole game;
    a leaf's is the public state where the rest of the game starts: the chance node dealing
    the next card, or the decision node where the action limit was reached); ``leaves`` are
    the trunk ids of the leaves in increasing order (the frontier order of the sweep).
    ``small`` is ``None`` for a subgame wrapping a tree that no game built here (a hold'em
    spot, ``tree_subgame``): the whole tree, no leaves, ``full_node`` the identity.
    """

    small: SmallGameTree | None
    tree: PublicTree
    history: tuple[str, ...]
    depth: Depth
    root: int
    full_node: np.ndarray
    leaves: np.ndarray

    @property
    def game(self) -> Game:
        return self.whole.game

    @property
    def whole(self) -> SmallGameTree:
        """The whole game's public tree (``ConfigError`` for a wrapped spot tree)."""
        if self.small is None:
            raise ConfigError("this subgame wraps a tree built without a game (tree_subgame); "
                              "it has no whole-game tree")
        return self.small

    @property
    def num_leaves(self) -> int:
        return int(self.leaves.shape[0])

    @property
    def leaf_full_nodes(self) -> np.ndarray:
        """The whole game's node of each leaf."""
        return self.full_node[self.leaves]

    def leaf_state(self, index: int) -> dict[str, Any]:
        """Leaf ``index``'s public state: ``line`` (labels from the game's start), ``board``,
        ``pot``, ``contrib``, ``next`` (``"chance"``: a card is dealt next; ``"decision"``:
        ``player`` acts next)."""
        full = self.whole.tree
        node = int(self.leaf_full_nodes[index])
        return {
            "line": full.line(node), "board": full.board_cards(node),
            "pot": float(full.pot[node]), "contrib": [float(c) for c in full.contrib[node]],
            "next": "chance" if full.kind[node] == CHANCE else "decision",
            "player": int(full.player[node]),
        }

    def with_ranges(self, ranges: Sequence[Any]) -> Subgame:
        """The same trunk with other ranges (no rebuild)."""
        full = self.tree if self.small is None else self.small.tree
        reach = _checked_ranges(full, self.root, ranges)
        tree = _replace_reach(self.tree, reach)
        return Subgame(self.small, tree, self.history, self.depth, self.root, self.full_node,
                       self.leaves)


def _replace_reach(tree: PublicTree, reach: tuple[np.ndarray, np.ndarray]) -> PublicTree:
    return replace(tree, initial_reach=reach)


def tree_subgame(tree: PublicTree, ranges: Sequence[Any] | None = None) -> Subgame:
    """Any public tree (a hold'em spot's, ``holdem_spot.build_spot_tree``) as a subgame
    without leaves, rooted at its root, with ``ranges`` (default: the tree's own) as both
    players' reaches there; ``resolve`` then re-solves it with a gadget."""
    if not isinstance(tree, PublicTree):
        raise ConfigError(f"expected a PublicTree, got {type(tree).__name__}")
    if ranges is not None:
        tree = _replace_reach(tree, _checked_ranges(tree, 0, ranges))
    identity = np.arange(tree.num_nodes, dtype=np.int64)
    identity.flags.writeable = False
    leaves = np.zeros(0, dtype=np.int64)
    leaves.flags.writeable = False
    return Subgame(None, tree, (), None, 0, identity, leaves)


def find_node(tree: PublicTree, history: Sequence[str]) -> int:
    """The node of ``tree`` that the edge labels ``history`` reach (``ConfigError`` if none)."""
    if isinstance(history, str) or not isinstance(history, Sequence):
        raise ConfigError(f"history must be a sequence of public labels, not {history!r}")
    node = 0
    for step, label in enumerate(history):
        found = [c for c in tree.children(node) if tree.label(c) == label]
        if not found:
            legal = sorted({tree.label(c) for c in tree.children(node)})
            raise ConfigError(f"history step {step} {label!r} is not legal after "
                              f"{list(history[:step])}; legal: {legal}")
        node = found[0]
    return node


def _checked_ranges(full: PublicTree, root: int, ranges: Sequence[Any]
                    ) -> tuple[np.ndarray, np.ndarray]:
    if len(ranges) != 2:
        raise ConfigError(f"ranges must be two arrays (one per player), not {len(ranges)}")
    board = full.board_cards(root)
    out = []
    for p in (0, 1):
        r = np.array(ranges[p], dtype=np.float64).reshape(-1)
        if r.shape != (full.num_hands(p),) or not np.all(np.isfinite(r)) or np.any(r < 0):
            raise ConfigError(f"ranges[{p}] must hold {full.num_hands(p)} finite weights >= 0 "
                              f"(one per hand of the tree), got shape {np.shape(ranges[p])}")
        for card in board:
            r[full.hands_holding(p, card)] = 0.0
        r.flags.writeable = False
        out.append(r)
    return out[0], out[1]


def public_subgame(game: Game, history: Sequence[str], ranges: Sequence[Any],
                   depth: Depth = "round") -> Subgame:
    """The trunk of ``game`` at the public state ``history`` reaches, ``depth`` deep (see the
    module docstring), with ``ranges`` as both players' reaches at its root.

    >>> from pokerzoo.games import load_game
    >>> sub = public_subgame(load_game("leduc_holdem"), [], [np.ones(6), np.ones(6)])
    >>> sub.num_leaves, sub.leaf_state(0)["line"]
    (5, ['call', 'call'])
    """
    if not (depth is None or depth == "round" or (
        isinstance(depth, int) and not isinstance(depth, bool) and depth >= 1
    )):
        raise ConfigError(f"depth must be 'round', an int >= 1 or None, not {depth!r}")
    small = full_tree(game)
    full = small.tree
    root = find_node(full, history)
    if full.kind[root] not in (DECISION, CHANCE):
        raise ConfigError(f"history {list(history)} ends at a terminal; a subgame starts where "
                          "a player acts or a card is dealt")
    if depth == "round" and not np.any(full.kind == CHANCE):
        raise ConfigError(f"depth='round' on {game.name}, a game without later rounds (no "
                          "public cards); use an int depth or None")
    reach = _checked_ranges(full, root, ranges)
    tree, full_node, leaves = cut_tree(full, root, reach, depth)
    if full.kind[root] == CHANCE and leaves.size:
        raise ConfigError(f"history {list(history)} ends where a card is dealt; a subgame from "
                          "there must end before the next card (its round has no later "
                          "depth-limit leaves): use a smaller depth or None")
    return Subgame(small, tree, tuple(history), depth, root, full_node, leaves)


def cut_tree(full: PublicTree, root: int, reach: tuple[np.ndarray, np.ndarray], depth: Depth
             ) -> tuple[PublicTree, np.ndarray, np.ndarray]:
    """The part of the dense tree ``full`` below ``root`` (any kind), ``depth`` deep, with
    ``reach`` at its root: ``(tree, full node of each node, leaf ids)``."""
    payoffs = full.terminals.payoffs if isinstance(full.terminals, DenseTerminals) else None
    if payoffs is None:
        raise ConfigError("public_subgame cuts the dense trees of small games only")
    builder = PublicTreeBuilder(hands=list(full.hands), initial_reach=list(reach),
                                num_cards=full.num_cards, starting_pot=full.starting_pot,
                                hand_names=full.hand_names)
    placeholder = payoffs.shape[0]
    full_of: list[int] = []
    leaf_ids: list[int] = []
    # (full node, trunk parent, actions taken since the root)
    stack: list[tuple[int, int, int]] = [(root, -1, 0)]
    while stack:
        node, parent, acted = stack.pop()
        kind = int(full.kind[node])
        label = full.label(node) if parent >= 0 else ""
        pot, contrib = float(full.pot[node]), tuple(float(c) for c in full.contrib[node])
        board = full.board_cards(node)
        card = int(full.chance_card[node]) if parent >= 0 else -1
        weight = float(full.chance_weight[node]) if parent >= 0 else 1.0
        cut = depth is not None and node != root and (
            kind == CHANCE or (kind == DECISION and isinstance(depth, int) and acted >= depth))
        if cut:
            new = builder.add_chance(parent, label, pot, contrib, board, card, weight)
            free = next(c for c in range(full.num_cards) if c not in board)
            builder.add_terminal(new, LEAF_LABEL, SHOWDOWN, pot, contrib, board,
                                 data=placeholder, card=free, weight=1.0)
            full_of += [node, node]
            leaf_ids.append(new)
            continue
        if kind == DECISION:
            new = builder.add_decision(parent, label, int(full.player[node]), pot, contrib,
                                       board, card, weight)
        elif kind == CHANCE:
            new = builder.add_chance(parent, label, pot, contrib, board, card, weight)
        else:
            new = builder.add_terminal(parent, label, kind, pot, contrib, board,
                                       folder=int(full.folder[node]),
                                       data=int(full.terminal_data[node]), card=card,
                                       weight=weight)
        full_of.append(node)
        step = 1 if kind == DECISION else 0
        stack.extend((c, new, acted + step) for c in reversed(full.children(node)))
    terminals = DenseTerminals(np.concatenate([payoffs, np.zeros((1, *payoffs.shape[1:]))]))
    tree, final = builder.build(terminals)
    full_node = np.empty(tree.num_nodes, dtype=np.int64)
    full_node[final] = np.asarray(full_of, dtype=np.int64)
    leaves = np.sort(final[np.asarray(leaf_ids, dtype=np.int64)]) if leaf_ids else np.zeros(
        0, dtype=np.int64)
    full_node.flags.writeable = False
    leaves.flags.writeable = False
    return tree, full_node, leaves
