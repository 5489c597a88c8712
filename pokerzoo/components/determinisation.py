"""Determinisation samplers: full histories drawn from a player's information set.

Search in an imperfect-information game cannot expand the one true state, which it does not
know; each simulation instead starts from a *determinisation*, a full history consistent with
what the searching player has seen, drawn from a belief over the information set. A sampler is
any ``Callable[[numpy.random.Generator], State]`` returning a fresh state (the caller mutates
it). Two builders:

* ``sampler_from_histories``: an explicit list of ``(history, weight)`` pairs, for small games
  or for beliefs computed elsewhere (e.g. from the compiled tree's reach probabilities).
* ``resampling_sampler``: re-deals the hidden chance outcomes of a given state. It replays the
  state's action sequence from the start, keeps every player action, and at each chance node
  keeps only outcomes after which the searcher's information-state key equals the key it had
  at that point of the real history (so its own cards and the public cards are forced and the
  opponents' cards range freely). Each consistent history ``h`` gets the exact posterior
  weight ``P(h | I) ~ chance(h) * prod_{opponent actions} policy(a)``.

``resampling_sampler`` assumes what holds in poker: (1) every player action is seen by the
searcher, so all histories of its information set share the same action sequence and differ
only in chance outcomes; (2) a chance outcome the searcher observes changes its
``information_state_key`` as soon as it is dealt, and one it does not observe leaves the key
unchanged; (3) the opponents' ``policy`` looks only at the acting opponent's information. When
the consistent histories are too many to enumerate (``limit``; e.g. several opponents' hole
cards in hold'em) it falls back to importance sampling: ``particles`` histories are drawn by
sequential filtered dealing (each weighted by its importance ratio against the posterior) and
each call resamples one of them by weight, a particle approximation of the same belief.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game, State
from pokerzoo.policy import StatePolicy, as_state_policy

Sampler = Callable[[np.random.Generator], State]


def sampler_from_states(states: Sequence[State], weights: Sequence[float]) -> Sampler:
    """A sampler drawing ``states[i]`` (a clone) with probability proportional to ``weights[i]``.

    Raises:
        ValueError: if the lengths differ, a weight is negative or all are zero.
    """
    w = np.asarray(weights, dtype=np.float64)
    if len(states) == 0 or w.shape != (len(states),):
        raise ConfigError(f"need one weight per state, got {len(states)} states, {w.size} weights")
    if np.any(w < 0) or not np.all(np.isfinite(w)) or w.sum() <= 0:
        raise ConfigError("weights must be finite, non-negative and not all zero")
    cum = np.cumsum(w / w.sum())
    cum[-1] = 1.0
    frozen = [s.clone() for s in states]
    last = len(frozen) - 1

    def sample(rng: np.random.Generator) -> State:
        i = int(np.searchsorted(cum, rng.random(), side="right"))
        return frozen[min(i, last)].clone()

    sample.states = frozen  # type: ignore[attr-defined]
    sample.probabilities = w / w.sum()  # type: ignore[attr-defined]
    return sample


def sampler_from_histories(
    game: Game,
    histories: Sequence[tuple[Sequence[int], float]],
    player: int | None = None,
) -> Sampler:
    """A sampler over explicit ``(history, weight)`` pairs (weights need not be normalised).

    Args:
        game: the game the histories belong to.
        histories: action sequences from the initial state (chance outcomes included), each
            with its belief weight; zero-weight entries are dropped.
        player: if given, every history must lie in one information set of this player,
            with this player to act.

    Raises:
        ValueError: on an empty list, bad weights, or histories in different information sets.
        IllegalActionError: if a history is not playable.
    """
    states, weights = [], []
    for history, weight in histories:
        if weight == 0:
            continue
        s = game.new_initial_state()
        for a in history:
            s.apply_action(a)
        states.append(s)
        weights.append(weight)
    if not states:
        raise ConfigError("no history with positive weight")
    if player is not None:
        keys = {s.information_state_key(player) for s in states}
        actors = {s.current_player() for s in states}
        if len(keys) != 1 or actors != {player}:
            raise ConfigError(
                f"histories must share one information set of player {player} with that player "
                f"to act; got {len(keys)} information sets and players to act {sorted(actors)}"
            )
    return sampler_from_states(states, weights)


class _TooMany(Exception):
    pass


class _Replay:
    """The real history of ``state`` and the searcher's keys along it, for resampling."""

    def __init__(self, state: State, player: int, policy: StatePolicy | None) -> None:
        self.game = state.game
        self.player = player
        self.policy = policy
        self.history = list(state.history())
        self.final_key = state.information_state_key(player)
        self.chance_key: dict[int, Hashable] = {}
        s = self.game.new_initial_state()
        for t, a in enumerate(self.history):
            chance = s.is_chance_node()
            s.apply_action(a)
            if chance:
                self.chance_key[t] = s.information_state_key(player)

    def consistent_outcomes(self, s: State, t: int) -> list[tuple[State, float]]:
        """Children of chance node ``s`` (step ``t``) the searcher cannot tell from the real one."""
        target = self.chance_key[t]
        out = []
        for c, p in s.chance_outcomes():
            if p > 0:
                child = s.child(c)
                if child.information_state_key(self.player) == target:
                    out.append((child, p))
        return out

    def player_step(self, s: State, t: int) -> tuple[State, float] | None:
        """Replay the real action at step ``t``; returns the child and its belief factor."""
        a = self.history[t]
        if s.is_chance_node() or a not in s.legal_actions():
            return None
        factor = 1.0
        if self.policy is not None and s.current_player() != self.player:
            factor = float(self.policy.action_probabilities(s).get(a, 0.0))
            if factor <= 0.0:
                return None
        return s.child(a), factor

    def enumerate(self, limit: int) -> tuple[list[State], list[float]]:
        states: list[State] = []
        weights: list[float] = []

        def visit(s: State, t: int, w: float) -> None:
            if t == len(self.history):
                if s.information_state_key(self.player) == self.final_key:
                    if len(states) >= limit:
                        raise _TooMany
                    states.append(s)
                    weights.append(w)
                return
            if t in self.chance_key:
                if not s.is_chance_node():
                    return
                for child, p in self.consistent_outcomes(s, t):
                    visit(child, t + 1, w * p)
            else:
                step = self.player_step(s, t)
                if step is not None:
                    visit(step[0], t + 1, w * step[1])

        visit(self.game.new_initial_state(), 0, 1.0)
        return states, weights

    def propose(self, rng: np.random.Generator) -> tuple[State, float]:
        """Sequential filtered dealing; the weight is the importance ratio posterior/proposal."""
        s, w = self.game.new_initial_state(), 1.0
        for t in range(len(self.history)):
            if t in self.chance_key:
                options = self.consistent_outcomes(s, t) if s.is_chance_node() else []
                if not options:
                    return s, 0.0
                probs = np.array([p for _, p in options])
                z = probs.sum()
                s = options[int(rng.choice(len(options), p=probs / z))][0]
                w *= z
            else:
                step = self.player_step(s, t)
                if step is None:
                    return s, 0.0
                s, w = step[0], w * step[1]
        if s.information_state_key(self.player) != self.final_key:
            return s, 0.0
        return s, w


