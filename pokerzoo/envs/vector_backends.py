"""Array backends of ``VectorPokerEnv``: many hands as numpy arrays, one row per hand.

``LeducArrays`` and ``KuhnArrays`` hold the whole Leduc / Kuhn family as arrays and advance
every hand with a handful of vector operations per step; ``StateArrays`` is the generic
fallback over ``State`` objects (any game, hooks included). All three reproduce the games'
``information_state_tensor``, ``legal_actions_mask`` and ``returns`` exactly (tests replay
their hands through the ``State`` rules).

Each backend keeps every hand at a decision node: chance is dealt up front (a random
permutation of the deck per hand, which is the same distribution as dealing card by card) and
finished hands are re-dealt by the caller with ``reset_rows``.

``RowArrays`` (their checkpoint methods) lives in ``pokerzoo.games.arrays``, so the batched
hold'em rules (``pokerzoo.games.holdem.arrays``) share it from the games layer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from pokerzoo.envs.poker_env import sample_chance, terminal_returns
from pokerzoo.errors import CheckpointError, ConfigError, EnvStateError
from pokerzoo.games.arrays import RowArrays
from pokerzoo.games.base import CHANCE, TERMINAL, Game, State
from pokerzoo.games.kuhn import KuhnPoker
from pokerzoo.games.leduc import LeducHoldem


def _permutations(rng: np.random.Generator, rows: int, deck: int, take: int) -> np.ndarray:
    # argsort of i.i.d. uniforms is a uniform random permutation per row.
    return np.argsort(rng.random((rows, deck)), axis=1)[:, :take]


class LeducArrays(RowArrays):
    """The Leduc hold'em family (any ``LeducConfig``) as arrays."""

    # The config fields these arrays play; a new rule must be added here before it can run.
    HANDLED = frozenset({
        "num_players", "num_ranks", "num_suits", "ante", "raise_sizes", "max_raises_per_round",
        "bet_cap", "blinds", "fold_unopposed", "second_round_opener",
    })

    def __init__(self, game: LeducHoldem, num_envs: int) -> None:
        cfg = game.config
        unknown = {f.name for f in dataclasses.fields(cfg)} - self.HANDLED
        if unknown:
            raise ConfigError(
                f"the Leduc array backend does not play {sorted(unknown)}; use backend='state'"
            )
        self.game = game
        self.num_envs = num_envs
        self.n = n = cfg.num_players
        self.num_actions = 3
        self.suits = cfg.num_suits
        self.ranks = cfg.num_ranks
        self.deck = cfg.deck_size
        self.raise_sizes = np.asarray(cfg.raise_sizes, dtype=np.int64)
        self.max_raises = cfg.max_raises_per_round if cfg.max_raises_per_round is not None else -1
        self.cap = cfg.bet_cap * cfg.ante if cfg.bet_cap is not None else -1
        self.initial = np.asarray(cfg.initial_contributions(), dtype=np.int64)
        self.fold_unopposed = cfg.fold_unopposed
        self.after_closer = cfg.second_round_opener == "after_closer"
        lay = game.information_state_layout
        self.obs_size = lay.size
        off = {f.name: lay.slice(f.name).start for f in lay.fields}
        self.o = off
        self.slots = (lay.slice("betting_round_0").stop - off["betting_round_0"]) // 3
        # A Python float, as the game's own tensor uses: a float32 scale made 3/13 one float32
        # step off the game's tensor, so a table keyed by tensors found no information set.
        self.scale = 1.0 / cfg.max_contribution()
        self.ar = np.arange(num_envs)
        self.seats = np.arange(n)
        N = num_envs
        self.deal = np.zeros((N, n + 1), dtype=np.int64)
        self.rnd = np.zeros(N, dtype=np.int64)
        self.contrib = np.zeros((N, n), dtype=np.int64)
        self.folded = np.zeros((N, n), dtype=bool)
        self.pending = np.zeros(N, dtype=np.int64)
        self.player = np.zeros(N, dtype=np.int64)
        self.raises = np.zeros(N, dtype=np.int64)
        self.nact = np.zeros(N, dtype=np.int64)
        self.pub = np.zeros((N, self.obs_size), dtype=np.float32)

    def reset_rows(self, rows: np.ndarray, rng: np.random.Generator) -> None:
        """Deal new hands in ``rows`` (indices)."""
        k = len(rows)
        if k == 0:
            return
        self.deal[rows] = _permutations(rng, k, self.deck, self.n + 1)
        self.rnd[rows] = 0
        self.contrib[rows] = self.initial
        self.folded[rows] = False
        self.pending[rows] = self.n
        self.player[rows] = 0
        self.raises[rows] = 0
        self.nact[rows] = 0
        pub = np.zeros((k, self.obs_size), dtype=np.float32)
        o = self.o
        pub[:, o["round"]] = 1.0
        pub[:, o["contributions"] : o["contributions"] + self.n] = self.initial * self.scale
        self.pub[rows] = pub

    def current_player(self) -> np.ndarray:
        return self.player

    def mask(self) -> np.ndarray:
        ar, p = self.ar, self.player
        top = self.contrib.max(axis=1)
        m = np.empty((self.num_envs, 3), dtype=np.int8)
        m[:, 0] = (self.contrib[ar, p] < top) | self.fold_unopposed
        m[:, 1] = 1
        can = np.ones(self.num_envs, dtype=bool)
        if self.max_raises >= 0:
            can &= self.raises < self.max_raises
        if self.cap >= 0:
            can &= top + self.raise_sizes[self.rnd] <= self.cap
        m[:, 2] = can
        return m

    def observations(self, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Information-state tensors of ``seats[i]`` in hand ``rows[i]`` (all rows if None)."""
        o = self.o
        obs = self.pub.copy() if rows is None else self.pub[rows]
        rows = self.ar if rows is None else rows
        ar = np.arange(len(rows))
        card = self.deal[rows, seats]
        obs[ar, o["player"] + seats] = 1.0
        obs[ar, o["private_card"] + card] = 1.0
        obs[ar, o["private_rank"] + card // self.suits] = 1.0
        return obs

    def _next_in_hand(self, rows: np.ndarray, start: np.ndarray) -> np.ndarray:
        seats = (start[:, None] + self.seats) % self.n
        out = self.folded[rows[:, None], seats]
        return seats[np.arange(len(rows)), np.argmax(~out, axis=1)]

    def apply(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply one legal action per hand; returns (done, returns of done hands)."""
        ar, p, n, o = self.ar, self.player, self.n, self.o
        rnd = self.rnd
        top = self.contrib.max(axis=1)
        slot = o["betting_round_0"] + rnd * (3 * self.slots) + 3 * self.nact + actions
        self.pub[ar, slot] = 1.0
        self.nact += 1
        is_fold = actions == 0
        is_raise = actions == 2
        self.folded[ar, p] |= is_fold
        own = self.contrib[ar, p]
        self.contrib[ar, p] = np.where(
            is_fold, own, np.where(is_raise, top + self.raise_sizes[rnd], top)
        )
        self.raises += is_raise
        alive = n - self.folded.sum(axis=1)
        self.pending = np.where(is_raise, alive - 1, self.pending - 1)
        self.pub[:, o["contributions"] : o["contributions"] + n] = self.contrib * self.scale
        ended = alive == 1
        round_over = (self.pending == 0) & ~ended
        flop = round_over & (rnd == 0)
        done = ended | (round_over & (rnd == 1))
        rows = np.flatnonzero(flop)
        if len(rows):
            public = self.deal[rows, n]
            self.rnd[rows] = 1
            self.pub[rows, o["public_card"] + public] = 1.0
            self.pub[rows, o["public_rank"] + public // self.suits] = 1.0
            self.pub[rows, o["round"]] = 0.0
            self.pub[rows, o["round"] + 1] = 1.0
            self.raises[rows] = 0
            self.nact[rows] = 0
            self.pending[rows] = alive[rows]
            # Round two opens from seat 0, or (RLCard) after the seat that just closed round one.
            start = p[rows] + 1 if self.after_closer else np.zeros(len(rows), dtype=np.int64)
            self.player[rows] = self._next_in_hand(rows, start)
        rows = np.flatnonzero(~done & ~flop)
        self.player[rows] = self._next_in_hand(rows, p[rows] + 1)
        return done, self._returns(np.flatnonzero(done))

    def _returns(self, rows: np.ndarray) -> np.ndarray:
        out = np.zeros((self.num_envs, self.n))
        if len(rows) == 0:
            return out
        rank = self.deal[rows] // self.suits
        strength = rank[:, : self.n] + self.ranks * (rank[:, : self.n] == rank[:, self.n : None])
        strength = np.where(self.folded[rows], -1, strength)
        win = strength == strength.max(axis=1, keepdims=True)
        contrib = self.contrib[rows]
        share = contrib.sum(axis=1) / win.sum(axis=1)
        out[rows] = win * share[:, None] - contrib
        return out

    def deals(self) -> np.ndarray:
        """Chance outcomes of each current hand in the order the ``State`` rules deal them."""
        return self.deal.copy()

    STATE = ("deal", "rnd", "contrib", "folded", "pending", "player", "raises", "nact", "pub")
    """The arrays that hold the hands in flight (the rest follows from the config)."""


class KuhnArrays(RowArrays):
    """Kuhn poker (any number of players) as arrays."""

    def __init__(self, game: KuhnPoker, num_envs: int) -> None:
        self.game = game
        self.num_envs = num_envs
        self.n = n = game.num_players
        self.num_actions = 2
        lay = game.information_state_layout
        self.obs_size = lay.size
        self.o = {f.name: lay.slice(f.name).start for f in lay.fields}
        self.ar = np.arange(num_envs)
        self.cards = np.zeros((num_envs, n), dtype=np.int64)
        self.bets = np.zeros((num_envs, n), dtype=bool)
        self.first = np.full(num_envs, -1, dtype=np.int64)
        self.nact = np.zeros(num_envs, dtype=np.int64)
        self.pub = np.zeros((num_envs, self.obs_size), dtype=np.float32)
        self._mask = np.ones((num_envs, 2), dtype=np.int8)

    def reset_rows(self, rows: np.ndarray, rng: np.random.Generator) -> None:
        if len(rows) == 0:
            return
        self.cards[rows] = _permutations(rng, len(rows), self.n + 1, self.n)
        self.bets[rows] = False
        self.first[rows] = -1
        self.nact[rows] = 0
        self.pub[rows] = 0.0

    def current_player(self) -> np.ndarray:
        return self.nact % self.n

    def mask(self) -> np.ndarray:
        return self._mask.copy()  # pass and bet are always legal

    def observations(self, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        o = self.o
        obs = self.pub.copy() if rows is None else self.pub[rows]
        rows = self.ar if rows is None else rows
        ar = np.arange(len(rows))
        obs[ar, o["player"] + seats] = 1.0
        obs[ar, o["private_card"] + self.cards[rows, seats]] = 1.0
        return obs

    def apply(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ar, n = self.ar, self.n
        p = self.nact % n
        self.pub[ar, self.o["betting"] + 2 * self.nact + actions] = 1.0
        bet = actions == 1
        self.bets[ar, p] |= bet
        self.first = np.where((self.first < 0) & bet, p, self.first)
        self.nact += 1
        done = np.where(self.first < 0, self.nact == n, self.nact == self.first + n)
        out = np.zeros((self.num_envs, n))
        rows = np.flatnonzero(done)
        if len(rows):
            in_hand = self.bets[rows] | (self.first[rows] < 0)[:, None]
            winner = np.argmax(np.where(in_hand, self.cards[rows], -1), axis=1)
            contrib = 1 + self.bets[rows].astype(np.int64)
            r = -contrib.astype(np.float64)
            r[np.arange(len(rows)), winner] += contrib.sum(axis=1)
            out[rows] = r
        return done, out

    def deals(self) -> np.ndarray:
        return self.cards.copy()

    STATE = ("cards", "bets", "first", "nact", "pub")
    """The arrays that hold the hands in flight."""


class StateArrays:
    """Generic backend over ``State`` objects: any game, with the env's sampling hooks (for an
    unknown game's interaction view they sample d* through the view's sampler)."""

    def __init__(self, game: Game, num_envs: int) -> None:
        self.game = game
        self.num_envs = num_envs
        self.n = game.num_players
        self.num_actions = game.num_distinct_actions
        self.obs_size = int(np.prod(game.information_state_shape))
        self.states: list[State] = [game.new_initial_state() for _ in range(num_envs)]
        self._rng: np.random.Generator | None = None

    def reset_rows(self, rows: np.ndarray, rng: np.random.Generator) -> None:
        self._rng = rng
        for i in rows:
            state = self.game.new_initial_state()
            self._advance(state)
            if state.current_player() == TERMINAL:
                raise ConfigError(f"{self.game.name} has hands that end before anyone acts")
            self.states[i] = state

    def state_dict(self) -> dict[str, Any]:
        """The hands in flight as their action histories (chance outcomes included)."""
        return {"histories": [[int(a) for a in s.history()] for s in self.states]}

    def load_state_dict(self, state: Mapping[str, Any], rng: np.random.Generator) -> None:
        """Replay the histories of ``state_dict``; ``rng`` (the env's) draws chance from now."""
        histories = state["histories"]
        if len(histories) != self.num_envs:
            raise CheckpointError(f"state holds {len(histories)} hands, this env {self.num_envs}")
        states = []
        for history in histories:
            s = self.game.new_initial_state()
            for action in history:
                s.apply_action(int(action))
            states.append(s)
        self.states = states
        self._rng = rng

    def held(self, rows: np.ndarray) -> list[State]:
        """Copies of the hands in ``rows`` (indices), for ``put_back``."""
        return [self.states[i].clone() for i in rows]

    def put_back(self, rows: np.ndarray, held: Any) -> None:
        """Restore the hands in ``rows`` from ``held``."""
        for i, state in zip(rows, held):
            self.states[i] = state

    def _generator(self) -> np.random.Generator:
        if self._rng is None:
            raise EnvStateError("deal hands with reset_rows (or load a state) first")
        return self._rng

    def _advance(self, state: State) -> None:
        while state.current_player() == CHANCE:
            state.apply_action(sample_chance(state, self._generator()))

    def current_player(self) -> np.ndarray:
        return np.fromiter((s.current_player() for s in self.states), np.int64, self.num_envs)

    def mask(self) -> np.ndarray:
        return np.stack([s.legal_actions_mask() for s in self.states])

    def observations(self, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        rows = np.arange(self.num_envs) if rows is None else rows
        out = np.empty((len(rows), self.obs_size), dtype=np.float32)
        for k, (i, p) in enumerate(zip(rows, seats)):
            out[k] = self.states[i].information_state_tensor(int(p))
        return out

    def apply(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        done = np.zeros(self.num_envs, dtype=bool)
        out = np.zeros((self.num_envs, self.n))
        for i, (state, a) in enumerate(zip(self.states, actions)):
            state.apply_action(int(a))
            self._advance(state)
            if state.current_player() == TERMINAL:
                done[i] = True
                out[i] = terminal_returns(state, self._generator())
        return done, out
