"""Hyperparameters of NFSP, NFSP-PER and NFSP-PLT, with where each default comes from.

Sources: [P] Li et al. 2023, "NFSP-PLT" (Electronics 12:2396), Sec. 5.1; [HS] Heinrich & Silver
2016, "Deep RL from self-play in imperfect-information games", Sec. 5 (Leduc); [S] Schaul et
al. 2016, "Prioritized experience replay" (proportional variant); [OS] OpenSpiel's NFSP.

Naming: the paper's Algorithm 1 swaps the two memories' names (it writes every transition to
"M_SL" and best-response actions to "M_DRL", then learns Q from M_SL). Here, as in [HS] and in
the paper's Sec. 5.1 text, the *RL buffer* (uniform or prioritized, 30,000) holds every
transition of the player and trains the Q-network; the *SL buffer* (reservoir, 1,000,000) holds
the player's best-response actions and trains the average policy.

``NFSPConfig`` is nested as the papers group their parameters: the networks and their learning
at the top, ``replay`` (the two memories and the learning clock), ``prioritized`` (NFSP-PER's
replay and NFSP-PLT's learning times; ``None`` is uniform replay) and ``best_response`` (how a
seat in best-response mode acts: epsilon-greedy ``DQNConfig`` or adaptive ``UCTConfig``).
Every field is validated once, in the dataclass that owns it.

``NFSPConfig.from_params`` also takes the flat names of the command line (``per_eps=...``,
``uct_simulations=...``, ``replay=prioritized``, ``best_response=uct``) and dotted ones
(``prioritized.eps=...``); errors name the parameter as it was typed:

>>> NFSPConfig.from_params(replay="prioritized", per_eps=1e-3).prioritized.eps
0.001
>>> NFSPConfig.from_params(replay="prioritized", per_eps=0)
Traceback (most recent call last):
...
pokerzoo.errors.ConfigError: per_eps must be > 0, got 0.0
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pokerzoo.components.uct_config import UCTConfig
from pokerzoo.config import check, from_mapping, normalise, unknown_name
from pokerzoo.errors import ConfigError

REPLAYS = ("uniform", "prioritized")
BEST_RESPONSES = ("dqn", "uct")


@dataclass(frozen=True)
class ReplayConfig:
    """The two memories and the learning clock ([HS] Alg. 1)."""

    rl_buffer_size: int = 30_000
    """RL (Q-learning) replay capacity; [P] Sec. 5.1 (30,000)."""
    sl_buffer_size: int = 1_000_000
    """SL reservoir capacity; [P] Sec. 5.1 (1,000,000)."""
    batch_size: int = 128
    """Mini-batch of both networks; [HS] (128)."""
    learn_every: int = 128
    """One update of each network per this many of the player's transitions; [HS] (128)."""
    min_buffer_size: int = 1_000
    """Transitions in a buffer before it is learned from; [OS] (1,000)."""

    def __post_init__(self) -> None:
        normalise(self)
        for name in ("rl_buffer_size", "sl_buffer_size", "batch_size", "learn_every"):
            check(getattr(self, name) >= 1, name, ">= 1", getattr(self, name))
        check(self.min_buffer_size >= 0, "min_buffer_size", ">= 0", self.min_buffer_size)


