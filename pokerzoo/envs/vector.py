"""``VectorPokerEnv``: many hands at once, stacked for a network that acts on a batch.

Every hand is always at a decision: ``reset`` and ``step`` return, per hand, the acting seat,
its information-state tensor and its legal-action mask. A hand that ends in a ``step`` reports
its rewards (one per seat) and ``done=True`` in that step's result, and is re-dealt at once, so
the observation returned for it belongs to the next hand (as in Gymnasium's vector envs with
same-step autoreset).

A game whose class declares batched rules (``game_type.array_backend``: the Kuhn and Leduc
families on vectorised numpy, limit / no-limit hold'em on compiled kernels,
``pokerzoo.games.holdem.arrays``) runs on them, at hundreds of thousands of decisions per
second; any other game runs on ``State`` objects (same API, Python speed).

Unknown-environment games (``pokerzoo.games.unknown``): built from the environment game or
from an interaction view (``game.interaction_view()``, what ``train.py`` hands NFSP), the env
deals and pays by *sampling* d* through the view's ``EnvironmentSampler`` (counted on
``venv.interactions``); built from a plain agent's view, it deals and pays from that view's
believed model (a simulation of the belief). Either way ``venv.game`` is the plain view (no
sampler, no d*), and the states of ``venv.states`` answer ``chance_outcomes()`` and
``returns()`` from the believed model.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, cast

import numpy as np

from pokerzoo import entry_points
from pokerzoo.envs.vector_backends import StateArrays
from pokerzoo.errors import CheckpointError, ConfigError, EnvStateError
from pokerzoo.games.arrays import ArrayBackend
from pokerzoo.games.base import Game, IllegalActionError
from pokerzoo.games.registry import load_game

if TYPE_CHECKING:
    from pokerzoo.games.unknown.game import AgentGameView, UnknownPokerGame
    from pokerzoo.games.unknown.sampler import InteractionCounter


class VectorStep(NamedTuple):
    """What ``VectorPokerEnv.step`` returns (``N`` hands, ``n`` seats, ``D`` tensor size)."""

    obs: np.ndarray
    """``[N, D]`` float32: information-state tensor of the seat to act in each hand."""
    mask: np.ndarray
    """``[N, A]`` int8: its legal actions."""
    player: np.ndarray
    """``[N]`` int64: the seat to act."""
    rewards: np.ndarray
    """``[N, n]`` float64: each seat's payoff for hands that ended in this step, else 0."""
    done: np.ndarray
    """``[N]`` bool: the hand ended in this step (its row of ``obs`` is already a new hand)."""
    final_obs: np.ndarray | None
    """``[N, n, D]`` each seat's tensor at the end of hands that ended (zeros elsewhere), when
    the env was built with ``final_observations=True``; else ``None``."""



MAX_VECTOR_ENV_BYTES = 8 << 30
"""The most memory (8 GiB, estimated) a ``VectorPokerEnv`` may hold; more is refused before
anything is allocated (``check_vector_size``)."""

ROW_OVERHEAD_BYTES = 512
"""Bytes per hand beyond its observations and masks (cards, bets, history), a generous bound
for the array backends."""


def vector_bytes(game: Game, num_envs: int) -> int:
    """Estimated bytes of ``num_envs`` hands of ``game``: float32 observations for the acting
    seat, a scratch copy and each seat's final one, masks and rewards, and per-hand state."""
    obs = int(np.prod(game.information_state_shape))
    per_hand = (4 * obs * (2 + game.num_players) + 16 * game.num_distinct_actions
                + 8 * game.num_players + ROW_OVERHEAD_BYTES)
    return num_envs * per_hand


def check_vector_size(game: Game, num_envs: int) -> None:
    """Refuse ``num_envs`` hands whose estimated memory exceeds ``MAX_VECTOR_ENV_BYTES``.

    Raises:
        ConfigError: one line with the estimate, the limit and the most hands that fit.
    """
    need = vector_bytes(game, num_envs)
    if need > MAX_VECTOR_ENV_BYTES:
        fits = MAX_VECTOR_ENV_BYTES // vector_bytes(game, 1)
        raise ConfigError(
            f"num_envs={num_envs:,} hands of {game.name} would need about {need / 2**30:.1f} "
            f"GiB, more than the {MAX_VECTOR_ENV_BYTES >> 30} GiB a vector env may hold; "
            f"use at most {fits:,}"
        )


