"""Configuration and result types of ``AdaptiveUCT`` (see ``pokerzoo.components.uct``)."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist
from typing import ClassVar, Literal

import numpy as np

from pokerzoo.config import check, normalise

OPPONENT_MODES = ("policy", "search")


@dataclass(frozen=True)
class UCTConfig:
    """Parameters of ``AdaptiveUCT``; defaults are the paper's chosen UCT(2800, 0.98)."""

    kind: ClassVar[str] = "uct"
    """Names this best response in a union of configs (``best_response="uct"``)."""
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
    opponents: Literal["policy", "search"] = "policy"
    """``"policy"``: other players act by ``opponent_policy``; ``"search"``: they are searched."""
    min_test_visits: int = 10
    """Visits a root action needs before the z-test may judge it (variance estimates from a
    handful of returns are unreliable)."""
    cache_opponent_policy: bool = True
    """Memoise ``opponent_policy`` per information set (valid when it depends only on the
    acting player's information, as any policy should)."""

    def __post_init__(self) -> None:
        normalise(self)
        check(self.max_simulations >= 1, "max_simulations", ">= 1", self.max_simulations)
        check(self.threshold is None or 1 <= self.threshold <= self.max_simulations, "threshold",
              f"in [1, max_simulations={self.max_simulations}] or None", self.threshold)
        check(0.0 < self.confidence < 1.0, "confidence", "in (0, 1)", self.confidence)
        check(self.test_every >= 1, "test_every", ">= 1", self.test_every)
        check(self.c_puct >= 0.0, "c_puct", ">= 0", self.c_puct)
        check(self.min_test_visits >= 2, "min_test_visits", ">= 2", self.min_test_visits)

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
