"""Exact scores of an outside player on the small games (Kuhn with 2 or 3 players, Leduc and the
Leduc family): every information state asked ``k`` times, the answers tabularised, NashConv and
exploitability computed exactly on the game tree.

The player is asked once per information state and sample (``ask_many``: an endpoint player
answers them concurrently), never once per history, so Leduc costs 936 x k questions. Its table
is the mean of its k answers at each state: the policy it plays, as far as k samples show it.
The interval is a bootstrap over those samples: each replicate redraws, at every information
state independently, k of the k answers with replacement (the states were asked independently).
NashConv of a table estimated from few samples is biased upward (a noisy table is easier to
exploit than the policy behind it), and the replicates, noisier still, more so; the default
interval is therefore the *basic* bootstrap interval, ``[2 x - q97.5, 2 x - q2.5]`` around the
estimate ``x`` (clipped at 0), which reflects that bias back. On uniform play asked k = 10 or 30
times it covered the true NashConv in 95% of 40 repetitions on Leduc and 88-93% on Kuhn, where
the percentile interval ``[q2.5, q97.5]`` (``interval="percentile"``) covered 28-55% on Leduc.
A deterministic player (k = 1, or k answers all equal) has an interval of zero width.

Chips come two ways from the same table, so no question is asked twice: the exact expected
chips per hand against each reference (CFR+ near equilibrium, the uniform player), averaged over
the seats, and a duplicate-dealt match with seats rotated (``pokerzoo.evaluation.head_to_head``),
the number chip-based benchmarks report, with its 95% interval.

>>> from pokerzoo import load_game
>>> def always_pass(decision, sample):  # check, or fold to a bet
...     return decision.legal[0].action
>>> report = judge_game(load_game("kuhn_poker"), always_pass, hands=0, progress=False)
>>> report.queries, report.nash_conv, report.nash_conv_ci
(12, 2.0, (2.0, 2.0))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pokerzoo.agents.registry import make_agent
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation import expected_values, head_to_head, nash_conv, to_milli_big_blinds
from pokerzoo.games.base import Game, check_int
from pokerzoo.judge.decision import Decision, describe
from pokerzoo.judge.protocol import Reply, ask_many, check_fallback
from pokerzoo.tree import build
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.tree.tabular_policy import TabularPolicy

SMALL_GAMES = ("kuhn_poker", "leduc_holdem")
"""Game families judged exactly (their trees fit: every information state is asked)."""

INTERVALS = ("basic", "percentile")
"""Bootstrap intervals ``judge_game`` offers (see the module)."""

REFERENCES = ("cfr+", "uniform")
"""The reference players chips are measured against."""


@dataclass(frozen=True)
class StateRow:
    """One information state of the per-state table."""

    key: str
    player: int
    labels: tuple[str, ...]
    strategy: tuple[float, ...]
    """The player's mean answer over its k samples, one entry per label."""
    spread: tuple[float, ...]
    """Standard deviation of the k answers, per label (0 for a deterministic player)."""
    equilibrium: tuple[float, ...]
    """CFR+'s strategy at the state (near a Nash equilibrium)."""
    illegal: int
    fallbacks: int

    def to_json(self) -> dict[str, Any]:
        return {"info_state": self.key, "player": self.player, "actions": list(self.labels),
                "strategy": list(self.strategy), "spread": list(self.spread),
                "equilibrium": list(self.equilibrium), "illegal_answers": self.illegal,
                "fallbacks": self.fallbacks}


@dataclass(frozen=True)
class VersusResult:
    """Chips per hand won by the judged player against one reference (all seats averaged)."""

    reference: str
    exact_chips: float
    match_chips: float | None
    match_ci: float | None
    hands: int

    def to_json(self) -> dict[str, Any]:
        return {"reference": self.reference, "exact_chips": self.exact_chips,
                "match_chips": self.match_chips, "match_ci95": self.match_ci,
                "hands": self.hands}


