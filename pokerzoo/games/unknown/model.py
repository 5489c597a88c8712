"""Environment models of unknown-environment poker: chance and reward distributions on a base tree.

The setting of PSRLCFR (Zhou, Li, Zhu, ICLR 2020) and VCFR: the game tree of a base game is known,
but the chance player's probabilities ``c*`` and the terminal reward distributions ``r*`` are not.

* ``ModelStructure`` lists where a model puts its numbers: every chance node of the base game
  (identified by its history, the action sequence from the root) with its outcomes, and every
  terminal history. Its flat *slot* index (one per chance edge) and *terminal* index are what
  models, posteriors and episode batches share.
* ``EnvironmentModel`` holds one probability vector per chance node and one categorical reward
  distribution per terminal (``reward_values[t, k]`` is the whole payoff vector of outcome
  ``k``), so both the PSRLCFR prior (player 0 gets -1 or +1) and known poker payoffs (one
  outcome) fit. Models are immutable and picklable.
* ``EpisodeBatch`` is what one or more observed episodes contribute: the chance edges taken, the
  terminal reached and the rewards paid.

Priors live in ``pokerzoo.games.unknown.priors``.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import CHANCE, TERMINAL, Game, State, check_tree_size

History = tuple[int, ...]
MAX_STRUCTURE_HISTORIES = 2_000_000
"""Largest base-game tree a model structure walks (about 15 s); larger bases raise
``TreeTooLargeError`` before the walk."""


class ModelStructure:
    """The chance nodes and terminals of a base game, with flat indices for models.

    Build it with ``ModelStructure.of(base_game)`` (cached per base game). Chance nodes and
    terminals are numbered in depth-first order of the base game; chance edges (``slots``) are
    numbered node after node, ``outcome_offsets[c] .. outcome_offsets[c + 1] - 1`` for node ``c``.

    Attributes:
        base_game: the game whose tree this describes.
        num_players: seats of the base game.
        chance_histories: the history of every chance node.
        outcome_offsets: ``[num_chance_nodes + 1]`` start of each node's slots.
        outcome_actions: ``[num_slots]`` the chance outcome (action) of each slot.
        slot_node: ``[num_slots]`` the chance node of each slot.
        base_chance_probs: ``[num_slots]`` the base game's own chance probabilities.
        terminal_histories: the history of every terminal.
        base_returns: ``[num_terminals, num_players]`` the base game's payoffs.
    """

    def __init__(self, base_game: Game) -> None:
        # The walk below holds every history in Python objects: refuse big bases up front.
        check_tree_size(
            base_game, MAX_STRUCTURE_HISTORIES, "an unknown-environment model",
            "pick a smaller base game (fewer cards, players or raises)",
        )
        self.base_game = base_game
        self.num_players = base_game.num_players
        chance: list[History] = []
        offsets = [0]
        actions: list[int] = []
        probs: list[float] = []
        terminals: list[History] = []
        returns: list[list[float]] = []
        # Depth-first with an explicit stack: trees of Leduc(5) are ~15k histories deep-free.
        stack: list[tuple[History, State]] = [((), base_game.new_initial_state())]
        while stack:
            history, state = stack.pop()
            player = state.current_player()
            if player == TERMINAL:
                terminals.append(history)
                returns.append([float(r) for r in state.returns()])
                continue
            if player == CHANCE:
                outcomes = state.chance_outcomes()
                chance.append(history)
                actions.extend(a for a, _ in outcomes)
                probs.extend(p for _, p in outcomes)
                offsets.append(len(actions))
                children = [a for a, _ in outcomes]
            else:
                children = state.legal_actions()
            for a in reversed(children):
                stack.append(((*history, a), state.child(a)))
        self.chance_histories: tuple[History, ...] = tuple(chance)
        self.outcome_offsets = _frozen(np.asarray(offsets, dtype=np.int64))
        self.outcome_actions = _frozen(np.asarray(actions, dtype=np.int64))
        self.slot_node = _frozen(np.repeat(np.arange(len(chance)), np.diff(offsets)))
        self.base_chance_probs = _frozen(np.asarray(probs, dtype=np.float64))
        self.terminal_histories: tuple[History, ...] = tuple(terminals)
        self.base_returns = _frozen(
            np.asarray(returns, dtype=np.float64).reshape(len(terminals), self.num_players)
        )
        self.chance_index = {h: i for i, h in enumerate(chance)}
        self.terminal_index = {h: i for i, h in enumerate(terminals)}
        # The history *after* a chance edge names that edge: episodes are encoded by prefixes.
        self.edge_index = {
            (*chance[int(self.slot_node[s])], int(actions[s])): s for s in range(len(actions))
        }

    @staticmethod
    def of(base_game: Game) -> ModelStructure:
        """The (cached) structure of ``base_game``."""
        return _cached_structure(base_game)

    @property
    def num_chance_nodes(self) -> int:
        return len(self.chance_histories)

    @property
    def num_slots(self) -> int:
        return len(self.outcome_actions)

    @property
    def num_terminals(self) -> int:
        return len(self.terminal_histories)

    def segment_sums(self, values: np.ndarray) -> np.ndarray:
        """Sum a per-slot array over each chance node's slots (``[num_chance_nodes]``)."""
        return np.add.reduceat(values, self.outcome_offsets[:-1])

    def encode(self, histories: Iterable[Sequence[int]], rewards: np.ndarray) -> EpisodeBatch:
        """Encode observed episodes (full histories, chance outcomes included, and rewards).

        Raises:
            ValueError: if a history does not end at a terminal of this structure.
        """
        slots: list[int] = []
        counts: list[int] = []
        terminals: list[int] = []
        edge = self.edge_index
        for h in histories:
            h = tuple(int(a) for a in h)
            taken = [s for s in (edge.get(h[: i + 1]) for i in range(len(h))) if s is not None]
            slots.extend(taken)
            counts.append(len(taken))
            t = self.terminal_index.get(h)
            if t is None:
                raise ConfigError(f"history {list(h)} is not a terminal of {self.base_game!r}")
            terminals.append(t)
        rewards = np.asarray(rewards, dtype=np.float64).reshape(len(terminals), self.num_players)
        return EpisodeBatch(
            np.asarray(slots, dtype=np.int64),
            np.asarray(counts, dtype=np.int64),
            np.asarray(terminals, dtype=np.int64),
            rewards,
        )

    def __reduce__(self) -> tuple:
        # Rebuild from the base game (cheap, cached) instead of pickling every history.
        return (ModelStructure.of, (self.base_game,))


