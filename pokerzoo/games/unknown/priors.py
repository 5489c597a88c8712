"""Priors over environment models (conjugate: Dirichlet on chance nodes and on reward outcomes).

* ``PSRLCFRPrior`` (the default, PSRLCFR's and VCFR's setting): each chance node's outcome
  probabilities ~ Dirichlet(concentration, ..., concentration); each terminal pays player 0
  ``reward_support[k]`` with probability ``q_k``, ``q ~ Dirichlet(reward_concentration)``, and
  player 1 the negative. With the defaults, player 0 gets -1 with probability ``p`` and +1 with
  probability ``1 - p``, ``p ~ Uniform[0, 1]``. Two-player games only.
* ``PokerPayoffsPrior``: the base game's own payoffs (paid for sure), unknown chance only, e.g. a
  biased deck.

Both are frozen dataclasses (hashable, so they can sit in a game's config); ``make_prior`` turns a
name, a dict (``{"name": "psrlcfr", "concentration": 0.5}``) or a prior into a prior.

Two readings of the rewards (``REWARD_PRIORS``, the unknown games' ``reward_prior``):
``"bernoulli"`` draws a reward distribution per terminal as above (each visit pays a fresh
draw from it); ``"fixed"`` then draws one outcome per terminal from that distribution and pays
it on every visit (``fixed_rewards``: a point mass, revealed by one visit). With the PSRLCFR
defaults a fixed terminal pays -1 or +1 with probability 1/2 each, the reading of VCFR's "the
reward r is initialized randomly from {-1, 1}".
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np

from pokerzoo.games.base import ConfigError, check_number
from pokerzoo.games.unknown.model import EnvironmentModel, ModelStructure


def _positive(name: str, value: Any) -> None:
    check_number(name, value, 0.0, low_open=True)


class Prior(ABC):
    """A prior over ``EnvironmentModel``s: independent Dirichlets per chance node and terminal."""

    name: ClassVar[str]
    concentration: float

    def chance_alpha(self, structure: ModelStructure) -> np.ndarray:
        """``[num_slots]`` Dirichlet parameters of the chance nodes (flat, by slot)."""
        return np.full(structure.num_slots, float(self.concentration))

    @abstractmethod
    def reward_values(self, structure: ModelStructure) -> np.ndarray:
        """``[num_terminals, K, num_players]`` payoff vector of each reward outcome."""

    @abstractmethod
    def reward_alpha(self, structure: ModelStructure) -> np.ndarray:
        """``[num_terminals, K]`` Dirichlet parameters of the reward outcomes."""

    def sample(self, structure: ModelStructure, rng: np.random.Generator) -> EnvironmentModel:
        """One model ``d ~ prior``, drawn with ``rng``."""
        return EnvironmentModel(
            structure,
            dirichlet_segments(self.chance_alpha(structure), structure.outcome_offsets, rng),
            self.reward_values(structure),
            dirichlet_rows(self.reward_alpha(structure), rng),
        )

    def mean(self, structure: ModelStructure) -> EnvironmentModel:
        """The prior mean model."""
        alpha = self.chance_alpha(structure)
        reward = self.reward_alpha(structure)
        return EnvironmentModel(
            structure,
            alpha / np.repeat(structure.segment_sums(alpha), np.diff(structure.outcome_offsets)),
            self.reward_values(structure),
            reward / reward.sum(axis=1, keepdims=True),
        )

    def spec(self) -> dict[str, Any]:
        """``{"name": ..., **parameters}``: ``make_prior(prior.spec())`` rebuilds the prior."""
        return {"name": self.name, **asdict(self)}  # type: ignore[call-overload]


@dataclass(frozen=True)
class PSRLCFRPrior(Prior):
    """PSRLCFR's prior: Dirichlet chance nodes, binary +-1 terminal rewards (zero-sum)."""

    name: ClassVar[str] = "psrlcfr"
    concentration: float = 1.0
    """Dirichlet parameter of every chance outcome (1: uniform over the simplex)."""
    reward_support: tuple[float, ...] = (-1.0, 1.0)
    """Player 0's possible rewards at every terminal (player 1 gets the negative)."""
    reward_concentration: float = 1.0
    """Dirichlet parameter of every reward outcome (1 with two outcomes: ``p ~ U[0, 1]``)."""

    def __post_init__(self) -> None:
        _positive("concentration", self.concentration)
        _positive("reward_concentration", self.reward_concentration)
        if not isinstance(self.reward_support, tuple | list):
            raise ConfigError(
                f"reward_support must be a tuple of finite rewards, got {self.reward_support!r}"
            )
        support = tuple(check_number("each reward value", v) for v in self.reward_support)
        if len(support) < 1 or len(set(support)) != len(support):
            raise ConfigError(f"reward_support must list distinct values, got {support!r}")
        object.__setattr__(self, "reward_support", support)

    def reward_values(self, structure: ModelStructure) -> np.ndarray:
        if structure.num_players != 2:
            raise ConfigError(
                f"the {self.name} prior pays zero-sum rewards to two players; "
                f"{structure.base_game!r} has {structure.num_players}"
            )
        support = np.asarray(self.reward_support)
        one = np.stack([support, -support], axis=1)
        return np.broadcast_to(one, (structure.num_terminals, *one.shape)).copy()

    def reward_alpha(self, structure: ModelStructure) -> np.ndarray:
        shape = (structure.num_terminals, len(self.reward_support))
        return np.full(shape, float(self.reward_concentration))


