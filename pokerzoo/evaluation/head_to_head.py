"""Head-to-head matches between policies, with duplicate dealing and 95% confidence intervals.

Duplicate dealing: each *deal* fixes the chance outcomes (a seeded chance generator, so the
same cards come out in the same order), and the hand is played once per
rotation of the policies around the table (``n`` rotations for ``n`` players, i.e. seats
swapped heads-up), so every policy holds every seat's cards against the same board. Luck of the
cards largely cancels within a deal, which shrinks the confidence interval at a given number of
hands. Deals are independent, so the interval is computed over per-deal averages.

Results are reported in big blinds per 100 hands (bb/100) and milli-big-blinds per game
(mbb/g; 1 bb/100 = 10 mbb/g), for each policy and for each seat.

>>> from pokerzoo.games import load_game
>>> from pokerzoo.policy import UniformRandomPolicy
>>> game = load_game("limit_holdem")
>>> r = head_to_head(game, [UniformRandomPolicy(), UniformRandomPolicy()], 50, seed=0)
>>> r.num_hands, len(r.bb_per_100)
(100, 2)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.evaluation.arguments import count_arg, seed_arg
from pokerzoo.evaluation.hand_history import HandRecorder, active_recorder
from pokerzoo.games.base import Game, State
from pokerzoo.parallel import Executor, deal_ranges, run_map
from pokerzoo.policy import StatePolicy, as_state_policy

if TYPE_CHECKING:
    from pokerzoo.evaluation.aec_matches import AECGame, EnvSource

Z95 = 1.959963984540054
"""Two-sided 95% quantile of the normal distribution (the CIs use the normal approximation,
sound for the hundreds of deals a match needs)."""


@dataclass(frozen=True)
class MatchResult:
    """Outcome of a match. Chip amounts are per hand; ``*_ci`` are 95% half-widths."""

    num_deals: int
    num_hands: int
    big_blind: float
    """Chips in the game's unit (``Game.chip_unit``: the big blind, else the ante)."""
    mean_chips: np.ndarray
    """Average chips won per hand by each policy (in the order given)."""
    ci_chips: np.ndarray
    """95% confidence half-width of ``mean_chips``."""
    seat_mean_chips: np.ndarray
    """Average chips won per hand by each seat, whoever sat there."""
    seat_ci_chips: np.ndarray
    """95% confidence half-width of ``seat_mean_chips``."""

    @property
    def bb_per_100(self) -> np.ndarray:
        """Each policy's winnings in big blinds per 100 hands."""
        return self.mean_chips * 100.0 / self.big_blind

    @property
    def bb_per_100_ci(self) -> np.ndarray:
        return self.ci_chips * 100.0 / self.big_blind

    @property
    def mbb_per_game(self) -> np.ndarray:
        """Each policy's winnings in milli-big-blinds per hand."""
        return self.mean_chips * 1000.0 / self.big_blind

    @property
    def mbb_per_game_ci(self) -> np.ndarray:
        return self.ci_chips * 1000.0 / self.big_blind

    def interval(self, policy: int, unit: str = "bb/100") -> tuple[float, float]:
        """The 95% confidence interval of one policy's winnings in ``"bb/100"`` or ``"mbb/g"``."""
        units = {"bb/100": 100.0, "mbb/g": 1000.0}
        if unit not in units:
            raise ConfigError(f"unit must be one of {list(units)}, got {unit!r}")
        scale = units[unit] / self.big_blind
        m, h = self.mean_chips[policy] * scale, self.ci_chips[policy] * scale
        return float(m - h), float(m + h)

    def summary(self) -> str:
        """A readable table of the result."""
        lines = [f"{self.num_hands} hands ({self.num_deals} deals)"]
        for i, (m, h) in enumerate(zip(self.bb_per_100, self.bb_per_100_ci)):
            lines.append(
                f"policy {i}: {m:+.2f} +- {h:.2f} bb/100 ({m * 10:+.1f} +- {h * 10:.1f} mbb/g)"
            )
        return "\n".join(lines)


def sample_action(probs: Mapping[int, float], rng: np.random.Generator) -> int:
    """Draw an action from ``{action: probability}`` (probabilities need not be normalised).

    Raises:
        InvalidPolicyError: if a weight is negative or not finite, or all are zero.
    """
    actions = list(probs)
    weights = [float(probs[a]) for a in actions]
    total = sum(weights)
    if not (math.isfinite(total) and total > 0) or min(weights) < 0:
        raise InvalidPolicyError(
            f"cannot sample from {dict(zip(actions, weights))}: probabilities must be finite, "
            ">= 0 and not all zero"
        )
    u = rng.random() * total
    acc = 0.0
    for a, w in zip(actions, weights):
        acc += w
        if u < acc:
            return a
    return next(a for a, w in zip(reversed(actions), reversed(weights)) if w > 0)