@dataclass(frozen=True)
class JudgeReport:
    """What ``judge_game`` measured (chips in the game's unit; ``*_ci``: 95% intervals)."""

    game: str
    num_players: int
    samples: int
    nash_conv: float
    nash_conv_ci: tuple[float, float]
    exploitability: float
    exploitability_ci: tuple[float, float]
    chip_unit: float
    queries: int
    requests: int
    cache_hits: int
    illegal_answers: int
    fallbacks: int
    prompt_tokens: int
    completion_tokens: int
    fallback_rule: str
    reference_nash_conv: float
    versus: tuple[VersusResult, ...]
    rows: tuple[StateRow, ...] = field(repr=False)
    policy: TabularPolicy = field(repr=False)

    @property
    def exploitability_mbb(self) -> float:
        """Exploitability in milli-big-blinds (milli-antes on Kuhn and Leduc) per hand."""
        return to_milli_big_blinds(self.exploitability, self.chip_unit)

    def to_json(self, rows: bool = True) -> dict[str, Any]:
        """The report as JSON-able data (``evaluate.py --policy ... --json``)."""
        data: dict[str, Any] = {
            "game": self.game, "num_players": self.num_players, "samples": self.samples,
            "nash_conv": self.nash_conv, "nash_conv_ci": list(self.nash_conv_ci),
            "exploitability": self.exploitability,
            "exploitability_ci": list(self.exploitability_ci),
            "exploitability_mbb": self.exploitability_mbb,
            "queries": self.queries, "requests": self.requests, "cache_hits": self.cache_hits,
            "illegal_answers": self.illegal_answers, "fallbacks": self.fallbacks,
            "fallback_rule": self.fallback_rule,
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "reference_nash_conv": self.reference_nash_conv,
            "versus": [v.to_json() for v in self.versus],
        }
        if rows:
            data["states"] = [r.to_json() for r in self.rows]
        return data

    def summary(self) -> str:
        """A few readable lines."""
        low, high = self.exploitability_ci
        lines = [
            f"{self.game}: NashConv {self.nash_conv:.6g} (95% {self.nash_conv_ci[0]:.6g} .. "
            f"{self.nash_conv_ci[1]:.6g}), exploitability {self.exploitability:.6g} chips "
            f"({self.exploitability_mbb:.1f} mbb/g; 95% {low:.6g} .. {high:.6g})",
            f"{self.queries} questions ({self.samples} per information state), "
            f"{self.requests} requests, {self.cache_hits} cache hits, "
            f"{self.illegal_answers} illegal answers, {self.fallbacks} fallbacks "
            f"({self.fallback_rule})",
        ]
        for v in self.versus:
            match = (f", match {v.match_chips:+.4f} +- {v.match_ci:.4f} over {v.hands} hands"
                     if v.match_chips is not None and v.match_ci is not None else "")
            lines.append(f"versus {v.reference}: exact {v.exact_chips:+.4f} chips/hand{match}")
        return "\n".join(lines)

    def markdown(self) -> str:
        """The report with its per-state table, in Markdown."""
        out = ["# Judge report: " + self.game, "", "```", self.summary(), "```", "",
               "| information state | player | actions | player's strategy | spread | "
               "CFR+ | illegal | fallbacks |", "|---|---|---|---|---|---|---|---|"]
        for r in self.rows:
            def fmt(values: Sequence[float]) -> str:
                return " / ".join(f"{v:.3f}" for v in values)
            out.append(f"| `{r.key}` | {r.player} | {' / '.join(r.labels)} | "
                       f"{fmt(r.strategy)} | {fmt(r.spread)} | {fmt(r.equilibrium)} | "
                       f"{r.illegal} | {r.fallbacks} |")
        return "\n".join(out) + "\n"


def check_small_game(game: Game) -> None:
    """Refuse a game the exact judge cannot visit whole, naming those it can."""
    if not isinstance(game, Game):
        raise ConfigError(f"the judge takes a pokerzoo Game, got {game!r}")
    if game.name.split("(")[0] not in SMALL_GAMES:
        raise ConfigError(f"exact judging needs a small game ({', '.join(SMALL_GAMES)}, any "
                          f"parameters), got {game.name}; judge hold'em on solved spots "
                          "(pokerzoo.judge.spots)")


