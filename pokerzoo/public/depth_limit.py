"""Depth-limited public subgames and their solver: a trunk solved with values at its leaves.

``public_subgame(game, history, ranges, depth)`` cuts a small game's public tree (Kuhn, the
Leduc family; built from the rules by ``pokerzoo.public.small_games``) at the public state
``history`` reaches and keeps ``depth`` of it:

* ``history``: the public edge labels from the start of the game, in the public tree's own
  terms (``PublicTree.labels``): betting actions as ``game.action_to_string`` names them
  (Leduc: ``"fold"``, ``"call"`` (a check is a call of 0), ``"raise"``) and public cards as
  ``game.card_to_string`` names them (``"Qh"``); ``public_line(game, state)`` reads it off a
  game ``State``. The private deals are not in it.
* ``ranges``: each player's weights over the whole tree's hand lists (``tree.hands[p]``),
  without the chance weights on the path (the engine's reach convention); hands blocked by the
  board are given weight 0.
* ``depth``: ``"round"`` stops where the next public card is dealt (that chance node is a
  leaf; a history that ends where a card is about to be dealt keeps that deal and the round
  after it), an int ``k`` stops after ``k`` more actions or at the round's end, whichever comes
  first (a trunk holds at most one betting round), ``None`` keeps the whole rest (no leaves).

In the trunk (``Subgame.tree``) every depth-limit leaf is a chance node with one placeholder
child that is never visited: ``DepthLimitedSolver`` sweeps with the engine's frontier mode
(``pokerzoo.public.sweep_kernel``: chance nodes are leaves; one pass records both reaches there,
the next reads the values) and asks a ``LeafValues`` source for the values in between. A plain
``PublicSolver`` on ``Subgame.tree`` would value the placeholders at 0.

Values are chips net of each player's contribution since the start of the game
(``pokerzoo.public.tree``'s convention); the value of a hand at a leaf is counterfactual
(weighted by the opponent's reach there), as at any node of the sweep.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import CHANCE as CHANCE_PLAYER
from pokerzoo.games.base import Game, State
from pokerzoo.public import sweep_kernel as kernel
from pokerzoo.public.small_games import DenseTerminals, SmallGameTree, public_game_tree
from pokerzoo.public.solver import PublicSolver, SolverConfig
from pokerzoo.public.tree import CHANCE, DECISION, SHOWDOWN, PublicTree, PublicTreeBuilder

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
    """

    small: SmallGameTree
    tree: PublicTree
    history: tuple[str, ...]
    depth: Depth
    root: int
    full_node: np.ndarray
    leaves: np.ndarray

    @property
    def game(self) -> Game:
        return self.small.game

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
        full = self.small.tree
        node = int(self.leaf_full_nodes[index])
        return {
            "line": full.line(node), "board": full.board_cards(node),
            "pot": float(full.pot[node]), "contrib": [float(c) for c in full.contrib[node]],
            "next": "chance" if full.kind[node] == CHANCE else "decision",
            "player": int(full.player[node]),
        }

    def with_ranges(self, ranges: Sequence[Any]) -> Subgame:
        """The same trunk with other ranges (no rebuild)."""
        reach = _checked_ranges(self.small.tree, self.root, ranges)
        tree = _replace_reach(self.tree, reach)
        return Subgame(self.small, tree, self.history, self.depth, self.root, self.full_node,
                       self.leaves)


def _replace_reach(tree: PublicTree, reach: tuple[np.ndarray, np.ndarray]) -> PublicTree:
    from dataclasses import replace

    return replace(tree, initial_reach=reach)


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


