"""Hyperparameters of NFSP, NFSP-PER and NFSP-PLT, with where each default comes from.

Sources: [P] Li et al. 2023, "NFSP-PLT" (Electronics 12:2396), Sec. 5.1; [HS] Heinrich & Silver
2016, "Deep RL from self-play in imperfect-information games", Sec. 5 (Leduc); [S] Schaul et
al. 2016, "Prioritized experience replay" (proportional variant); [OS] OpenSpiel's NFSP.

Naming: the paper's Algorithm 1 swaps the two memories' names (it writes every transition to
"M_SL" and best-response actions to "M_DRL", then learns Q from M_SL). Here, as in [HS] and in
the paper's Sec. 5.1 text, the *RL buffer* (uniform or prioritized, 30,000) holds every
transition of the player and trains the Q-network; the *SL buffer* (reservoir, 1,000,000) holds
the player's best-response actions and trains the average policy.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from pokerzoo.games.base import ConfigError

REPLAYS = ("uniform", "prioritized")
BEST_RESPONSES = ("dqn", "uct")
LOSSES = ("mse", "huber")
OPTIMIZERS = ("sgd", "adam")


@dataclass(frozen=True)
class NFSPConfig:
    """NFSP hyperparameters (defaults: [P] where it gives them, else [HS], [S], [OS])."""

    hidden_sizes: tuple[int, ...] = (64,)
    """Hidden layers of both networks; [HS] Leduc: one layer of 64 ReLU units."""
    rl_buffer_size: int = 30_000
    """RL (Q-learning) replay capacity; [P] Sec. 5.1 (30,000)."""
    sl_buffer_size: int = 1_000_000
    """SL reservoir capacity; [P] Sec. 5.1 (1,000,000)."""
    rl_learning_rate: float = 0.1
    """SGD step of the Q-network; [P] and [HS] (0.1)."""
    sl_learning_rate: float = 0.005
    """SGD step of the average-policy network; [P] and [HS] (0.005)."""
    optimizer: str = "sgd"
    """"sgd" (vanilla SGD as in [HS]; [P] gives only the rates) or "adam" (ours, for short runs)."""
    gamma: float = 0.99
    """Discount; [P] Sec. 5.1 (0.99)."""
    eta: float = 0.1
    """Anticipatory parameter: probability of playing the best response in an episode; [HS]."""
    batch_size: int = 128
    """Mini-batch of both networks; [HS] (128)."""
    learn_every: int = 128
    """One update of each network per this many of the player's transitions; [HS] (128)."""
    target_update_every: int = 300
    """Refit the target Q-network every this many Q updates; [HS] (300)."""
    epsilon_start: float = 0.06
    """Initial epsilon of the epsilon-greedy best response; [HS] (0.06)."""
    epsilon_timescale: float = 20_000.0
    """[HS] decays epsilon to 0 as 1/sqrt(iterations): here ``eps = eps0 / sqrt(1 + t/this)``
    with t the episodes played (the timescale is ours; [HS] does not give one)."""
    min_buffer_size: int = 1_000
    """Transitions in a buffer before it is learned from; [OS] (1,000)."""
    reward_scale: float | None = None
    """Rewards are multiplied by this before learning; ``None``: 1 / big blind for games with
    blinds (hold'em: chips to big blinds, ours, so that Q targets stay O(1..100)), else 1."""
    loss: str = "mse"
    """Q loss: squared TD error as in [P] Eq. (9), or "huber"."""
    max_grad_norm: float | None = None
    """Gradient-norm clip of both networks (``None``: off, as in [HS])."""
    replay: str = "uniform"
    """"uniform" (NFSP) or "prioritized" (NFSP-PER/PLT) RL replay."""
    per_alpha: float = 0.6
    """Priority exponent alpha of ``p_i = (|delta_i| + eps)^alpha``; [S] proportional (0.6)."""
    per_beta0: float = 0.4
    """Initial importance-sampling exponent, annealed linearly to 1; [S] (0.4)."""
    per_beta_updates: int = 100_000
    """Q updates over which beta reaches 1 (ours: about a full-length Leduc run)."""
    per_eps: float = 1e-6
    """Added to |delta| so that no transition has zero priority; [S]."""
    learning_times: tuple[int, int] | None = None
    """NFSP-PLT's (N_LTmin, N_LTmax) of Eq. (7)-(8): gradient steps per sampled batch; ``None``
    is one step (NFSP, NFSP-PER). Needs ``replay="prioritized"``."""
    lt_normalisation: str = "max"
    """How batch priorities are normalised for Eq. (8) (see ``components.learning_times``)."""
    best_response: str = "dqn"
    """"dqn": epsilon-greedy Q; "uct": adaptive UCT with the Q-network as value/prior ([P] 4.4)."""
    uct_simulations: int = 3_000
    """Fixed simulation budget of the UCT best response; [P] Table 6 baseline (UCT_3000)."""
    uct_threshold: int = 2_800
    """Simulations before the adaptive stop tests candidates; [P] chose UCT(2800, 0.98)."""
    uct_confidence: float = 0.98
    """Confidence of the adaptive stop's z-test; [P] (0.98)."""
    num_envs: int = 256
    """Hands played at once by the batched env (ours: amortises network calls)."""

    def __post_init__(self) -> None:
        if self.replay not in REPLAYS:
            raise ConfigError(f"replay must be one of {REPLAYS}, got {self.replay!r}")
        if self.best_response not in BEST_RESPONSES:
            raise ConfigError(
                f"best_response must be one of {BEST_RESPONSES}, got {self.best_response!r}"
            )
        if self.loss not in LOSSES:
            raise ConfigError(f"loss must be one of {LOSSES}, got {self.loss!r}")
        if self.optimizer not in OPTIMIZERS:
            raise ConfigError(f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        if not 0.0 <= self.eta <= 1.0:
            raise ConfigError(f"eta must be in [0, 1], got {self.eta}")
        if not 0.0 <= self.gamma <= 1.0:
            raise ConfigError(f"gamma must be in [0, 1], got {self.gamma}")
        for name in ("rl_buffer_size", "sl_buffer_size", "batch_size", "learn_every",
                     "target_update_every", "num_envs", "uct_simulations"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.learning_times is not None:
            lo, hi = self.learning_times
            if not 1 <= lo <= hi:
                raise ConfigError(f"learning_times needs 1 <= n_min <= n_max, got {lo, hi}")
            if self.replay != "prioritized":
                raise ConfigError("learning_times (NFSP-PLT) needs replay='prioritized'")
        if not 0.5 < self.uct_confidence < 1.0:
            raise ConfigError(f"uct_confidence must be in (0.5, 1), got {self.uct_confidence}")

    @classmethod
    def from_params(cls, **params: Any) -> NFSPConfig:
        """Build from keyword parameters (lists from TOML/JSON become tuples)."""
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(params) - set(names))
        if unknown:
            raise ConfigError(f"unknown NFSP parameter(s) {unknown}; valid are {names}")
        fixed = {k: tuple(v) if isinstance(v, list) else v for k, v in params.items()}
        return cls(**fixed)


PRESETS: dict[str, dict[str, Any]] = {
    "nfsp": {},
    "nfsp-per": {"replay": "prioritized"},
    # [P] gives no (N_LTmin, N_LTmax); 1..4 keeps repeats "moderate" as it asks (ours).
    "nfsp-plt": {"replay": "prioritized", "learning_times": (1, 4)},
}
