"""RLCard interop both ways: pokerzoo policies as RLCard agents, RLCard agents as pokerzoo
policies, and RLCard's tournament protocol played on pokerzoo's engine.

* ``PolicyAgent(policy, "leduc-holdem")``: any pokerzoo policy or agent as an RLCard agent
  (``use_raw``, ``step``, ``eval_step`` returning ``(action id, {"probs": {name: p}})``), for
  ``env.set_agents`` and ``rlcard.utils.tournament``. RLCard's state dict is mapped to the
  pokerzoo information state of RLCard's Leduc (``rlcard_states.from_rlcard_state``).
* ``RLCardPolicy(agent, game)``: any RLCard agent object as a pokerzoo state policy
  (``action_probabilities(state)``) on the matching pokerzoo game (Leduc's ``"rlcard"``
  variant, heads-up limit or no-limit hold'em), so it plays in ``SingleAgentEnv``,
  ``head_to_head`` and tournaments. ``rlcard_policy(model_id)`` does the same for RLCard's model
  zoo: ``leduc-holdem-cfr``, ``leduc-holdem-rule-v1``, ``leduc-holdem-rule-v2`` and
  ``limit-holdem-rule-v1``.
* ``rlcard_tournament(agents, num_hands, seed)``: ``rlcard.utils.tournament`` on RLCard's Leduc
  played by pokerzoo's engine, drawing every random number as RLCard does (cards from RLCard's
  seeded generator, the agents' own ``eval_step`` choices), so it returns RLCard's numbers.

``PolicyAgent`` plays RLCard's Leduc only: RLCard's hold'em lets the player after the one who
closed a street open the next one (and sizes no-limit raises its own way), so its histories are
not histories of pokerzoo's hold'em and no pokerzoo state holds them. The other way needs no
such match: every pokerzoo hold'em state gives RLCard's state dict.

RLCard's agents draw their actions from NumPy's global generator (``np.random``), RLCard's
convention. Where an agent reports probabilities (``info["probs"]``: CFR, random), pokerzoo
samples from them with its own generators, so matches do not depend on the global state; an
agent that answers with an action only (rule agents: deterministic; DQN: greedy) plays that
action.

>>> import rlcard
>>> from rlcard.agents import RandomAgent
>>> from pokerzoo.policy import UniformRandomPolicy
>>> env = rlcard.make("leduc-holdem", config={"seed": 0})
>>> env.set_agents([PolicyAgent(UniformRandomPolicy(), env, seed=0), RandomAgent(4)])
>>> state, player = env.reset()
>>> action, info = env.agents[player].eval_step(state)
>>> info["probs"]
{'call': 0.3333333333333333, 'raise': 0.3333333333333333, 'fold': 0.3333333333333333}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.evaluation.head_to_head import sample_action
from pokerzoo.games.base import Game, State
from pokerzoo.integrations.rlcard_states import (
    env_of,
    from_rlcard_state,
    game_for,
    pokerzoo_action,
    pokerzoo_card,
    rlcard_action,
    to_rlcard_state,
)
from pokerzoo.policy import WHAT_TO_PASS, as_state_policy

MODELS: dict[str, str] = {
    "leduc-holdem-cfr": "leduc-holdem",
    "leduc-holdem-rule-v1": "leduc-holdem",
    "leduc-holdem-rule-v2": "leduc-holdem",
    "limit-holdem-rule-v1": "limit-holdem",
}
"""RLCard's poker models that ``rlcard_policy`` loads, with the RLCard env each plays."""


def _game_arg(game: Game | str | Any) -> Game:
    """A pokerzoo game from a game, an RLCard env id or an RLCard env object."""
    if isinstance(game, Game):
        return game
    if isinstance(game, str):
        return game_for(game)
    name = getattr(game, "name", None)
    if isinstance(name, str) and hasattr(game, "num_players"):
        if game.num_players != 2:
            raise ConfigError(
                f"RLCard's {name} has {game.num_players} players; the adapters play heads-up"
            )
        return game_for(name)
    raise ConfigError(
        f"expected a pokerzoo game, an RLCard env id or an RLCard env, got {type(game).__name__}"
    )


