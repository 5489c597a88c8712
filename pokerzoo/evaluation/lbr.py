"""Local best response (LBR; Lisy & Bowling, 2017): a lower bound on the exploitability of a
heads-up hold'em policy, for games far too big for an exact best response.

LBR plays real hands against the policy. It keeps the policy's *range* (a weight for each of
the 1,326 hole-card pairs the opponent may hold, updated by Bayes' rule with the policy's own
action probabilities after every opponent action and zeroed for dealt cards) and at each of its
decisions picks greedily, assuming the hand is then checked down:

* ``WP``, its probability of winning at showdown against the range (ties count half), from
  ``wp_samples`` random board completions (exact on the river);
* ``u(call) = WP * pot - (1 - WP) * asked``;
* for each bet/raise option ``b`` (``bet_actions``, the response's betting abstraction):
  ``u(b) = FP * pot + (1 - FP) * (WP * (pot + raise) - (1 - WP) * put)`` with ``FP`` the
  range-weighted probability that the policy folds to ``b``, ``put`` the chips LBR adds and
  ``raise`` the chips the opponent must add to call;
* fold (utility 0) if every option loses, else the best option.

The range is swept at once: a policy that answers ``range_table(state, player)`` (the
``pokerzoo.policy.RangePolicy`` protocol; network policies do it in one forward pass) is asked
once per opponent action and per bet option (kept for the hand: a bet LBR weighed and made
is asked about again when the opponent answers), other policies once per pair; the win
probability over every pair and sampled board comes from one compiled kernel
(``showdown_score``), which evaluates 91 rank pairs per board instead of 1,326 hands (without a
flush a 7-card value depends on the ranks alone) and looks at suits only for flushes.
``reference=True`` keeps the original one-query-per-pair path, which wins the same chips.

Since LBR is one particular response, its average winnings over both seats are a lower bound
(up to sampling error: a 95% CI is returned) on the policy's exploitability
``(BR_0 + BR_1) / 2``.

>>> from pokerzoo.games import load_game
>>> from pokerzoo.policy import UniformRandomPolicy
>>> game = load_game("limit_holdem")
>>> result = local_best_response(game, UniformRandomPolicy(), 2, seed=0, wp_samples=4)
>>> result.num_hands
4
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numba
import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.arguments import count_arg, is_int, seed_arg
from pokerzoo.evaluation.head_to_head import Z95, deal_rng, match_entropy, sample_action
from pokerzoo.games.base import Game
from pokerzoo.games.holdem.arrays import flush_value, popcount13, rank_value
from pokerzoo.games.holdem.cards import evaluate_7
from pokerzoo.games.holdem.game import HoldemGame
from pokerzoo.games.holdem.state import CALL, FOLD, HoldemState
from pokerzoo.parallel import Executor, deal_ranges, run_map
from pokerzoo.policy import RangePolicy, StatePolicy, as_state_policy

COMBOS = np.array([(i, j) for i in range(52) for j in range(i + 1, 52)], dtype=np.int64)
"""The 1,326 hole-card pairs, ``COMBOS[k] = (low card, high card)``."""
_COMBO_LISTS = [[int(a), int(b)] for a, b in COMBOS]
_COMBO_TUPLES = [(int(a), int(b)) for a, b in COMBOS]
_HAS_CARD = np.zeros((52, len(COMBOS)), dtype=bool)
_HAS_CARD[COMBOS[:, 0], np.arange(len(COMBOS))] = True
_HAS_CARD[COMBOS[:, 1], np.arange(len(COMBOS))] = True


@numba.njit(cache=True, nogil=True)
def _board_setup(board: np.ndarray, counts: np.ndarray, table: np.ndarray) -> tuple[int, int]:
    """Ready a five-card board for ``_pair_value``: ``table[r1, r2]`` (``r1 <= r2``) is the
    value of the board with two cards of ranks ``r1`` and ``r2`` and no flush; returns the
    suit with three or more board cards (-1 if none) and that suit's board rank set.

    Without a flush a 7-card value depends on the ranks alone, so 91 evaluations per board
    stand for the 1,326 pairs; only pairs that complete a flush need their suits."""
    for r in range(13):
        counts[r] = 0
    ranks = 0
    suits = np.zeros(4, dtype=np.int64)
    for c in range(5):
        r = board[c] >> 2
        counts[r] += 1
        ranks |= 1 << r
        suits[board[c] & 3] |= 1 << r
    for r1 in range(13):
        counts[r1] += 1
        for r2 in range(r1, 13):
            counts[r2] += 1
            table[r1, r2] = rank_value(counts, ranks | (1 << r1) | (1 << r2))
            counts[r2] -= 1
        counts[r1] -= 1
    for s in range(4):
        if popcount13(suits[s]) >= 3:  # at most one suit of five cards
            return s, suits[s]
    return -1, 0


@numba.njit(cache=True, nogil=True, inline="always")
def _pair_value(a: int, b: int, table: np.ndarray, flush_suit: int, suited: int) -> int:
    """``hand_value`` of cards ``a < b`` with the board ``_board_setup`` readied."""
    ra, rb = a >> 2, b >> 2  # a < b, so ra <= rb
    if flush_suit >= 0:
        if a & 3 == flush_suit:
            suited |= 1 << ra
        if b & 3 == flush_suit:
            suited |= 1 << rb
        if popcount13(suited) >= 5:
            return flush_value(suited)
    return table[ra, rb]


@numba.njit(cache=True, nogil=True)
def showdown_outcomes(hole: np.ndarray, boards: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """``[len(boards), len(pairs)]``: 1 where ``hole`` beats the pair (``low < high``) on the
    five-card board row, 0.5 for a tie, 0 for a loss (pairs sharing a card with a board get
    a value too; callers weight them by zero)."""
    out = np.empty((boards.shape[0], pairs.shape[0]))
    counts = np.zeros(13, dtype=np.int64)
    table = np.zeros((13, 13), dtype=np.int64)
    for b in range(boards.shape[0]):
        flush_suit, suited = _board_setup(boards[b], counts, table)
        mine = _pair_value(min(hole[0], hole[1]), max(hole[0], hole[1]), table, flush_suit,
                           suited)
        for k in range(pairs.shape[0]):
            theirs = _pair_value(pairs[k, 0], pairs[k, 1], table, flush_suit, suited)
            out[b, k] = 1.0 if theirs < mine else (0.5 if theirs == mine else 0.0)
    return out


@numba.njit(cache=True, nogil=True)
def showdown_score(
    hole: np.ndarray, boards: np.ndarray, pairs: np.ndarray, weights: np.ndarray
) -> tuple[float, float]:
    """Summed over the five-card board rows: the weight of the pairs (``low < high``) that
    ``hole`` beats, ties half, and the weight of all pairs; pairs holding a board card or one
    of ``hole`` count on neither side (dealt cards are out of the range)."""
    counts = np.zeros(13, dtype=np.int64)
    table = np.zeros((13, 13), dtype=np.int64)
    lo, hi = min(hole[0], hole[1]), max(hole[0], hole[1])
    score = total = 0.0
    for b in range(boards.shape[0]):
        flush_suit, suited = _board_setup(boards[b], counts, table)
        mine = _pair_value(lo, hi, table, flush_suit, suited)
        dead = (1 << lo) | (1 << hi)
        for c in range(5):
            dead |= 1 << boards[b, c]
        won = seen = 0.0
        for k in range(pairs.shape[0]):
            x, y = pairs[k, 0], pairs[k, 1]
            if dead & ((1 << x) | (1 << y)):
                continue
            w = weights[k]
            seen += w
            theirs = _pair_value(x, y, table, flush_suit, suited)
            if theirs < mine:
                won += w
            elif theirs == mine:
                won += 0.5 * w
        score += won
        total += seen
    return score, total


@dataclass(frozen=True)
class LBRResult:
    """LBR's winnings against the policy: the exploitability lower bound, per hand."""

    num_deals: int
    num_hands: int
    big_blind: float
    """The game's ``chip_unit`` (its big blind)."""
    mean_chips: float
    """LBR's average winnings per hand over both seats (the lower bound, in chips)."""
    ci_chips: float
    """95% confidence half-width of ``mean_chips`` (over deals)."""
    seat_mean_chips: tuple[float, float]
    """LBR's average winnings per hand as seat 0 (button) and as seat 1."""
    aivat_mean_chips: float | None = None
    """With ``aivat=``: LBR's AIVAT-corrected winnings per hand (the same hands)."""
    aivat_ci_chips: float | None = None
    variance_ratio: float | None = None
    """Raw per-deal variance over AIVAT's (``None`` without AIVAT or where AIVAT's is 0)."""

    @property
    def mbb_per_game(self) -> float:
        """The exploitability lower bound in milli-big-blinds per hand."""
        return self.mean_chips * 1000.0 / self.big_blind

    @property
    def mbb_per_game_ci(self) -> float:
        return self.ci_chips * 1000.0 / self.big_blind

    @property
    def bb_per_100(self) -> float:
        return self.mean_chips * 100.0 / self.big_blind

    def deals_to_resolve(self) -> int | None:
        """Deals after which the 95% interval would be narrower than the winnings (so the
        sign, and a ranking against another policy this far apart, holds): the half-width
        shrinks as one over the square root of the deals. ``None`` when it already is, or
        when the winnings are zero."""
        if self.mean_chips == 0 or self.ci_chips < abs(self.mean_chips):
            return None
        return math.ceil(self.num_deals * (self.ci_chips / abs(self.mean_chips)) ** 2)

    def summary(self) -> str:
        """One line: the winnings with their interval, and how many deals would resolve an
        interval wider than the value.

        >>> print(LBRResult(25, 50, 100.0, 30.0, 60.0, (20.0, 40.0)).summary())
        ... # doctest: +NORMALIZE_WHITESPACE
        LBR wins +300 +- 600 mbb/g over 50 hands (25 deals); the interval is wider than the
        value: about 100 deals would resolve it
        """
        text = (f"LBR wins {self.mbb_per_game:+.0f} +- {self.mbb_per_game_ci:.0f} mbb/g over "
                f"{self.num_hands} hands ({self.num_deals} deals)")
        needed = self.deals_to_resolve()
        if needed is not None:
            text += (f"; the interval is wider than the value: about {needed:,} deals would "
                     "resolve it")
        return text

    def __str__(self) -> str:
        return self.summary()