def consistent_histories(
    state: State,
    player: int | None = None,
    opponent_policy: object | None = None,
    limit: int = 100_000,
) -> list[tuple[list[int], float]]:
    """Every history in ``player``'s information set at ``state``, with its posterior weight.

    Weights are ``chance(h) * prod policy(a)`` over opponent actions (chance only without a
    policy), normalised to sum to 1. See the module docstring for the assumptions.

    Raises:
        ValueError: if there are more than ``limit`` histories.
    """
    p = state.current_player() if player is None else player
    policy = None if opponent_policy is None else as_state_policy(opponent_policy)
    replay = _Replay(state, p, policy)
    try:
        states, weights = replay.enumerate(limit)
    except _TooMany:
        raise ConfigError(f"more than {limit} consistent histories") from None
    total = sum(weights)
    return [(s.history(), w / total) for s, w in zip(states, weights)]


def resampling_sampler(
    state: State,
    player: int | None = None,
    opponent_policy: object | None = None,
    *,
    limit: int = 20_000,
    particles: int = 512,
) -> Sampler:
    """A sampler of histories in ``player``'s information set at ``state``, by posterior weight.

    Args:
        state: a full state the searcher is in (only what ``player`` sees of it matters).
        player: the searcher (default: the player to act).
        opponent_policy: the opponents' policy (a ``StatePolicy`` or callable) whose reach
            weights the belief; ``None`` weights by chance alone.
        limit: enumerate exactly when there are at most this many consistent histories.
        particles: otherwise, how many importance-weighted histories approximate the belief
            (drawn on the first call, from that call's generator).

    Raises:
        ValueError: if no consistent history has positive weight, e.g. because the opponent
            policy gives the real action sequence probability zero (raised by the first call
            when the belief is approximated by particles).
    """
    p = state.current_player() if player is None else player
    policy = None if opponent_policy is None else as_state_policy(opponent_policy)
    replay = _Replay(state, p, policy)
    try:
        states, weights = replay.enumerate(limit)
    except _TooMany:
        pass
    else:
        if not states:
            raise ConfigError(
                "no consistent history has positive weight (does the opponent policy give the "
                "real action sequence probability zero?)"
            )
        return sampler_from_states(states, weights)

    pool: list[Sampler] = []

    def sample(rng: np.random.Generator) -> State:
        if not pool:
            drawn = [replay.propose(rng) for _ in range(particles)]
            kept = [(s, w) for s, w in drawn if w > 0]
            if not kept:
                raise ConfigError(f"none of {particles} proposals is consistent with the state")
            pool.append(sampler_from_states([s for s, _ in kept], [w for _, w in kept]))
        return pool[0](rng)

    return sample
