"""Configuration and result types of ``AdaptiveUCT`` (see ``pokerzoo.components.uct``)."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

OPPONENT_MODES = ("policy", "search")


@dataclass(frozen=True)
class UCTConfig:
    """Parameters of ``AdaptiveUCT``; defaults are the paper's chosen UCT(2800, 0.98)."""

    max_simulations: int = 3_000
    """Fixed simulation budget (the paper's baseline UCT_3000)."""
    threshold: int | None = 2_800
    """Simulations before the adaptive stop starts testing; ``None`` is plain fixed-budget UCT."""
    confidence: float = 0.98
    """Confidence of the two-sided z-test that drops a root action."""
    test_every: int = 50
    """Simulations between tests after the threshold (Algorithm 2, Step 3's "fixed number of
    rounds", which the paper does not give)."""
    c_puct: float = 1.25
    """Exploration constant ``c`` of the PUCT rule, on min-max normalised values."""
    opponents: str = "policy"
    """``"policy"``: other players act by ``opponent_policy``; ``"search"``: they are searched."""
    min_test_visits: int = 10
    """Visits a root action needs before the z-test may judge it (variance estimates from a
    handful of returns are unreliable)."""
    cache_opponent_policy: bool = True
    """Memoise ``opponent_policy`` per information set (valid when it depends only on the
    acting player's information, as any policy should)."""

    def __post_init__(self) -> None:
        if self.max_simulations < 1:
            raise ValueError(f"max_simulations must be >= 1, got {self.max_simulations}")
        if self.threshold is not None and not 1 <= self.threshold <= self.max_simulations:
            raise ValueError(
                f"threshold must be in [1, max_simulations={self.max_simulations}] or None, "
                f"got {self.threshold}"
            )
        if not 0.0 < self.confidence < 1.0:
            raise ValueError(f"confidence must be in (0, 1), got {self.confidence}")
        if self.test_every < 1:
            raise ValueError(f"test_every must be >= 1, got {self.test_every}")
        if not self.c_puct >= 0.0:
            raise ValueError(f"c_puct must be >= 0, got {self.c_puct}")
        if self.opponents not in OPPONENT_MODES:
            raise ValueError(f"opponents must be one of {OPPONENT_MODES}, got {self.opponents!r}")
        if self.min_test_visits < 2:
            raise ValueError(f"min_test_visits must be >= 2, got {self.min_test_visits}")

    @property
    def z_critical(self) -> float:
        """The two-sided critical value ``z_{alpha/2}`` for ``alpha = 1 - confidence``."""
        return NormalDist().inv_cdf(1.0 - (1.0 - self.confidence) / 2.0)


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one search: the recommended action and the root statistics."""

    action: int
    """The recommended action: the most visited root action still in the running."""
    actions: tuple[int, ...]
    """The root's legal actions, the order of the arrays below."""
    visits: np.ndarray
    """Simulations through each root action."""
    q: np.ndarray
    """Mean return of each root action (nan if never tried)."""
    std: np.ndarray
    """Standard deviation of those returns (nan with fewer than two)."""
    simulations: int
    """Simulations run."""
    stopped_early: bool
    """Whether the adaptive stop ended the search before ``max_simulations``."""
    candidates: tuple[int, ...]
    """Root actions not dropped by the z-test."""

    def policy(self) -> dict[int, float]:
        """The root visit distribution."""
        total = max(1, int(self.visits.sum()))
        return {a: float(n) / total for a, n in zip(self.actions, self.visits)}