class VectorPokerEnv:
    """Steps ``num_envs`` independent hands of one game in lockstep.

    Args:
        game: a ``Game`` or a registered game name.
        num_envs: number of hands played at once.
        seed: seed of the env's ``numpy.random.Generator`` (deals and chance).
        backend: ``"auto"`` (the arrays the game's class declares, ``game_type.array_backend``;
            ``State`` objects for a game that declares none), ``"arrays"`` (fail if it
            declares none) or ``"state"``.
        final_observations: also return every seat's tensor at the end of finished hands.

    >>> venv = VectorPokerEnv("leduc_holdem", num_envs=4, seed=0)
    >>> obs, mask, player = venv.reset()
    >>> obs.shape, mask.shape, player.tolist()
    ((4, 60), (4, 3), [0, 0, 0, 0])
    >>> result = venv.step(np.ones(4, dtype=np.int64))  # everybody checks
    >>> result.player.tolist()
    [1, 1, 1, 1]
    """

    def __init__(
        self,
        game: Game | str,
        num_envs: int,
        seed: int | None = None,
        backend: Literal["auto", "arrays", "state"] = "auto",
        final_observations: bool = False,
    ) -> None:
        if isinstance(game, str):
            game = load_game(game)
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ConfigError(f"num_envs must be a positive integer, got {num_envs!r}")
        check_vector_size(game, num_envs)
        kind = game.game_type
        if kind.is_environment:
            # Deal through a sampler of d*, so the hands' states hold no readable d*.
            game = cast("UnknownPokerGame", game).interaction_view()
        arrays = kind.array_backend
        if backend == "arrays" and arrays is None:
            raise ConfigError(f"no array backend for {game.name}; use backend='state' or 'auto'")
        if backend not in ("auto", "arrays", "state"):
            raise ConfigError(f"backend must be 'auto', 'arrays' or 'state', got {backend!r}")
        if backend == "state" or arrays is None:
            self._b: ArrayBackend | StateArrays = StateArrays(game, num_envs)
        else:
            self._b = entry_points.load(arrays)(game, num_envs)
        # Unknown-environment games: the backend samples d* (interaction view) or simulates
        # the belief (plain view); users see the plain view, which never samples.
        self.game = cast("AgentGameView", game).agent_view() if kind.hidden_model else game
        self.num_envs = num_envs
        self.num_players = game.num_players
        self.num_actions = game.num_distinct_actions
        self.observation_size = self._b.obs_size
        self.final_observations = final_observations
        self.backend = "state" if isinstance(self._b, StateArrays) else "arrays"
        self._rng = np.random.default_rng(seed)
        self._mask: np.ndarray | None = None
        self._started = False

    def reset(
        self, seed: int | None = None, resample_environment: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal a new hand everywhere; returns ``(obs [N, D], mask [N, A], player [N])``.

        ``resample_environment`` rebinds the backend's game to
        ``game.with_resampled_environment(rng)`` first when the game has it (a new hidden model
        for unknown-environment games, sampled through a new interaction view counting on the
        same counter; games are immutable), as ``PokerEnv.reset`` does; a no-op otherwise.
        """
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        resample = getattr(self._b.game, "with_resampled_environment", None)
        if resample_environment and resample is not None:
            self._b.game = resample(self._rng)
        self._b.reset_rows(np.arange(self.num_envs), self._rng)
        self._started = True
        return self._turn()

    @property
    def interactions(self) -> InteractionCounter | None:
        """For an env that samples an unknown environment, the counter of its draws from d*
        (``episodes``: hands paid; shared with the interaction view it deals through); else
        ``None``."""
        game = self._b.game
        if not game.game_type.agent_view:
            return None
        view = cast("AgentGameView", game)
        return view.sampler.counter if view.interactive else None

    def _turn(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        player = self._b.current_player().copy()
        self._mask = self._b.mask()
        return self._b.observations(player), self._mask.copy(), player

    def step(self, actions: np.ndarray, hold: np.ndarray | None = None) -> VectorStep:
        """Apply one action per hand (for the seat to act) and advance every hand.

        ``hold`` (``[N]`` bool) leaves the hands where it is True exactly as they are: their
        actions are ignored, they report no reward and are not re-dealt (``PokerVectorEnv``
        holds hands at its learner's turn while opponents act elsewhere).

        Raises:
            RuntimeError: before ``reset``.
            ValueError: for a wrong shape or an action outside ``0..num_actions-1``.
            IllegalActionError: for an action that is not legal in its hand (nothing applied).
        """
        if not self._started or self._mask is None:
            raise EnvStateError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ConfigError(
                f"actions must be {self.num_envs} integers, got shape {actions.shape} "
                f"of {actions.dtype}"
            )
        actions = actions.astype(np.int64, copy=False)
        held = self._held_rows(hold)
        if held is not None:
            # The backends step every row: held hands take a legal filler move, undone below.
            actions = actions.copy()
            actions[held] = self._mask[held].argmax(axis=1)
            kept = self._b.held(held)
        if actions.min() < 0 or actions.max() >= self.num_actions:
            raise ConfigError(f"actions must lie in 0..{self.num_actions - 1}")
        ok = self._mask[np.arange(self.num_envs), actions]
        if not ok.all():
            i = int(np.flatnonzero(ok == 0)[0])
            legal = np.flatnonzero(self._mask[i]).tolist()
            raise IllegalActionError(
                int(actions[i]), legal, f"hand {i} of {self.game.name} (nothing applied)"
            )
        done, rewards = self._b.apply(actions)
        if held is not None:
            self._b.put_back(held, kept)
            done[held] = False
            rewards[held] = 0.0
        rows = np.flatnonzero(done)
        final = None
        if self.final_observations:
            final = np.zeros((self.num_envs, self.num_players, self.observation_size), np.float32)
            if len(rows):
                seats = np.tile(np.arange(self.num_players), len(rows))
                tensors = self._b.observations(seats, np.repeat(rows, self.num_players))
                final[rows] = tensors.reshape(len(rows), self.num_players, -1)
        self._b.reset_rows(rows, self._rng)
        obs, mask, player = self._turn()
        return VectorStep(obs, mask, player, rewards, done, final)

    def _held_rows(self, hold: np.ndarray | None) -> np.ndarray | None:
        """Indices of the hands ``hold`` marks (None when there are none)."""
        if hold is None:
            return None
        hold = np.asarray(hold)
        if hold.shape != (self.num_envs,) or hold.dtype != bool:
            raise ConfigError(f"hold must be {self.num_envs} booleans, got shape {hold.shape} "
                              f"of {hold.dtype}")
        if not hold.any():
            return None
        if self.interactions is not None:
            raise ConfigError("hold is not offered on an unknown environment: a held hand's "
                              "undone move could be paid from it and counted")
        return np.flatnonzero(hold)

    def state_dict(self) -> dict[str, Any]:
        """The hands in flight and the generator that deals the next ones (copies; plain
        arrays, lists and JSON scalars), for checkpoints that resume mid-hand."""
        return {
            "game": self.game.name,
            "num_envs": self.num_envs,
            "backend": self.backend,
            "started": self._started,
            "rng": copy.deepcopy(self._rng.bit_generator.state),
            "mask": None if self._mask is None else self._mask.copy(),
            "hands": self._b.state_dict(),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` returned, from an env of the same game, size and backend.

        Raises:
            ValueError: a state of another game, size or backend.
        """
        ours = (self.game.name, self.num_envs, self.backend)
        theirs = (state["game"], int(state["num_envs"]), state["backend"])
        if theirs != ours:
            raise CheckpointError(f"env state is of (game, num_envs, backend) {theirs}, "
                             f"this env is {ours}")
        rng = np.random.default_rng()
        rng.bit_generator.state = copy.deepcopy(dict(state["rng"]))
        self._rng = rng
        self._b.load_state_dict(state["hands"], self._rng)
        self._mask = None if state["mask"] is None else np.array(state["mask"], dtype=np.int8)
        self._started = bool(state["started"])

    def deals(self) -> np.ndarray:
        """``[N, k]`` chance outcomes of each current hand in the order the game's ``State``
        deals them (array backends only; for cross-checks against the rules)."""
        if isinstance(self._b, StateArrays):
            raise ConfigError("the 'state' backend has no deal arrays; read .states instead")
        return self._b.deals()

    @property
    def states(self) -> list:
        """The ``State`` of each hand (``state`` backend only)."""
        if not isinstance(self._b, StateArrays):
            raise ConfigError("the 'arrays' backend keeps no State objects; use deals()")
        return self._b.states