@dataclass(frozen=True)
class PrioritizedReplayConfig:
    """NFSP-PER's proportional prioritized replay ([S], [P] Eq. 5-6) and NFSP-PLT's learning
    times ([P] Eq. 7-8)."""

    alpha: float = 0.6
    """Priority exponent alpha of ``p_i = (|delta_i| + eps)^alpha``; [S] proportional (0.6)."""
    beta0: float = 0.4
    """Initial importance-sampling exponent, annealed linearly to 1; [S] (0.4)."""
    beta_updates: int = 100_000
    """Q updates over which beta reaches 1 (ours: about a full-length Leduc run)."""
    eps: float = 1e-6
    """Added to |delta| so that no transition has zero priority; [S]."""
    learning_times: tuple[int, int] | None = None
    """NFSP-PLT's (N_LTmin, N_LTmax) of Eq. (7)-(8): gradient steps per sampled batch; ``None``
    is one step (NFSP-PER)."""
    lt_normalisation: Literal["max", "sum"] = "max"
    """How batch priorities are normalised for Eq. (8) (see ``components.learning_times``)."""

    def __post_init__(self) -> None:
        normalise(self)
        check(self.alpha >= 0.0, "alpha", ">= 0", self.alpha)
        check(0.0 <= self.beta0 <= 1.0, "beta0", "in [0, 1]", self.beta0)
        check(self.beta_updates >= 0, "beta_updates", ">= 0", self.beta_updates)
        # Every transition needs a chance to be replayed.
        check(self.eps > 0.0, "eps", "> 0", self.eps)
        if self.learning_times is not None:
            lo, hi = self.learning_times
            check(1 <= lo <= hi, "learning_times", "(n_min, n_max) with 1 <= n_min <= n_max",
                  self.learning_times)


@dataclass(frozen=True)
class DQNConfig:
    """Epsilon-greedy best response on the Q-network ([HS])."""

    kind: ClassVar[str] = "dqn"
    epsilon_start: float = 0.06
    """Initial epsilon of the epsilon-greedy best response; [HS] (0.06)."""
    epsilon_timescale: float = 20_000.0
    """[HS] decays epsilon to 0 as 1/sqrt(iterations): here ``eps = eps0 / sqrt(1 + t/this)``
    with t the episodes played (the timescale is ours; [HS] does not give one)."""

    def __post_init__(self) -> None:
        normalise(self)
        check(0.0 <= self.epsilon_start <= 1.0, "epsilon_start", "in [0, 1]", self.epsilon_start)
        check(self.epsilon_timescale > 0.0, "epsilon_timescale", "> 0", self.epsilon_timescale)