class LocalBestResponse:
    """The LBR player against a fixed ``policy`` in a heads-up hold'em game.

    Args:
        game: ``limit_holdem`` or ``no_limit_holdem`` with ``num_players=2``.
        policy: the evaluated policy (state policy, agent, whose ``policy()`` plays, or
            callable).
        bet_actions: the bet/raise action ids LBR may use (only legal ones are tried); default
            every bet/raise id of the game.
        wp_samples: board completions sampled to estimate the win probability.
        rng: generator for the board samples.
        reference: answer with one policy query and one evaluator call per pair (the
            original implementation, kept to check the batched one against: the same
            decisions, to the chip).
    """

    def __init__(
        self,
        game: Game,
        policy: object,
        bet_actions: Sequence[int] | None = None,
        wp_samples: int = 24,
        rng: np.random.Generator | None = None,
        reference: bool = False,
    ) -> None:
        if not (isinstance(game, Game) and game.game_type.lbr) or game.num_players != 2:
            raise ConfigError(f"LBR needs heads-up limit or no-limit hold'em, got {game!r}")
        self.wp_samples = count_arg(wp_samples, "wp_samples")
        self.game = cast(HoldemGame, game)  # game_type.lbr: a hold'em game
        self.policy: StatePolicy = as_state_policy(policy)
        default = range(2, game.num_distinct_actions)
        if bet_actions is not None and (
            isinstance(bet_actions, str | bytes) or not isinstance(bet_actions, Sequence)
        ):
            raise ConfigError(f"bet_actions must be a sequence of action ids, got {bet_actions!r}")
        self.bet_actions = tuple(default if bet_actions is None else bet_actions)
        bad = [
            a for a in self.bet_actions
            if not (is_int(a) and 2 <= a < game.num_distinct_actions)
        ]
        if bad:
            raise ConfigError(
                f"bet_actions {bad} are not bet/raise ids of {game.name} "
                f"(2..{game.num_distinct_actions - 1})"
            )
        self.bet_actions = tuple(int(a) for a in self.bet_actions)
        self.rng = rng if rng is not None else np.random.default_rng()
        self.aivat: object = None  # a value function: record the policy's probabilities
        self.known: dict[int, dict[int, float]] = {}
        self.last_history: list[int] = []
        self.reference = bool(reference)
        self._tables: dict[tuple[int, ...], np.ndarray] = {}  # this hand's range tables

    # -------------------------------------------------------------- range bookkeeping

    @staticmethod
    def initial_range() -> np.ndarray:
        return np.ones(len(COMBOS))

    @staticmethod
    def remove_card(weights: np.ndarray, card: int) -> None:
        """Zero the pairs holding a dealt (or LBR-held) card."""
        weights[_HAS_CARD[card]] = 0.0

    def range_probabilities(
        self, state: HoldemState, opponent: int, action: int, active: np.ndarray
    ) -> np.ndarray:
        """The probability of ``action`` at ``state`` for each pair ``active`` the opponent
        may hold: one ``range_table`` query for a ``RangePolicy``, else one query per pair."""
        if isinstance(self.policy, RangePolicy) and not self.reference:
            # A bet LBR weighed (its fold probability) and then made is asked about again
            # when the opponent answers it: one table per state of the hand.
            key = (opponent, *state.history())
            table = self._tables.get(key)
            if table is None:
                table = self._tables[key] = np.asarray(self.policy.range_table(state, opponent))
            return table[active, action]
        probe = state.clone()
        probs = np.empty(len(active))
        for j, k in enumerate(active):
            probe.replace_private_cards(opponent, _COMBO_LISTS[k])
            probs[j] = self.policy.action_probabilities(probe).get(action, 0.0)
        return probs

    def observe_opponent(
        self, state: HoldemState, opponent: int, action: int, weights: np.ndarray
    ) -> None:
        """Bayes update of the range after the opponent plays ``action`` at ``state``."""
        active = np.flatnonzero(weights)
        weights[active] *= self.range_probabilities(state, opponent, action, active)
        total = weights.sum()
        if total > 0:
            weights /= total  # renormalise: long hands would otherwise underflow

    # -------------------------------------------------------------- the response

    def win_probability(self, state: HoldemState, me: int, weights: np.ndarray) -> float:
        """Showdown win probability (ties half) of ``me`` against the range, checked down."""
        hole = state.private_cards()[me]
        board = state.public_state()["public_cards"]
        active = np.flatnonzero(weights)
        w = weights[active]
        need = 5 - len(board)
        dead = set(hole) | set(board)
        rest = np.array([c for c in range(52) if c not in dead])
        samples = 1 if need == 0 else self.wp_samples
        if self.reference:
            # The completions are drawn first, so both paths read one stream.
            extras = [[int(c) for c in self.rng.choice(rest, size=need, replace=False)]
                      for _ in range(samples)]
            outcomes = [self._outcomes_loop(hole, board + extra, active) for extra in extras]
            score = total = 0.0
            for extra, outcome in zip(extras, outcomes, strict=True):
                ok = w * ~np.any(_HAS_CARD[extra], axis=0)[active] if extra else w
                score += float(ok @ outcome)
                total += float(ok.sum())
        else:
            # Drawing positions in ``rest`` reads the stream as drawing from ``rest`` does
            # (``Generator.choice`` shuffles indices either way), without its array overhead.
            draws = [self.rng.choice(len(rest), size=need, replace=False)
                     for _ in range(samples)]
            fulls = np.empty((samples, 5), dtype=np.int64)
            fulls[:, :len(board)] = board
            fulls[:, len(board):] = rest[np.array(draws, dtype=np.int64).reshape(samples, need)]
            score, total = showdown_score(np.array(hole, dtype=np.int64), fulls,
                                          COMBOS[active], w)
        return score / total if total > 0 else 0.5

    @staticmethod
    def _outcomes_loop(hole: Sequence[int], full: Sequence[int], active: np.ndarray) -> np.ndarray:
        """Reference of ``showdown_outcomes`` for one board: one evaluator call per pair."""
        mine = evaluate_7(*hole, *full)
        b0, b1, b2, b3, b4 = full
        ev = evaluate_7
        ranks = np.array([ev(a, b, b0, b1, b2, b3, b4) for a, b in (_COMBO_TUPLES[k]
                                                                    for k in active)])
        return (ranks > mine) + 0.5 * (ranks == mine)

    def fold_probability(self, child: HoldemState, opponent: int, weights: np.ndarray) -> float:
        """Range-weighted probability that the opponent folds at ``child``."""
        if child.current_player() != opponent:
            return 0.0
        active = np.flatnonzero(weights)
        folds = self.range_probabilities(child, opponent, FOLD, active)
        w = weights[active]
        return float(w @ folds / w.sum())

    def action(self, state: HoldemState, weights: np.ndarray) -> int:
        """LBR's action at ``state`` given the opponent's range ``weights``."""
        me = state.current_player()
        opp = 1 - me
        legal = state.legal_actions()
        ps = state.public_state()
        pot = ps["pot"]
        my_bet, opp_bet = ps["round_bets"][me], ps["round_bets"][opp]
        opp_total = opp_bet + ps["stacks"][opp]
        wp = self.win_probability(state, me, weights)
        asked = min(state.amount_to_call(), ps["stacks"][me])
        best, best_u = CALL, wp * pot - (1.0 - wp) * asked
        for b in self.bet_actions:
            if b not in legal:
                continue
            to = min(state.raise_to_amount(b), opp_total)  # chips beyond a call come back
            put, raise_ = to - my_bet, to - opp_bet
            child = state.clone()
            child.apply_action(b)
            fp = self.fold_probability(child, opp, weights)
            u = fp * pot + (1.0 - fp) * (wp * (pot + raise_) - (1.0 - wp) * put)
            if u > best_u:
                best, best_u = b, u
        if best_u < 0 and FOLD in legal:
            return FOLD
        return best

    def play(
        self, seat: int, deck: Sequence[int] | np.ndarray, rng: np.random.Generator
    ) -> float:
        """Play one hand with LBR in ``seat``; returns LBR's payoff in chips."""
        state = self.game.new_initial_state()
        weights = self.initial_range()
        self._tables = {}
        opp, k = 1 - seat, 0
        while not state.is_terminal():
            p = state.current_player()
            if p < 0:
                card = int(deck[k])
                k += 1
                state.apply_action(card)
                if k > 4 or k in (2 * seat + 1, 2 * seat + 2):
                    self.remove_card(weights, card)  # LBR's own or a board card
            elif p == seat:
                state.apply_action(self.action(state, weights))
            else:
                dist = self.policy.action_probabilities(state)
                a = sample_action(dist, rng)
                if self.aivat is not None:
                    self.known[len(state.history())] = dict(dist)
                self.observe_opponent(state, opp, a, weights)
                state.apply_action(a)
        self.last_history = state.history()
        return state.returns()[seat]

    def aivat_score(self, seat: int, value: object) -> float:
        """LBR's AIVAT score of the hand just played in ``seat``: chance and the policy's
        decisions corrected (LBR's own are pure: their terms are zero)."""
        from pokerzoo.evaluation.aivat import score_hand

        history = self.last_history
        probs = [self.known.get(step) for step in range(len(history))]
        return float(score_hand(self.game, history, value, probs).corrected[seat])  # type: ignore[arg-type]


