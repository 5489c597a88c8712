"""Players written for other libraries: an OpenSpiel policy and an RLCard agent.

* ``OpenSpielPlayer(policy)``: an ``open_spiel.python.policy.Policy`` (or a factory of one)
  answers decisions of the games OpenSpiel has a twin of: Kuhn poker (``kuhn_poker``, any number
  of players) and Leduc hold'em (``leduc_poker``: standard Leduc, with ``n + 1`` ranks for ``n``
  players). Their action ids and chance outcome ids are OpenSpiel's (the trees are walked in
  lockstep in the tests), so the decision's history is replayed in a pyspiel state unchanged.
* ``RLCardPlayer(agent)``: an RLCard agent object or a model id of RLCard's zoo
  (``leduc-holdem-cfr``, ``leduc-holdem-rule-v1``, ...) answers decisions of pokerzoo's
  RLCard-rules Leduc (``load_game("leduc_holdem", **LEDUC_VARIANTS["rlcard"])``) through
  ``pokerzoo.integrations.rlcard_agents.RLCardPolicy``. RLCard has no Kuhn poker, so an RLCard
  agent cannot be judged on Kuhn.

OpenSpiel and RLCard are optional: each is imported when its player is first made or asked.
"""

from __future__ import annotations

import inspect
from typing import Any

from pokerzoo.errors import ConfigError
from pokerzoo.games import load_game
from pokerzoo.games.base import Game
from pokerzoo.integrations.rlcard_agents import MODELS, RLCardPolicy, rlcard_policy
from pokerzoo.judge.decision import Decision
from pokerzoo.judge.protocol import Answer

OPENSPIEL_GAMES = ("kuhn_poker (any number of players: OpenSpiel's kuhn_poker)",
                   "leduc_holdem with default rules and num_ranks = num_players + 1 "
                   "(OpenSpiel's leduc_poker)")
"""The pokerzoo games an OpenSpiel policy can be asked about, as errors name them."""


def openspiel_twin(game: Game) -> str:
    """The OpenSpiel game string whose tree is ``game``'s, action ids and chance outcomes
    included.

    >>> from pokerzoo import load_game
    >>> openspiel_twin(load_game("kuhn_poker", num_players=3))
    'kuhn_poker(players=3)'
    >>> openspiel_twin(load_game("leduc_holdem"))
    'leduc_poker'

    Raises:
        ConfigError: a game without a twin, naming the games that have one.
    """
    n = game.num_players
    players = "" if n == 2 else f"(players={n})"
    if game.name == "kuhn_poker":
        return f"kuhn_poker{players}"
    if game.name == "leduc_holdem":
        # OpenSpiel's n-player Leduc deals from n + 1 ranks of two suits.
        standard = load_game("leduc_holdem", num_players=n, num_ranks=n + 1)
        if game.config == standard.config:
            return f"leduc_poker{players}"
    raise ConfigError(f"{game!r} has no OpenSpiel twin; OpenSpiel policies are judged on "
                      + "; ".join(OPENSPIEL_GAMES))


