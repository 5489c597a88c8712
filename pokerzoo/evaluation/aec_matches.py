"""Matches on any PettingZoo AEC env: ``head_to_head`` and ``run_tournament`` with an env factory.

The "game" is a factory of AEC envs: a callable returning a new env, or a ``"MODULE:FACTORY"``
string (``"pettingzoo.classic.leduc_holdem_v4:env"``). The env must have ``Discrete`` actions
and an action mask (see ``pokerzoo.wrappers.aec_learner``). Hands are played through the env's
own AEC loop (``agent_iter``/``last``/``step``): a player answers
``act_probabilities(observation, info)`` (one probability per action; ``info`` is the env's,
with ``"agent"``, the acting agent's name, and ``"player"``, its index in ``possible_agents``),
as the agents trained on an AEC env and ``pokerzoo.evaluation.aec_opponents`` do, or is a
callable ``(observation, info) -> probabilities`` (an array, or ``{action: probability}``).

Duplicate dealing as for games: deal ``d`` draws one reset seed from its own stream
(``head_to_head.deal_rng``) and the hand is played with that ``env.reset(seed=...)`` once per
rotation of the players around the table, so every player sits in every seat of the same deal
(chance stays in the env's generator, which the reset seed fixes). A player's payoff is the sum
of the rewards ``last()`` reports to its agent over the hand (dead steps included). CIs are
over per-deal means, as for games. Results are in the env's reward unit: ``MatchResult``'s
"big blind" is 1, so ``mbb_per_game`` is thousandths of a reward per hand.

>>> from pettingzoo.classic import tictactoe_v3
>>> from pokerzoo.evaluation.aec_opponents import make_aec_opponent
>>> r = aec_head_to_head(tictactoe_v3.env, [make_aec_opponent("first-legal"),
...                      make_aec_opponent("random")], 20, seed=0)
>>> r.num_hands, r.mean_chips.shape
(40, (2,))
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.evaluation.aec_opponents import action_mask, make_aec_opponent
from pokerzoo.evaluation.arguments import count_arg, seed_arg
from pokerzoo.evaluation.hand_history import HandRecorder, active_recorder
from pokerzoo.evaluation.head_to_head import (
    DealResults,
    MatchResult,
    deal_rng,
    match_entropy,
    match_result,
    sample_action,
)
from pokerzoo.games.base import Game
from pokerzoo.parallel import Executor, deal_ranges, run_map
from pokerzoo.wrappers.aec_learner import inspect_env

EnvSource = Callable[[], Any] | str
"""An AEC env factory: a callable returning a new env, or ``"MODULE:FACTORY"``."""


def load_env_factory(spec: str) -> Callable[[], Any]:
    """``"package.module:factory"`` -> the callable (``factory()`` builds an AEC env).

    Raises:
        ConfigError: a malformed spec, a module that does not import, a missing name.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"an env factory is MODULE:FACTORY (e.g. pettingzoo.classic."
                          f"leduc_holdem_v4:env), got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"env {spec!r}: cannot import {module_name!r} ({exc})") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise ConfigError(f"env {spec!r}: {module_name} has no callable {attr!r}")
    return cast(Callable[[], Any], factory)


@dataclass(frozen=True)
class AECGame:
    """An AEC env factory as the game of a match: what matches and tournaments read of a game
    (players, the unit of payoffs, a name)."""

    factory: Callable[[], Any]
    name: str
    num_players: int
    chip_unit: float = 1.0
    """Payoffs are the env's rewards, reported as they are."""

    def __repr__(self) -> str:
        return self.name


def is_env_source(game: object) -> bool:
    """Whether ``game`` names an AEC env (an ``AECGame``, a ``"MODULE:FACTORY"`` string, or a
    callable that is not a pokerzoo game) rather than a pokerzoo ``Game``."""
    if isinstance(game, AECGame | str):
        return True
    return callable(game) and not isinstance(game, Game) and not hasattr(
        game, "new_initial_state")


def aec_game(game: AECGame | EnvSource) -> AECGame:
    """``game`` as an ``AECGame``: its factory resolved and one env built and checked.

    Raises:
        ConfigError: not an env factory, or an env without ``Discrete`` actions or a mask.
    """
    if isinstance(game, AECGame):
        return game
    if isinstance(game, str):
        factory, name = load_env_factory(game), game
    elif is_env_source(game):
        factory = game
        name = f"{getattr(game, '__module__', '?')}:{getattr(game, '__qualname__', game)}"
    else:
        raise ConfigError(f"expected an AEC env factory (a callable or 'MODULE:FACTORY'), "
                          f"got {game!r}")
    spec = inspect_env(factory())
    return AECGame(factory, name, spec.num_players)


class AECPlayer:
    """A player of an AEC match: ``act_probabilities(observation, info)``, checked."""

    def __init__(self, player: object) -> None:
        if hasattr(player, "act_probabilities"):
            self.answer: Callable[[Any, Any], Any] = player.act_probabilities
        elif callable(player):
            self.answer = player
        else:
            raise ConfigError(
                f"an AEC match player answers act_probabilities(observation, info) or is a "
                f"callable (observation, info) -> probabilities; got {player!r}"
            )
        self.player = player

    def action(self, observation: Any, info: Mapping[str, Any], rng: np.random.Generator) -> int:
        """An action drawn from the player's answer; only legal actions may have weight.

        Raises:
            InvalidPolicyError: weight on an illegal action, or weights that cannot be drawn.
        """
        mask = action_mask(observation, info)
        answer = self.answer(observation, info)
        if isinstance(answer, Mapping):
            probs = {int(a): float(p) for a, p in answer.items()}
        else:
            array = np.asarray(answer, dtype=np.float64).ravel()
            if array.shape != mask.shape:
                raise InvalidPolicyError(f"{self.player!r} answered {array.size} probabilities "
                                         f"for {mask.size} actions")
            probs = {int(a): float(array[a]) for a in np.flatnonzero(array)}
        illegal = {a: p for a, p in probs.items() if p > 0 and not (0 <= a < len(mask) and mask[a])}
        if illegal:
            raise InvalidPolicyError(f"{self.player!r} puts weight {illegal} on illegal actions "
                                     f"(legal: {np.flatnonzero(mask).tolist()})")
        return sample_action({a: p for a, p in probs.items() if p > 0} or probs, rng)