def play_hand(
    game: Game,
    seat_policies: Sequence[object],
    rng: np.random.Generator,
    *,
    chance_rng: np.random.Generator | None = None,
    deck: Sequence[int] | None = None,
    recorder: HandRecorder | None = None,
    names: Sequence[str] | None = None,
) -> list[float]:
    """Play one hand, seat ``s`` by ``seat_policies[s]``, actions drawn with ``rng``.

    Chance: with ``deck`` (a card order, for games dealing from one deck like hold'em) the
    ``k``-th chance outcome is ``deck[k]``; otherwise the ``k``-th chance node takes the ``k``-th
    uniform of ``chance_rng`` (default ``rng``) through its outcome distribution, so two hands
    given equally seeded ``chance_rng`` are dealt the same cards whatever the players do.

    With ``recorder`` (a ``pokerzoo.evaluation.hand_history.HandRecorder``) the finished hand
    is recorded, ``names[s]`` naming the player in seat ``s``.

    Returns:
        Each seat's payoff (``state.returns()``).
    """
    pols: list[StatePolicy] = [as_state_policy(p) for p in seat_policies]
    chance_rng = rng if chance_rng is None else chance_rng
    state: State = game.new_initial_state()
    k = 0
    while not state.is_terminal():
        if state.is_chance_node():
            if deck is not None:
                state.apply_action(int(deck[k]))
            else:
                state.apply_action(sample_action(dict(state.chance_outcomes()), chance_rng))
            k += 1
        else:
            policy = pols[state.current_player()]
            state.apply_action(sample_action(policy.action_probabilities(state), rng))
    if recorder is not None:
        recorder.record(state, names)
    return state.returns()


def _player_names(policies: Sequence[object], names: Sequence[str] | None) -> list[str]:
    """Names of the policies for hand histories: ``names`` if given, else each policy's
    ``name`` attribute or class name, numbered where two would read the same."""
    n = len(policies)
    if names is not None:
        if isinstance(names, str | bytes) or len(names) != n:
            raise ConfigError(f"names must be a sequence of {n} names, one per policy, "
                              f"got {names!r}")
        return [str(name) for name in names]
    found = []
    for p in policies:
        name = getattr(p, "name", None)
        found.append(name if isinstance(name, str) and name else type(p).__name__)
    return [f"{name} {i}" if found.count(name) > 1 else name for i, name in enumerate(found)]


def _mean_ci(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = samples.mean(axis=0)
    if len(samples) < 2:
        return mean, np.full_like(mean, np.inf)
    return mean, Z95 * samples.std(axis=0, ddof=1) / np.sqrt(len(samples))


def match_entropy(seed: int | None, rng: np.random.Generator | None) -> int:
    """The root of a match's per-deal streams: from ``rng`` (one draw) when given, else from
    ``seed`` (``None``: fresh entropy)."""
    if rng is not None:
        return int(rng.integers(2**63))
    return int(np.random.SeedSequence(seed).entropy)  # type: ignore[arg-type]


def deal_rng(entropy: int, deal: int) -> np.random.Generator:
    """Deal ``deal``'s generator: a function of the match's root and the deal's index only,
    so a deal plays the same wherever and in whatever order it is played."""
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(deal,)))


@dataclass(frozen=True)
class MatchSpec:
    """What every piece of a match needs: sent once to each worker of a distributed match."""

    game: Game
    policies: tuple[StatePolicy, ...]
    entropy: int
    duplicate: bool = True


@dataclass(frozen=True)
class DealResults:
    """Deals ``start..stop`` of a match: ``per_deal[d]`` each policy's chips per hand of the
    deal, ``seat_payoffs`` each hand's payoffs by seat, in the order played."""

    start: int
    stop: int
    per_deal: np.ndarray
    seat_payoffs: np.ndarray


def play_deals(
    spec: MatchSpec,
    deals: tuple[int, int],
    recorder: HandRecorder | None = None,
    names: Sequence[str] | None = None,
) -> DealResults:
    """Play deals ``[start, stop)`` of the match ``spec`` (each from its own stream, see
    ``deal_rng``): the piece an evaluation worker runs."""
    start, stop = deals
    game, pols = spec.game, spec.policies
    n = game.num_players
    per_deal = np.zeros((stop - start, n))
    seat_payoffs = []
    for d in range(start, stop):
        rng = deal_rng(spec.entropy, d)
        deal_seed = int(rng.integers(2**63))
        rotations = range(n) if spec.duplicate else [d % n]
        for r in rotations:
            # Policy i sits at seat (i + r) % n.
            seats = [pols[(s - r) % n] for s in range(n)]
            chance_rng = np.random.default_rng(deal_seed)
            seat_names = None if names is None else [names[(s - r) % n] for s in range(n)]
            payoff = play_hand(
                game, seats, rng, chance_rng=chance_rng, recorder=recorder, names=seat_names
            )
            seat_payoffs.append(payoff)
            for i in range(n):
                per_deal[d - start, i] += payoff[(i + r) % n]
        per_deal[d - start] /= len(rotations)
    return DealResults(start, stop, per_deal, np.asarray(seat_payoffs, dtype=np.float64))


