"""External-sampling traversals over game states, for games without a compiled tree (hold'em).

Many traversals of one player (the *traverser*) advance together as a frontier of ``State``s.
Each round of the frontier deals chance cards, settles the terminal states, and then asks the
strategy of each seat once, as one batched call over the information-state tensors and legal
masks of every frontier state where that seat acts. At the traverser's decisions every legal
action is expanded (a child state per action); at the other seats' decisions one action is
sampled from the strategy and the state moves on. When the frontier is empty the sampled
values are backed up, one vectorised step per round in reverse: an action's value ``q(a)`` is
its child's value, a decision's value is ``sigma . q``.

The result (``TraversalSamples``) has, per traverser decision, the tensor, the legal mask, the
sampled action values ``q`` and the strategy ``sigma`` there: Deep CFR stores the regrets
``q - sigma . q`` (``samples.regrets``), Deep GXFP the action values ``q``. It also has the
strategy samples (tensor, mask, sigma) of the next seat's decisions, which Deep CFR's average
strategy network learns from. These are the same samples, in distribution, as the compiled
kernel ``kernels.external_traversals`` draws on the tree (tested on Leduc). For hold'em,
``array_traversal.external_sampling_arrays`` draws the same samples from array rows, many
times faster; the deep agents use it there unless their ``traversal_backend`` says otherwise.

``SampledTraversal`` is what the agents that traverse states hold (``state_deep_cfr``,
``state_gxfp``): one of these walks, its frontier, and the count of the nodes it visited.

>>> from pokerzoo import load_game
>>> game = load_game("kuhn_poker")
>>> uniform = lambda player, x, mask: mask / mask.sum(axis=1, keepdims=True)
>>> s = external_sampling_states(game, uniform, 0, 10, np.random.default_rng(0))
>>> s.num_traversals, s.tensors.shape[1] == game.information_state_layout.size
(10, True)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerzoo.config import check
from pokerzoo.errors import InvalidPolicyError
from pokerzoo.games.base import TERMINAL, Game, State
from pokerzoo.sampling import sample_rows

StrategyFn = Callable[[int, np.ndarray, np.ndarray], np.ndarray]
"""``strategy(seat, tensors [B, size] float32, masks [B, A] bool) -> probabilities [B, A]``:
one batched call per seat and frontier round."""

Walk = Callable[..., "TraversalSamples"]
"""``walk(game, strategy, player, num_traversals, rng, *, frontier) -> TraversalSamples``:
``external_sampling_states`` or ``array_traversal.external_sampling_arrays``."""

@dataclass(frozen=True)
class TraversalSamples:
    """What some traversals of one player sampled (rows in the order they were visited)."""

    num_traversals: int
    tensors: np.ndarray
    """``[n, size]`` float32: the traverser's information-state tensor at each decision."""
    masks: np.ndarray
    """``[n, A]`` bool: the legal actions there."""
    values: np.ndarray
    """``[n, A]``: sampled action values ``q(a)`` (0 on illegal actions)."""
    sigma: np.ndarray
    """``[n, A]``: the traverser's strategy there."""
    strategy_tensors: np.ndarray
    """``[m, size]``: the next seat's tensors at its sampled decisions."""
    strategy_masks: np.ndarray
    """``[m, A]``: the legal actions there."""
    strategy_sigma: np.ndarray
    """``[m, A]``: that seat's strategy there."""
    root_values: np.ndarray
    """``[num_traversals]``: each traversal's sampled value for the traverser."""
    nodes: int
    """Decision and terminal states visited."""

    @property
    def regrets(self) -> np.ndarray:
        """Deep CFR's sampled regrets ``q(a) - sigma . q`` (0 on illegal actions)."""
        v = (self.sigma * self.values).sum(axis=1, keepdims=True)
        return np.where(self.masks, self.values - v, 0.0)

    @staticmethod
    def concatenate(parts: list[TraversalSamples]) -> TraversalSamples:
        """The samples of ``parts`` one after another."""
        if len(parts) == 1:
            return parts[0]
        cat = {f.name: np.concatenate([getattr(p, f.name) for p in parts])
               for f in dataclasses.fields(TraversalSamples)
               if f.name not in ("num_traversals", "nodes")}
        return TraversalSamples(num_traversals=sum(p.num_traversals for p in parts),
                                nodes=sum(p.nodes for p in parts), **cat)


def value_scale(game: Game) -> float:
    """The factor that puts a game's payoffs in the tensor's chip unit before networks fit
    them: hold'em's ``tensor_amount_scale`` (1 / 100 big blinds), else 1. Regret matching and
    argmax do not depend on a positive scale, but a network retrained from scratch for a few
    hundred steps cannot reach targets of thousands of chips, while O(1) ones it can.

    >>> from pokerzoo import load_game
    >>> value_scale(load_game("no_limit_holdem")), value_scale(load_game("leduc_holdem"))
    (0.0001, 1.0)
    """
    return float(getattr(game, "tensor_amount_scale", 1.0))


