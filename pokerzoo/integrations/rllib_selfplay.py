"""Self-play with RLlib's PPO on pokerzoo's envs, measured by pokerzoo's own matches.

A ``"learner"`` PPO module (``MaskedPPOTorchRLModule``) plays every hand against
``"snapshot"``, a frozen copy of itself that is not trained; every ``snapshot_every``
iterations the learner is measured and the snapshot refreshed with its weights. The learner
takes each seat in turn, hand after hand (``AlternatingSeats``).

Progress is a win rate in chips, not "reward 1 = a win": the learner's winnings in
milli-big-blinds per hand (mbb/hand; the ante in Kuhn and Leduc) with a 95% confidence interval,
against the previous snapshot and against a uniform random player, from
``pokerzoo.evaluation.head_to_head`` (duplicate deals: every deal is played once per seat
rotation). The learner plays there as ``RLModulePolicy``, the module's own masked action
distribution over the game's states.

``examples/rllib_selfplay.py`` runs it from the command line. Needs ``pip install
"pokerzoo[rllib]"``; this module imports without it.

>>> SelfPlayConfig(iterations=4, snapshot_every=2).snapshot_every
2
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pokerzoo.envs.poker_env import PokerEnv
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.head_to_head import head_to_head
from pokerzoo.games.base import State, check_int, check_number
from pokerzoo.integrations.rllib import (
    masked_module_spec,
    pokerzoo_env_name,
    register_envs,
    require_rllib,
)
from pokerzoo.policy import UniformRandomPolicy

LEARNER = "learner"
"""Module id of the PPO module that trains."""
SNAPSHOT = "snapshot"
"""Module id of the frozen copy it plays against."""


@dataclass(frozen=True)
class SelfPlayConfig:
    """What ``self_play`` trains and how it measures (PPO settings sized for Leduc on a CPU)."""

    env: str = "leduc_holdem_v0"
    """A pokerzoo env name or its RLlib id (``"pokerzoo/leduc_holdem-v0"``)."""
    env_config: Mapping[str, Any] = field(default_factory=dict)
    """Game parameters and env options (``{"num_ranks": 5}``), as ``pokerzoo.make`` takes."""
    iterations: int = 20
    """PPO training iterations."""
    snapshot_every: int = 5
    """Measure the learner and refresh the snapshot every this many iterations."""
    eval_hands: int = 2000
    """Hands per measurement (each opponent), in duplicate deals of one hand per seat."""
    seed: int = 0
    """Seeds RLlib (initial weights, deals, sampling) and the measurements. Two runs start
    alike but RLlib's sampling is not bit-for-bit repeatable (in one process or across
    processes), so results differ from run to run (by a few hundred mbb/hand after 6
    iterations on Leduc)."""
    train_batch_size: int = 1000
    """Env steps (decisions) sampled per iteration."""
    minibatch_size: int = 128
    """PPO minibatch size."""
    num_epochs: int = 5
    """PPO passes over each batch."""
    lr: float = 5e-4
    """Adam learning rate."""
    entropy_coeff: float = 0.01
    """Entropy bonus (keeps the policy mixed, as poker wants)."""
    hidden: tuple[int, ...] = (64, 64)
    """Hidden layer sizes of the policy and value networks."""
    num_env_runners: int = 0
    """RLlib remote env runners (0: sample in this process)."""
    num_envs_per_env_runner: int = 8
    """Hands played side by side per env runner."""
    torch_threads: int | None = 1
    """``torch.set_num_threads`` during the run (restored after); the networks are tiny, and
    more threads only contend with Ray's processes. ``None`` leaves torch's setting."""

    def __post_init__(self) -> None:
        pokerzoo_env_name(self.env)
        if not isinstance(self.env_config, Mapping):
            raise ConfigError(f"env_config must be a dict, got {self.env_config!r}")
        for name in ("iterations", "snapshot_every", "eval_hands", "train_batch_size",
                     "minibatch_size", "num_epochs", "num_envs_per_env_runner"):
            check_int(name, getattr(self, name), 1)
        check_int("seed", self.seed, 0)
        check_int("num_env_runners", self.num_env_runners, 0)
        if self.torch_threads is not None:
            check_int("torch_threads", self.torch_threads, 1)
        check_number("lr", self.lr, 0.0, low_open=True)
        check_number("entropy_coeff", self.entropy_coeff, 0.0)
        if isinstance(self.hidden, str) or not isinstance(self.hidden, Sequence):
            raise ConfigError(f"hidden must be a sequence of layer sizes, got {self.hidden!r}")
        object.__setattr__(self, "hidden", tuple(self.hidden))
        if not self.hidden:
            raise ConfigError("hidden must name at least one layer size, got ()")
        for h in self.hidden:
            check_int("each hidden layer size", h, 1)


@dataclass(frozen=True)
class SelfPlayReport:
    """One measurement of the learner. Winnings are (mbb/hand, 95% half-width)."""

    iteration: int
    train_seconds: float
    """PPO training time so far (sampling and learning; measurements excluded)."""
    vs_snapshot: tuple[float, float]
    """Against the snapshot taken at ``snapshot_iteration`` (the previous one)."""
    snapshot_iteration: int
    vs_random: tuple[float, float]
    """Against a uniform random player."""

    def line(self) -> str:
        """One readable line."""
        (s, sh), (r, rh) = self.vs_snapshot, self.vs_random
        return (
            f"iteration {self.iteration:>4} ({self.train_seconds:.1f} s): "
            f"vs snapshot@{self.snapshot_iteration} {s:+.0f} +- {sh:.0f} mbb/hand, "
            f"vs random {r:+.0f} +- {rh:.0f} mbb/hand"
        )


@dataclass
class SelfPlayResult:
    """What ``self_play`` returns: its reports and the final learner as a state policy."""

    reports: list[SelfPlayReport]
    policy: RLModulePolicy
    train_seconds: float


class RLModulePolicy:
    """A state policy (``action_probabilities(state)``) from a copy of an RLlib module that
    reads pokerzoo's observation dict (``MaskedPPOTorchRLModule``), for pokerzoo's evaluators.

    The observation of the acting player is the game's information-state tensor, exactly as
    ``PokerEnv`` gives it, and the probabilities are the softmax of the module's masked logits
    (``greedy``: all on the most likely action). Answers are cached per information set (up to
    ``cache_size`` of them): the copy never changes.
    """

    def __init__(
        self, module: Any, *, name: str = "rllib", greedy: bool = False,
        cache_size: int = 1_000_000,
    ) -> None:
        if not callable(getattr(module, "forward_inference", None)):
            raise ConfigError(f"module must be an RLlib RLModule, got {module!r}")
        self.module = copy.deepcopy(module)
        self.name = name
        self.greedy = bool(greedy)
        self.cache_size = check_int("cache_size", cache_size, 1)
        self._cache: dict[Any, dict[int, float]] = {}

    def action_probabilities(self, state: State) -> dict[int, float]:
        player = state.current_player()
        key = (player, state.information_state_key(player))
        probs = self._cache.get(key)
        if probs is None:
            probs = self._probabilities(state, player)
            if len(self._cache) < self.cache_size:
                self._cache[key] = probs
        return probs

    def _probabilities(self, state: State, player: int) -> dict[int, float]:
        import torch

        legal = state.legal_actions()
        n = int(self.module.action_space.n)
        mask = np.zeros((1, n), dtype=np.int8)
        mask[0, legal] = 1
        obs = np.asarray(state.information_state_tensor(player), dtype=np.float32)[None]
        batch = {"obs": {"observation": torch.from_numpy(obs),
                         "action_mask": torch.from_numpy(mask)}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0]
        p = torch.softmax(logits.double(), dim=-1).numpy()
        if self.greedy:
            best = max(legal, key=lambda a: p[a])
            return {a: float(a == best) for a in legal}
        total = float(p[legal].sum())
        return {a: float(p[a]) / total for a in legal}


class AlternatingSeats:
    """RLlib's ``policy_mapping_fn``: the learner takes seat ``k % n`` in the ``k``-th episode
    (hand) it sees, the snapshot every other seat."""

    def __init__(self, agents: list[str], learner: str = LEARNER, other: str = SNAPSHOT):
        self.agents = list(agents)
        self.learner, self.other = learner, other
        self._seats: dict[Any, int] = {}
        self._count = 0

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        key = getattr(episode, "id_", id(episode))
        seat = self._seats.get(key)
        if seat is None:
            seat = self._count % len(self.agents)
            self._count += 1
            self._seats[key] = seat
            if len(self._seats) > 10_000:  # forget the oldest hands
                del self._seats[next(iter(self._seats))]
        return self.learner if self.agents.index(agent_id) == seat else self.other


def ppo_self_play_config(config: SelfPlayConfig) -> Any:
    """The RLlib ``PPOConfig`` ``self_play`` builds (a starting point for your own runs)."""
    require_rllib()
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    (rllib_name,) = register_envs([config.env])
    spec = masked_module_spec(config.env, hidden=config.hidden, env_config=config.env_config)
    agents = _aec(config).possible_agents
    return (
        PPOConfig()
        .environment(rllib_name, env_config=dict(config.env_config))
        .env_runners(
            num_env_runners=config.num_env_runners,
            num_envs_per_env_runner=config.num_envs_per_env_runner,
        )
        .multi_agent(
            policies=[LEARNER, SNAPSHOT],
            policy_mapping_fn=AlternatingSeats(agents),
            policies_to_train=[LEARNER],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(
            rl_module_specs={LEARNER: spec, SNAPSHOT: spec}
        ))
        .training(
            train_batch_size_per_learner=config.train_batch_size,
            minibatch_size=min(config.minibatch_size, config.train_batch_size),
            num_epochs=config.num_epochs,
            lr=config.lr,
            entropy_coeff=config.entropy_coeff,
        )
        .debugging(seed=config.seed)
    )


def _aec(config: SelfPlayConfig) -> Any:
    from pokerzoo.envs.registry import make

    params = {k: v for k, v in config.env_config.items() if k != "env"}
    return make(pokerzoo_env_name(config.env), **params)


def refresh_snapshot(algo: Any) -> None:
    """Copy the learner's weights (from the learner group) into the snapshot module, on the
    learner and on every env runner."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE

    path = f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}/{LEARNER}"
    state = algo.learner_group.get_state(components=path)
    weights = state[COMPONENT_LEARNER][COMPONENT_RL_MODULE][LEARNER]
    algo.learner_group.set_state({COMPONENT_LEARNER: {COMPONENT_RL_MODULE: {SNAPSHOT: weights}}})
    # Set directly: a weight sync would skip the env runners, because the learner's weights
    # sequence number does not move. Inference-only modules ignore the value-function keys.
    algo.env_runner_group.foreach_env_runner(
        lambda runner: runner.module[SNAPSHOT].set_state(weights), local_env_runner=True
    )