@dataclass(frozen=True)
class NFSPConfig:
    """NFSP hyperparameters (defaults: [P] where it gives them, else [HS], [S], [OS])."""

    hidden_sizes: tuple[int, ...] = (64,)
    """Hidden layers of both networks; [HS] Leduc: one layer of 64 ReLU units."""
    eta: float = 0.1
    """Anticipatory parameter: probability of playing the best response in an episode; [HS]."""
    gamma: float = 0.99
    """Discount; [P] Sec. 5.1 (0.99)."""
    rl_learning_rate: float = 0.1
    """SGD step of the Q-network; [P] and [HS] (0.1)."""
    sl_learning_rate: float = 0.005
    """SGD step of the average-policy network; [P] and [HS] (0.005)."""
    optimizer: Literal["sgd", "adam"] = "sgd"
    """"sgd" (vanilla SGD as in [HS]; [P] gives only the rates) or "adam" (ours, for short runs)."""
    loss: Literal["mse", "huber"] = "mse"
    """Q loss: squared TD error as in [P] Eq. (9), or "huber"."""
    target_update_every: int = 300
    """Refit the target Q-network every this many Q updates; [HS] (300)."""
    max_grad_norm: float | None = None
    """Gradient-norm clip of both networks (``None``: off, as in [HS])."""
    reward_scale: float | None = None
    """Rewards are multiplied by this before learning; ``None``: 1 / the game's chip unit (the
    big blind where the game has blinds, so Q targets stay O(1..100) on hold'em, else 1)."""
    num_envs: int = 256
    """Hands played at once by the batched env (ours: amortises network calls); with rollout
    workers, by each worker's env."""
    rollout_steps: int = 8
    """With rollout workers (``NFSP(..., workers=N)``): env steps each worker plays per round
    with the weights it was sent (ours: long enough to amortise a round trip, short enough
    that the workers' networks lag the learner's by little)."""
    replay: ReplayConfig = field(default_factory=ReplayConfig)
    """The memories and the learning clock."""
    prioritized: PrioritizedReplayConfig | None = None
    """Prioritized RL replay (NFSP-PER, with ``learning_times`` NFSP-PLT); ``None``: uniform."""
    best_response: DQNConfig | UCTConfig = field(default_factory=DQNConfig)
    """How a seat in best-response mode acts: epsilon-greedy Q or adaptive UCT ([P] 4.4) with
    the Q-network as value and prior."""

    def __post_init__(self) -> None:
        normalise(self)
        check(0.0 <= self.eta <= 1.0, "eta", "in [0, 1]", self.eta)
        check(0.0 <= self.gamma <= 1.0, "gamma", "in [0, 1]", self.gamma)
        check(self.rl_learning_rate > 0.0, "rl_learning_rate", "> 0", self.rl_learning_rate)
        check(self.sl_learning_rate > 0.0, "sl_learning_rate", "> 0", self.sl_learning_rate)
        check(all(h >= 1 for h in self.hidden_sizes), "hidden_sizes", "positive layer widths",
              self.hidden_sizes)
        check(self.target_update_every >= 1, "target_update_every", ">= 1",
              self.target_update_every)
        check(self.max_grad_norm is None or self.max_grad_norm > 0.0, "max_grad_norm",
              "> 0 or None", self.max_grad_norm)
        check(self.reward_scale is None or self.reward_scale > 0.0, "reward_scale",
              "> 0 or None", self.reward_scale)
        check(self.num_envs >= 1, "num_envs", ">= 1", self.num_envs)
        check(self.rollout_steps >= 1, "rollout_steps", ">= 1", self.rollout_steps)

    @property
    def replay_kind(self) -> str:
        """``"prioritized"`` or ``"uniform"``."""
        return "uniform" if self.prioritized is None else "prioritized"

    @property
    def best_response_kind(self) -> str:
        """``"dqn"`` or ``"uct"``."""
        return self.best_response.kind

    @classmethod
    def from_params(cls, **params: Any) -> NFSPConfig:
        """Build from parameters: nested mappings, dotted names or the flat aliases (module
        docstring); lists from TOML/JSON become tuples."""
        return make_config(params)

    def with_params(self, **params: Any) -> NFSPConfig:
        """A copy with ``params`` (as ``from_params`` takes them) replacing fields."""
        return make_config(params, base=self)


# Flat names ------------------------------------------------------------------------------------

FLAT_NAMES: dict[str, tuple[str, str]] = {
    **{f.name: ("replay", f.name) for f in dataclasses.fields(ReplayConfig)},
    "per_alpha": ("prioritized", "alpha"),
    "per_beta0": ("prioritized", "beta0"),
    "per_beta_updates": ("prioritized", "beta_updates"),
    "per_eps": ("prioritized", "eps"),
    "learning_times": ("prioritized", "learning_times"),
    "lt_normalisation": ("prioritized", "lt_normalisation"),
    **{f.name: ("best_response", f.name) for f in dataclasses.fields(DQNConfig)},
    "uct_simulations": ("best_response", "max_simulations"),
    **{f"uct_{f.name}": ("best_response", f.name) for f in dataclasses.fields(UCTConfig)
       if f.name != "max_simulations"},
}
"""The flat parameter names of the command line (and of the earlier flat ``NFSPConfig``)."""

_FLAT_KIND = {name: ("uct" if name.startswith("uct_") else "dqn")
              for name, (group, _) in FLAT_NAMES.items() if group == "best_response"}