def checked_strategy(sigma: np.ndarray, masks: np.ndarray, seat: int) -> np.ndarray:
    """``sigma`` zeroed off the legal actions and normalised; refuses negative, NaN or
    all-zero rows with an ``InvalidPolicyError`` naming ``seat``."""
    sigma = np.where(masks, np.asarray(sigma, dtype=np.float64), 0.0)
    total = sigma.sum(axis=1)
    if not np.all(np.isfinite(total) & (total > 0)) or np.any(sigma < 0):
        raise InvalidPolicyError(
            f"the strategy of seat {seat} gave a row with no probability on the legal actions, "
            "a negative entry or NaN; strategies must be finite, >= 0 and not all zero"
        )
    return sigma / total[:, None]


def external_sampling_states(
    game: Game,
    strategy: StrategyFn,
    player: int,
    num_traversals: int,
    rng: np.random.Generator,
    *,
    frontier: int = 256,
) -> TraversalSamples:
    """``num_traversals`` external-sampling traversals of ``player``, ``frontier`` at a time.

    Args:
        game: any game (no tree needed).
        strategy: every seat's current strategy on a batch (see ``StrategyFn``).
        player: the traverser.
        num_traversals: traversals to run.
        rng: draws chance outcomes and the other seats' actions.
        frontier: traversals advanced together (bounds the states held at once).
    """
    return in_chunks(_traverse_chunk, game, strategy, player, num_traversals, rng, frontier)


def in_chunks(
    traverse_chunk: Callable[[Any, StrategyFn, int, np.ndarray, np.random.Generator,
                              TraversalRecord], None],
    game: Game,
    strategy: StrategyFn,
    player: int,
    num_traversals: int,
    rng: np.random.Generator,
    frontier: int,
) -> TraversalSamples:
    """``traverse_chunk(game, strategy, player, roots, rng, record)`` run on chunks of at most
    ``frontier`` of the ``num_traversals`` traversals (``roots``: their root slots), all into
    one ``TraversalRecord``; the arguments checked first."""
    check(num_traversals >= 0, "num_traversals", ">= 0", num_traversals)
    check(frontier >= 1, "frontier", ">= 1", frontier)
    check(0 <= player < game.num_players, "player", f"a seat 0..{game.num_players - 1}", player)
    record = TraversalRecord(num_traversals, game.num_distinct_actions,
                             game.information_state_layout.size)
    for start in range(0, num_traversals, frontier):
        roots = -1 - np.arange(start, min(start + frontier, num_traversals))
        traverse_chunk(game, strategy, player, roots, rng, record)
    return record.samples()


class TraversalRecord:
    """What ``k`` traversals record round by round (chunk after chunk), and the back-up.

    Frontier entries carry *slots*: where their value goes, ``node * A + action`` of the
    traverser decision they came from, or ``-1 - r`` for the root of traversal ``r``. Each
    round records the traverser's decisions (``decisions``, which
    returns their node ids), the averaging seat's strategy samples and the terminal values;
    ``samples`` backs the values up, one vectorised step per round in reverse.
    """

    def __init__(self, k: int, num_actions: int, size: int) -> None:
        self.k, self.A, self.size = k, num_actions, size
        self.nodes: dict[str, list[np.ndarray]] = {"x": [], "mask": [], "sigma": [], "parent": []}
        self.strat: dict[str, list[np.ndarray]] = {"x": [], "mask": [], "sigma": []}
        self.rounds: list[int] = []  # decisions created per frontier round
        self.term_slots: list[np.ndarray] = []
        self.term_values: list[np.ndarray] = []
        self.n_nodes = self.created = self.visited = 0

    def terminals(self, slots: np.ndarray, values: np.ndarray) -> None:
        """The traverser's payoffs at terminal states of the given slots."""
        self.term_slots.append(slots)
        self.term_values.append(values)

    def decisions(self, x: np.ndarray, mask: np.ndarray, sigma: np.ndarray,
                  parent: np.ndarray) -> np.ndarray:
        """Records traverser decisions (reached from slots ``parent``); their node ids."""
        ids = self.n_nodes + self.created + np.arange(len(x))
        self.created += len(x)
        for key, value in zip(("x", "mask", "sigma", "parent"), (x, mask, sigma, parent)):
            self.nodes[key].append(value)
        return ids

    def strategy(self, x: np.ndarray, mask: np.ndarray, sigma: np.ndarray) -> None:
        """Records strategy samples of the averaging seat."""
        for key, value in zip(("x", "mask", "sigma"), (x, mask, sigma)):
            self.strat[key].append(value)

    def end_round(self) -> None:
        """Closes a frontier round (its decisions are backed up together)."""
        self.n_nodes += self.created
        self.rounds.append(self.created)
        self.created = 0

    def samples(self) -> TraversalSamples:
        """The recorded samples, with values backed up from the terminals."""
        A, size, n_nodes = self.A, self.size, self.n_nodes

        def stacked(parts: list[np.ndarray], shape: tuple[int, ...], dtype: Any) -> np.ndarray:
            if not parts:
                return np.zeros(shape, dtype=dtype)
            return np.concatenate(parts).astype(dtype, copy=False)

        sigma = stacked(self.nodes["sigma"], (0, A), np.float64)
        parent = stacked(self.nodes["parent"], (0,), np.int64)
        q_flat = np.zeros(n_nodes * A)
        roots = np.zeros(self.k)
        _settle(stacked(self.term_slots, (0,), np.int64),
                stacked(self.term_values, (0,), np.float64), q_flat, roots)
        q = q_flat.reshape(n_nodes, A)
        # Backed up round by round in reverse: a decision's children are all of later rounds
        # (of its own chunk).
        ends = np.cumsum(self.rounds)
        for end, count in zip(ends[::-1], self.rounds[::-1]):
            rows = slice(end - count, end)
            _settle(parent[rows], (sigma[rows] * q[rows]).sum(axis=1), q_flat, roots)
        return TraversalSamples(
            num_traversals=self.k,
            tensors=stacked(self.nodes["x"], (0, size), np.float32),
            masks=stacked(self.nodes["mask"], (0, A), bool),
            values=q.copy(),
            sigma=sigma,
            strategy_tensors=stacked(self.strat["x"], (0, size), np.float32),
            strategy_masks=stacked(self.strat["mask"], (0, A), bool),
            strategy_sigma=stacked(self.strat["sigma"], (0, A), np.float64),
            root_values=roots,
            nodes=self.visited,
        )