def _reference(game: Game, tree: GameTree, iterations: int) -> TabularPolicy:
    solver = make_agent("cfr+", game)
    solver.iterate(iterations)
    return solver.policy()


def seat_values(tree: GameTree, policy: np.ndarray, reference: np.ndarray) -> float:
    """Exact chips per hand of ``policy`` against ``reference`` in every other seat, averaged
    over the seats it can take."""
    values = []
    for seat in range(tree.num_players):
        mixed = reference.copy()
        rows = tree.infoset_player == seat
        mixed[rows] = policy[rows]
        values.append(float(expected_values(tree, mixed)[seat]))
    return float(np.mean(values))


def bootstrap_nash_conv(tree: GameTree, samples: np.ndarray, replicates: int,
                        rng: np.random.Generator) -> np.ndarray:
    """NashConv of ``replicates`` bootstrap tables from ``samples[k, n_infosets, n_actions]``."""
    k, n, _ = samples.shape
    if k == 1 or np.all(samples == samples[:1]):
        return np.full(1, nash_conv(tree, samples.mean(axis=0)))
    columns = np.arange(n)
    values = np.empty(replicates)
    for b in range(replicates):
        # One compiled best response per replicate; the redraw itself is one vector operation.
        draw = rng.integers(0, k, size=(k, n))
        values[b] = nash_conv(tree, samples[draw, columns].mean(axis=0))
    return values


def _ask_all(player: Any, decisions: Sequence[Decision], samples: int, fallback: str,
             progress: bool, chunk: int) -> list[list[Reply]]:
    requests = [(d, s) for s in range(samples) for d in decisions]
    replies: list[Reply] = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(requests), desc="judging", unit="question")
    try:
        for start in range(0, len(requests), chunk):
            batch = ask_many(player, requests[start:start + chunk], fallback=fallback)
            replies.extend(batch)
            if bar is not None:
                bar.update(len(batch))
                bar.set_postfix(requests=sum(r.requests for r in replies),
                                cached=sum(r.cached for r in replies),
                                tokens=sum(r.prompt_tokens + r.completion_tokens
                                           for r in replies), refresh=False)
    finally:
        if bar is not None:
            bar.close()
    n = len(decisions)
    return [replies[s * n:(s + 1) * n] for s in range(samples)]