def make_config(params: Mapping[str, Any], base: NFSPConfig | None = None) -> NFSPConfig:
    """``base`` (default: the defaults) with ``params`` applied: nested mappings, dotted names
    (``prioritized.eps``), flat names (``per_eps``), ``replay="uniform"|"prioritized"`` and
    ``best_response="dqn"|"uct"``.

    Raises:
        ConfigError: an unknown name (with a did-you-mean), a parameter of a part the config
            does not use (``per_eps`` without prioritized replay), a wrong type or range; the
            message names the parameter as it was given.
    """
    tree = _as_tree(base if base is not None else NFSPConfig())
    names: dict[tuple[str, ...], str] = {}
    # Mode switches first, so that ``per_eps=..`` next to ``replay=prioritized`` finds the group.
    ordered = sorted(params.items(), key=lambda kv: kv[0] not in ("replay", "best_response"))
    top = [f.name for f in dataclasses.fields(NFSPConfig)]
    for key, value in ordered:
        if not isinstance(key, str):
            raise ConfigError(f"NFSP parameter names are strings, got {key!r}")
        if key == "replay" and isinstance(value, str):
            if value not in REPLAYS:
                raise ConfigError(f"replay must be one of {REPLAYS} or a mapping of "
                                  f"ReplayConfig fields, got {value!r}")
            if value == "uniform":
                tree["prioritized"] = None
            elif tree["prioritized"] is None:
                tree["prioritized"] = {}
        elif key == "best_response" and isinstance(value, str):
            if value not in BEST_RESPONSES:
                raise ConfigError(f"best_response must be one of {BEST_RESPONSES}, got {value!r}")
            if tree["best_response"].get("kind") != value:
                tree["best_response"] = {"kind": value}
        elif key in top:
            current = tree.get(key)
            if isinstance(value, Mapping) and isinstance(current, Mapping):
                if key == "best_response" and value.get("kind", current["kind"]) != current["kind"]:
                    current = {}
                tree[key] = {**current, **value}
            else:
                tree[key] = dict(value) if key == "prioritized" and isinstance(value, Mapping) \
                    else value
        elif key in FLAT_NAMES:
            group, name = FLAT_NAMES[key]
            _require_group(tree, key, group, _FLAT_KIND.get(key))
            tree[group][name] = value
            names[(group, name)] = key
        elif "." in key:
            group, _, name = key.partition(".")
            if group not in top or "." in name:
                raise unknown_name(key, top + sorted(FLAT_NAMES), "NFSP")
            if group == "best_response" and name == "kind":
                raise ConfigError("choose the best response with best_response=dqn|uct")
            if not isinstance(tree[group], Mapping) and tree[group] is not None:
                raise ConfigError(f"{group} has no parameters; set {group} itself")
            _require_group(tree, key, group, None)
            tree[group][name] = value
        else:
            raise unknown_name(key, top + sorted(FLAT_NAMES), "NFSP")
    return from_mapping(NFSPConfig, tree, what="NFSP", names=names)


def _as_tree(config: NFSPConfig) -> dict[str, Any]:
    """``config`` as nested dicts, the best response tagged with its kind."""
    tree = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    tree["replay"] = dataclasses.asdict(config.replay)
    if config.prioritized is not None:
        tree["prioritized"] = dataclasses.asdict(config.prioritized)
    tree["best_response"] = {"kind": config.best_response.kind,
                             **dataclasses.asdict(config.best_response)}
    return tree


def _require_group(tree: dict[str, Any], key: str, group: str, kind: str | None) -> None:
    """Refuse a parameter of a part the config does not use (it would be silently ignored)."""
    if group == "prioritized" and tree["prioritized"] is None:
        raise ConfigError(
            f"{key} is a parameter of prioritized replay, which this config does not use; add "
            f"replay=prioritized (or use the nfsp-per / nfsp-plt agents)"
        )
    if group == "best_response" and kind is not None and tree["best_response"]["kind"] != kind:
        raise ConfigError(
            f"{key} is a parameter of best_response={kind!r}, but this config uses "
            f"{tree['best_response']['kind']!r}; add best_response={kind}"
        )


PRESETS: dict[str, dict[str, Any]] = {
    "nfsp": {},
    "nfsp-per": {"prioritized": {}},
    # [P] gives no (N_LTmin, N_LTmax); 1..4 keeps repeats "moderate" as it asks (ours).
    "nfsp-plt": {"prioritized": {"learning_times": (1, 4)}},
}
