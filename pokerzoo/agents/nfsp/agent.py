"""Neural fictitious self-play: NFSP, NFSP-PER and NFSP-PLT; DQN or adaptive-UCT best response.

NFSP (Heinrich & Silver 2016) gives every seat two networks: a DQN that learns a best response
to the others from replayed transitions, and an average-policy network fitted by cross-entropy
to the seat's own best-response actions kept in a reservoir. In each hand a seat plays its best
response with probability eta, else its average policy; the average policies approach a Nash
equilibrium in two-player zero-sum games. Li et al. 2023 replace the uniform replay by a
prioritized one (NFSP-PER), repeat gradient steps on valuable batches (NFSP-PLT) and optionally
choose best-response actions with an adaptive UCT search. See ``nfsp_config`` for every
hyperparameter and its source.

The agent learns from the batched env (``pokerzoo.envs.VectorPokerEnv``) only; one
``iterate`` unit is one finished hand (episode). Because hands run ``num_envs`` at a time,
``iterate(n)`` may finish up to ``num_envs - 1`` hands more than asked; ``iteration`` counts
them all.

>>> from pokerzoo import load_game
>>> agent = NFSP(load_game("kuhn_poker"), seed=0, num_envs=64)
>>> agent.iterate(1000)
>>> agent.average_policy().probs.shape
(12, 2)
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import torch

from pokerzoo.agents.base import Agent, check_state_iteration, check_units
from pokerzoo.agents.nfsp.config import PRESETS, DQNConfig, NFSPConfig
from pokerzoo.agents.nfsp.learner import PlayerLearner, check_learner_weights, policy_probs
from pokerzoo.agents.nfsp.rollout import ingest, learner_weights, make_worker
from pokerzoo.agents.nfsp.selfplay import SelfPlay
from pokerzoo.components.networks import torch_threads
from pokerzoo.config import from_mapping
from pokerzoo.entry_points import unknown_name
from pokerzoo.envs.spaces import checked_action_mask
from pokerzoo.envs.vector import VectorPokerEnv
from pokerzoo.errors import CheckpointError, ConfigError, TreeTooLargeError
from pokerzoo.evaluation.exact import tabularize
from pokerzoo.games.base import Game, State
from pokerzoo.parallel import Executor, InProcess, WorkerPool, check_workers
from pokerzoo.policy import CallablePolicy
from pokerzoo.tree.game_tree import GameTree, build
from pokerzoo.tree.tabular_policy import TabularPolicy

TABULAR_MAX_NODES = 2_000_000
"""Largest tree ``average_policy`` compiles (Leduc has about 10^4 histories, hold'em far more)."""


class NFSP(Agent):
    """NFSP for any number of players (``config`` or keyword overrides of ``NFSPConfig``).

    Args:
        game: the game to play (any pokerzoo game).
        config: hyperparameters; keyword ``overrides`` replace fields (checked as
            ``NFSPConfig.with_params`` checks them: ``ConfigError`` names a wrong one).
        seed: seeds networks, buffers, the env and every random choice.
        tree: a compiled tree of ``game`` for ``average_policy()`` (built on first use).
        workers: rollout workers (``agents.nfsp.rollout``): 1 plays and learns here, step by
            step; N > 1 plays ``num_envs`` hands on each of N workers per round and learns
            here from what they send (reproducible for a fixed N).
        executor: where the workers run (a ``pokerzoo.parallel.Executor``, e.g.
            ``pokerzoo.distributed.connect()``; default: in this process, one after another).
        name: the agent's name (default: the class's), as the registry names its presets.
    """

    name: str = "nfsp"

    def __init__(
        self,
        game: Game,
        config: NFSPConfig | None = None,
        seed: int = 0,
        tree: GameTree | None = None,
        *,
        workers: int = 1,
        executor: Executor | None = None,
        name: str | None = None,
        **overrides: Any,
    ) -> None:
        base = config if config is not None else NFSPConfig()
        self.config = base.with_params(**overrides) if overrides else base
        if name is not None:  # the registry's name for this preset (what checkpoints record)
            self.name = name
        self.workers = check_workers(workers)
        if self.workers > 1 and self.config.best_response_kind == "uct":
            raise ConfigError("rollout workers play the DQN best response; the UCT best "
                              "response searches in this process: use workers=1")
        self.executor: Executor = executor if executor is not None else InProcess(self.workers)
        self._pool: WorkerPool | None = None
        self._inflight: Any = None
        self._pending: list[Any] | None = None
        self._restore: dict[str, Any] | None = None
        self.game = game
        self.seed = seed
        self.num_players = game.num_players
        self.obs_size = int(np.prod(game.information_state_shape))
        self.num_actions = game.num_distinct_actions
        seeds = np.random.SeedSequence(seed).spawn(self.num_players + 1)
        self.rng = np.random.default_rng(seeds[-1])
        self.learners = [
            PlayerLearner(self.obs_size, self.num_actions, self.config,
                          int(s.generate_state(1)[0]))
            for s in seeds[:-1]
        ]
        # The UCT best response searches from the hands' ``State`` objects.
        backend: Literal["auto", "state"] = (
            "state" if self.config.best_response_kind == "uct" else "auto"
        )
        self.env = self._make_env(backend)
        self.reward_scale = self.config.reward_scale
        if self.reward_scale is None:
            self.reward_scale = 1.0 / game.chip_unit
        self.selfplay = SelfPlay(self.env, self.learners, self.config.eta, self.rng,
                                 self.reward_scale)
        self._tree = tree
        self._too_big = False
        self._iteration = 0
        self._started = False
        self._uct: Any = None
        if self.config.best_response_kind == "uct":
            self._uct = self._make_uct()
            self.selfplay.best_response = self._uct

    def _make_env(self, backend: Literal["auto", "state"]) -> Any:
        """The batched env the seats play (``agents.nfsp.aec`` plays a foreign AEC env)."""
        return VectorPokerEnv(self.game, self.config.num_envs, backend=backend)

    def _make_uct(self) -> Any:
        """The adaptive-UCT best response over the batched env's hands."""
        from pokerzoo.agents.nfsp.uct_best_response import UCTBestResponse

        return UCTBestResponse(self)

    # Learning ----------------------------------------------------------------------------------

    @property
    def epsilon(self) -> float:
        """Exploration of the best response: 0.06 decaying as 1/sqrt(episodes) ([HS]); 0 for
        the UCT best response, which explores in its search."""
        cfg = self.config.best_response
        if not isinstance(cfg, DQNConfig):
            return 0.0
        return cfg.epsilon_start / np.sqrt(1.0 + self._iteration / cfg.epsilon_timescale)

    def iterate(self, n: int = 1) -> None:
        """Play at least ``n`` hands (``num_envs`` at a time), learning as it goes."""
        n = check_units(n)
        if n == 0:
            return
        if self.workers > 1:
            self._iterate_rounds(self._iteration + n)
            return
        if not self._started:
            self.selfplay.restart(int(self.rng.integers(2**31)))
            self._started = True
        target = self._iteration + n
        with torch_threads(1):
            while self._iteration < target:
                self._iteration += self.selfplay.step(self.epsilon)

    def _iterate_rounds(self, target: int) -> None:
        """Rounds of the rollout workers until ``target`` hands have finished: each round's
        batches are learned from while the workers already play the next round."""
        pool = self._rollout_pool()
        with torch_threads(1):
            while self._iteration < target:
                if self._pending is None:
                    self._pending = (pool.gather(self._inflight) if self._inflight is not None
                                     else pool.call("run", self._round_args()))
                    self._inflight = None
                batches, self._pending = self._pending, None
                self._inflight = pool.submit("run", self._round_args())
                self._iteration += ingest(self.learners, batches)

    def _rollout_pool(self) -> WorkerPool:
        if self._pool is None:
            self._pool = self.executor.pool(
                functools.partial(make_worker, self.game, self.config, self.seed), self.workers
            )
            if self._restore is not None:
                self._pool.load_state_dicts(self._restore["states"])
                self._pending = self._restore["pending"]
                self._restore = None
        return self._pool

    def _round_args(self) -> list[tuple[Any, ...]]:
        args = (learner_weights(self.learners), self.config.rollout_steps, self.epsilon)
        return [args] * self.workers  # one object: sent to the object store once

    def _rollout_state(self) -> dict[str, Any] | None:
        """The workers' hands in flight and the round gathered but not yet learned from (a
        round in flight is gathered first: it plays the same wherever it is collected)."""
        if self._pool is None:
            return self._restore
        if self._inflight is not None:
            self._pending = self._pool.gather(self._inflight)
            self._inflight = None
        return {"workers": self.workers, "states": self._pool.state_dicts(),
                "pending": self._pending}

    def close(self) -> None:
        """Release the rollout workers (they are rebuilt, from the hands in flight, on the next
        ``iterate``)."""
        if self._pool is not None:
            self._restore = self._rollout_state()
            self._pool.close()
            self._pool = None
            self._pending = None

    # Policies ----------------------------------------------------------------------------------

    def average_probs(self, player: int, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The average policy of ``player`` on a batch of observations, ``[n, num_actions]``."""
        return self.learners[player].average_probs(
            np.asarray(obs, dtype=np.float32).reshape(-1, self.obs_size),
            np.asarray(mask).reshape(-1, self.num_actions),
        )

    @property
    def tree(self) -> GameTree:
        """The game's compiled tree (built on first use).

        Raises:
            TreeTooLargeError: if the game has more than ``TABULAR_MAX_NODES`` histories.
        """
        if self._tree is None:
            if self._too_big:
                raise TreeTooLargeError(f"{self.game!r} does not fit in a compiled tree")
            try:
                self._tree = build(self.game, max_nodes=TABULAR_MAX_NODES)
            except TreeTooLargeError:
                self._too_big = True
                raise
        return self._tree

    def average_policy(self) -> TabularPolicy | NetworkPolicy:
        """The average policy: a ``TabularPolicy`` over the tree's information sets (one batched
        network call per player) where the tree fits, else the state policy of ``policy()``."""
        try:
            tree = self.tree
        except TreeTooLargeError:
            return self.policy()
        obs = tree.information_state_tensors
        probs = np.zeros(tree.infoset_mask.shape, dtype=np.float64)
        mask = tree.infoset_mask.astype(np.int8)
        for p in range(self.num_players):
            rows = np.flatnonzero(tree.infoset_player == p)
            if len(rows):
                probs[rows] = self.average_probs(p, obs[rows], mask[rows])
        return TabularPolicy.from_tree(tree, probs)

    def policy(self) -> NetworkPolicy:
        """The average policy as a state policy (works on games whose tree does not fit)."""
        return NetworkPolicy(self)

    def act_probabilities(
        self, observation: Any, info: Mapping[str, Any] | None = None
    ) -> np.ndarray:
        """The average policy at an env turn (seat from ``info`` or the observation's one-hot)."""
        obs = np.asarray(observation["observation"], dtype=np.float32)
        mask = checked_action_mask(observation["action_mask"], self.num_actions,
                                   type(self).__name__).astype(np.int8)
        player = _seat(self.game, obs, info)
        return self.average_probs(player, obs, mask)[0].astype(np.float64)

    # Checkpoints -------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Everything the run depends on: networks, optimisers, buffers, counters, RNG states
        and the hands in flight (the self-play recorder and the batched env).

        Taking it changes nothing (the arrays are copies), and a run resumed from it continues
        exactly as the uninterrupted run does, whatever the checkpoint period.
        """
        return {
            "config": dataclasses.asdict(self.config),
            "game": {"name": self.game.name, "params": self.game.params()},
            "iteration": self._iteration,
            "rng": copy.deepcopy(self.rng.bit_generator.state),
            "learners": [learner.state_dict() for learner in self.learners],
            "started": self._started,
            "selfplay": self.selfplay.state_dict() if self._started else None,
            "env": self.env.state_dict() if self._started else None,
            "uct": self._uct.state_dict() if self._uct is not None else None,
            "rollout": self._rollout_state() if self.workers > 1 else None,
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` returned, hands in flight included.

        Raises:
            CheckpointError: a checkpoint of another game, config or number of seats.
        """
        iteration = check_state_iteration(state["iteration"])  # refused before any change
        game = {"name": self.game.name, "params": self.game.params()}
        if _plain(state["game"]) != _plain(game):
            raise CheckpointError(
                f"checkpoint is for {state['game']}, this agent plays {self.game!r}"
            )
        saved = from_mapping(NFSPConfig, state["config"])
        if saved != self.config:
            raise CheckpointError(
                f"checkpoint config {saved} differs from this agent's {self.config}"
            )
        if len(state["learners"]) != self.num_players:
            raise CheckpointError(f"checkpoint has {len(state['learners'])} seats, "
                                  f"the game has {self.num_players}")
        rollout = state.get("rollout")
        saved_workers = rollout["workers"] if rollout is not None else 1
        if saved_workers != self.workers and (rollout is not None or state["started"]):
            raise CheckpointError(
                f"checkpoint was written with {saved_workers} rollout worker(s) and hands in "
                f"flight; resume it with workers={saved_workers} (--workers {saved_workers})"
            )
        for learner_state in state["learners"]:  # all checked before any is loaded
            check_learner_weights(learner_state)
        for learner, learner_state in zip(self.learners, state["learners"]):
            learner.load_state_dict(learner_state)
        self.rng.bit_generator.state = copy.deepcopy(dict(state["rng"]))
        self._iteration = iteration
        self._started = bool(state["started"])
        if self._started:
            self.env.load_state_dict(state["env"])
            self.selfplay.load_state_dict(state["selfplay"])
        if self._uct is not None:
            self._uct.load_state_dict(state["uct"])
        if self.workers > 1:
            self.close()
            self._restore = None if rollout is None else dict(rollout)
            self._inflight = self._pending = None


class NetworkPolicy:
    """An NFSP agent's average policy as a state policy: ``action_probabilities(state)``."""

    def __init__(self, agent: NFSP | AverageNetworks) -> None:
        self.agent = agent

    def tabular(self, tree: GameTree) -> TabularPolicy:
        """The policy on every information set of ``tree`` in one batched network call per
        player (evaluators' ``tabularize`` uses this instead of asking state by state)."""
        if tree.game == self.agent.game:
            policy = self.agent.average_policy()
            if isinstance(policy, TabularPolicy):
                return policy
        return tabularize(tree, CallablePolicy(self.action_probabilities))

    def action_probabilities(self, state: State, player: int | None = None) -> dict[int, float]:
        p = state.current_player() if player is None else player
        obs = state.information_state_tensor(p)
        row = self.agent.average_probs(p, obs, state.legal_actions_mask())[0]
        return {a: float(row[a]) for a in state.legal_actions()}

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Sent to evaluation workers (Ray's transport): only the average-policy networks
        # travel, not the agent's replay buffers and optimisers.
        if isinstance(self.agent, AverageNetworks):
            return (NetworkPolicy, (self.agent,))
        nets = [copy.deepcopy(learner.avg) for learner in self.agent.learners]
        return (NetworkPolicy, (AverageNetworks(self.agent.game, nets),))


class AverageNetworks:
    """The average-policy networks of an NFSP agent, all its ``NetworkPolicy`` needs."""

    def __init__(self, game: Game, nets: Sequence[torch.nn.Module]) -> None:
        self.game = game
        self.nets = nets
        self.obs_size = int(np.prod(game.information_state_shape))
        self.num_actions = game.num_distinct_actions

    def average_probs(self, player: int, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """As ``NFSP.average_probs``."""
        return policy_probs(
            self.nets[player],
            np.asarray(obs, dtype=np.float32).reshape(-1, self.obs_size),
            np.asarray(mask).reshape(-1, self.num_actions),
        )

    def average_policy(self) -> None:
        """No table here (``NetworkPolicy.tabular`` then asks state by state)."""
        return None


def _seat(game: Game, obs: np.ndarray, info: Mapping[str, Any] | None) -> int:
    """The acting seat: ``info['player']`` / ``info['agent']`` ('player_k'), else the one-hot."""
    if info:
        if "player" in info:
            return int(info["player"])
        agent = info.get("agent")
        if isinstance(agent, str) and agent.startswith("player_"):
            return int(agent.removeprefix("player_"))
    try:
        seat = obs[..., game.information_state_layout.slice("player")]
    except KeyError:
        raise ConfigError(
            "pass info['player']: this game's observation has no seat field"
        ) from None
    return int(np.argmax(seat))


def _plain(value: Any) -> Any:
    """``value`` with tuples as lists (a checkpoint may give back either)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def make_preset(
    preset: str,
    game: Game,
    seed: int = 0,
    *,
    workers: int = 1,
    executor: Executor | None = None,
    **params: Any,
) -> NFSP:
    """The registry's agent ``preset`` (a key of ``PRESETS``), ``params`` overriding its
    config fields; ``workers``/``executor`` as ``NFSP`` takes them."""
    if preset not in PRESETS:
        raise unknown_name("NFSP preset", preset, PRESETS)
    config = NFSPConfig.from_params(**PRESETS[preset]).with_params(**params)
    return NFSP(game, config, seed=seed, workers=workers, executor=executor, name=preset)