def judge_game(game: Game, player: Any, *, samples: int = 1, fallback: str = "check-fold",
               hands: int = 2_000, seed: int = 0, references: Sequence[str] = REFERENCES,
               reference_iterations: int = 5_000, bootstrap: int = 1_000,
               interval: str = "basic", progress: bool = True, chunk: int = 64) -> JudgeReport:
    """Ask ``player`` every information state of ``game`` ``samples`` times and score it exactly.

    Args:
        game: Kuhn (2 or 3 players), Leduc or a Leduc-family game.
        player: an outside player (``pokerzoo.judge.protocol``): a callable
            ``(decision, sample)``, or an object with ``decide`` (and ``decide_many``).
        samples: k, the questions per information state (1 for a deterministic player).
        fallback: the declared answer to a decision answered badly twice (``FALLBACKS``).
        hands: deals of each duplicate match against each reference (0: exact chips only);
            each deal is played once per seat rotation.
        seed: seed of the matches and of the bootstrap.
        references: the players chips are measured against: ``"cfr+"`` (CFR+ after
            ``reference_iterations`` iterations) and ``"uniform"``.
        bootstrap: bootstrap replicates of the interval.
        interval: ``"basic"`` (bias-reflecting, the default) or ``"percentile"`` bootstrap.
        progress: show a tqdm bar with questions, requests, cache hits and tokens.
        chunk: questions handed to the player at once (its concurrency works within one).

    Raises:
        ConfigError: a game that is not small, a bad count, an unknown reference or fallback.
        PlayerError: the player failed (raised, exited, hung, refused).
    """
    check_small_game(game)
    samples = check_int("samples", samples, 1)
    hands = check_int("hands", hands, 0)
    bootstrap = check_int("bootstrap", bootstrap, 1)
    check_int("chunk", chunk, 1)
    check_fallback(fallback)
    if interval not in INTERVALS:
        raise ConfigError(f"interval must be one of {list(INTERVALS)}, got {interval!r}")
    unknown = sorted(set(references) - set(REFERENCES))
    if unknown:
        raise ConfigError(f"unknown reference(s) {unknown}; choose from {list(REFERENCES)}")
    check_game = getattr(player, "check_game", None)
    if callable(check_game):
        check_game(game)  # a player of another game's rules is refused before any question
    tree = build(game)
    decisions = [describe(tree.infoset_state(i)) for i in range(tree.num_infosets)]
    answers = _ask_all(player, decisions, samples, fallback, progress, chunk)
    n_actions = tree.infoset_mask.shape[1]
    table = np.zeros((samples, tree.num_infosets, n_actions))
    for s, replies in enumerate(answers):
        for i, reply in enumerate(replies):
            for action, p in reply.probs.items():
                table[s, i, action] = p
    mean = table.mean(axis=0)
    policy = TabularPolicy.from_tree(tree, mean)
    rng = np.random.default_rng(seed)
    value = nash_conv(tree, policy)
    replicates = bootstrap_nash_conv(tree, table, bootstrap, rng)
    q_low, q_high = (float(np.quantile(replicates, 0.025)),
                     float(np.quantile(replicates, 0.975)))
    if interval == "basic":
        q_low, q_high = max(0.0, 2 * value - q_high), max(0.0, 2 * value - q_low)
    low, high = min(q_low, value), max(q_high, value)
    players = tree.num_players
    reference = _reference(game, tree, reference_iterations)
    reference_probs = np.asarray(reference.aligned_to(tree))
    versus = []
    for name in references:
        opponent = reference_probs if name == "cfr+" else TabularPolicy.uniform(tree).probs
        exact = seat_values(tree, mean, np.asarray(opponent))
        match_chips = match_ci = None
        if hands:
            seats = [policy] + [TabularPolicy.from_tree(tree, np.asarray(opponent))] * (
                players - 1)
            result = head_to_head(game, seats, hands, seed=seed, duplicate=True)
            match_chips = float(result.mean_chips[0])
            match_ci = float(result.ci_chips[0])
        versus.append(VersusResult(name, exact, match_chips, match_ci,
                                   hands * players if hands else 0))
    flat = [r for replies in answers for r in replies]
    rows = _rows(tree, decisions, table, reference_probs, answers)
    return JudgeReport(
        game=game.name, num_players=players, samples=samples, nash_conv=value,
        nash_conv_ci=(low, high), exploitability=value / players,
        exploitability_ci=(low / players, high / players), chip_unit=game.chip_unit,
        queries=len(flat), requests=sum(r.requests for r in flat),
        cache_hits=sum(r.cached for r in flat), illegal_answers=sum(r.illegal for r in flat),
        fallbacks=sum(r.fallback for r in flat),
        prompt_tokens=sum(r.prompt_tokens for r in flat),
        completion_tokens=sum(r.completion_tokens for r in flat), fallback_rule=fallback,
        reference_nash_conv=nash_conv(tree, reference), versus=tuple(versus),
        rows=rows, policy=policy)


def _rows(tree: GameTree, decisions: Sequence[Decision], table: np.ndarray,
          reference: np.ndarray, answers: list[list[Reply]]) -> tuple[StateRow, ...]:
    mean = table.mean(axis=0)
    spread = table.std(axis=0)
    rows = []
    for i, decision in enumerate(decisions):
        actions = list(decision.actions)
        replies = [answers[s][i] for s in range(len(answers))]
        rows.append(StateRow(
            key=decision.key, player=decision.player,
            labels=tuple(a.label for a in decision.legal),
            strategy=tuple(float(mean[i, a]) for a in actions),
            spread=tuple(float(spread[i, a]) for a in actions),
            equilibrium=tuple(float(reference[i, a]) for a in actions),
            illegal=sum(r.illegal for r in replies), fallbacks=sum(r.fallback for r in replies)))
    return tuple(rows)


def queries_per_game(game: Game, samples: int = 1) -> int:
    """Questions ``judge_game`` asks: information states x samples (the cost of a run)."""
    check_small_game(game)
    return build(game).num_infosets * check_int("samples", samples, 1)