class _ObsArray(np.ndarray):
    """RLCard's observation vector with ``tostring``: RLCard 1.2's CFR agent keys its tables by
    ``obs.tostring()``, which NumPy removed in 2.3 (it is ``tobytes`` by another name)."""

    def tostring(self, order: str = "C") -> bytes:
        return self.tobytes(order)  # type: ignore[arg-type]


def _with_tostring(rl_state: dict[str, Any]) -> dict[str, Any]:
    obs = rl_state.get("obs")
    if isinstance(obs, np.ndarray) and not hasattr(obs, "tostring"):
        return {**rl_state, "obs": obs.view(_ObsArray)}
    return rl_state


class NumpyCompatAgent:
    """An RLCard agent whose ``step``/``eval_step`` get observations with ``tostring`` (see
    ``_ObsArray``), so RLCard 1.2's CFR agent runs on NumPy 2.3 and later; everything else is
    the agent's own (attributes are read through)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    def __getattr__(self, name: str) -> Any:
        # Only reached for names this wrapper lacks; while unpickling there is no agent yet.
        if name.startswith("__") or "agent" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self.__dict__["agent"], name)

    def step(self, state: dict[str, Any]) -> Any:
        return self.agent.step(_with_tostring(state))

    def eval_step(self, state: dict[str, Any]) -> tuple[Any, Any]:
        return self.agent.eval_step(_with_tostring(state))


def load_rlcard_model(model_id: str) -> Any:
    """The agent of RLCard's model ``model_id`` (one of ``MODELS``), loaded by RLCard's own
    ``rlcard.models.load``; it plays every seat.

    ``leduc-holdem-cfr`` is RLCard's pre-trained CFR policy: RLCard's code reads it from the
    pickle files RLCard ships in its package (``rlcard/models/pretrained``), package data and
    not a user's file; pokerzoo never unpickles a path it is given.

    Raises:
        ConfigError: an unknown model id, listing the supported ones.
    """
    if not isinstance(model_id, str) or model_id not in MODELS:
        raise ConfigError(
            f"unknown RLCard model {model_id!r}; the poker models are {sorted(MODELS)}"
        )
    from rlcard import models

    return NumpyCompatAgent(models.load(model_id).agents[0])


class RLCardPolicy:
    """An RLCard agent as a pokerzoo state policy on the matching game.

    ``action_probabilities(state)`` hands the agent RLCard's state dict of the player to act
    (``rlcard_states.to_rlcard_state``) and returns ``info["probs"]`` mapped to pokerzoo's
    actions, or probability one on the action the agent chose when it reports none. A fold
    of a free check (RLCard offers fold there, pokerzoo's hold'em does not) is played as a
    check, as RLCard's env decodes illegal actions.

    Args:
        agent: an RLCard agent object (``use_raw``, ``eval_step``).
        game: the pokerzoo game, an RLCard env id or env (default: the model's env where the
            agent comes from ``rlcard_policy``; else required).
        name: the name matches and tournaments show.

    Raises:
        ConfigError: an object that is not an RLCard agent, or a game without an RLCard env.
    """

    def __init__(self, agent: Any, game: Game | str | Any, *, name: str | None = None) -> None:
        if not callable(getattr(agent, "eval_step", None)) or not hasattr(agent, "use_raw"):
            raise ConfigError(
                f"an RLCard agent has use_raw and eval_step(state); got {type(agent).__name__}"
            )
        self.agent = agent if isinstance(agent, NumpyCompatAgent) else NumpyCompatAgent(agent)
        self.game = _game_arg(game)
        self.env_id = env_of(self.game)
        self.name = name or type(self.agent.agent).__name__

    def action_probabilities(self, state: State) -> dict[int, float]:
        if state.game.config != self.game.config:
            raise ConfigError(f"{self.name} plays {self.game!r}; this state is of {state.game!r}")
        action, info = self.agent.eval_step(to_rlcard_state(state))
        probs = info.get("probs") if isinstance(info, Mapping) else None
        if probs:
            out: dict[int, float] = {}
            for key, p in probs.items():
                a = pokerzoo_action(state, key)
                out[a] = out.get(a, 0.0) + float(p)
            if sum(out.values()) > 0:
                return out
            raise InvalidPolicyError(
                f"{self.name} gave no probability to a legal action: {dict(probs)}"
            )
        return {pokerzoo_action(state, action): 1.0}

    def __repr__(self) -> str:
        return f"RLCardPolicy({self.name}, {self.env_id})"


def rlcard_policy(agent: Any, game: Game | str | Any | None = None) -> RLCardPolicy:
    """RLCard's model ``agent`` (an id of ``MODELS``) or any RLCard agent object as a pokerzoo
    policy (``RLCardPolicy``).

    >>> policy = rlcard_policy("leduc-holdem-rule-v1")
    >>> state = policy.game.new_initial_state()
    >>> for card in (0, 4):
    ...     state.apply_action(card)
    >>> policy.action_probabilities(state)  # the rule agent raises whenever it may
    {2: 1.0}

    Raises:
        ConfigError: an unknown model id, a game the model does not play, or an agent given
            without a game.
    """
    if isinstance(agent, str):
        loaded = load_rlcard_model(agent)
        env_id = MODELS[agent]
        target = _game_arg(env_id if game is None else game)
        if env_of(target) != env_id:
            raise ConfigError(
                f"RLCard's {agent} plays {env_id}; {target!r} is RLCard's "
                f"{env_of(target)}: pass {game_for(env_id)!r} or leave game out"
            )
        return RLCardPolicy(loaded, target, name=agent)
    if game is None:
        raise ConfigError(
            "an RLCard agent object needs the game it plays: an RLCard env id "
            f"({sorted(set(MODELS.values()) | {'no-limit-holdem'})}), env or "
            "pokerzoo game"
        )
    return RLCardPolicy(agent, game)


class PolicyAgent:
    """A pokerzoo policy as an RLCard agent (``env.set_agents``, ``rlcard.utils.tournament``).

    ``eval_step(state)`` rebuilds the pokerzoo information state from RLCard's state dict,
    asks the policy, samples an action id with its own generator and returns
    ``(action_id, {"probs": {raw action name: probability}})``, keyed as RLCard's agents key
    them; ``step`` plays the same (pokerzoo policies do not learn from RLCard's env).

    Args:
        policy: a state policy, an agent (its ``policy()`` plays) or a callable (see
            ``pokerzoo.policy.as_state_policy``).
        game: the RLCard env, its id or the pokerzoo game (RLCard's Leduc: the rebuilt states
            are Leduc's, see ``rlcard_states.from_rlcard_state``).
        seed: seed of the generator that samples the actions.

    Raises:
        ConfigError: a policy pokerzoo cannot play or a game other than RLCard's Leduc.
    """

    use_raw = False

    def __init__(
        self, policy: object, game: Game | str | Any = "leduc-holdem", *, seed: int | None = None
    ) -> None:
        try:
            self.policy = as_state_policy(policy)
        except ConfigError:
            raise ConfigError(f"cannot play a {type(policy).__name__}: {WHAT_TO_PASS}") from None
        self.game = _game_arg(game)
        leduc = isinstance(self.game, Game) and self.game.name == "leduc_holdem"
        if not leduc or env_of(self.game) != "leduc-holdem":
            raise ConfigError(
                f"pokerzoo policies play RLCard's leduc-holdem (its states map to "
                f"pokerzoo's Leduc); got {self.game!r}"
            )
        self.rng = np.random.default_rng(seed)

    def probabilities(self, rl_state: dict[str, Any]) -> dict[int, float]:
        """The policy's probabilities at RLCard's ``rl_state``, by RLCard action id."""
        state = from_rlcard_state(rl_state, self.game)
        out: dict[int, float] = {}
        for a, p in self.policy.action_probabilities(state).items():
            rl_id = rlcard_action(state, a)
            out[rl_id] = out.get(rl_id, 0.0) + float(p)
        return out

    def eval_step(self, rl_state: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        probs = self.probabilities(rl_state)
        action = sample_action(probs, self.rng)
        total = sum(probs.values())
        names = rl_state["raw_legal_actions"]
        ids = list(rl_state["legal_actions"])
        info = {"probs": {names[k]: probs.get(i, 0.0) / total for k, i in enumerate(ids)}}
        return action, info

    def step(self, rl_state: dict[str, Any]) -> int:
        return self.eval_step(rl_state)[0]


def rlcard_tournament(agents: Sequence[Any], num_hands: int, seed: int) -> list[float]:
    """``rlcard.utils.tournament`` on RLCard's Leduc, played by pokerzoo's engine.

    The hands are dealt as ``rlcard.make("leduc-holdem", config={"seed": seed})`` deals them
    (RLCard's own dealer shuffles with RLCard's seeded generator, then the small blind is
    drawn) and each agent's own ``eval_step`` choice is played, decoded as RLCard's env
    decodes action ids; so with NumPy's global generator in the same state the result equals
    RLCard's to the last bit. Agents are RLCard agents, ``agents[i]`` RLCard's player ``i``.

    Returns:
        Each player's average payoff in big blinds per hand, as RLCard's ``tournament``.

    Raises:
        ConfigError: not two agents, a non-positive ``num_hands`` or a bad seed.
    """
    from rlcard.games.leducholdem import Dealer
    from rlcard.utils import seeding

    if len(agents) != 2 or not all(callable(getattr(a, "eval_step", None)) for a in agents):
        raise ConfigError(f"RLCard's Leduc needs two RLCard agents, got {list(agents)!r}")
    if not isinstance(num_hands, int) or num_hands < 1:
        raise ConfigError(f"num_hands must be a positive integer, got {num_hands!r}")
    if not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed must be a non-negative integer (RLCard's), got {seed!r}")
    game = game_for("leduc-holdem")
    rng, _ = seeding.np_random(seed)
    totals = [0.0, 0.0]
    for _ in range(num_hands):
        # RLCard's order of draws (LeducholdemGame.init_game): shuffle, one card to each
        # player in id order, then the small blind; the public card is the next off the deck.
        dealer = Dealer(rng)
        hands = [pokerzoo_card(game, dealer.deal_card().get_index()) for _ in range(2)]
        small_blind = int(rng.randint(0, 2))
        state = game.new_initial_state()
        for seat in range(2):
            state.apply_action(hands[(seat + small_blind) % 2])
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(pokerzoo_card(game, dealer.deal_card().get_index()))
                continue
            agent = agents[(state.current_player() + small_blind) % 2]
            action, _ = agent.eval_step(to_rlcard_state(state, small_blind))
            # RLCard steps a raw action unchanged (an illegal one raises there as here) and
            # decodes an id.
            if agent.use_raw:
                state.apply_action(pokerzoo_action(state, action))
            else:
                state.apply_action(_decode_like_rlcard(state, int(action)))
        returns = state.returns()
        for seat in range(2):
            totals[(seat + small_blind) % 2] += returns[seat] / game.chip_unit
    return [t / num_hands for t in totals]


def _decode_like_rlcard(state: State, action_id: int) -> int:
    """RLCard's Leduc ``_decode_action``: an illegal id plays check if checking is legal,
    else fold."""
    legal = {rlcard_action(state, a): a for a in state.legal_actions()}
    if action_id in legal:
        return legal[action_id]
    return legal[3] if 3 in legal else legal[2]
