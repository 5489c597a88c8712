"""Matches against reference opponents, for games too big for exact exploitability."""

from __future__ import annotations

from typing import Any, cast

from pokerzoo.evaluation.aec_matches import AECGame, EnvSource, aec_versus, is_env_source
from pokerzoo.evaluation.arguments import count_arg
from pokerzoo.evaluation.head_to_head import head_to_head
from pokerzoo.games.base import Game
from pokerzoo.parallel import Executor
from pokerzoo.policy import UniformRandomPolicy


def versus_random(
    game: Game | AECGame | EnvSource, policy: Any, hands: int, seed: int = 0,
    executor: Executor | None = None,
) -> dict[str, float]:
    """``policy`` (a state policy, or an agent: its ``policy()`` plays) against uniform-random
    opponents in every other seat, duplicate dealing (deals split over ``executor``'s workers,
    if given: the same numbers). ``game`` may be an AEC env factory (``aec_matches.aec_versus``
    against its ``random`` opponent: rewards per 100 hands as ``bb_per_100``).

    Returns:
        ``bb_per_100`` of ``policy`` with its 95% half-width ``ci95`` and the ``hands`` played.
    """
    if is_env_source(game):
        return aec_versus(cast(Any, game), policy, "random", hands, seed, executor)
    game = cast(Game, game)
    n = game.num_players
    deals = max(1, count_arg(hands, "hands") // n)
    result = head_to_head(game, [policy] + [UniformRandomPolicy()] * (n - 1), deals, seed=seed,
                          executor=executor)
    return {
        "bb_per_100": float(result.bb_per_100[0]),
        "ci95": float(result.bb_per_100_ci[0]),
        "hands": float(result.num_hands),
    }