@runtime_checkable
class LeafValues(Protocol):
    """A source of values at a subgame's depth-limit leaves.

    ``values(subgame, leaves, reach0, reach1)`` gets leaf indices ``leaves`` ``[L]`` (into
    ``subgame.leaves``) and both players' reaches there (``[L, H0]``, ``[L, H1]``: initial
    range times the strategies on the path, no chance weights) and returns each player's
    counterfactual values there, ``([L, H0], [L, H1])``, in chips (the tree's convention):
    player 0's value of hand ``h`` sums over player 1's hands ``h'`` sharing no card with
    ``h`` (nor the board) ``reach1[h'] * E[u_0 | h, h', the rest of the game]``, the chance
    of the cards still to come inside the expectation.
    """

    def values(self, subgame: Subgame, leaves: np.ndarray, reach0: np.ndarray,
               reach1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ...


@runtime_checkable
class LeafGame(Protocol):
    """Leaf values that take part in the solve (multi-valued leaves' opponent choices, an
    oracle's rest-of-game solvers run in step with the trunk): the solver says which pass
    each call serves. ``mode`` is ``"cfr"`` (``traverser``'s regrets below or at the leaves
    are updated from these reaches with the iteration's ``scalars``, as
    ``pokerzoo.public.solver.discounts`` gives them), ``"average"`` (both play their average
    strategies there) or ``"best_response"`` (``traverser`` best-responds there to the other's
    average strategy)."""

    def leaf_values(self, subgame: Subgame, leaves: np.ndarray, reach0: np.ndarray,
                    reach1: np.ndarray, mode: str, traverser: int,
                    scalars: tuple[float, float, bool, float, float]) -> np.ndarray:
        """``traverser``'s counterfactual values ``[L, H_traverser]`` at ``leaves``."""
        ...


_MODE_NAMES = {kernel.MODE_CFR: "cfr", kernel.MODE_AVERAGE: "average",
               kernel.MODE_BEST_RESPONSE: "best_response"}


class DepthLimitedSolver(PublicSolver):
    """CFR+/DCFR on a subgame's trunk with leaf values from ``leaves`` at the current reaches.

    Every pass for a traverser is two sweeps: the first records both reaches at the leaves
    (no update), ``leaves.values`` turns them into values, the second sweeps with those values
    (and updates, in CFR passes). ``game_value`` and ``best_response_values`` /
    ``exploitability`` are measured in the trunk against the source's values at the average
    strategies' reaches: exact for a source whose values are linear in the opponent's reach
    (fixed continuations); for an ``OracleLeaves`` a best response in the trunk against the
    continuation solved at those reaches (an upper bound of the trunk's exploitability,
    0 at its equilibrium).

    Args:
        subgame: from ``public_subgame``.
        leaves: a ``LeafValues`` (or ``LeafGame``) source; ignored when there are no leaves.
        config, locks, overrides: as ``PublicSolver`` (``threads`` must be 1).

    >>> from pokerzoo.games import load_game
    >>> from pokerzoo.public.leaf_values import OracleLeaves
    >>> game = load_game("leduc_holdem")
    >>> sub = public_subgame(game, [], [np.ones(6), np.ones(6)])
    >>> solver = DepthLimitedSolver(sub, OracleLeaves(game), algorithm="dcfr")
    >>> solver.iterate(50)
    >>> round(solver.game_value()[0], 2)
    -0.09
    """

    def __init__(self, subgame: Subgame, leaves: LeafValues | LeafGame | None,
                 config: SolverConfig | None = None, locks: dict[int, Any] | None = None,
                 **overrides: Any) -> None:
        if not isinstance(subgame, Subgame):
            raise ConfigError(f"expected a Subgame (public_subgame), got {type(subgame).__name__}")
        super().__init__(subgame.tree, config, locks, **overrides)
        if self.config.threads != 1:
            raise ConfigError("a depth-limited solve sweeps on one thread; threads must be 1")
        if subgame.num_leaves and not isinstance(leaves, LeafValues | LeafGame):
            raise ConfigError("the subgame has depth-limit leaves: leaves must offer "
                              "values(subgame, leaves, reach0, reach1) (a LeafValues)")
        if subgame.num_leaves and not np.array_equal(self._frontier, subgame.leaves):
            raise ConfigError("the subgame's chance nodes must all be depth-limit leaves")
        self.subgame = subgame
        self.leaf_source = leaves
        self._all_leaves = np.arange(subgame.num_leaves)

    def _sweep(self, mode: int, trav: int, scalars: tuple[float, float, bool, float, float],
               record: int = -1) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        tree = self.tree
        return self.sweep_from(mode, trav, scalars, 0, np.array(tree.initial_reach[trav]),
                               np.array(tree.initial_reach[1 - trav]), record)

    def sweep_from(self, mode: int, trav: int,
                   scalars: tuple[float, float, bool, float, float], start: int,
                   own: np.ndarray, opp: np.ndarray, record: int = -1,
                   ) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """One pass of ``mode`` (``sweep_kernel.MODE_*``) for ``trav`` over the subtree of
        ``start`` with these reaches there, the leaves valued by the source at the reaches the
        pass brings them: ``(trav's values at start, what record copied)`` (``record``: a node
        whose reaches and values are copied out, as in ``PublicSolver``)."""
        if not self.subgame.num_leaves:
            return self._call(mode, trav, scalars, start, own, opp, record=record)
        tree = self.tree
        count = self.subgame.num_leaves
        fronts = (np.zeros((count, tree.num_hands(trav))),
                  np.zeros((count, tree.num_hands(1 - trav))),
                  np.zeros((count, tree.num_hands(trav))))
        self._call(mode, trav, scalars, start, own, opp, update=False, fronts=fronts,
                   frontier_record=True)
        reach0, reach1 = (fronts[0], fronts[1]) if trav == 0 else (fronts[1], fronts[0])
        fronts[2][:] = self.leaf_values(mode, trav, reach0, reach1, scalars)
        return self._call(mode, trav, scalars, start, own, opp, record=record, fronts=fronts)

    def leaf_values(self, mode: int, trav: int, reach0: np.ndarray, reach1: np.ndarray,
                    scalars: tuple[float, float, bool, float, float] = (1.0, 1.0, False, 1.0,
                                                                        0.0)) -> np.ndarray:
        """``trav``'s values ``[L, H_trav]`` at every leaf for these reaches (one source call)."""
        source = self.leaf_source
        if isinstance(source, LeafGame):
            out = source.leaf_values(self.subgame, self._all_leaves, reach0, reach1,
                                     _MODE_NAMES[mode], trav, scalars)
        else:
            assert source is not None
            out = source.values(self.subgame, self._all_leaves, reach0, reach1)[trav]
        out = np.asarray(out, dtype=np.float64)
        shape = (self.subgame.num_leaves, self.tree.num_hands(trav))
        if out.shape != shape or not np.all(np.isfinite(out)):
            raise ConfigError(f"leaf values of player {trav} must be a finite {list(shape)} "
                              f"array, got shape {list(out.shape)}")
        return out

    def leaf_reaches(self, average: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Both players' reaches ``[L, H0]``, ``[L, H1]`` at the leaves under the average (or
        current) strategies."""
        tree = self.tree
        count = self.subgame.num_leaves
        fronts = (np.zeros((count, tree.num_hands(0))), np.zeros((count, tree.num_hands(1))),
                  np.zeros((count, tree.num_hands(0))))
        mode = kernel.MODE_AVERAGE if average else kernel.MODE_CFR
        if count:
            self._call(mode, 0, _NO_UPDATE, 0, np.array(tree.initial_reach[0]),
                       np.array(tree.initial_reach[1]), update=False, fronts=fronts,
                       frontier_record=True)
        return fronts[0], fronts[1]


_NO_UPDATE = (1.0, 1.0, False, 1.0, 0.0)
