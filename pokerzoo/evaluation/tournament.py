"""Tournaments: every pairing of a field of policies as one table, and each entrant's score.

``run_tournament(game, entrants)`` pairs every two entrants of a two-player game:

* where a compiled tree is given (Kuhn, Leduc), pairwise values are *exact* (expected chips
  with the two seats averaged, ``pokerzoo.runs.reports.pairing_matrix``) and the CIs are 0;
* otherwise each pairing is a duplicate match (``head_to_head``: every deal is played with the
  seats swapped), so the cell is seat-balanced and has a 95% CI over deals.

Cell ``[i, j]`` is entrant ``i``'s winnings against entrant ``j`` in milli-big-blinds per game
(the game's ``chip_unit``). One match fills both ``[i, j]`` and ``[j, i]`` with the two players'
results of the same hands, so in a zero-sum game the table is antisymmetric (``M = -M.T``, the
CIs symmetric) by construction; ``max_asymmetry`` reports how far it is from that.

``game`` may also be an AEC env factory (a callable or ``"MODULE:FACTORY"``): every pairing is
then a duplicate match through the env's AEC loop (``pokerzoo.evaluation.aec_matches``: entrants
answer ``act_probabilities(observation, info)``), in thousandths of the env's reward per hand,
and entrants have no score.

Each entrant is also scored on its own: exact exploitability on the tree, else a local best
response (heads-up hold'em, ``lbr_deals > 0``), else not at all.

>>> from pokerzoo import load_game
>>> from pokerzoo.evaluation.opponents import make_opponent
>>> game = load_game("kuhn_poker")
>>> field = [Entrant(n, make_opponent(n, game)) for n in ("random", "always-call")]
>>> t = run_tournament(game, field, num_deals=200, seed=0)
>>> t.names, t.method, bool((t.mean_mbb == -t.mean_mbb.T).all())
(('random', 'always-call'), 'sampled', True)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.aec_matches import AECGame, EnvSource, aec_game, is_env_source
from pokerzoo.evaluation.arguments import count_arg, seed_arg
from pokerzoo.evaluation.exact import tabularize, to_milli_big_blinds
from pokerzoo.evaluation.hand_history import active_recorder
from pokerzoo.evaluation.head_to_head import (
    DealResults,
    MatchSpec,
    head_to_head,
    match_entropy,
    match_result,
    play_deals,
)
from pokerzoo.evaluation.pairings import pairing_matrix
from pokerzoo.evaluation.scores import ExactScores
from pokerzoo.games.base import Game
from pokerzoo.parallel import Executor, deal_ranges
from pokerzoo.policy import as_state_policy
from pokerzoo.tree.game_tree import GameTree
from pokerzoo.tree.tabular_policy import TabularPolicy

KINDS = ("run", "builtin", "policy")
"""What an entrant is: a trained run, a built-in opponent, or any other policy."""


@dataclass(frozen=True)
class Entrant:
    """One player of a tournament: a name and what plays (a state policy, an agent whose
    ``policy()`` plays, a ``TabularPolicy`` or a callable)."""

    name: str
    policy: object
    kind: str = "policy"
    info: Mapping[str, Any] = field(default_factory=dict)
    """Free JSON-able facts shown with the entrant (e.g. the run's agent and folder)."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ConfigError(f"an entrant's name must be a non-empty string, got {self.name!r}")
        if self.kind not in KINDS:
            raise ConfigError(f"entrant kind must be one of {KINDS}, got {self.kind!r}")


@dataclass(frozen=True)
class Score:
    """An entrant's own measure: its exploitability in mbb/g (an LBR lower bound when
    ``method == "lbr"``), with a 95% half-width (0 when exact)."""

    method: str
    """``"exact"`` (best response on the tree) or ``"lbr"`` (local best response)."""
    exploitability_mbb: float
    ci_mbb: float
    nash_conv: float | None = None
    """NashConv in chips (exact only)."""
    chips: float | None = None
    """The exploitability in chips per game (exact only)."""
    hands: int | None = None
    """Hands LBR played (LBR only)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "exploitability_mbb_per_game": float(self.exploitability_mbb),
            "ci95_mbb": float(self.ci_mbb),
            **({"nash_conv": float(self.nash_conv)} if self.nash_conv is not None else {}),
            **({"exploitability": float(self.chips)} if self.chips is not None else {}),
            **({"hands": int(self.hands)} if self.hands is not None else {}),
        }

    def text(self) -> str:
        if self.method == "exact":
            return f"{self.exploitability_mbb:.4g}"
        return f">= {self.exploitability_mbb:.0f} +- {self.ci_mbb:.0f} (LBR)"


@dataclass(frozen=True)
class Tournament:
    """The table of a tournament. ``mean_mbb[i, j]``: entrant ``i``'s winnings against ``j``
    in mbb/g, seats averaged; ``ci_mbb[i, j]``: its 95% half-width (0 when exact)."""

    game: str
    names: tuple[str, ...]
    kinds: tuple[str, ...]
    infos: tuple[Mapping[str, Any], ...]
    mean_mbb: np.ndarray
    ci_mbb: np.ndarray
    method: str
    """``"exact"`` (expected values on the tree) or ``"sampled"`` (duplicate matches)."""
    hands_per_pairing: int
    """Hands each sampled pairing played (0 when exact)."""
    chip_unit: float
    scores: tuple[Score | None, ...]
    aivat_mbb: np.ndarray | None = None
    """Sampled tournaments scored with AIVAT (``run_tournament(aivat=...)``): the corrected
    ``mean_mbb``; ``None`` otherwise."""
    aivat_ci_mbb: np.ndarray | None = None
    variance_ratio: np.ndarray | None = None
    """Per pairing: the raw per-deal variance over AIVAT's (inf where AIVAT's is zero)."""

    @property
    def size(self) -> int:
        return len(self.names)

    @property
    def field_mean_mbb(self) -> np.ndarray:
        """Each entrant's average winnings against the rest of the field (mbb/g)."""
        n = self.size
        if n < 2:
            return np.zeros(n)
        return (self.mean_mbb.sum(axis=1) - np.diag(self.mean_mbb)) / (n - 1)

    @property
    def field_ci_mbb(self) -> np.ndarray:
        """95% half-width of ``field_mean_mbb`` (the pairings are independent matches)."""
        n = self.size
        if n < 2:
            return np.zeros(n)
        off = ~np.eye(n, dtype=bool)
        return np.sqrt(np.where(off, self.ci_mbb**2, 0.0).sum(axis=1)) / (n - 1)

    @property
    def max_asymmetry(self) -> float:
        """``max |M + M.T|`` in mbb/g: 0 (up to rounding) in zero-sum games."""
        return float(np.abs(self.mean_mbb + self.mean_mbb.T).max()) if self.size else 0.0

    def ranking(self) -> list[int]:
        """Entrant indices, best average against the field first."""
        return [int(i) for i in np.argsort(-self.field_mean_mbb, kind="stable")]

    def format(self, max_name: int = 24) -> str:
        """The table as text: one row per entrant (best first by the field average), columns
        numbered as the rows, then the field average and the entrant's own score."""
        order = self.ranking()
        exact = self.method == "exact"
        short = [_shorten(self.names[i], max_name) for i in order]
        name_w = max([len(s) for s in short] + [5]) + 4

        def cell(i: int, j: int) -> str:
            if i == j:
                return "."
            m, h = self.mean_mbb[i, j], self.ci_mbb[i, j]
            return f"{m:+.1f}" if exact else f"{m:+.0f}+-{h:.0f}"

        cells = [[cell(i, j) for j in order] for i in order]
        field_cells = [
            "-" if self.size < 2
            else f"{self.field_mean_mbb[i]:+.1f}" if exact
            else f"{self.field_mean_mbb[i]:+.0f}+-{self.field_ci_mbb[i]:.0f}"
            for i in order
        ]
        col_w = max([len(c) for row in cells for c in row] + [len(str(self.size)) + 1, 4]) + 2
        field_w = max([len(c) for c in field_cells] + [len("vs field")]) + 2
        how = "exact expected values" if exact else (
            f"duplicate matches, {self.hands_per_pairing} hands per pairing, 95% CI"
        )
        lines = [
            f"Tournament on {self.game}: row's winnings against column, mbb/g, seats "
            f"balanced ({how})",
            " " * name_w + "".join(f"{k + 1:>{col_w}}" for k in range(self.size))
            + f"{'vs field':>{field_w}}  exploitability mbb/g",
        ]
        for k, i in enumerate(order):
            label = f"{k + 1:>2}. {short[k]}"
            score = self.scores[i]
            lines.append(
                f"{label:<{name_w}}" + "".join(f"{c:>{col_w}}" for c in cells[k])
                + f"{field_cells[k]:>{field_w}}  {score.text() if score else '-'}"
            )
        if self.aivat_mbb is not None and self.aivat_ci_mbb is not None:
            corrected = dataclasses.replace(self, mean_mbb=self.aivat_mbb,
                                            ci_mbb=self.aivat_ci_mbb, aivat_mbb=None)
            table = corrected.format(max_name).splitlines()
            ratios = self.variance_ratio if self.variance_ratio is not None else np.ones(1)
            off = ratios[~np.eye(self.size, dtype=bool)] if self.size > 1 else ratios
            finite = off[np.isfinite(off)]
            spread = (f"variance ratios {finite.min():.1f} to {finite.max():.1f}"
                      if len(finite) else "zero AIVAT variance")
            lines += ["", f"AIVAT-corrected, same hands ({spread}):", *table[1:]]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form: names, matrices (row vs column, mbb/g) and per-entrant results."""
        return {
            "game": self.game,
            "method": self.method,
            "unit": "mbb/g",
            "chip_unit": float(self.chip_unit),
            "hands_per_pairing": int(self.hands_per_pairing),
            "names": list(self.names),
            "mean_mbb": self.mean_mbb.tolist(),
            "ci95_mbb": self.ci_mbb.tolist(),
            "max_asymmetry_mbb": self.max_asymmetry,
            "entrants": {
                name: {
                    "kind": self.kinds[i],
                    **dict(self.infos[i]),
                    "vs_field_mbb": float(self.field_mean_mbb[i]),
                    "vs_field_ci95_mbb": float(self.field_ci_mbb[i]),
                    "score": score.to_dict() if (score := self.scores[i]) else None,
                    "vs": {
                        other: {"mbb": float(self.mean_mbb[i, j]),
                                "ci95_mbb": float(self.ci_mbb[i, j])}
                        for j, other in enumerate(self.names) if j != i
                    },
                }
                for i, name in enumerate(self.names)
            },
            **self._aivat_dict(),
        }

    def _aivat_dict(self) -> dict[str, Any]:
        if self.aivat_mbb is None or self.aivat_ci_mbb is None or self.variance_ratio is None:
            return {}
        ratios = np.where(np.isfinite(self.variance_ratio), self.variance_ratio, np.nan)
        return {"aivat_mbb": self.aivat_mbb.tolist(),
                "aivat_ci95_mbb": self.aivat_ci_mbb.tolist(),
                "variance_ratio": [[None if np.isnan(x) else float(x) for x in row]
                                   for row in ratios]}


def _shorten(name: str, limit: int) -> str:
    return name if len(name) <= limit else name[: limit - 3] + "..."


def score_entrants(
    game: Game | AECGame,
    entrants: Sequence[Entrant],
    *,
    tree: GameTree | None = None,
    lbr_deals: int = 0,
    seed: int | None = 0,
    lbr_options: Mapping[str, Any] | None = None,
    executor: Executor | None = None,
) -> list[Score | None]:
    """Each entrant's exploitability: exact on ``tree``; else an LBR lower bound over
    ``lbr_deals`` deals where LBR applies (heads-up hold'em; its deals split over
    ``executor``'s workers); else ``None``."""
    if tree is not None:
        return [_exact_score(tree, tabularize(tree, e.policy)) for e in entrants]
    if lbr_deals and isinstance(game, Game) and game.game_type.lbr and game.num_players == 2:
        from pokerzoo.evaluation.lbr import local_best_response

        root = np.random.SeedSequence(seed_arg(seed))
        scores: list[Score | None] = []
        for k, e in enumerate(entrants):
            r = local_best_response(
                game, e.policy, count_arg(lbr_deals, "lbr_deals"),
                rng=_stream(root, k), executor=executor, **dict(lbr_options or {}),
            )
            scores.append(Score("lbr", r.mbb_per_game, r.mbb_per_game_ci, hands=r.num_hands))
        return scores
    return [None] * len(entrants)


def _stream(root: np.random.SeedSequence, *key: int) -> np.random.Generator:
    """The generator of one pairing or score: independent of the others, fixed by the seed."""
    return np.random.default_rng(np.random.SeedSequence(root.entropy, spawn_key=key))


def _exact_score(tree: GameTree, table: TabularPolicy) -> Score:
    s = ExactScores.of(tree, table)  # the scores train.py logs
    return Score("exact", s.exploitability_mbb_per_game, 0.0, nash_conv=s.nash_conv,
                 chips=s.exploitability)


def run_tournament(
    game: Game | AECGame | EnvSource,
    entrants: Sequence[Entrant],
    *,
    tree: GameTree | None = None,
    num_deals: int = 1000,
    seed: int | None = 0,
    lbr_deals: int = 0,
    lbr_options: Mapping[str, Any] | None = None,
    match_options: Mapping[str, Any] | None = None,
    aivat: Any = None,
    executor: Executor | None = None,
) -> Tournament:
    """Play every pairing of ``entrants`` on a two-player ``game`` and score each entrant.

    Args:
        game: the game the matches are played on, or an AEC env factory (no tree, no
            scores).
        entrants: the field; names must be unique.
        tree: the game's compiled tree (``pokerzoo.evaluation.evaluation_tree``) where it fits:
            pairings and scores are then exact.
        num_deals: deals per sampled pairing (each played twice, seats swapped).
        seed: seed of the matches (pairing ``(i, j)`` uses its own stream; ``None``: fresh
            entropy).
        lbr_deals: deals of the LBR score where there is no tree (0: no score).
        lbr_options: more arguments of ``local_best_response`` (``wp_samples``, ...).
        match_options: more arguments of ``head_to_head``.
        aivat: a value function (``pokerzoo.evaluation.aivat.ValueFunction``, or a function of
            the seats' policies returning one): sampled pairings are also scored by AIVAT,
            every entrant's strategy known (``aivat_mbb``, ``aivat_ci_mbb``,
            ``variance_ratio``); the raw table is unchanged. Exact tables need none.
        executor: a ``pokerzoo.parallel.Executor`` whose workers play the sampled pairings
            and LBR by ranges of deals (default: all here); the table is the same to the chip.

    Raises:
        ConfigError: fewer than one entrant, repeated names, a game that is not heads-up, a
            tree of another game.
    """
    if is_env_source(game):
        if tree is not None:
            raise ConfigError("an AEC env has no tree: pairings on it are sampled matches")
        game = aec_game(cast(Any, game))
    game = cast(Game | AECGame, game)
    entrants = list(entrants)
    if not entrants or not all(isinstance(e, Entrant) for e in entrants):
        raise ConfigError(f"a tournament needs a list of Entrant objects, got {entrants!r}")
    names = [e.name for e in entrants]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ConfigError(f"entrant names must be unique; {repeated} appear more than once")
    if game.num_players != 2:
        raise ConfigError(
            f"a tournament table pairs two players; {game!r} has {game.num_players} seats "
            "(score its policies one by one)"
        )
    if tree is not None and repr(tree.game) != repr(game):
        raise ConfigError(f"the tree is of {tree.game!r}, not of {game!r}")
    root = np.random.SeedSequence(seed_arg(seed))
    num_deals = count_arg(num_deals, "num_deals")
    if tree is None and num_deals < 2:
        raise ConfigError(
            f"num_deals must be at least 2 for a confidence interval, got {num_deals}"
        )
    n = len(entrants)
    corrected: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    if aivat is not None and (tree is not None or isinstance(game, AECGame) or match_options):
        raise ConfigError("aivat corrects sampled pairings of a game (hold'em): exact tables "
                          "need none, and AEC envs and match options are not scored by it")
    if tree is not None:
        mean, ci, hands = _exact_pairings(tree, entrants), np.zeros((n, n)), 0
        method = "exact"
    elif aivat is not None:
        mean, ci, hands, corrected = _aivat_pairings(cast(Game, game), entrants, num_deals,
                                                     root, aivat, executor)
        method = "sampled"
    else:
        mean, ci, hands = _sampled_pairings(game, entrants, num_deals, root, match_options,
                                            executor)
        method = "sampled"
    scores = score_entrants(
        game, entrants, tree=tree, lbr_deals=lbr_deals, seed=seed, lbr_options=lbr_options,
        executor=executor,
    )
    return Tournament(
        game=repr(game),
        names=tuple(names),
        kinds=tuple(e.kind for e in entrants),
        infos=tuple(dict(e.info) for e in entrants),
        mean_mbb=mean,
        ci_mbb=ci,
        method=method,
        hands_per_pairing=hands,
        chip_unit=float(game.chip_unit),
        scores=tuple(scores),
        aivat_mbb=None if corrected is None else corrected[0],
        aivat_ci_mbb=None if corrected is None else corrected[1],
        variance_ratio=None if corrected is None else corrected[2],
    )


def _exact_pairings(tree: GameTree, entrants: Sequence[Entrant]) -> np.ndarray:
    tables = [tabularize(tree, e.policy) for e in entrants]
    chips = pairing_matrix(tree, tables)
    return np.asarray(to_milli_big_blinds(chips, tree.game.chip_unit))  # type: ignore[arg-type]


def _sampled_pairings(
    game: Game | AECGame,
    entrants: Sequence[Entrant],
    num_deals: int,
    root: np.random.SeedSequence,
    match_options: Mapping[str, Any] | None,
    executor: Executor | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    n = len(entrants)
    mean, ci = np.zeros((n, n)), np.zeros((n, n))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    options = dict(match_options or {})
    if (executor is None or executor.workers == 1 or active_recorder() is not None or options
            or isinstance(game, AECGame)):
        results = [
            head_to_head(
                game, [entrants[i].policy, entrants[j].policy], num_deals,
                rng=_stream(root, i, j), executor=executor,
                **{"names": [entrants[i].name, entrants[j].name], **options},
            )
            for i, j in pairs
        ]
    else:
        # Every pairing's deal ranges are jobs of one map, so workers stay busy across
        # pairings; each pairing's entropy is the one head_to_head draws from its stream.
        specs = [
            MatchSpec(game, (as_state_policy(entrants[i].policy),
                             as_state_policy(entrants[j].policy)),
                      match_entropy(None, _stream(root, i, j)))
            for i, j in pairs
        ]
        jobs = [(k, r) for k in range(len(pairs)) for r in deal_ranges(num_deals, executor)]
        parts = executor.map(_play_pairing_deals, specs, jobs)
        results = [
            match_result(game, [part for (k, _), part in zip(jobs, parts) if k == pair])
            for pair in range(len(pairs))
        ]
    hands = 0
    for (i, j), r in zip(pairs, results):
        # Both cells come from the same hands: antisymmetric wherever payoffs sum to 0.
        mean[i, j], mean[j, i] = r.mbb_per_game
        ci[i, j], ci[j, i] = r.mbb_per_game_ci
        hands = r.num_hands
    return mean, ci, hands


def _aivat_pairings(
    game: Game,
    entrants: Sequence[Entrant],
    num_deals: int,
    root: np.random.SeedSequence,
    value: Any,
    executor: Executor | None,
) -> tuple[np.ndarray, np.ndarray, int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The sampled pairings played and scored raw and by AIVAT: the same streams as
    ``_sampled_pairings``, so the raw table is the same hands'."""
    from pokerzoo.evaluation.aivat import aivat_head_to_head

    n = len(entrants)
    mbb = 1000.0 / game.chip_unit
    mean, ci = np.zeros((n, n)), np.zeros((n, n))
    cor, cor_ci, ratio = np.zeros((n, n)), np.zeros((n, n)), np.ones((n, n))
    hands = 0
    for i in range(n):
        for j in range(i + 1, n):
            r = aivat_head_to_head(game, [entrants[i].policy, entrants[j].policy], num_deals,
                                   value, rng=_stream(root, i, j), executor=executor)
            mean[i, j], mean[j, i] = r.raw_mean * mbb
            ci[i, j], ci[j, i] = r.raw_ci95 * mbb
            cor[i, j], cor[j, i] = r.aivat_mean * mbb
            cor_ci[i, j], cor_ci[j, i] = r.aivat_ci95 * mbb
            ratio[i, j], ratio[j, i] = r.variance_ratio
            hands = r.num_hands
    return mean, ci, hands, (cor, cor_ci, ratio)


def _play_pairing_deals(
    specs: Sequence[MatchSpec], job: tuple[int, tuple[int, int]]
) -> DealResults:
    """One job of a distributed tournament: a range of deals of one pairing."""
    pairing, deals = job
    return play_deals(specs[pairing], deals)