@dataclass(frozen=True)
class LBRSpec:
    """What every piece of an LBR run needs (sent once to each worker)."""

    game: HoldemGame
    policy: StatePolicy
    bet_actions: tuple[int, ...]
    wp_samples: int
    entropy: int
    reference: bool = False
    aivat: object = None


def lbr_deals(spec: LBRSpec, deals: tuple[int, int]) -> np.ndarray:
    """LBR's winnings ``[stop - start, 2]`` (as seat 0 and seat 1) on deals ``[start, stop)``;
    deal ``d`` draws its deck, the policy's actions and LBR's board samples from its own
    stream, so the result does not depend on which worker plays it."""
    start, stop = deals
    lbr = LocalBestResponse(spec.game, spec.policy, spec.bet_actions, spec.wp_samples,
                            reference=spec.reference)
    lbr.aivat = spec.aivat
    wins = np.zeros((stop - start, 2 if spec.aivat is None else 4))
    for d in range(start, stop):
        rng = deal_rng(spec.entropy, d)
        lbr.rng = rng
        deck = rng.permutation(52)
        for seat in (0, 1):
            lbr.known = {}
            wins[d - start, seat] = lbr.play(seat, deck, rng)
            if spec.aivat is not None:
                wins[d - start, 2 + seat] = lbr.aivat_score(seat, spec.aivat)
    return wins