@lru_cache(maxsize=32)
def _cached_structure(base_game: Game) -> ModelStructure:
    return ModelStructure(base_game)


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class EpisodeBatch:
    """Observed episodes, encoded against a ``ModelStructure``.

    Attributes:
        chance_slots: the chance edges taken, every episode's in order, concatenated.
        chance_counts: ``[num_episodes]`` how many of ``chance_slots`` each episode took.
        terminals: ``[num_episodes]`` terminal index reached.
        rewards: ``[num_episodes, num_players]`` rewards paid.
    """

    chance_slots: np.ndarray
    chance_counts: np.ndarray
    terminals: np.ndarray
    rewards: np.ndarray

    def __len__(self) -> int:
        return len(self.terminals)


@dataclass(frozen=True, eq=False)
class EnvironmentModel:
    """Chance probabilities per chance node and a reward distribution per terminal.

    Attributes:
        structure: the base game's ``ModelStructure``.
        chance_probs: ``[num_slots]``; each chance node's slots sum to 1.
        reward_values: ``[num_terminals, K, num_players]`` payoff vector of each reward outcome.
        reward_probs: ``[num_terminals, K]``; each row sums to 1.
    """

    structure: ModelStructure
    chance_probs: np.ndarray
    reward_values: np.ndarray
    reward_probs: np.ndarray

    def __post_init__(self) -> None:
        s = self.structure
        chance = np.array(self.chance_probs, dtype=np.float64)
        values = np.array(self.reward_values, dtype=np.float64)
        probs = np.array(self.reward_probs, dtype=np.float64)
        if chance.shape != (s.num_slots,):
            raise ConfigError(f"chance_probs needs shape ({s.num_slots},), got {chance.shape}")
        if values.ndim != 3 or values.shape[::2] != (s.num_terminals, s.num_players):
            raise ConfigError(
                f"reward_values needs shape ({s.num_terminals}, K, {s.num_players}), "
                f"got {values.shape}"
            )
        if probs.shape != values.shape[:2]:
            raise ConfigError(f"reward_probs needs shape {values.shape[:2]}, got {probs.shape}")
        if (chance < 0).any() or (probs < 0).any():
            raise ConfigError("probabilities must be non-negative")
        if s.num_slots and not np.allclose(s.segment_sums(chance), 1.0, atol=1e-9):
            raise ConfigError("each chance node's probabilities must sum to 1")
        if not np.allclose(probs.sum(axis=1), 1.0, atol=1e-9):
            raise ConfigError("each terminal's reward probabilities must sum to 1")
        set_ = object.__setattr__
        set_(self, "chance_probs", _frozen(chance))
        set_(self, "reward_values", _frozen(values))
        set_(self, "reward_probs", _frozen(probs))
        # Cumulative sums make sampling a binary search; expected returns feed the tree.
        set_(self, "_reward_cdf", np.cumsum(probs, axis=1))
        set_(self, "_expected", _frozen(np.einsum("tk,tkp->tp", probs, values)))

    # Chance -------------------------------------------------------------------------------------

    def chance_outcomes(self, history: Sequence[int]) -> list[tuple[int, float]]:
        """``(outcome, probability)`` at the chance node with this history."""
        lo, hi = self._slots(history)
        actions = self.structure.outcome_actions
        return [(int(actions[s]), float(self.chance_probs[s])) for s in range(lo, hi)]

    def sample_chance(self, history: Sequence[int], rng: np.random.Generator) -> int:
        """One outcome of the chance node with this history, drawn with ``rng``."""
        lo, hi = self._slots(history)
        cdf = np.cumsum(self.chance_probs[lo:hi])
        k = min(int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right")), hi - lo - 1)
        return int(self.structure.outcome_actions[lo + k])

    def _slots(self, history: Sequence[int]) -> tuple[int, int]:
        c = self.structure.chance_index.get(tuple(history))
        if c is None:
            raise KeyError(f"history {list(history)} is not a chance node of the base game")
        offsets = self.structure.outcome_offsets
        return int(offsets[c]), int(offsets[c + 1])

    # Rewards ------------------------------------------------------------------------------------

    @property
    def expected_returns(self) -> np.ndarray:
        """``[num_terminals, num_players]`` expected payoff of every terminal."""
        return self._expected  # type: ignore[attr-defined]

    def sample_returns(self, terminal: int, rng: np.random.Generator) -> np.ndarray:
        """One payoff vector of terminal index ``terminal``, drawn with ``rng``."""
        cdf = self._reward_cdf[terminal]  # type: ignore[attr-defined]
        k = min(int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right")), len(cdf) - 1)
        return self.reward_values[terminal, k].copy()

    def sample_reward_outcomes(self, terminals: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Reward outcome indices ``k`` for a batch of terminal indices (vectorised)."""
        cdf = self._reward_cdf[terminals]  # type: ignore[attr-defined]
        u = rng.random(len(terminals)) * cdf[:, -1]
        return np.minimum((cdf <= u[:, None]).sum(axis=1), cdf.shape[1] - 1)

    # Comparisons --------------------------------------------------------------------------------

    @functools.cached_property
    def fingerprint(self) -> str:
        """SHA-256 (hex) of the model's arrays and shapes: equal models, equal fingerprints.

        Games put it in their identity (equality, hashing, ``params()``), so a checkpoint says
        which environment model it was made with.
        """
        digest = hashlib.sha256()
        for array in (self.chance_probs, self.reward_values, self.reward_probs):
            # ``+ 0.0`` turns -0.0 into 0.0, which compares equal and must hash equal.
            canonical = np.ascontiguousarray(array + 0.0, dtype="<f8")
            digest.update(repr(canonical.shape).encode())
            digest.update(canonical.tobytes())
        return digest.hexdigest()

    def distance(self, other: EnvironmentModel) -> ModelDistance:
        """Total-variation distances to ``other``, per chance node and per terminal."""
        self._check_same(other)
        chance = 0.5 * self.structure.segment_sums(np.abs(self.chance_probs - other.chance_probs))
        if self.reward_values.shape == other.reward_values.shape and np.array_equal(
            self.reward_values, other.reward_values
        ):
            reward = 0.5 * np.abs(self.reward_probs - other.reward_probs).sum(axis=1)
        else:
            raise ConfigError("the models put their reward probabilities on different supports")
        return ModelDistance(chance, reward)

    def _same_base(self, other: EnvironmentModel) -> bool:
        mine, theirs = self.structure, other.structure
        return theirs is mine or theirs.base_game == mine.base_game

    def _check_same(self, other: EnvironmentModel) -> None:
        if not self._same_base(other):
            raise ConfigError("the models describe different base games")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EnvironmentModel):
            return NotImplemented
        return (
            self._same_base(other)
            and np.array_equal(self.chance_probs, other.chance_probs)
            and np.array_equal(self.reward_values, other.reward_values)
            and np.array_equal(self.reward_probs, other.reward_probs)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        s = self.structure
        return (
            f"EnvironmentModel({s.base_game!r}: {s.num_chance_nodes} chance nodes, "
            f"{s.num_terminals} terminals x {self.reward_values.shape[1]} reward outcomes)"
        )


@dataclass(frozen=True)
class ModelDistance:
    """Total-variation distances between two models' distributions.

    Attributes:
        chance: ``[num_chance_nodes]`` TV distance of each chance node's outcome distribution.
        reward: ``[num_terminals]`` TV distance of each terminal's reward distribution.
    """

    chance: np.ndarray
    reward: np.ndarray

    def mean(self) -> float:
        """The average over every chance node and terminal (one number per distribution)."""
        both = np.concatenate([self.chance, self.reward])
        return float(both.mean()) if both.size else 0.0

    def max(self) -> float:
        """The largest distance over every chance node and terminal."""
        both = np.concatenate([self.chance, self.reward])
        return float(both.max()) if both.size else 0.0


def base_model(structure: ModelStructure) -> EnvironmentModel:
    """The base game's own model: its chance probabilities and its payoffs, paid for sure."""
    return EnvironmentModel(
        structure,
        structure.base_chance_probs,
        structure.base_returns[:, None, :],
        np.ones((structure.num_terminals, 1)),
    )