def match_result(game: Game, parts: Sequence[DealResults]) -> MatchResult:
    """The ``MatchResult`` of a match from its pieces (in deal order: they must cover the deals
    from 0 once each, which is checked, so no deal is lost or counted twice)."""
    expected = 0
    for part in parts:
        if part.start != expected or len(part.per_deal) != part.stop - part.start:
            raise ConfigError(f"match pieces must cover the deals in order; got deals "
                              f"{part.start}..{part.stop} after {expected}")
        expected = part.stop
    per_deal = np.concatenate([p.per_deal for p in parts])
    seat_totals = np.concatenate([p.seat_payoffs for p in parts])
    mean, ci = _mean_ci(per_deal)
    seat_mean, seat_ci = _mean_ci(seat_totals)
    return MatchResult(
        num_deals=len(per_deal),
        num_hands=len(seat_totals),
        big_blind=game.chip_unit,
        mean_chips=mean,
        ci_chips=ci,
        seat_mean_chips=seat_mean,
        seat_ci_chips=seat_ci,
    )


def head_to_head(
    game: Game | AECGame | EnvSource,
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
    """Play ``policies`` (one per seat, any number of players) against each other.

    Deal ``d`` draws its cards and actions from its own stream (``deal_rng``: the match's root
    and ``d``), so the result is the same to the chip whichever worker plays which deals.

    Args:
        game: any game (hold'em, Kuhn, Leduc, ...), or an AEC env factory (a callable or
            ``"MODULE:FACTORY"``), played through the env's AEC loop
            (``pokerzoo.evaluation.aec_matches``: players then answer
            ``act_probabilities(observation, info)``).
        policies: state policies, agents (their ``policy()`` plays) or callables (see
            ``pokerzoo.policy.as_state_policy``).
        num_deals: number of deck orders; with ``duplicate`` each is played once per rotation
            of the policies (``num_players`` hands per deal), otherwise once with the seats
            rotated from deal to deal.
        seed: seed of the match's streams (ignored when ``rng`` is given).
        rng: a generator the match's root is drawn from (one draw).
        duplicate: duplicate dealing (recommended; it cancels most of the card luck).
        recorder: a ``pokerzoo.evaluation.hand_history.HandRecorder`` that keeps every hand
            played (default: the recorder of an enclosing ``hand_history.recording`` block,
            if any).
        names: the players' names in the recorded hands, one per policy (default: each
            policy's ``name`` attribute, else its class name, numbered where they repeat).
        executor: a ``pokerzoo.parallel.Executor`` that plays ranges of deals on its workers
            (default: all here). Hands are recorded here only.

    Returns:
        The ``MatchResult`` with each policy's and each seat's winnings and 95% CIs.
    """
    from pokerzoo.evaluation.aec_matches import aec_head_to_head, is_env_source

    if is_env_source(game):
        return aec_head_to_head(
            cast(Any, game), policies, num_deals, seed=seed, rng=rng, duplicate=duplicate,
            recorder=recorder, names=names, executor=executor)
    game = cast(Game, game)
    n = game.num_players
    if isinstance(policies, str | bytes) or not isinstance(policies, Sequence):
        raise ConfigError(f"policies must be a sequence of {n} policies, got {policies!r}")
    if len(policies) != n:
        raise ConfigError(f"{game.name} has {n} seats but {len(policies)} policies were given")
    num_deals = count_arg(num_deals, "num_deals")
    seed = seed_arg(seed)
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise ConfigError(f"rng must be a numpy.random.Generator or None, got {rng!r}")
    pols = tuple(as_state_policy(p) for p in policies)
    spec = MatchSpec(game, pols, match_entropy(seed, rng), duplicate)
    if recorder is None:
        recorder = active_recorder()
    if recorder is not None:
        if executor is not None and executor.workers > 1:
            raise ConfigError("hand histories are recorded in this process: record with "
                              "one worker (--workers 1)")
        parts = [play_deals(spec, (0, num_deals), recorder, _player_names(policies, names))]
    else:
        parts = run_map(executor, play_deals, spec, deal_ranges(num_deals, executor))
    return match_result(game, parts)