def local_best_response(
    game: Game,
    policy: object,
    num_deals: int,
    *,
    seed: int | None = None,
    rng: np.random.Generator | None = None,
    bet_actions: Sequence[int] | None = None,
    wp_samples: int = 24,
    executor: Executor | None = None,
    reference: bool = False,
    aivat: object = None,
) -> LBRResult:
    """Estimate a lower bound on ``policy``'s exploitability by playing LBR against it.

    Each deal (a deck order) is played twice, LBR in each seat (duplicate dealing), from the
    deal's own stream (``head_to_head.deal_rng``).

    Args:
        game: heads-up ``limit_holdem`` or ``no_limit_holdem``.
        policy: the policy to evaluate (state policy, agent, whose ``policy()`` plays, or
            callable), playing both seats' role.
        num_deals: number of deck orders (``2 * num_deals`` hands).
        seed: seed of the run's streams (ignored when ``rng`` is given).
        rng: a generator the run's root is drawn from (one draw).
        bet_actions: bet/raise ids LBR may use (its betting abstraction); default all.
        wp_samples: board completions per win-probability estimate.
        executor: a ``pokerzoo.parallel.Executor`` whose workers play ranges of deals
            (default: all here); the result is the same to the chip.
        reference: play with the original per-pair implementation (one policy query and
            one hand evaluation per pair; slow, the same winnings to the chip).
        aivat: a value function (``pokerzoo.evaluation.aivat.ValueFunction``, e.g.
            ``holdem_values.CheckDownValues(game)``): the same hands are also scored by AIVAT,
            chance and the policy's decisions corrected (its strategy is known; LBR's own
            choices are pure, so their terms vanish).

    Returns:
        An ``LBRResult``; ``mbb_per_game`` is the lower bound and ``mbb_per_game_ci`` its
        95% half-width.
    """
    num_deals = count_arg(num_deals, "num_deals")
    seed = seed_arg(seed)
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise ConfigError(f"rng must be a numpy.random.Generator or None, got {rng!r}")
    lbr = LocalBestResponse(game, policy, bet_actions, wp_samples)  # checks the arguments
    spec = LBRSpec(lbr.game, lbr.policy, lbr.bet_actions, lbr.wp_samples,
                   match_entropy(seed, rng), bool(reference), aivat)
    parts = run_map(executor, lbr_deals, spec, deal_ranges(num_deals, executor))
    scored = np.concatenate(parts)
    if len(scored) != num_deals:
        raise ConfigError(f"LBR pieces returned {len(scored)} deals, expected {num_deals}")
    wins = scored[:, :2]
    per_deal = wins.mean(axis=1)
    ci = Z95 * per_deal.std(ddof=1) / np.sqrt(num_deals) if num_deals > 1 else float("inf")
    corrected: dict[str, float | None] = {}
    if aivat is not None:
        per_deal_aivat = scored[:, 2:].mean(axis=1)
        raw_var = float(per_deal.var(ddof=1)) if num_deals > 1 else 0.0
        aivat_var = float(per_deal_aivat.var(ddof=1)) if num_deals > 1 else 0.0
        corrected = {
            "aivat_mean_chips": float(per_deal_aivat.mean()),
            "aivat_ci_chips": (Z95 * math.sqrt(aivat_var / num_deals) if num_deals > 1
                               else float("inf")),
            "variance_ratio": raw_var / aivat_var if aivat_var > 0 else None,
        }
    return LBRResult(
        num_deals=num_deals,
        num_hands=2 * num_deals,
        big_blind=game.chip_unit,
        mean_chips=float(per_deal.mean()),
        ci_chips=float(ci),
        seat_mean_chips=(float(wins[:, 0].mean()), float(wins[:, 1].mean())),
        **corrected,
    )
