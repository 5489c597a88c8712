"""Re-solving a public subgame from one player's range and the opponent's counterfactual values.

A re-solving player (the *resolver*) at a public state knows its own range (its reach there
under the strategy it played) and, from its previous solve, the opponent's counterfactual
value of each opponent hand there. ``resolve`` solves the subgame (``public_subgame``,
depth-limited or not, with any leaf-value source) for the resolver's strategy, with the
opponent's entry into the subgame given by one of:

* ``"unsafe"``: the opponent enters with the range given in the subgame's ranges (both
  ranges alone; the subgame's equilibrium for those beliefs, which the opponent can exploit
  by changing how it gets here: Ganzfried & Sandholm 2015, Burch et al. 2014).
* ``"cfrd"``: the CFR-D resolving gadget (Burch, Johanson & Bowling 2014, "Solving Imperfect
  Information Games Using Decomposition"; DeepStack, Moravčík et al. 2017): before the
  subgame, the opponent chooses per hand to *terminate*, receiving the given counterfactual
  value, or to *follow* into the subgame. A resolver strategy that keeps every opponent
  hand's value in the subgame at most its given value is no more exploitable than the
  strategy those values came from (plus the solve's error).
* ``"max_margin"``: the max-margin gadget (Moravčík, Schmid, Ha, Hladík & Gaukrodger 2016,
  "Refining Subgames in Large Imperfect Information Games"): the opponent picks a
  distribution over its hands to enter with, paying its given value, so the resolver
  maximises the smallest margin ``given value - value in the subgame`` over opponent hands.

The gadget's opponent decision is a per-hand regret minimiser outside the sweep, run with the
same discounts as the tree (its values: the opponent's root values of its own CFR pass), which
is CFR on the gadget game: the opponent's root reach in each pass is the gadget's current
(average, in measuring passes) entering weight.

``random_iteration`` (ReBeL, Brown, Bakhtin, Lerer & Gong 2020, "Combining Deep
Reinforcement Learning and Search for Imperfect-Information Games", section 5): the root
strategy returned is the current strategy of one iteration drawn with probability
proportional to its weight in the average (CFR+: ``t``), instead of the average.

Opponent values and ranges are in the engine's units: reaches without the chance weights on
the path, counterfactual values weighted by the other player's reach (the resolver's range
here, exactly as given); ``node_beliefs`` reads both off a solved whole-game tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.public.engine.solver import PassResult, PublicSolver, SolverConfig, discounts
from pokerzoo.public.engine.tree import CHANCE, DECISION
from pokerzoo.public.subgames.depth_limit import (
    LEAF_RULES,
    DepthLimitedSolver,
    LeafGame,
    LeafValues,
)
from pokerzoo.public.subgames.subgame import Subgame
from pokerzoo.schedule import Discounts

METHODS = ("unsafe", "cfrd", "max_margin")


@dataclass(frozen=True)
class ResolveConfig:
    """How a subgame is re-solved."""

    method: str = "cfrd"
    """``"unsafe"``, ``"cfrd"`` or ``"max_margin"`` (see the module docstring)."""
    iterations: int = 500
    """CFR iterations of the re-solve."""
    algorithm: str = "cfr+"
    """The solver's algorithm (``SolverConfig.algorithm``); the gadget follows its discounts."""
    random_iteration: bool = False
    """ReBeL's rule: return the root strategy of a random iteration (needs the resolver to act
    at the root)."""
    seed: int = 0
    """Seed of the random iteration's draw."""
    leaf_rule: str = "current"
    """Which leaf values a depth-limited re-solve asks its source for: ``"current"``,
    ``"mean"`` or ``"cfr-avg"`` (``pokerzoo.public.subgames.depth_limit``; CFR-AVG is ReBeL's)."""

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ConfigError(f"method must be one of {METHODS}, not {self.method!r}")
        it = self.iterations
        if isinstance(it, bool) or not isinstance(it, int) or it < 1:
            raise ConfigError(f"iterations must be an int >= 1, not {it!r}")
        if not isinstance(self.random_iteration, bool):
            raise ConfigError(f"random_iteration must be a bool, not {self.random_iteration!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ConfigError(f"seed must be an int, not {self.seed!r}")
        SolverConfig(algorithm=self.algorithm)
        if self.leaf_rule not in LEAF_RULES:
            raise ConfigError(f"leaf_rule must be one of {LEAF_RULES}, not {self.leaf_rule!r}")


@dataclass(frozen=True, eq=False)
class Resolution:
    """What a re-solve hands on (continual re-solving carries the last three forward).

    ``strategy``: ``[actions, H_resolver]`` at the root when the resolver acts there (the
    average, or the drawn iteration's with ``random_iteration``), else ``None``;
    ``iteration``: the drawn iteration (1-based) or ``None``; ``child_ranges``:
    ``[actions, H_resolver]`` the resolver's range after each root action (its range times
    ``strategy``), ``None`` off the resolver's root; ``child_opp_cfv``: ``[children,
    H_opponent]`` the opponent's best-response counterfactual values at each root child given
    the resolver's range there and its average strategy below; ``leaf_opp_cfv``: ``[L,
    H_opponent]`` the same at the subgame's depth-limit leaves (the leaf source's values at
    the final reaches); ``leaf_ranges``: ``[L, H_resolver]`` the resolver's reach at the
    leaves (the range of its next re-solve there); ``solver``: the solver (its
    ``strategy(node)`` is the resolver's average strategy at every trunk node).
    """

    player: int
    strategy: np.ndarray | None
    iteration: int | None
    child_ranges: np.ndarray | None
    child_opp_cfv: np.ndarray
    leaf_opp_cfv: np.ndarray
    leaf_ranges: np.ndarray
    solver: ResolvingSolver

    def opp_cfv_at(self, node: int) -> np.ndarray:
        """``[H_opponent]``: the opponent's best-response counterfactual values at trunk node
        ``node`` against the resolver's average strategy (on its way there and below), the
        opponent's range entering as the gadget's average (what a continual re-solver
        carries to ``node`` after the opponent's actions or a card)."""
        solver = self.solver
        tree = solver.tree
        if isinstance(node, bool) or not isinstance(node, int | np.integer) or not (
            0 <= node < tree.num_nodes
        ) or tree.kind[node] not in (DECISION, CHANCE):
            raise ConfigError(f"node must be a decision or chance node of the trunk, not {node!r}")
        return solver.best_response_cfv(solver.opponent, int(node))


class ResolvingSolver(DepthLimitedSolver):
    """A ``DepthLimitedSolver`` whose opponent enters the subgame through a gadget.

    ``game_value`` / ``best_response_values`` / ``exploitability`` are those of the subgame
    with the opponent's root range set to its entering reach (the gadget's average; unsafe:
    its range), per unit of compatible pair mass of the two root ranges (the gadget's own
    terminate / margin payoffs left out).
    """

    def __init__(self, subgame: Subgame, player: int, opp_cfv: Any,
                 leaves: LeafValues | LeafGame | None, method: str = "cfrd",
                 config: SolverConfig | None = None, record_root: bool = False,
                 **overrides: Any) -> None:
        if player not in (0, 1) or isinstance(player, bool):
            raise ConfigError(f"player must be 0 or 1, not {player!r}")
        if method not in METHODS:
            raise ConfigError(f"method must be one of {METHODS}, not {method!r}")
        super().__init__(subgame, leaves, config, **overrides)
        self.player = int(player)
        self.opponent = 1 - self.player
        self.method = method
        tree = self.tree
        ho = tree.num_hands(self.opponent)
        self.possible = np.ones(ho, dtype=bool)
        for card in tree.board_cards(0):
            self.possible &= ~tree.hands_holding(self.opponent, card)
        if method == "unsafe":
            self.opp_cfv = np.zeros(ho)
        else:
            cfv = np.array(opp_cfv, dtype=np.float64).reshape(-1) if opp_cfv is not None else None
            if cfv is None or cfv.shape != (ho,) or not np.all(np.isfinite(cfv)):
                raise ConfigError(f"the {method} gadget needs opp_cfv: {ho} finite "
                                  "counterfactual values, one per opponent hand")
            self.opp_cfv = cfv
        # cfrd: [2, H] regrets / sums over (terminate, follow); max_margin: [1, H] over hands.
        rows = 2 if method == "cfrd" else 1
        self.gadget_regrets = np.zeros((rows, ho))
        self.gadget_sums = np.zeros((rows, ho))
        self.record_root = bool(record_root)
        if self.record_root and not (tree.kind[0] == DECISION and tree.player[0] == player):
            raise ConfigError("random_iteration needs the resolver to act at the subgame's root")
        self.root_history: list[np.ndarray] = []
        self.iteration_weights = np.zeros(0)

    def _gadget_strategy(self, average: bool) -> np.ndarray:
        table = self.gadget_sums if average else np.maximum(self.gadget_regrets, 0.0)
        if self.method == "cfrd":
            total = table.sum(axis=0)
            follow = np.divide(table[1], total, out=np.full(total.shape, 0.5), where=total > 0)
            return np.where(self.possible, follow, 0.0)
        weights = np.where(self.possible, table[0], 0.0)
        total = weights.sum()
        if total <= 0:
            weights = self.possible.astype(np.float64)
            total = weights.sum()
        return weights / total

    def entering_reach(self, average: bool = True) -> np.ndarray:
        """The opponent's reach at the root: its range (unsafe) or the gadget's entering
        weight per hand (average or current)."""
        if self.method == "unsafe":
            return np.array(self.tree.initial_reach[self.opponent])
        return self._gadget_strategy(average)

    def root_reach(self, player: int, average: bool = True) -> np.ndarray:
        """The resolver's range, or the opponent's entering reach (``entering_reach``)."""
        if player == self.opponent:
            return self.entering_reach(average)
        return np.array(self.tree.initial_reach[player])

    def best_response_cfv(self, player: int, node: int) -> np.ndarray:
        """``[H_player]``: ``player``'s best-response counterfactual values at ``node`` against
        the other's average strategy, both entering with ``root_reach`` (the opponent through
        the gadget)."""
        record = self.best_response(player, record=int(node)).record
        assert record is not None
        return record.values.copy()

    def _value(self, player: int, values: np.ndarray) -> float:
        own = np.array(self.tree.initial_reach[self.player])
        entering = self.entering_reach(True)
        mass = float(own @ self.tree.compatible_reach(self.player, entering))
        reach = own if player == self.player else entering
        return float(reach @ values) / mass if mass > 0 else 0.0

    def iteration_pass(self, traverser: int, discounts: Discounts) -> PassResult:
        """The CFR pass of the trunk, then (the opponent's pass) the gadget's step with its
        root values."""
        result = super().iteration_pass(traverser, discounts)
        if traverser == self.opponent and self.method != "unsafe":
            self._update_gadget(result.values, discounts)
        return result

    def _update_gadget(self, follow: np.ndarray,
                       scalars: tuple[float, float, bool, float, float]) -> None:
        pos, neg, floor, sum_discount, sum_weight = scalars
        strategy = self._gadget_strategy(False)
        if self.method == "cfrd":
            act = np.stack([self.opp_cfv, follow])
            current = np.stack([1.0 - strategy, strategy])
            value = (current * act).sum(axis=0)
            gain = act - value
        else:
            # The opponent's pick of a hand: its margin over the value it was promised.
            margin = np.where(self.possible, follow - self.opp_cfv, 0.0)
            current = strategy[None, :]
            gain = (margin - float(strategy @ margin))[None, :]
        r = self.gadget_regrets
        r = np.where(r > 0, r * pos, r * neg) + np.where(self.possible, gain, 0.0)
        self.gadget_regrets = np.maximum(r, 0.0) if floor else r
        self.gadget_sums = self.gadget_sums * sum_discount + sum_weight * current

    def iterate(self, n: int = 1) -> None:
        """``n`` iterations, keeping the resolver's root strategy of each (``record_root``)."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ConfigError(f"iterations must be an int >= 0, not {n!r}")
        for _ in range(n):
            scalars = discounts(self.config, self.iterations + 1)
            if self.record_root:
                self.root_history.append(self.strategy(0, average=False))
                self.iteration_weights = np.append(self.iteration_weights * scalars[3],
                                                   scalars[4])
            super().iterate(1)


def resolve(subgame: Subgame, player: int, leaves: LeafValues | LeafGame | None = None,
            opp_cfv: Any = None, config: ResolveConfig | None = None,
            **overrides: Any) -> Resolution:
    """Re-solve ``subgame`` for ``player`` (its range: ``subgame.tree.initial_reach[player]``)
    with the opponent entering by ``config.method`` (``opp_cfv``: ``[H_opponent]`` the
    opponent's counterfactual values at the root from the previous solve, for the gadgets;
    the unsafe method uses the opponent's range in the subgame instead). ``overrides``
    replace ``ResolveConfig`` fields.

    >>> from pokerzoo.games import load_game
    >>> from pokerzoo.public.subgames.subgame import public_subgame
    >>> sub = public_subgame(load_game("kuhn_poker"), [], [np.ones(3), np.ones(3)], depth=None)
    >>> res = resolve(sub, 0, opp_cfv=np.zeros(3), iterations=200)
    >>> res.strategy.shape, res.child_opp_cfv.shape
    ((2, 3), (2, 3))
    """
    base = ResolveConfig() if config is None else config
    if not isinstance(base, ResolveConfig):
        raise ConfigError(f"config must be a ResolveConfig, not {type(base).__name__}")
    if overrides:
        known = set(ResolveConfig.__dataclass_fields__)
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ConfigError(f"unknown resolve parameter {unknown[0]!r}; known: {sorted(known)}")
        base = ResolveConfig(**{**base.__dict__, **overrides})
    solver = ResolvingSolver(subgame, player, opp_cfv, leaves, base.method,
                             algorithm=base.algorithm, record_root=base.random_iteration,
                             leaf_rule=base.leaf_rule)
    solver.iterate(base.iterations)
    return _resolution(solver, base)


def _resolution(solver: ResolvingSolver, config: ResolveConfig) -> Resolution:
    tree = solver.tree
    player, opp = solver.player, solver.opponent
    own_range = np.array(tree.initial_reach[player])
    strategy = iteration = child_ranges = None
    if tree.kind[0] == DECISION and tree.player[0] == player:
        strategy = solver.strategy(0)
        if config.random_iteration:
            rng = np.random.default_rng(config.seed)
            weights = solver.iteration_weights / solver.iteration_weights.sum()
            index = int(rng.choice(weights.size, p=weights))
            strategy, iteration = solver.root_history[index], index + 1
        child_ranges = own_range[None, :] * strategy
    entering = solver.entering_reach(True)
    children = list(tree.children(0))
    child_cfv = np.zeros((len(children), tree.num_hands(opp)))
    for i, child in enumerate(children):
        if child_ranges is not None:
            # The drawn iteration's strategy may differ from the average: sweep from the child.
            reaches = (child_ranges[i], entering) if player == 0 else (entering, child_ranges[i])
            child_cfv[i] = solver.best_response(opp, start=child, reaches=reaches).values
        else:
            child_cfv[i] = solver.best_response_cfv(opp, child)
    count = solver.subgame.num_leaves
    leaf_cfv = np.zeros((count, tree.num_hands(opp)))
    leaf_ranges = np.zeros((count, tree.num_hands(player)))
    if count:
        reached = solver.frontier_reaches("average", player)
        leaf_cfv = solver.leaf_values("best_response", opp, *reached)
        leaf_ranges = reached[player].copy()
    return Resolution(player=player, strategy=strategy, iteration=iteration,
                      child_ranges=child_ranges, child_opp_cfv=child_cfv,
                      leaf_opp_cfv=leaf_cfv, leaf_ranges=leaf_ranges, solver=solver)


def node_beliefs(solver: PublicSolver, node: int) -> dict[str, np.ndarray]:
    """At ``node`` of a solved tree: both players' reaches under the average strategies
    (``reach0``, ``reach1``, from the tree's initial ranges, no chance weights) and each
    player's best-response counterfactual values there against the other's average strategy
    (``br_cfv0``, ``br_cfv1``: what a gadget re-solve of the other player takes as
    ``opp_cfv``)."""
    tree = solver.tree
    if isinstance(node, bool) or not isinstance(node, int | np.integer) or not (
        0 <= node < tree.num_nodes
    ):
        raise ConfigError(f"node must be a node id of the solver's tree, not {node!r}")
    out: dict[str, np.ndarray] = {}
    for p in (0, 1):
        record = solver.best_response(p, reaches=tree.initial_reach, record=int(node)).record
        assert record is not None
        out[f"reach{1 - p}"] = record.opp_reach.copy()
        out[f"br_cfv{p}"] = record.values.copy()
    return out
