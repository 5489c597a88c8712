"""FSP on an unknown environment: fictitious self-play with fitted-Q best responses.

The VCFR paper's "FSP" baseline: Heinrich, Lanctot, Silver (2015), "Fictitious self-play in
extensive-form games", Algorithm 2, with tabular function approximation. Each player i keeps

* an **RL memory** (a sliding window of its transitions ``(s, a, r, s')``: its information
  set, its action, the reward paid at the end of the hand (0 before), its next information set
  or "hand over"), from which a **best response** beta_i is re-fitted every ``refit_every``
  hands by fitted-Q iteration: ``q_sweeps`` sweeps of ``Q(s, a) <- mean over the memory of
  r + max_a' Q(s', a')`` (legal a' only; one ``bincount`` per sweep), beta_i greedy in Q;
* an **SL memory** (a reservoir of (information set, action) pairs of beta_i's play), whose
  counts are the **average policy** pi_i (a supervised tabular average: the empirical
  frequencies of the best responses' actions; uniform where empty).

Every hand each player plays, for the whole hand, beta_i with probability ``eta`` and pi_i
otherwise. Choosing per hand (not per information set) realises the mixture
``(1 - eta) * pi + eta * beta`` of *realisation plans*, which is the mixture FSP's
GENERATEDATA asks for (Heinrich et al., Theorem 7); it is NFSP's "anticipatory" scheme and
makes every hand sigma-distributed, so every hand feeds the RL memories (FSP's n episodes
of sigma) and the hands where i played beta_i feed i's SL memory (FSP's m episodes of
(beta_i, sigma_-i)). While playing beta_i, the player explores (``br_exploration``-greedy);
the SL memory records beta_i's greedy action at each information set visited, not the
exploration, so the average policy has no exploration floor.

The agent learns only from the hands it plays (paths and the rewards paid). The output policy
is the average policy. Choices the papers leave to us, all parameters (see ``FSPConfig``):
eta 0.1 (NFSP's), exploration 0.1, a re-fit every 10 hands, as many sweeps as the longest
chain of one player's decisions (exact on the memory's empirical MDP; Q warm-started, pairs
absent from the memory keep their last value, initially 0), RL window 30,000 transitions and
SL reservoir 1,000,000 pairs per player.

>>> from pokerzoo import load_game
>>> from pokerzoo.evaluation.unknown import nash_conv_in_true_model
>>> env = load_game("unknown_kuhn_poker", seed=0)
>>> fsp = make_agent(env, seed=0, refit_every=20)
>>> fsp.iterate(4001)
>>> fsp.view.sampler.counter.episodes, fsp.best_response().shape
(4001, (12,))
>>> nash_conv_in_true_model(env, fsp.policy()) < 0.5
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerzoo.agents.tabular import config_from_params
from pokerzoo.agents.unknown_env.base import UnknownEnvAgent
from pokerzoo.config import check, with_overrides
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.games.unknown.model import EpisodeBatch
from pokerzoo.tree.episodes import TreeEpisodeSampler
from pokerzoo.tree.game_tree import GameTree


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float)


def _is_count(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | np.integer)


@dataclass(frozen=True)
class FSPConfig:
    """Hyperparameters of FSP with fitted-Q best responses (the papers give none: ours)."""

    eta: float = 0.1
    """Probability that a player follows its best response for a whole hand (else its average
    policy): FSP's mixing parameter, constant as NFSP's anticipatory parameter. In (0, 1]."""
    br_exploration: float = 0.1
    """The best response's play is ``br_exploration``-greedy in Q, so that actions no best
    response chose still get tried. In [0, 1]."""
    refit_every: int = 10
    """Hands between fitted-Q re-fits of the best responses (>= 1)."""
    q_sweeps: int = 0
    """Fitted-Q sweeps per re-fit; 0: the longest chain of one player's decisions in a hand
    (exact on the memory's empirical MDP)."""
    rl_memory: int = 30_000
    """Transitions in each player's sliding-window RL memory (>= 1)."""
    sl_memory: int = 1_000_000
    """(Information set, action) pairs in each player's SL reservoir (>= 1); the default is
    never full in a 20,000-hand run, so the average policy counts every best-response action."""
    episodes_per_round: int = 1
    """Hands played after each round (the policies and the hands' beta/pi choices are made at
    a round's start; 1: every hand sees the newest best response and average)."""

    def __post_init__(self) -> None:
        check(_is_number(self.eta) and 0.0 < self.eta <= 1.0, "eta", "a number in (0, 1]",
              self.eta)
        check(_is_number(self.br_exploration) and 0.0 <= self.br_exploration <= 1.0,
              "br_exploration", "a number in [0, 1]", self.br_exploration)
        check(_is_count(self.q_sweeps) and self.q_sweeps >= 0, "q_sweeps",
              "an integer >= 0 (0: as many as a player's longest chain of decisions)",
              self.q_sweeps)
        for name in ("refit_every", "rl_memory", "sl_memory", "episodes_per_round"):
            value = getattr(self, name)
            check(_is_count(value) and value >= 1, name, "an integer >= 1", value)

    @classmethod
    def from_params(cls, **params: Any) -> FSPConfig:
        return config_from_params(cls, "FSP", **params)


def decision_table(tree: GameTree, leaf_of_terminal: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each terminal's decisions by player, root first: ``(infoset, action, next_infoset)``,
    each ``[num_terminals, num_players, L]`` (L: the longest chain of one player's decisions);
    ``next_infoset`` is -1 after the player's last decision, every array -1 past its chain."""
    leaves = np.asarray(leaf_of_terminal, dtype=np.int64)
    depth = max(int(tree.depth.max()), 1)
    # Ancestors of every leaf (the leaf first), 0 above the root: a row is the child of an edge.
    chain = np.zeros((len(leaves), depth), dtype=np.int64)
    node = leaves.copy()
    for k in range(depth):
        chain[:, k] = node
        node = np.where(node > 0, tree.parent[node], 0)
    chain = chain[:, ::-1]  # root first
    up = np.where(chain > 0, tree.parent[chain], 0)
    owner = np.where(chain > 0, tree.player[up], -1)
    rows = np.arange(len(leaves))[:, None]
    players = tree.num_players
    length = max(int((owner == p).sum(axis=1).max()) for p in range(players))
    length = max(length, 1)
    infosets = np.full((len(leaves), players, length), -1, dtype=np.int64)
    actions = np.full_like(infosets, -1)
    for p in range(players):
        mine = owner == p
        # p's edges first, in path order (a stable sort keeps the order).
        order = np.argsort(~mine, axis=1, kind="stable")[:, :length]
        keep = mine[rows, order]
        infosets[:, p] = np.where(keep, tree.infoset[up[rows, order]], -1)
        actions[:, p] = np.where(keep, tree.action[chain[rows, order]], -1)
    following = np.full_like(infosets, -1)
    following[:, :, :-1] = infosets[:, :, 1:]
    return infosets, actions, following


class _Reservoir:
    """A reservoir of (information set, action) pairs (Vitter's algorithm R) and its counts."""

    def __init__(self, capacity: int, shape: tuple[int, int]) -> None:
        self.capacity = capacity
        self.seen = 0
        self.pairs = np.zeros((0, 2), dtype=np.int64)  # grows by doubling up to capacity
        self.counts = np.zeros(shape)

    def add(self, infosets: np.ndarray, actions: np.ndarray, rng: np.random.Generator) -> None:
        k = len(infosets)
        if k == 0:
            return
        t = self.seen + np.arange(k)
        slot = t.copy()
        full = t >= self.capacity
        if full.any():
            slot[full] = rng.integers(0, t[full] + 1)
        take = slot < self.capacity
        # A slot drawn twice in one batch keeps the later pair (algorithm R, in order).
        last = np.zeros(k, dtype=bool)
        _, first_of_reversed = np.unique(slot[::-1], return_index=True)
        last[k - 1 - first_of_reversed] = True
        take &= last
        slot, s, a = slot[take], infosets[take], actions[take]
        filled = min(self.seen, self.capacity)
        if len(slot) and slot.max() >= len(self.pairs):
            grown = np.zeros((min(self.capacity, max(1024, 2 * (int(slot.max()) + 1))), 2),
                             dtype=np.int64)
            grown[: len(self.pairs)] = self.pairs
            self.pairs = grown
        old = slot < filled
        np.subtract.at(self.counts, (self.pairs[slot[old], 0], self.pairs[slot[old], 1]), 1.0)
        np.add.at(self.counts, (s, a), 1.0)
        self.pairs[slot, 0] = s
        self.pairs[slot, 1] = a
        self.seen += k

    def state_dict(self) -> dict[str, Any]:
        return {"seen": self.seen, "pairs": self.pairs[: min(self.seen, self.capacity)].copy()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.seen = int(state["seen"])
        self.pairs = np.array(state["pairs"], dtype=np.int64).reshape(-1, 2)
        self.counts[:] = 0.0
        np.add.at(self.counts, (self.pairs[:, 0], self.pairs[:, 1]), 1.0)


class FSP(UnknownEnvAgent):
    """Fictitious self-play with tabular fitted-Q best responses (see the module doc).

    Args:
        game: the interaction view (or the environment game ``load_game`` returns).
        config: an ``FSPConfig`` (or a mapping of its fields); keyword ``overrides`` replace
            its fields (both checked: ``ConfigError`` names a wrong one).
        seed: seed of the agent's generator.

    Attributes:
        q: ``[num_infosets, num_actions]`` the fitted Q values (each player's own rows).
    """

    name = "fsp-unknown"

    def __init__(
        self,
        game: Game,
        config: FSPConfig | Mapping[str, Any] | None = None,
        seed: int = 0,
        **overrides: Any,
    ) -> None:
        config = with_overrides(FSPConfig, config, overrides, what="FSP")
        super().__init__(game, seed, config.episodes_per_round)
        if self.tree.num_players != 2:
            raise ConfigError(f"FSP is for two-player games, got {self.tree.num_players}")
        self.config = config
        shape = self.tree.infoset_mask.shape
        self.q = np.zeros(shape)
        leaves = TreeEpisodeSampler(self.tree).leaf_of_terminal
        self._infosets, self._actions, self._next = decision_table(self.tree, leaves)
        self._sweeps = config.q_sweeps or self._infosets.shape[2]
        window = config.rl_memory
        # Sliding windows, one row per player: s, a, s' (-1: hand over) and r.
        self._rl_sa = np.zeros((2, 3, window), dtype=np.int64)
        self._rl_r = np.zeros((2, window))
        self._rl_size = np.zeros(2, dtype=np.int64)
        self._rl_next = np.zeros(2, dtype=np.int64)
        self._sl = [_Reservoir(config.sl_memory, shape) for _ in range(2)]
        self._modes = np.zeros((config.episodes_per_round, 2), dtype=bool)
        self._since_fit = 0

    # Policies ----------------------------------------------------------------------------------

    def best_response(self) -> np.ndarray:
        """``[num_infosets]`` the greedy action of Q at each information set (legal only)."""
        masked = np.where(self.tree.infoset_mask, self.q, -np.inf)
        best: np.ndarray = masked.argmax(axis=1)
        return best

    def average_policy_array(self) -> np.ndarray:
        """The average policy: the SL reservoirs' action frequencies (uniform where empty)."""
        return self.normalised(self._sl[0].counts + self._sl[1].counts)

    # One round ---------------------------------------------------------------------------------

    def _start_round(self) -> list[np.ndarray]:
        cfg = self.config
        if self._since_fit >= cfg.refit_every:
            self.fit_q()
            self._since_fit = 0
        uniform = self.uniform_profile()
        greedy = np.zeros_like(uniform)
        greedy[np.arange(len(greedy)), self.best_response()] = 1.0
        beta = cfg.br_exploration * uniform + (1.0 - cfg.br_exploration) * greedy
        average = self.average_policy_array()
        # Per hand and player: beta for the whole hand with probability eta (see module doc).
        self._modes = self.rng.random((cfg.episodes_per_round, 2)) < cfg.eta
        owner = self.tree.infoset_player[:, None]
        return [
            np.where(owner == 0, beta if modes[0] else average, beta if modes[1] else average)
            for modes in self._modes
        ]

    def _observe(self, batch: EpisodeBatch, hand: int, profile: np.ndarray) -> None:
        hands = len(batch)
        terminals = batch.terminals
        modes = self._modes[hand: hand + hands]
        best = self.best_response()  # Q has not changed since the round's start
        for p in range(2):
            s = self._infosets[terminals, p]  # [hands, L]
            valid = s >= 0
            following = self._next[terminals, p]
            reward = np.where(following < 0, batch.rewards[:, p, None], 0.0)
            self._remember(p, s[valid], self._actions[terminals, p][valid], following[valid],
                           reward[valid])
            played_best = valid & modes[:, p, None]
            visited = s[played_best]
            self._sl[p].add(visited, best[visited], self.rng)
        self._since_fit += hands

    def _remember(
        self, p: int, s: np.ndarray, a: np.ndarray, following: np.ndarray, r: np.ndarray
    ) -> None:
        """Append transitions to player p's sliding window (the oldest drop out)."""
        window = self.config.rl_memory
        k = len(s)
        if k > window:
            s, a, following, r = s[-window:], a[-window:], following[-window:], r[-window:]
            k = window
        at = (self._rl_next[p] + np.arange(k)) % window
        self._rl_sa[p, 0, at] = s
        self._rl_sa[p, 1, at] = a
        self._rl_sa[p, 2, at] = following
        self._rl_r[p, at] = r
        self._rl_next[p] = (self._rl_next[p] + k) % window
        self._rl_size[p] = min(window, int(self._rl_size[p]) + k)

    def fit_q(self) -> None:
        """Fitted-Q iteration on both players' RL memories (their rows of Q are disjoint, so
        one ``bincount`` per sweep fits both)."""
        sizes = [int(n) for n in self._rl_size]
        sa = np.concatenate([self._rl_sa[p, :, : sizes[p]] for p in range(2)], axis=1)
        r = np.concatenate([self._rl_r[p, : sizes[p]] for p in range(2)])
        if r.size == 0:
            return
        s, a, following = sa
        mask = self.tree.infoset_mask
        cells = mask.size
        key = s * mask.shape[1] + a
        counts = np.bincount(key, minlength=cells)
        seen = counts > 0
        ended = following < 0
        after = np.maximum(following, 0)
        q = self.q.reshape(-1).copy()
        for _ in range(self._sweeps):
            value = np.where(mask, q.reshape(mask.shape), -np.inf).max(axis=1)
            target = r + np.where(ended, 0.0, value[after])
            sums = np.bincount(key, weights=target, minlength=cells)
            q[seen] = sums[seen] / counts[seen]
        self.q = q.reshape(mask.shape)

    def output_policy_array(self) -> np.ndarray:
        """The average policy (see ``average_policy_array``)."""
        return self.average_policy_array()

    # Checkpoints -------------------------------------------------------------------------------

    def _identity(self) -> dict[str, Any]:
        return {**super()._identity(), "config": dataclasses.asdict(self.config)}

    def _extra_state(self) -> dict[str, Any]:
        return {
            "q": self.q.copy(),
            "rl_sa": self._rl_sa.copy(),
            "rl_r": self._rl_r.copy(),
            "rl_size": self._rl_size.copy(),
            "rl_next": self._rl_next.copy(),
            "sl": [memory.state_dict() for memory in self._sl],
            "modes": self._modes.astype(np.int8),
            "since_fit": self._since_fit,
        }

    def _load_extra_state(self, state: Mapping[str, Any]) -> None:
        self.q = np.array(state["q"], dtype=np.float64)
        self._rl_sa = np.array(state["rl_sa"], dtype=np.int64)
        self._rl_r = np.array(state["rl_r"], dtype=np.float64)
        self._rl_size = np.array(state["rl_size"], dtype=np.int64)
        self._rl_next = np.array(state["rl_next"], dtype=np.int64)
        for memory, saved in zip(self._sl, state["sl"]):
            memory.load_state_dict(saved)
        self._modes = np.asarray(state["modes"]).astype(bool)
        self._since_fit = int(state["since_fit"])


def make_agent(game: Game, seed: int = 0, **params: Any) -> FSP:
    """The registry's FSP baseline on an unknown game, ``params`` its config fields."""
    return FSP(game, params, seed=seed)
