"""VCFR and its relatives: a solver on a believed model, exploring by information gain.

``ModelBasedAgent`` is VCFR (Qiu et al., "Combining CFR with information gain to solve
extensive games with unknown environments", Algorithm 1) with the solver, the information
gain and the interaction as parameters, so that one class is VCFR, VDCFR, VFSP and the
paper's naive and random-interaction baselines (``MODEL_BASED_PRESETS``). One round:

1. **the model** d_t: chance from the Dirichlet posterior, expected terminal rewards from the
   Beta/Dirichlet posterior of the rewards, either drawn from the posterior (``environment=
   "sample"``, Algorithm 1's "sample d_t according to observed rewards and transition
   probability") or its mean (``"mean"``, the naive baselines);
2. **information gain** per terminal z (``information_gain``): ``"bnn"`` is the paper's: a
   Bayes-by-backprop reward network (``pokerzoo.components.bnn``) is fitted to the data pool
   of observed (terminal, reward) pairs, or with ``bnn_data="posterior_draws"`` to one
   posterior draw per terminal per round (``bnn_steps`` Adam steps per round), a reward r is
   drawn for z from the posterior predictive P_t(r | z), and the gain is VIME's KL between
   the weight posterior after and before an update on (z, r); ``"beta"`` is the exact
   expected KL of the conjugate Beta/Dirichlet reward posterior of z (the mutual information
   of z's next reward and its reward distribution); ``"none"`` for the baselines;
3. **the threshold** lambda (``gain_threshold``): terminals whose gain is at least lambda are
   recomputed every round, the others only every ``low_gain_period`` rounds (the paper says
   it "reduces the update frequency" of low-gain terminals without saying by how much; 10 is
   our choice);
4. **the solver** (``solver``: ``"cfr"`` VCFR, ``"dcfr"`` VDCFR with (1.5, 0, 2), ``"cfr+"``,
   ``"fp"`` VFSP: full-width fictitious play, XFP) runs ``solver_iterations`` iterations on the
   tree of d_t with rewards r' = r + eta * KL (``eta`` 0.005), its regrets (or average)
   carried over from round to round as the model changes; CFR skips terminal entries whose
   chance-times-opponent reach is below ``prune_reach`` (1e-5, Algorithm 1's pruning);
5. **interaction**: the solver's average strategy plays ``episodes_per_round`` hands (2: "for
   all i in {1, 2} gather the environment data with sigma-bar"), which go to the posterior and
   the data pool (``interaction="uniform"``: uniform play, the random-interaction baseline).

The output policy (what is measured in d*) is the solver's average strategy.
``bonus_quantiles`` (logged by runs as ``diagnostics``) shows how large the bonus is.

Choices the paper leaves open, all parameters: who gets the bonus (``bonus``: ``"both"``
players add eta * KL, so both are drawn to informative terminals; ``"zero_sum"``: the first
player adds it and the second subtracts it); rewards for the BNN are the first player's.

>>> from pokerzoo import load_game
>>> from pokerzoo.evaluation.unknown import nash_conv_in_true_model
>>> game = load_game("unknown_kuhn_poker", seed=0)
>>> agent = make_preset("naive-cfr", game, seed=0)
>>> agent.iterate(2000)
>>> agent.episodes, agent.rounds
(2000, 1000)
>>> nash_conv_in_true_model(game, agent.policy()) < 0.3
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pokerzoo.agents.cfr.full_width import CFR_PRESETS, CFRSolver
from pokerzoo.agents.fictitious import FP_PRESETS, FictitiousPlaySolver
from pokerzoo.agents.tabular import config_from_params
from pokerzoo.agents.unknown_env.base import UnknownEnvAgent
from pokerzoo.agents.unknown_env.beliefs import believed_numbers, predictive_rewards
from pokerzoo.agents.unknown_env.payoffs import ModelPayoffs
from pokerzoo.config import normalise, with_overrides
from pokerzoo.entry_points import unknown_name
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game

SOLVERS = ("cfr", "dcfr", "cfr+", "fp")
GAINS = ("bnn", "beta", "none")
BNN_DATA = ("observed", "posterior_draws")
QUANTILES = (0.0, 0.1, 0.5, 0.9, 0.99, 1.0)
"""Quantiles of the gains that ``bonus_quantiles`` reports (0.0 / 1.0: the least / largest;
the low ones show the visited terminals, a minority of a large tree)."""


def _bnn_config_default() -> Any:
    from pokerzoo.components.bnn import BNNConfig

    return BNNConfig()


@dataclass(frozen=True)
class ModelBasedConfig:
    """Hyperparameters of VCFR and its relatives (defaults: VCFR as in the paper)."""

    solver: str = "cfr"
    """``"cfr"`` (VCFR), ``"dcfr"`` (VDCFR, alpha 1.5, beta 0, gamma 2), ``"cfr+"`` or
    ``"fp"`` (VFSP: full-width fictitious play)."""
    information_gain: str = "bnn"
    """``"bnn"`` (VIME's KL of a Bayesian reward network), ``"beta"`` (exact KL of the
    conjugate reward posterior) or ``"none"`` (naive and random baselines). The paper's
    "Naive" is "the reward without information gain inputted into the process of CFR's
    computation" (Sec. 5.2), a variant of VCFR, so on Algorithm 1's *sampled* d_t:
    ``information_gain="none"`` with the default ``environment="sample"`` is that ("VCFR
    without information gain"); the registry's ``naive-cfr`` solves the posterior mean."""
    eta: float = 0.005
    """Weight of the information gain in r' = r + eta * KL. The paper: "we set eta to 0.005 to
    strike a balance between the influence on CFR computation results and the effectiveness
    of exploration" (Sec. 4.1), one value, no sweep. Ours: 0.005 by default; with the median
    normalisation below a typical bonus is then 0.005 against rewards of +-1, so
    ``bench/vcfr_bonus_grid.py`` also runs 0.05 and 0.5."""
    gain_threshold: float = 1.0
    """lambda: terminals with a gain below it are recomputed only every ``low_gain_period``."""
    low_gain_period: int = 10
    """Rounds between recomputations of a low-gain terminal's gain (our choice)."""
    environment: str = "sample"
    """The model solved each round: ``"sample"`` from the posterior or its ``"mean"``."""
    interaction: str = "average"
    """Who plays the hands: the solver's ``"average"`` strategy or ``"uniform"`` play."""
    episodes_per_round: int = 2
    """Hands played after each round (Algorithm 1: one per player's perspective)."""
    solver_iterations: int = 1
    """Solver iterations per round."""
    prune_reach: float = 1e-5
    """CFR skips terminal entries whose chance-times-opponent reach is below this (0: off)."""
    bonus: str = "both"
    """Who gets eta * KL: ``"both"`` players, or ``"zero_sum"`` (+ first, - second)."""
    encoding: str = "pca6"
    """The BNN's terminal encoding (``pokerzoo.components.bnn.terminal_features``)."""
    bnn_steps: int = 1
    """Adam steps on the BNN's data per round."""
    bnn_data: str = "observed"
    """What the BNN is fitted on each round. Algorithm 1: "sample the posterior distribution
    of rewards from P_t(r|z), z in Z; collect all (z, r) as datasets; ... train BNN", i.e.
    one reward drawn from the posterior predictive for every terminal, every round
    (``"posterior_draws"``). Ours by default (``"observed"``): the pool of observed
    (terminal, reward) pairs, the data VIME fits; the draws give unvisited terminals a
    +-1 from the prior every round, so the network learns the posterior's noise too."""
    normalise_gain: bool = True
    """Divide each gain by the mean of the last ``median_window`` rounds' median gains, as
    VIME does. The raw KL of one sample is tiny (1e-7 nats on Leduc), so the paper's lambda = 1
    and eta = 0.005 only make sense on this normalised scale (a gain of 1 is a typical one)."""
    median_window: int = 10
    """Rounds of medians averaged by ``normalise_gain`` (VIME keeps the last 10)."""
    output: str = "interaction"
    """The output policy: the ``"interaction"`` solver's average (the paper's: "this average
    strategy can not only be utilized by the player but also be directly used as an
    interaction strategy", Sec. 4.2), or ``"plain"`` (ours): a second solver on the same
    models without the bonus, whose average is not pulled towards informative terminals."""
    bnn: Any = field(default_factory=_bnn_config_default)
    """The BNN's ``BNNConfig`` (a mapping of its fields is accepted). Its ``batch_size`` is
    500 by default; the paper uses "a batch size of 500 in Leduc(4) and 1000 in Leduc(5)"
    (Sec. 5.1): pass ``bnn={"batch_size": 1000}`` on Leduc(5) (the default is kept so that
    seeded runs keep their numbers)."""

    def __post_init__(self) -> None:
        normalise(self)
        for name, value, allowed in [
            ("solver", self.solver, SOLVERS),
            ("information_gain", self.information_gain, GAINS),
            ("environment", self.environment, ("sample", "mean")),
            ("interaction", self.interaction, ("average", "uniform")),
            ("bonus", self.bonus, ("both", "zero_sum")),
            ("output", self.output, ("interaction", "plain")),
            ("bnn_data", self.bnn_data, BNN_DATA),
        ]:
            if value not in allowed:
                raise ConfigError(f"{name} must be one of {allowed}, got {value!r}")
        for field_name, number in [
            ("eta", self.eta), ("gain_threshold", self.gain_threshold),
            ("prune_reach", self.prune_reach),
        ]:
            if isinstance(number, bool) or not isinstance(number, int | float) or not number >= 0:
                raise ConfigError(f"{field_name} must be a number >= 0, got {number!r}")
        for name, count in [
            ("low_gain_period", self.low_gain_period),
            ("episodes_per_round", self.episodes_per_round),
            ("solver_iterations", self.solver_iterations), ("bnn_steps", self.bnn_steps),
            ("median_window", self.median_window),
        ]:
            if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                raise ConfigError(f"{name} must be an integer >= 1, got {count!r}")
        if isinstance(self.bnn, Mapping):
            from pokerzoo.components.bnn import BNNConfig

            object.__setattr__(self, "bnn", config_from_params(BNNConfig, "BNN", **self.bnn))

    @classmethod
    def from_params(cls, **params: Any) -> ModelBasedConfig:
        return config_from_params(cls, "model-based agent", **params)


_NAIVE = {"information_gain": "none", "environment": "mean"}
MODEL_BASED_PRESETS: dict[str, dict[str, Any]] = {
    "vcfr": {"solver": "cfr"},
    "vdcfr": {"solver": "dcfr"},
    "vfsp": {"solver": "fp"},
    "naive-cfr": {"solver": "cfr", **_NAIVE},
    "naive-dcfr": {"solver": "dcfr", **_NAIVE},
    "random-interaction": {"solver": "cfr", "interaction": "uniform", **_NAIVE},
}
"""The registry's agents: overrides of ``ModelBasedConfig``'s defaults (VCFR's)."""


class ModelBasedAgent(UnknownEnvAgent):
    """VCFR, VDCFR, VFSP and the naive / random-interaction baselines (see the module doc).

    Args:
        game: the interaction view (or the environment game ``load_game`` returns).
        config: a ``ModelBasedConfig`` (or a mapping of its fields); keyword ``overrides``
            replace its fields (both checked: ``ConfigError`` names a wrong one).
        seed: seed of the agent's generator (and of its BNN).
        name: the agent's name (default: the class's), as the registry names its presets.
    """

    name = "model-based"

    def __init__(
        self,
        game: Game,
        config: ModelBasedConfig | Mapping[str, Any] | None = None,
        seed: int = 0,
        *,
        name: str | None = None,
        **overrides: Any,
    ) -> None:
        config = with_overrides(ModelBasedConfig, config, overrides, what="model-based agent")
        if name is not None:  # the registry's name for this preset (what checkpoints record)
            self.name = name
        super().__init__(game, seed, config.episodes_per_round)
        self.config = config
        self.payoffs = ModelPayoffs(self.tree)
        self.solver = self._new_solver()
        """The solver of the game with information-gain rewards (its average interacts)."""
        self.output_solver = self._new_solver() if config.output == "plain" else None
        """With ``output="plain"``: the same solver on the same models without the bonus."""
        structure = self.view.structure
        self.gain = np.zeros(structure.num_terminals)
        """The last information gain computed for each terminal (by terminal index)."""
        self._gain_known = np.zeros(structure.num_terminals, dtype=bool)
        self._medians = np.zeros(0)
        self.reward_model: Any = None
        if config.information_gain == "bnn":
            from pokerzoo.components.bnn import BayesianRewardModel
            from pokerzoo.components.terminal_features import terminal_features

            features = terminal_features(structure, kind=config.encoding)
            self.reward_model = BayesianRewardModel(features, config.bnn, seed=seed)

    def _new_solver(self) -> CFRSolver | FictitiousPlaySolver:
        if self.config.solver == "fp":
            return FictitiousPlaySolver(self.game, FP_PRESETS["xfp"], tree=self.tree)
        return CFRSolver(self.game, CFR_PRESETS[self.config.solver], tree=self.tree)

    def _solve(
        self, solver: CFRSolver | FictitiousPlaySolver, chance: np.ndarray, rewards: np.ndarray
    ) -> None:
        """``solver_iterations`` iterations of ``solver`` on the model (chance, rewards)."""
        if isinstance(solver, CFRSolver):
            coef, reach = self.payoffs.coefficients(chance, rewards)
            prune = self.config.prune_reach if self.tree.num_players == 2 else 0.0
            solver.use_payoffs(coef, reach, prune)
        else:
            solver.use_numbers(*self.payoffs.node_numbers(chance, rewards))
        solver.iterate(self.config.solver_iterations)

    # One round ---------------------------------------------------------------------------------

    def _start_round(self) -> np.ndarray:
        cfg = self.config
        chance, plain = believed_numbers(self.posterior, cfg.environment, self.rng)
        rewards = plain
        if cfg.information_gain != "none":
            from pokerzoo.components.networks import torch_threads

            with torch_threads(1):  # a tiny network: thread sync costs more than it saves
                self._update_gain()
            bonus = cfg.eta * self.normalised_gain()
            rewards = plain.copy()
            rewards[:, 0] += bonus
            rewards[:, 1:] += bonus[:, None] if cfg.bonus == "both" else -bonus[:, None]
        self._solve(self.solver, chance, rewards)
        if self.output_solver is not None:
            self._solve(self.output_solver, chance, plain)
        if cfg.interaction == "uniform":
            return self.uniform_profile()
        return self.normalised(_average(self.solver))

    def _update_gain(self) -> None:
        cfg = self.config
        if cfg.information_gain == "beta":
            from pokerzoo.components.conjugate_gain import dirichlet_information_gain

            self.gain = np.asarray(
                dirichlet_information_gain(self.posterior.reward_parameters()), dtype=np.float64
            )
            self._gain_known[:] = True
            return
        if cfg.bnn_data == "posterior_draws":  # Algorithm 1: one draw per terminal
            terminals = np.arange(self.view.structure.num_terminals)
            rewards = predictive_rewards(self.posterior, terminals, self.rng)
        else:
            terminals, rewards = self.posterior.data_pool()
        if len(terminals):
            self.reward_model.fit(terminals, rewards[:, 0], steps=cfg.bnn_steps)
        due = ~self._gain_known | (self.gain >= cfg.gain_threshold * self._gain_scale())
        if self.rounds % cfg.low_gain_period == 0:
            due[:] = True
        which = np.flatnonzero(due)
        if len(which) == 0:
            return
        sampled = predictive_rewards(self.posterior, which, self.rng)
        self.gain[which] = self.reward_model.information_gain(which, sampled[:, 0])
        self._gain_known[which] = True

    def normalised_gain(self) -> np.ndarray:
        """The gains as the bonus uses them: divided by the mean recent median when
        ``normalise_gain`` (see the config), else raw."""
        if not self.config.normalise_gain:
            return self.gain
        median = float(np.median(self.gain))
        self._medians = np.append(self._medians, median)[-self.config.median_window :]
        return self.gain / self._gain_scale()

    def _gain_scale(self) -> float:
        """What a gain is divided by: the mean recent median (1 without normalisation)."""
        if not self.config.normalise_gain or len(self._medians) == 0:
            return 1.0
        scale = float(self._medians.mean())
        return scale if scale > 0 else 1.0

    def bonus_quantiles(self) -> dict[str, float]:
        """Quantiles over terminals of the raw information gain (``gain_min``, ``gain_q10`` ...
        ``gain_max``, nats) and of the bonus the last round added to the rewards, eta times the
        normalised gain (``bonus_min`` ... ``bonus_max``, chips against rewards of +-1);
        empty without information gain. Reads the state only (the bonus is recomputed: the
        gains and the scale are those the last round used)."""
        if self.config.information_gain == "none":
            return {}
        bonus = self.config.eta * self.gain / self._gain_scale()
        names = ["min" if q == 0 else "max" if q == 1 else f"q{round(q * 100)}"
                 for q in QUANTILES]
        gains = np.quantile(self.gain, QUANTILES)
        bonuses = np.quantile(bonus, QUANTILES)
        return {
            **{f"gain_{n}": float(v) for n, v in zip(names, gains, strict=True)},
            **{f"bonus_{n}": float(v) for n, v in zip(names, bonuses, strict=True)},
        }

    def diagnostics(self) -> dict[str, float]:
        """What a run logs beside its scores (``metrics.csv``): ``bonus_quantiles``."""
        return self.bonus_quantiles()

    def output_policy_array(self) -> np.ndarray:
        """The average strategy (weights) of the output solver: the interacting solver, or
        with ``output="plain"`` the one solving the models without the bonus."""
        return _average(self.output_solver if self.output_solver is not None else self.solver)

    # Checkpoints -------------------------------------------------------------------------------

    def _identity(self) -> dict[str, Any]:
        return {**super()._identity(), "config": _fields(self.config)}

    def _extra_state(self) -> dict[str, Any]:
        state: dict[str, Any] = {
            "solver": self.solver.state_dict(),
            "output_solver": {} if self.output_solver is None else self.output_solver.state_dict(),
            "gain": self.gain.copy(),
            "gain_known": self._gain_known.astype(np.int8),
            "medians": self._medians.copy(),
        }
        if self.reward_model is not None:
            state["reward_model"] = self.reward_model.state_dict()
        return state

    def _load_extra_state(self, state: Mapping[str, Any]) -> None:
        self.solver.load_state_dict(state["solver"])
        if self.output_solver is not None:
            self.output_solver.load_state_dict(state["output_solver"])
        self.gain = np.array(state["gain"], dtype=np.float64)
        self._gain_known = np.asarray(state["gain_known"]).astype(bool)
        self._medians = np.array(state["medians"], dtype=np.float64)
        if self.reward_model is not None:
            self.reward_model.load_state_dict(state["reward_model"])


def _average(solver: CFRSolver | FictitiousPlaySolver) -> np.ndarray:
    """A solver's average strategy weights (CFR's strategy sums, fictitious play's profile)."""
    return solver.strategy_sum if isinstance(solver, CFRSolver) else solver.probs


def _fields(config: ModelBasedConfig) -> dict[str, Any]:
    """The config as JSON-able fields (the BNN's config as a mapping)."""
    fields = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    fields["bnn"] = dataclasses.asdict(config.bnn)
    return fields


def make_preset(preset: str, game: Game, seed: int = 0, **params: Any) -> ModelBasedAgent:
    """The registry's agent ``preset`` (a key of ``MODEL_BASED_PRESETS``), ``params``
    overriding its config fields."""
    if preset not in MODEL_BASED_PRESETS:
        raise unknown_name("model-based preset", preset, MODEL_BASED_PRESETS)
    config = {**MODEL_BASED_PRESETS[preset], **params}
    return ModelBasedAgent(game, config, seed=seed, name=preset)
