"""Which tree a full-width solver learns on, and which model that is for unknown games.

For an ordinary game a solver's tree is the game's tree. For an unknown-environment game
(``pokerzoo.games.unknown``) the tree carries a model, and the solver must say which:

* by default the model the agent believes: the prior mean for the game ``load_game`` returns
  or the unknown envs' ``env.game``, or the believed model of the view it is given (e.g.
  ``game.agent_view(posterior.mean_model(), "posterior mean")``, or
  ``Posterior.mean_view(game)``);
* with ``oracle=True`` (a field of every tabular solver's config) the hidden true model d*, as
  an oracle baseline; this needs the environment game (a view has no d*) and warns.

The choice is logged (logger ``pokerzoo.agents``), kept as the solver's ``solves`` and shown
in its ``repr``.
"""

from __future__ import annotations

import logging
import warnings
from typing import cast

from pokerzoo.errors import ConfigError, HiddenModelError
from pokerzoo.games.base import Game
from pokerzoo.games.unknown.game import AgentGameView, UnknownPokerGame
from pokerzoo.tree.game_tree import GameTree, build

logger = logging.getLogger("pokerzoo.agents")

ORACLE = "the true model d* (oracle)"


def solver_tree(game: Game, oracle: bool, who: str) -> GameTree:
    """The tree solver ``who`` learns on for ``game`` (see the module doc).

    Raises:
        ConfigError: for ``oracle=True`` on a game without a hidden model.
        HiddenModelError: for ``oracle=True`` on an agent's view (it has no d*).
    """
    kind = game.game_type
    if not kind.hidden_model:
        if oracle:
            raise ConfigError(
                f"oracle=True is for unknown-environment games; {game!r} has no hidden model"
            )
        return build(game)
    if oracle:
        if not kind.is_environment:
            raise HiddenModelError(
                f"{who} was asked to solve d* (oracle=True) but got {game!r}, which holds no "
                "d*; pass the game load_game returns"
            )
        warnings.warn(
            f"{who} on {game!r} solves {ORACLE}: an oracle baseline that reads the hidden "
            "model, not a learner",
            UserWarning,
            stacklevel=4,
        )
        tree = build(game, model=cast(UnknownPokerGame, game).true_model)
    else:
        tree = build(cast(UnknownPokerGame, game).agent_view() if kind.is_environment else game)
    logger.info("%s on %s solves %s", who, game.name, describe_model(tree, game))
    return tree


def describe_model(tree: GameTree, game: Game) -> str | None:
    """Which model ``tree`` compiles for a solver of ``game``: ``"the prior mean"``,
    ``"the posterior mean"``, ``ORACLE``, ...; ``None`` for games without hidden models."""
    compiled = tree.game
    if compiled.game_type.agent_view:
        return f"the {cast(AgentGameView, compiled).model_source}"
    if compiled.game_type.is_environment:
        if game.game_type.is_environment and compiled == game:
            return ORACLE
        return "a given model"
    return None