def _traverse_chunk(
    game: Game, strategy: StrategyFn, player: int, slots: np.ndarray, rng: np.random.Generator,
    record: TraversalRecord,
) -> None:
    A = game.num_distinct_actions
    averaging = (player + 1) % game.num_players
    states: list[State] = [game.new_initial_state() for _ in range(len(slots))]
    while states:
        for s in states:
            while s.is_chance_node():
                s.apply_action(s.sample_chance_outcome(rng))
        record.visited += len(states)
        seat = np.fromiter((s.current_player() for s in states), np.int64, len(states))
        done = np.flatnonzero(seat == TERMINAL)
        record.terminals(slots[done], np.fromiter((states[i].returns()[player] for i in done),
                                                  float, len(done)))
        next_states: list[State] = []
        next_slots: list[np.ndarray] = []
        for who in range(game.num_players):
            idx = np.flatnonzero(seat == who)
            if not len(idx):
                continue
            x = np.stack([states[i].information_state_tensor(who) for i in idx])
            mask = np.stack([states[i].legal_actions_mask() for i in idx]).astype(bool)
            sigma = checked_strategy(strategy(who, x, mask), mask, who)
            if who == player:
                ids = record.decisions(x, mask, sigma, slots[idx])
                for j, i in enumerate(idx):
                    legal = np.flatnonzero(mask[j])
                    s = states[i]
                    for a in legal[:-1]:
                        child = s.clone()
                        child.apply_action(int(a))
                        next_states.append(child)
                    s.apply_action(int(legal[-1]))  # the last action reuses the state
                    next_states.append(s)
                    next_slots.append(ids[j] * A + legal)
            else:
                actions = sample_rows(sigma, rng)
                if who == averaging:
                    record.strategy(x, mask, sigma)
                for j, i in enumerate(idx):
                    states[i].apply_action(int(actions[j]))
                    next_states.append(states[i])
                next_slots.append(slots[idx])
        record.end_round()
        states = next_states
        slots = np.concatenate(next_slots) if next_slots else np.zeros(0, dtype=np.int64)


def _settle(slots: np.ndarray, values: np.ndarray, q_flat: np.ndarray, roots: np.ndarray) -> None:
    """Write ``values`` to their slots: action values of decisions, or traversal roots."""
    inner = slots >= 0
    q_flat[slots[inner]] = values[inner]
    roots[-1 - slots[~inner]] = values[~inner]


class SampledTraversal:
    """Traversals of game states or hold'em array rows (the ``Traversal`` of the agents that
    traverse states): ``walk`` run ``frontier`` at a time, counting the nodes it visits.

    Args:
        game: the game walked.
        walk: ``external_sampling_states`` (any game) or
            ``array_traversal.external_sampling_arrays`` (hold'em; ``array_traversal.
            sampled_traversal`` picks by the config's ``traversal_backend``).
        frontier: traversals advanced together.
    """

    def __init__(self, game: Game, walk: Walk = external_sampling_states,
                 frontier: int = 256) -> None:
        check(frontier >= 1, "frontier", ">= 1", frontier)
        self.game, self.walk, self.frontier = game, walk, int(frontier)
        self._nodes = 0

    @property
    def nodes_touched(self) -> int:
        """Decision and terminal states (or rows) visited so far."""
        return self._nodes

    def __call__(self, strategy: StrategyFn, player: int, count: int,
                 rng: np.random.Generator) -> TraversalSamples:
        """``count`` traversals of ``player`` under ``strategy`` (see ``StrategyFn``)."""
        samples = self.walk(self.game, strategy, player, count, rng, frontier=self.frontier)
        self._nodes += samples.nodes
        return samples