def _positional_arity(factory: Any) -> int | None:
    """How many positional arguments ``factory`` requires (``None``: its signature is
    unknown)."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    return sum(1 for p in signature.parameters.values()
               if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
               and p.default is p.empty)


def _is_policy(obj: Any) -> bool:
    return callable(getattr(obj, "action_probabilities", None)) and not isinstance(obj, type)


class OpenSpielPlayer:
    """An OpenSpiel policy as an outside player.

    At each decision the decision's history is replayed in the twin pyspiel game
    (``openspiel_twin``) and the answer is ``policy.action_probabilities(pyspiel_state,
    player)``. The replayed state is the decision's representative state, so a policy that
    reads only the acting player's information state (every OpenSpiel policy does) answers
    for the whole information state.

    Args:
        policy: an ``open_spiel.python.policy.Policy`` (anything with
            ``action_probabilities(state, player_id)``), or a factory returning one: with no
            arguments, or taking the pyspiel game (called once per game asked).
        name: the name reports show.

    Raises:
        ConfigError: an object that is neither (at construction), or a factory that returns
            no policy or a decision of a game without a twin (when asked).
    """

    def __init__(self, policy: Any, *, name: str | None = None) -> None:
        self._factory: Any = None
        self._policies: dict[str, Any] = {}
        if _is_policy(policy):
            self._fixed: Any = policy
        elif callable(policy) and _positional_arity(policy) in (0, 1, None):
            self._fixed = None
            self._factory = policy
        else:
            raise ConfigError(f"an OpenSpiel player needs an open_spiel.python.policy.Policy "
                              f"or a factory of one (no arguments, or the pyspiel game); got an "
                              f"object of type {type(policy).__name__}")
        default = type(policy).__name__ if self._fixed is not None else \
            getattr(policy, "__qualname__", "factory")
        self.name = name or default
        self._games: dict[str, Any] = {}

    def check_game(self, game: Game) -> None:
        """Raise ``ConfigError`` unless this player can be asked decisions of ``game``."""
        self._policy_for(openspiel_twin(game))

    def _pyspiel_game(self, twin: str) -> Any:
        if twin not in self._games:
            import pyspiel

            self._games[twin] = pyspiel.load_game(twin)
        return self._games[twin]

    def _policy_for(self, twin: str) -> Any:
        if self._fixed is not None:
            return self._of_game(self._fixed, twin)
        if twin not in self._policies:
            game = self._pyspiel_game(twin)
            made = self._factory() if _positional_arity(self._factory) == 0 else \
                self._factory(game)
            if not _is_policy(made):
                raise ConfigError(f"the OpenSpiel policy factory {self.name} returned an object "
                                  f"of type {type(made).__name__}, not a policy with "
                                  "action_probabilities(state, player_id)")
            self._policies[twin] = self._of_game(made, twin)
        return self._policies[twin]

    def _of_game(self, policy: Any, twin: str) -> Any:
        """``policy`` if it is of the pyspiel game ``twin`` (or says of no game)."""
        own = getattr(policy, "game", None)
        if own is not None and str(own) != str(self._pyspiel_game(twin)):
            raise ConfigError(f"this OpenSpiel policy plays {own}; the decision is of {twin}")
        return policy

    def decide(self, decision: Decision, sample: int) -> Answer:
        """``policy.action_probabilities`` at the decision, replayed in the pyspiel twin."""
        if decision.state is None:
            raise ConfigError("an OpenSpiel player needs the decision's state (Decision.state)")
        twin = openspiel_twin(decision.state.game)
        policy = self._policy_for(twin)
        state = self._pyspiel_game(twin).new_initial_state()
        for action in decision.state.history():
            state.apply_action(int(action))
        probs = policy.action_probabilities(state, decision.player)
        return {int(a): float(p) for a, p in probs.items()}

    def __repr__(self) -> str:
        return f"OpenSpielPlayer({self.name})"


class RLCardPlayer:
    """An RLCard agent as an outside player, on the pokerzoo game matching its RLCard env.

    The answer is ``RLCardPolicy(agent, game).action_probabilities(decision.state)``: the
    agent's reported probabilities where it reports them (CFR, random), else probability one on
    the action it chose (rule agents).

    Args:
        agent: an RLCard agent object (``use_raw``, ``eval_step``) or a model id of
            ``pokerzoo.integrations.rlcard_agents.MODELS``.
        game: the pokerzoo game, RLCard env id or env it plays (default: the model's env for a
            model id, RLCard's ``leduc-holdem`` for an agent object).

    Raises:
        ConfigError: an unknown model id, an object that is not an RLCard agent, or a game
            RLCard has no env of (Kuhn poker among them).
    """

    def __init__(self, agent: Any, game: Game | str | Any | None = None) -> None:
        if game is None and not isinstance(agent, str):
            game = "leduc-holdem"
        self.policy: RLCardPolicy = rlcard_policy(agent, game)
        self.name = self.policy.name

    def check_game(self, game: Game) -> None:
        """Raise ``ConfigError`` unless this player can be asked decisions of ``game``."""
        if game.config == self.policy.game.config:
            return
        if game.name == "kuhn_poker":
            raise ConfigError(f"RLCard has no Kuhn poker, so {self.name} cannot be judged on it; "
                              f"it plays {self.policy.game!r} (RLCard's {self.policy.env_id})")
        raise ConfigError(f"{self.name} plays {self.policy.game!r} (RLCard's "
                          f"{self.policy.env_id}); the decision is of {game!r}")

    def decide(self, decision: Decision, sample: int) -> Answer:
        """The agent's probabilities at the decision (see the class)."""
        if decision.state is None:
            raise ConfigError("an RLCard player needs the decision's state (Decision.state)")
        self.check_game(decision.state.game)
        return self.policy.action_probabilities(decision.state)

    def __repr__(self) -> str:
        return f"RLCardPlayer({self.name})"


RLCARD_MODELS = tuple(sorted(MODELS))
"""RLCard's model ids an ``rlcard:MODEL_ID`` spec may name."""