def play_aec_hand(
    env: Any, seat_players: Sequence[AECPlayer], rng: np.random.Generator, reset_seed: int
) -> list[float]:
    """Play one hand of ``env`` reset with ``reset_seed``, seat ``s`` (``possible_agents[s]``)
    by ``seat_players[s]``, actions drawn with ``rng``; each seat's summed rewards."""
    env.reset(seed=reset_seed)
    agents = list(env.possible_agents)
    totals = dict.fromkeys(agents, 0.0)
    for name in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        totals[name] += float(reward)
        if terminated or truncated:
            env.step(None)  # the dead step of an agent that is done
            continue
        seat = agents.index(name)
        turn = {**(info or {}), "agent": name, "player": seat}
        env.step(seat_players[seat].action(observation, turn, rng))
    return [totals[a] for a in agents]


@dataclass(frozen=True)
class AECMatchSpec:
    """What every piece of an AEC match needs."""

    game: AECGame
    players: tuple[AECPlayer, ...]
    entropy: int
    duplicate: bool = True


def play_aec_deals(spec: AECMatchSpec, deals: tuple[int, int]) -> DealResults:
    """Deals ``[start, stop)`` of an AEC match (each from its own stream), on one env."""
    start, stop = deals
    env = spec.game.factory()
    n = spec.game.num_players
    per_deal = np.zeros((stop - start, n))
    seat_payoffs = []
    for d in range(start, stop):
        rng = deal_rng(spec.entropy, d)
        reset_seed = int(rng.integers(2**31 - 1))
        rotations = range(n) if spec.duplicate else [d % n]
        for r in rotations:
            # Player i sits at seat (i + r) % n, as in pokerzoo's games.
            seats = [spec.players[(s - r) % n] for s in range(n)]
            payoff = play_aec_hand(env, seats, rng, reset_seed)
            seat_payoffs.append(payoff)
            for i in range(n):
                per_deal[d - start, i] += payoff[(i + r) % n]
        per_deal[d - start] /= len(rotations)
    return DealResults(start, stop, per_deal, np.asarray(seat_payoffs, dtype=np.float64))


def aec_head_to_head(
    game: AECGame | EnvSource,
    policies: Sequence[object],
    num_deals: int,
    *,
    seed: int | None = None,
    rng: np.random.Generator | None = None,
    duplicate: bool = True,
    recorder: HandRecorder | None = None,
    names: Sequence[str] | None = None,
    executor: Executor | None = None,
) -> MatchResult:
    """``head_to_head`` on an AEC env (see the module docstring); same arguments and result.

    Raises:
        ConfigError: a wrong number of players, bad counts or seeds, or a hand recorder
            (hand histories record pokerzoo games).
    """
    table = aec_game(game)
    n = table.num_players
    if isinstance(policies, str | bytes) or not isinstance(policies, Sequence):
        raise ConfigError(f"policies must be a sequence of {n} players, got {policies!r}")
    if len(policies) != n:
        raise ConfigError(f"{table.name} has {n} seats but {len(policies)} players were given")
    if names is not None and (isinstance(names, str | bytes) or len(names) != n):
        raise ConfigError(f"names must be a sequence of {n} names, one per player, got {names!r}")
    num_deals = count_arg(num_deals, "num_deals")
    seed = seed_arg(seed)
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise ConfigError(f"rng must be a numpy.random.Generator or None, got {rng!r}")
    if recorder is not None or active_recorder() is not None:
        raise ConfigError("hand histories record pokerzoo games; a match on an AEC env "
                          f"({table.name}) is played without one")
    players = tuple(AECPlayer(p) for p in policies)
    spec = AECMatchSpec(table, players, match_entropy(seed, rng), duplicate)
    parts = run_map(executor, play_aec_deals, spec, deal_ranges(num_deals, executor))
    # match_result reads the game's chip_unit only, which an AECGame has.
    return match_result(cast(Game, table), parts)


def aec_versus(
    game: AECGame | EnvSource, policy: object, opponent: str, hands: int, seed: int = 0,
    executor: Executor | None = None,
) -> dict[str, float]:
    """``policy`` against built-in ``opponent`` (``aec_opponents``) in every other seat,
    duplicate dealing; ``matches.versus_random``'s keys (rewards per 100 hands as
    ``bb_per_100``) plus ``per_hand`` and ``per_hand_ci95``."""
    table = aec_game(game)
    n = table.num_players
    deals = max(2, count_arg(hands, "hands") // n)
    others = [make_aec_opponent(opponent)] * (n - 1)
    result = aec_head_to_head(table, [policy, *others], deals, seed=seed, executor=executor)
    return {
        "bb_per_100": float(result.bb_per_100[0]),
        "ci95": float(result.bb_per_100_ci[0]),
        "hands": float(result.num_hands),
        "per_hand": float(result.mean_chips[0]),
        "per_hand_ci95": float(result.ci_chips[0]),
    }