@dataclass(frozen=True)
class PokerPayoffsPrior(Prior):
    """The base game's own payoffs with unknown chance probabilities (e.g. a biased deck)."""

    name: ClassVar[str] = "poker_payoffs"
    concentration: float = 1.0
    """Dirichlet parameter of every chance outcome."""

    def __post_init__(self) -> None:
        _positive("concentration", self.concentration)

    def reward_values(self, structure: ModelStructure) -> np.ndarray:
        return structure.base_returns[:, None, :].copy()

    def reward_alpha(self, structure: ModelStructure) -> np.ndarray:
        return np.ones((structure.num_terminals, 1))


REWARD_PRIORS = ("bernoulli", "fixed")
"""The readings of the rewards a game can be drawn under (see the module doc)."""


def fixed_rewards(model: EnvironmentModel, rng: np.random.Generator) -> EnvironmentModel:
    """``model`` with each terminal's reward distribution replaced by a point mass on one
    outcome drawn from it with ``rng`` (same support, so posteriors keep their shape)."""
    structure = model.structure
    outcomes = model.sample_reward_outcomes(np.arange(structure.num_terminals), rng)
    point = np.zeros_like(model.reward_probs)
    point[np.arange(structure.num_terminals), outcomes] = 1.0
    return EnvironmentModel(structure, model.chance_probs, model.reward_values, point)


PRIORS: dict[str, type[Prior]] = {p.name: p for p in (PSRLCFRPrior, PokerPayoffsPrior)}
"""Priors by name, for ``make_prior`` and game configs."""


def make_prior(spec: str | Mapping[str, Any] | Prior) -> Prior:
    """A prior from its name, a ``{"name": ..., **parameters}`` dict or a prior object.

    Raises:
        ConfigError: for an unknown name or parameter, listing the valid ones.
    """
    if isinstance(spec, Prior):
        return spec
    if isinstance(spec, str):
        spec = {"name": spec}
    if not isinstance(spec, Mapping):
        raise ConfigError(f"prior must be a name, a dict or a Prior, got {spec!r}")
    params = dict(spec)
    name = params.pop("name", None)
    cls = PRIORS.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ConfigError(f"unknown prior {name!r}; valid priors are {sorted(PRIORS)}")
    valid = list(cls.__dataclass_fields__)  # type: ignore[attr-defined]
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ConfigError(f"unknown parameter(s) {unknown} for prior {name!r}; valid are {valid}")
    if isinstance(params.get("reward_support"), list):
        params["reward_support"] = tuple(params["reward_support"])
    return cls(**params)


# ---------------------------------------------------------------------------------------------
# Dirichlet draws, vectorised over many nodes
# ---------------------------------------------------------------------------------------------


def dirichlet_segments(
    alpha: np.ndarray, offsets: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Independent Dirichlet draws for consecutive segments of a flat parameter vector.

    Segment ``c`` is ``alpha[offsets[c]:offsets[c + 1]]``. Uses normalised Gamma draws; a
    segment whose draws all underflow to zero (tiny ``alpha``) becomes a uniformly chosen corner,
    the limit of the Dirichlet as its parameters go to zero.
    """
    if alpha.size == 0:
        return alpha.astype(np.float64)
    g = rng.standard_gamma(alpha)
    lengths = np.diff(offsets)
    sums = np.add.reduceat(g, offsets[:-1])
    empty = np.flatnonzero(sums <= 0)
    if empty.size:
        corner = offsets[empty] + (rng.random(empty.size) * lengths[empty]).astype(np.int64)
        g[corner] = 1.0
        sums[empty] = 1.0
    return g / np.repeat(sums, lengths)


def dirichlet_rows(alpha: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Independent Dirichlet draws, one per row of ``alpha`` (``[rows, K]``)."""
    rows, k = alpha.shape
    offsets = np.arange(rows + 1, dtype=np.int64) * k
    return dirichlet_segments(alpha.ravel(), offsets, rng).reshape(rows, k)
