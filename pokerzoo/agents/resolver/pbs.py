"""Public belief states (PBS) of a small game and their exact values: the value network's data.

A PBS is a public state (a node of the game's public tree, ``public_game_tree``) and one range
per player over its fixed hand list. Its *values* are, per hand and player, the counterfactual
value of the rest of the game from that node when both play an equilibrium of the subgame the
two ranges define, with the opponent's range normalised to sum 1 and divided by the node's pot
(DeepStack's counterfactual-value network target, in "chips per pot"). The subgame is solved by
the public engine's compiled sweep started at the node (``sweep_kernel.sweep(start=node)``),
many PBSs in one compiled loop (``solve_states``). Each hand's value is its best response to
the opponent's average strategy: for a hand in the range that is its equilibrium value, and a
hand the range leaves out still gets what it would win by entering (what a depth-limited
solver needs to judge the actions that lead there).

Where the states come from:

* ``random_states``: DeepStack's generator: a public state drawn uniformly from the leaf
  states, ranges from the recursive range generator over hands sorted by strength (each
  segment's mass split at its middle by a uniform draw), blocked hands removed;
* ``policy_states``: ReBeL's: the public states and ranges a policy's play reaches (the exact
  reach of each hand under the policy), states drawn by how often play reaches them, ranges
  perturbed by log-normal noise so the net also sees their neighbourhood;
* any ranges the caller holds (a re-solver's): ``solve_states`` directly.

``generate_dataset`` writes chunks of solved states as ``.npz`` files (atomically, no pickle),
chunk ``k`` drawn from its own seed, so an interrupted generation resumes where it stopped and
gives the same data; ``load_dataset`` reads them back, refusing another game's files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerzoo.agents.resolver.pbs_kernel import solve, subtree_nodes, trace
from pokerzoo.checkpoint import plain_data
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.public.engine.small_games import (
    DenseTerminals,
    SmallGameTree,
    policy_blocks,
    public_game_tree,
)
from pokerzoo.public.engine.tree import CHANCE, DECISION, PublicTree
from pokerzoo.schedule import schedule_table

LEAF_KINDS = ("round_end", "all")
"""Which public nodes are leaf states: ``"round_end"`` the public chance nodes (a betting round
just ended; DeepStack's depth limit), ``"all"`` every decision and public chance node."""


@dataclass(frozen=True)
class FeatureSpec:
    """How a public state becomes the network's feature vector (``features``)."""

    num_cards: int
    """Board one-hot width (the deck)."""
    board_sizes: tuple[int, ...]
    """The board sizes the game has, one round each (Leduc: 0 and 1 card)."""
    pot_scale: float
    """Chips that map to 1.0 (the game's largest pot)."""

    @property
    def size(self) -> int:
        """Features: board one-hot, pot and both contributions, round one-hot, actor one-hot
        (player 0, player 1, chance)."""
        return self.num_cards + 3 + len(self.board_sizes) + 3

    def features(self, tree: PublicTree, nodes: np.ndarray) -> np.ndarray:
        """``[L, size]`` float32 features of ``tree``'s ``nodes`` (any public tree of the game:
        pots and boards are the game's own chips and cards)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        if tree.num_cards > self.num_cards:
            raise ConfigError(f"the tree deals {tree.num_cards} cards; this network knows "
                              f"{self.num_cards}")
        out = np.zeros((nodes.size, self.size), dtype=np.float32)
        boards = np.asarray(tree.boards)[np.asarray(tree.board)[nodes]]
        rows, slots = np.nonzero(boards >= 0)
        out[rows, boards[rows, slots]] = 1.0
        c = self.num_cards
        out[:, c] = np.asarray(tree.pot)[nodes] / self.pot_scale
        out[:, c + 1:c + 3] = np.asarray(tree.contrib)[nodes] / self.pot_scale
        size = (boards >= 0).sum(axis=1)
        known = np.asarray(self.board_sizes)
        where = np.searchsorted(known, size)
        if np.any(where >= known.size) or np.any(known[np.minimum(where, known.size - 1)] != size):
            raise ConfigError(f"a leaf has a board of {sorted(set(size.tolist()))} cards; this "
                              f"network knows boards of {list(self.board_sizes)} cards")
        out[np.arange(nodes.size), c + 3 + where] = 1.0
        kind = np.asarray(tree.kind)[nodes]
        actor = np.where(kind == DECISION, np.asarray(tree.player)[nodes], 2)
        out[np.arange(nodes.size), c + 3 + known.size + actor] = 1.0
        return out

    def to_json(self) -> dict[str, Any]:
        return {"num_cards": self.num_cards, "board_sizes": list(self.board_sizes),
                "pot_scale": self.pot_scale}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FeatureSpec:
        return cls(int(data["num_cards"]), tuple(int(x) for x in data["board_sizes"]),
                   float(data["pot_scale"]))


@dataclass(frozen=True)
class StateBatch:
    """Solved public belief states: ``node`` ``[N]`` (public node ids), ``features``
    ``[N, F]``, normalised ranges ``range0`` ``[N, H0]`` / ``range1``, values per pot
    ``value0`` / ``value1`` (see the module docstring), ``gap`` ``[N]`` (the solve's NashConv
    in chips per pot, for the record)."""

    node: np.ndarray
    features: np.ndarray
    range0: np.ndarray
    range1: np.ndarray
    value0: np.ndarray
    value1: np.ndarray
    gap: np.ndarray

    FIELDS = ("node", "features", "range0", "range1", "value0", "value1", "gap")

    def __len__(self) -> int:
        return int(self.node.shape[0])

    @classmethod
    def concatenate(cls, batches: list[StateBatch]) -> StateBatch:
        return cls(*(np.concatenate([getattr(b, f) for b in batches]) for f in cls.FIELDS))


def game_record(game: Game) -> dict[str, Any]:
    """The game's name and parameters as plain JSON data (what data and nets are checked by)."""
    return {"game": game.name, "game_params": json.loads(json.dumps(plain_data(game.params())))}


class LeafStates:
    """The leaf public states of a small game and the engine that solves PBSs there.

    Args:
        game: a small heads-up game with rounds (the Leduc family).
        leaves: ``"round_end"`` or ``"all"`` (``LEAF_KINDS``).
        iterations: DCFR iterations per solve (the targets' accuracy; the gap is recorded).
    """

    def __init__(self, game: Game, leaves: str = "round_end", iterations: int = 1000) -> None:
        if leaves not in LEAF_KINDS:
            raise ConfigError(f"leaves must be one of {LEAF_KINDS}, not {leaves!r}")
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise ConfigError(f"iterations must be an int >= 1, not {iterations!r}")
        self.game = game
        self.small: SmallGameTree = public_game_tree(game)
        tree = self.tree
        chance = np.flatnonzero(tree.kind == CHANCE)
        if chance.size == 0:
            raise ConfigError(f"{game.name} has one betting round and no public cards: a "
                              "value network at a depth limit needs a game with rounds (Leduc)")
        self.nodes = chance if leaves == "round_end" else np.flatnonzero(tree.kind <= CHANCE)
        self.iterations = iterations
        self._scalars = schedule_table("dcfr", 1, iterations)
        sizes = sorted({int((row >= 0).sum()) for row in np.asarray(tree.boards)})
        self.spec = FeatureSpec(tree.num_cards, tuple(sizes), float(np.max(tree.pot)))
        self._order = [self._strength_order(p) for p in (0, 1)]
        self._splits = [_split_levels(tree.num_hands(p)) for p in (0, 1)]

    @property
    def tree(self) -> PublicTree:
        return self.small.tree

    def _strength_order(self, player: int) -> np.ndarray:
        """``[num_boards, H]`` hand indices from weakest to strongest on each board (equity
        against a uniform range, averaged over the next card where no showdown is on it)."""
        tree = self.tree
        terminals = tree.terminals
        out = np.zeros((tree.boards.shape[0], tree.num_hands(player)), dtype=np.int64)
        for b in range(tree.boards.shape[0]):
            node = int(np.flatnonzero(np.asarray(tree.board) == b)[0])
            equity = terminals.equity(tree, node, player,  # type: ignore[union-attr]
                                      np.ones(tree.num_hands(1 - player)))
            out[b] = np.argsort(np.nan_to_num(equity, nan=-1.0), kind="stable")
        return out

    def blocked(self, player: int, nodes: np.ndarray) -> np.ndarray:
        """``[L, H]`` bool: the hands the nodes' boards block."""
        tree = self.tree
        boards = np.asarray(tree.boards)[np.asarray(tree.board)[nodes]]
        masks = np.asarray(tree.card_masks[player])
        out = np.zeros((len(nodes), tree.num_hands(player)), dtype=bool)
        for slot in range(boards.shape[1]):
            card = boards[:, slot]
            out |= np.where((card >= 0)[:, None], masks[np.maximum(card, 0)], False)
        return out

    def random_states(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        """DeepStack's random PBSs: ``(nodes [n], range0 [n, H0], range1 [n, H1])``."""
        nodes = rng.choice(self.nodes, size=n)
        board = np.asarray(self.tree.board)[nodes]
        ranges = []
        for p in (0, 1):
            mass = _recursive_mass(rng, n, self._splits[p])
            r = np.zeros_like(mass)
            np.put_along_axis(r, self._order[p][board], mass, axis=1)
            ranges.append(r)
        return (nodes, *self.normalise(nodes, ranges[0], ranges[1]))

    def policy_reach(self, policy: Any) -> tuple[np.ndarray, np.ndarray]:
        """Each player's reach ``[num_nodes, H]`` of every public node under ``policy``: an
        object answering ``action_probabilities(state)``, ``{decision node: [actions, hands]}``
        blocks of this public tree (a public solver's strategies) or a ``[nodes, hands]``
        array of each child node's probability for the player acting above it."""
        tree = self.tree
        edge = [np.ones((tree.num_nodes, tree.num_hands(p))) for p in (0, 1)]
        blocks: Any = None
        if not isinstance(policy, np.ndarray):
            blocks = policy if isinstance(policy, Mapping) else policy_blocks(self.small, policy)
        decisions = np.flatnonzero(tree.kind == DECISION)
        for p in (0, 1):
            mine = decisions[np.asarray(tree.player)[decisions] == p]
            children = np.concatenate([np.asarray(tree.children(int(n))) for n in mine] or
                                      [np.zeros(0, dtype=np.int64)])
            if blocks is None:  # [nodes, hands] edge probabilities
                edge[p][children] = policy[children, :tree.num_hands(p)]
            elif mine.size:
                edge[p][children] = np.concatenate([blocks[int(n)] for n in mine])
        reach = [edge[p].copy() for p in (0, 1)]
        parent = np.asarray(tree.parent)
        depth = np.asarray(tree.depth)
        # Parents before children: one vector step per depth, not per node.
        for d in range(1, int(depth.max()) + 1):
            at = np.flatnonzero(depth == d)
            for p in (0, 1):
                reach[p][at] = reach[p][parent[at]] * edge[p][at]
        for p in (0, 1):
            reach[p] *= ~self.blocked(p, np.arange(tree.num_nodes))
        return reach[0], reach[1]

    def policy_states(self, n: int, rng: np.random.Generator, reach: tuple[np.ndarray, ...],
                      noise: float = 0.5) -> tuple[np.ndarray, ...]:
        """ReBeL's PBSs from play: leaf states drawn by the chance play reaches them (given
        ``policy_reach``'s arrays), ranges times ``exp(noise x N(0, 1))`` per hand."""
        tree = self.tree
        r0, r1 = reach[0][self.nodes], reach[1][self.nodes]
        compatible = np.asarray(tree.compatible, dtype=np.float64)
        weights = np.einsum("li,ij,lj->l", r0, compatible, r1)
        weights *= np.array([tree.path_weight(int(x)) for x in self.nodes])
        if not weights.sum() > 0:
            raise ConfigError("the policy reaches none of the leaf states")
        pick = rng.choice(self.nodes.size, size=n, p=weights / weights.sum())
        out = []
        for r in (r0, r1):
            jitter = np.exp(noise * rng.standard_normal((n, r.shape[1])))
            out.append(r[pick] * jitter)
        nodes = self.nodes[pick]
        return (nodes, *self.normalise(nodes, out[0], out[1]))

    def normalise(self, nodes: np.ndarray, range0: np.ndarray,
                  range1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Ranges with blocked hands zeroed, each row summing to 1 (uniform where empty)."""
        out = []
        for p, r in enumerate((range0, range1)):
            free = ~self.blocked(p, nodes)
            r = np.where(free, np.asarray(r, dtype=np.float64), 0.0)
            total = r.sum(axis=1, keepdims=True)
            uniform = free / free.sum(axis=1, keepdims=True)
            out.append(np.where(total > 0, r / np.where(total > 0, total, 1.0), uniform))
        return out[0], out[1]

    def solve_states(self, nodes: np.ndarray, range0: np.ndarray,
                     range1: np.ndarray) -> StateBatch:
        """Solve each PBS exactly (``iterations`` of DCFR on the subgame below its node, in one
        compiled loop) and return them with their values per pot."""
        tree = self.tree
        nodes = np.ascontiguousarray(nodes, dtype=np.int64)
        range0, range1 = self.normalise(nodes, range0, range1)
        sub, starts = subtree_nodes(tree, nodes)
        out0, out1 = np.zeros_like(range0), np.zeros_like(range1)
        average0, average1 = np.zeros_like(range0), np.zeros_like(range1)
        solve(sub, starts, *_kernel_tree(tree), np.ascontiguousarray(range0),
              np.ascontiguousarray(range1), self._scalars, out0, out1, average0, average1)
        pot = np.asarray(tree.pot)[nodes][:, None]
        compatible = np.asarray(tree.compatible, dtype=np.float64)
        mass = np.einsum("li,ij,lj->l", range0, compatible, range1)
        gap = ((range0 * out0).sum(1) + (range1 * out1).sum(1)) / np.maximum(mass, 1e-300)
        return StateBatch(node=nodes, features=self.spec.features(tree, nodes),
                          range0=range0, range1=range1, value0=out0 / pot, value1=out1 / pot,
                          gap=gap / pot[:, 0])


def suit_permutations(game: Game, tree: PublicTree) -> tuple[np.ndarray, np.ndarray,
                                                             np.ndarray]:
    """The suit relabellings of a Leduc-family game (card ``c``: rank ``c // num_suits``, suit
    ``c % num_suits``; suits never decide a hand), identity first: ``(cards [P, C], hands0
    [P, H0], hands1 [P, H1])`` with ``cards[k][c]`` the card ``c`` becomes and
    ``hands_p[k][h]`` the index of the hand ``h`` becomes. A game without suits gets the
    identity alone."""
    import itertools

    suits = game.params().get("num_suits")
    cards = np.arange(tree.num_cards)
    maps = [cards]
    if isinstance(suits, int) and suits > 1 and tree.num_cards % suits == 0:
        for order in itertools.permutations(range(suits)):
            if list(order) != list(range(suits)):
                maps.append((cards // suits) * suits + np.asarray(order)[cards % suits])
    hands = []
    for p in (0, 1):
        index = {tuple(sorted(h)): i for i, h in enumerate(tree.hands[p].tolist())}
        rows = []
        for m in maps:
            mapped = [index.get(tuple(sorted(m[h]))) for h in tree.hands[p]]
            if any(i is None for i in mapped):
                return cards[None], np.arange(tree.num_hands(0))[None], np.arange(
                    tree.num_hands(1))[None]
            rows.append(mapped)
        hands.append(np.asarray(rows, dtype=np.int64))
    return np.asarray(maps, dtype=np.int64), hands[0], hands[1]


def solver_reaches(states: LeafStates, snapshots: Sequence[int] = (1, 2, 4, 8, 16, 32, 64,
                                                                  128, 256)) -> list[Any]:
    """ReBeL's "states of the agent's own play" for a CFR-style re-solver: the reaches of the
    current strategies of a DCFR solve of the whole game after each of ``snapshots``
    iterations, and of the average strategy at the end (what a depth-limited solve's leaves
    see, from its first iterations to convergence)."""
    tree = states.tree
    marks = sorted(set(int(x) for x in snapshots))
    if not marks or marks[0] < 1:
        raise ConfigError(f"snapshots must be iterations >= 1, not {list(snapshots)}")
    scalars = schedule_table("dcfr", 1, marks[-1])
    snapshot = np.full(marks[-1], -1, dtype=np.int64)
    snapshot[np.asarray(marks) - 1] = np.arange(len(marks))
    width = max(tree.num_hands(0), tree.num_hands(1))
    out = np.zeros((len(marks) + 1, tree.num_nodes, width))
    sub, _ = subtree_nodes(tree, np.array([0]))
    trace(sub, *_kernel_tree(tree), np.array(tree.initial_reach[0]),
          np.array(tree.initial_reach[1]), scalars, snapshot, out)
    return [states.policy_reach(edges) for edges in out]


def _kernel_tree(tree: PublicTree) -> tuple[Any, ...]:
    """The tree's arrays in the order ``pbs_kernel``'s functions take them."""
    if not isinstance(tree.terminals, DenseTerminals) or tree.terminals.table is not None:
        raise ConfigError("PBSs are solved on the dense public trees of small games (one "
                          "unscaled payoff matrix per terminal)")
    return (np.asarray(tree.kind), np.asarray(tree.player), np.asarray(tree.parent),
            np.asarray(tree.first_child), np.asarray(tree.num_children),
            np.asarray(tree.chance_card), np.asarray(tree.chance_weight),
            np.asarray(tree.terminal_data), tree.terminals.payoffs,
            np.asarray(tree.card_masks[0]), np.asarray(tree.card_masks[1]))


def _split_levels(size: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The recursive generator's binary splits of ``size`` sorted hands, per level: each hand's
    segment index at that level and whether it lies in the segment's upper half (-1 when its
    segment has one hand left)."""
    levels = []
    segments = [(0, size)]
    while any(hi - lo > 1 for lo, hi in segments):
        seg = np.full(size, -1, dtype=np.int64)
        upper = np.zeros(size, dtype=bool)
        nxt = []
        for i, (lo, hi) in enumerate(segments):
            if hi - lo > 1:
                mid = (lo + hi) // 2
                seg[lo:hi] = i
                upper[mid:hi] = True
                nxt += [(lo, mid), (mid, hi)]
            else:
                nxt.append((lo, hi))
        levels.append((seg, upper))
        segments = nxt
    return levels


def _recursive_mass(rng: np.random.Generator, n: int,
                    levels: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """``[n, H]`` masses in strength order: every segment's mass split by a uniform draw."""
    size = levels[0][0].size if levels else 1
    mass = np.ones((n, size))
    for seg, upper in levels:
        split = rng.random((n, int(seg.max()) + 1))
        share = np.where(upper, 1.0 - split[:, np.maximum(seg, 0)], split[:, np.maximum(seg, 0)])
        mass *= np.where(seg >= 0, share, 1.0)
    return mass