def measure(
    game: Any, policy: Any, opponent: Any, hands: int, seed: Any
) -> tuple[float, float]:
    """``policy``'s winnings against ``opponent`` in every other seat: (mbb/hand, 95%
    half-width) over ``hands`` hands of duplicate deals (``pokerzoo`` head-to-head)."""
    n = game.num_players
    deals = max(2, check_int("hands", hands, 1) // n)
    result = head_to_head(
        game, [policy] + [opponent] * (n - 1), deals, rng=np.random.default_rng(seed)
    )
    return float(result.mbb_per_game[0]), float(result.mbb_per_game_ci[0])


def _remove_if_empty(folder: str | None) -> None:
    """Remove the run folder Ray made under ~/ray_results if it wrote nothing there."""
    if folder and os.path.isdir(folder) and not os.listdir(folder):
        os.rmdir(folder)


def self_play(
    config: SelfPlayConfig | None = None,
    *,
    on_report: Callable[[SelfPlayReport], None] | None = None,
) -> SelfPlayResult:
    """Train PPO by self-play against frozen snapshots (see the module docstring).

    Starts a local Ray instance (no dashboard) unless Ray is already initialised, and shuts
    down only the one it started.

    Args:
        config: what to train (default ``SelfPlayConfig()``: Leduc, 20 iterations).
        on_report: called with each ``SelfPlayReport`` as it is measured.

    Raises:
        ConfigError: for an env whose observations are not the game's information-state
            tensors (the measurements play the game's states).
        ImportError: if RLlib is not installed.
    """
    config = SelfPlayConfig() if config is None else config
    if not isinstance(config, SelfPlayConfig):
        raise ConfigError(f"config must be a SelfPlayConfig, got {config!r}")
    require_rllib()
    import ray
    import torch

    aec = _aec(config)
    if not isinstance(aec, PokerEnv) or type(aec).observe is not PokerEnv.observe:
        raise ConfigError(
            f"self_play measures on the game's states, so the env's observations must be its "
            f"information-state tensors (a PokerEnv); {config.env!r} is a {type(aec).__name__}"
        )
    game = aec.game
    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(include_dashboard=False, configure_logging=False, log_to_driver=False)
    threads = torch.get_num_threads()
    if config.torch_threads is not None:
        torch.set_num_threads(config.torch_threads)
    algo = None
    try:
        algo = ppo_self_play_config(config).build_algo()
        refresh_snapshot(algo)
        random = UniformRandomPolicy()
        snapshot = RLModulePolicy(algo.get_module(LEARNER), name="snapshot@0")
        snapshot_iteration = 0
        reports: list[SelfPlayReport] = []
        train_seconds = 0.0
        for it in range(1, config.iterations + 1):
            start = time.perf_counter()
            algo.train()
            train_seconds += time.perf_counter() - start
            refresh = it % config.snapshot_every == 0
            if not (refresh or it == config.iterations):
                continue
            learner = RLModulePolicy(algo.get_module(LEARNER), name=f"learner@{it}")
            report = SelfPlayReport(
                iteration=it,
                train_seconds=train_seconds,
                vs_snapshot=measure(game, learner, snapshot, config.eval_hands,
                                    [config.seed, it, 0]),
                snapshot_iteration=snapshot_iteration,
                vs_random=measure(game, learner, random, config.eval_hands,
                                  [config.seed, it, 1]),
            )
            reports.append(report)
            if on_report is not None:
                on_report(report)
            if refresh:
                refresh_snapshot(algo)
                snapshot, snapshot_iteration = learner, it
        return SelfPlayResult(reports, learner, train_seconds)
    finally:
        if algo is not None:
            algo.stop()
            _remove_if_empty(getattr(algo, "logdir", None))
        torch.set_num_threads(threads)
        if started_ray:
            ray.shutdown()
