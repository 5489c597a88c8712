"""DeepStack's continual re-solving loop on a small game, for either seat, memoised.

What the agent in seat ``p`` does at a public decision node ``s`` where it acts depends only
on the public line to ``s``: its own range there (its initial range times its own played
strategies along the line, hands holding a dealt public card removed) and the opponent's
counterfactual values kept from its previous solve. So the loop is a function of
``(p, s)``: ``ContinualResolver.solve_at(p, s)`` performs the agent's re-solve at ``s`` from
the re-solve at its previous turn on the line (computed first, by the same rule), exactly as
play would, and returns the ``Solve`` whose strategy it plays at ``s``. Playing a hand and
tabularising the agent (every ``(p, s)``) thus call the same function.

The rule (Moravcik et al. 2017, Sec. "Continual re-solving"), per turn ``s`` of seat ``p``:

* the previous solve ``S`` is the one at ``p``'s previous turn on the line, or at its first
  turn the *trunk*: a solve from the root of the game with both initial ranges (or a CFR+
  blueprint of the whole game, played as it is in the first betting round);
* ``p``'s range: the range at the previous turn times the played strategy's probability of
  the action taken there, hands holding a public card dealt since then set to 0;
* if ``s`` is inside ``S`` (above its depth-limit leaves), the re-solve starts at ``s`` from
  the opponent's values at ``s`` in ``S`` (after the opponent's actions: the values ``S``
  computed for that child); otherwise the line left ``S`` through a depth-limit leaf ``L``
  (the chance node dealing the next round's card), and the re-solve starts at ``L`` from the
  values ``S``'s leaf-value source gave the opponent there, so that it covers the card and
  any opponent action before ``s``. DeepStack-Leduc instead re-solves at ``s`` from the
  values of the card's child (``get_chance_action_cfv``), a bound that skips the opponent's
  actions in between; starting at ``L`` keeps the bound the previous solve promised, and
  needs leaf values only where the trunk asked for them.

With ``continual=False`` the agent re-solves only where the line leaves the previous solve
(the start of a round) and plays that solve's strategy at its turns inside it.

Re-solves are memoised by ``(seat, root)``: the first turns of a round below one leaf share
the solve at that leaf.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np

from pokerzoo.agents.resolver.config import ResolverConfig
from pokerzoo.agents.resolver.solves import Solve
from pokerzoo.errors import ConfigError
from pokerzoo.public.engine.small_games import SmallGameTree
from pokerzoo.public.engine.tree import CHANCE, DECISION

Resolve = Callable[[int, int, np.ndarray, np.ndarray | None, np.ndarray | None, int | None],
                   Solve]
"""``resolve(root, player, own_range, opp_range, opp_values, draw) -> Solve``: one re-solve
(unsafe when ``opp_values`` is None, a gadget otherwise; ``draw``: ReBeL's iteration)."""


class ContinualResolver:
    """The continual re-solving agent's decisions on one small game's public tree.

    Args:
        small: the game's public tree with its histories.
        config: how each re-solve is done (the play rule and gadget are read here).
        resolve: one re-solve (see ``Resolve``).
        trunk: ``trunk(player) -> Solve``: the solve before the agent's first turn.
        seed: seeds ReBeL's random-iteration draws (one per seat and public state).
    """

    def __init__(self, small: SmallGameTree, config: ResolverConfig, resolve: Resolve,
                 trunk: Callable[[int], Solve], seed: int) -> None:
        self.small = small
        self.tree = small.tree
        self.config = config
        self._resolve = resolve
        self._trunk_of = trunk
        self._seed = seed
        self._trunks: dict[int, Solve] = {}
        self._solves: dict[tuple[int, int], Solve] = {}
        self._ranges: dict[tuple[int, int], np.ndarray] = {}
        self._by_root: dict[tuple[int, int], Solve] = {}
        self.resolves = 0
        """Re-solves performed so far (the trunks not counted)."""

    def own_nodes(self, seat: int) -> list[int]:
        """The public decision nodes where ``seat`` acts, in tree order (parents first)."""
        tree = self.tree
        return np.flatnonzero((tree.kind == DECISION) & (tree.player == seat)).tolist()

    def line(self, node: int) -> list[int]:
        """The nodes from the root down to ``node``."""
        out = [node]
        while node > 0:
            node = int(self.tree.parent[node])
            out.append(node)
        return out[::-1]

    def trunk(self, seat: int) -> Solve:
        if seat not in self._trunks:
            self._trunks[seat] = self._trunk_of(seat)
        return self._trunks[seat]

    def strategy(self, seat: int, node: int) -> np.ndarray:
        """``[actions, H_seat]``: what the agent in ``seat`` plays at ``node``."""
        return self.solve_at(seat, node).strategies[node]

    def done(self, seat: int, node: int) -> bool:
        return (seat, node) in self._solves

    def solve_at(self, seat: int, node: int) -> Solve:
        """The solve the agent in ``seat`` plays at its decision ``node`` (re-solving at
        earlier turns on the line first where they are not done yet)."""
        tree = self.tree
        if not (0 <= node < tree.num_nodes and tree.kind[node] == DECISION
                and int(tree.player[node]) == seat):
            raise ConfigError(f"public node {node} is not a decision of player {seat}")
        key = (seat, node)
        if key in self._solves:
            return self._solves[key]
        line = self.line(node)
        turns = [n for n in line[:-1] if tree.kind[n] == DECISION and int(tree.player[n]) == seat]
        if turns:
            prev = turns[-1]
            base = self.solve_at(seat, prev)
            taken = line[line.index(prev) + 1]
            action = taken - int(tree.first_child[prev])
            own = self._ranges[(seat, prev)] * base.strategies[prev][action]
            walked = line[line.index(prev) + 1:]
        else:
            base = self.trunk(seat)
            own = np.array(tree.initial_reach[seat], dtype=np.float64)
            walked = line[1:]
        root = node if base.contains(node) else self._round_start(base, line)
        own_at_root = self._walk(seat, own, walked[:walked.index(root) + 1]
                                 if root in walked else [])
        self._ranges[key] = self._walk(seat, own, walked)
        if base.contains(node) and (
            not self.config.continual or (base is self._trunks.get(seat) and (
                base.root == node or base.played_as_is))
        ):
            self._solves[key] = base  # the trunk's own decision, or not re-solving inside it
            return base
        solve = self._by_root.get((seat, root))
        if solve is None:
            values = base.opp_values[root] if self.config.gadget != "unsafe" else None
            opp_range = base.opp_range[root] if self.config.gadget == "unsafe" else None
            solve = self._resolve(root, seat, own_at_root, opp_range, values,
                                  self._draw(seat, root))
            self.resolves += 1
            self._by_root[(seat, root)] = solve
        self._solves[key] = solve
        return solve

    def _walk(self, seat: int, own: np.ndarray, nodes: list[int]) -> np.ndarray:
        """``own`` with the hands holding the public cards dealt on the way into ``nodes``
        set to 0."""
        tree = self.tree
        for n in nodes:
            if tree.kind[int(tree.parent[n])] == CHANCE:
                own = np.where(tree.hands_holding(seat, int(tree.chance_card[n])), 0.0, own)
        return own

    def _round_start(self, base: Solve, line: list[int]) -> int:
        """The depth-limit leaf of ``base`` where ``line`` leaves it (the chance node that
        deals the next round's card)."""
        for n in line[:-1]:
            if n in base.leaves:
                return n
        raise ConfigError(f"the line to node {line[-1]} never leaves the previous solve "
                          f"(root {base.root}) through one of its leaves")

    def _draw(self, seat: int, node: int) -> int | None:
        """ReBeL's iteration for the re-solve rooted at ``node`` for ``seat``, or None.

        Seeded by the agent's seed and the public state, so a hand played and the
        tabularised agent draw the same iteration."""
        if self.config.play != "random-iteration":
            return None
        digest = hashlib.sha256(f"{self._seed}:{seat}:{node}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        return int(rng.integers(1, self.config.iterations + 1))

    # Checkpoints: every solve done, so a resumed agent re-solves nothing twice. ----------

    def state(self) -> dict[str, Any]:
        """The solves and ranges done so far as arrays and plain data."""
        unique: list[Solve] = []
        index: dict[int, int] = {}

        def ref(solve: Solve) -> int:
            if id(solve) not in index:
                index[id(solve)] = len(unique)
                unique.append(solve)
            return index[id(solve)]

        return {
            "trunks": [[seat, ref(s)] for seat, s in sorted(self._trunks.items())],
            "by_root": [[seat, root, ref(s)] for (seat, root), s in self._by_root.items()],
            "turns": [[seat, node, ref(s)] for (seat, node), s in self._solves.items()],
            "ranges": [[seat, node, r] for (seat, node), r in self._ranges.items()],
            "solves": [_solve_state(s) for s in unique],
            "resolves": self.resolves,
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Load what ``state`` returned (replacing everything done so far)."""
        solves = [_solve_from(s) for s in state["solves"]]
        self._trunks = {int(seat): solves[i] for seat, i in state["trunks"]}
        self._by_root = {(int(seat), int(root)): solves[i] for seat, root, i in state["by_root"]}
        self._solves = {(int(seat), int(node)): solves[i] for seat, node, i in state["turns"]}
        self._ranges = {(int(seat), int(node)): np.asarray(r, dtype=np.float64)
                        for seat, node, r in state["ranges"]}
        self.resolves = int(state["resolves"])


def _solve_state(solve: Solve) -> dict[str, Any]:
    return {
        "root": solve.root, "player": solve.player, "played_as_is": solve.played_as_is,
        "leaves": np.array(sorted(solve.leaves), dtype=np.int64),
        "strategies": dict(solve.strategies), "opp_values": dict(solve.opp_values),
        "opp_range": dict(solve.opp_range),
    }


def _solve_from(state: dict[str, Any]) -> Solve:
    def table(data: Any) -> dict[int, np.ndarray]:
        return {int(k): np.asarray(v, dtype=np.float64) for k, v in dict(data).items()}

    return Solve(int(state["root"]), int(state["player"]), table(state["strategies"]),
                 table(state["opp_values"]), table(state["opp_range"]),
                 frozenset(int(x) for x in np.asarray(state["leaves"]).tolist()),
                 bool(state["played_as_is"]))
