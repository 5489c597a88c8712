"""One record of a policy's exact scores, used by training callbacks, ``evaluate.py`` and
tournaments alike, so the three cannot drift apart.

>>> from pokerzoo.games.registry import load_game
>>> from pokerzoo.tree import build
>>> from pokerzoo.tree.tabular_policy import TabularPolicy
>>> tree = build(load_game("kuhn_poker"))
>>> scores = ExactScores.of(tree, TabularPolicy.uniform(tree))
>>> round(scores.nash_conv, 4), round(scores.exploitability, 4)
(0.9167, 0.4583)
>>> sorted(scores.as_dict())
['exploitability', 'exploitability_mbb_per_game', 'nash_conv']
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from pokerzoo.evaluation.exact import nash_conv, to_milli_big_blinds
from pokerzoo.tree.game_tree import GameTree


@dataclass(frozen=True)
class ExactScores:
    """A policy scored by exact best response on the game's tree."""

    nash_conv: float
    """Sum over players of what a best response gains against the others (chips per game)."""
    exploitability: float
    """``nash_conv / num_players``: chips per game."""
    exploitability_mbb_per_game: float
    """The exploitability in milli-big-blinds per game, with the game's ``chip_unit``."""

    @classmethod
    def of(cls, tree: GameTree, policy: Any) -> ExactScores:
        """Score ``policy`` (a ``TabularPolicy`` or anything ``nash_conv`` accepts) on ``tree``."""
        return cls.from_nash_conv(nash_conv(tree, policy), tree)

    @classmethod
    def from_nash_conv(cls, conv: float, tree: GameTree) -> ExactScores:
        """The record of a NashConv already computed on ``tree``."""
        conv = float(conv)
        exploitability = conv / tree.num_players
        return cls(conv, exploitability,
                   to_milli_big_blinds(exploitability, tree.game.chip_unit))

    @property
    def log10_nash_conv(self) -> float:
        """``log10(nash_conv)``, what the unknown-environment papers plot (-inf at 0)."""
        return math.log10(self.nash_conv) if self.nash_conv > 0 else float("-inf")

    def as_dict(self) -> dict[str, float]:
        """The three scores under the names ``metrics.csv`` and ``evaluate.py --json`` use."""
        return asdict(self)
