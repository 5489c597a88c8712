"""``evaluate.py RUN --aivat``: the first run's agent against each opponent in duplicate
matches, scored raw and by AIVAT (``pokerzoo.evaluation.aivat``), with the variance ratio and,
where the game's tree fits, the exact expected value.

Opponents: the other runs given (``--versus RUN2`` or more run folders) and the built-in
opponents of ``--opponents``. Every pokerzoo agent and built-in opponent has a known strategy,
so its decisions are corrected; ``--aivat-outside`` scores the opponents as outside players
(only chance and the first run's decisions corrected).

Value functions (``--aivat-values``):

* ``agent`` (default where the tree fits): the exact values of the first run's agent playing
  itself: what the agent knows, not the pairing being measured;
* ``profile`` (tree games): the exact values of the pairing itself; with every player known
  each hand then scores the exact value (zero variance: a check, not a measurement);
* ``check-down`` (heads-up hold'em, the default there): each player's chips if the hand were
  checked down from the state, from exact or state-seeded sampled equities
  (``pokerzoo.evaluation.holdem_values``).

On heads-up hold'em, ``--lbr-deals N`` (N > 0) adds LBR against the first run scored the same
way (``lbr`` in the JSON): LBR's strategy is pure and the run's is known.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.aivat import (
    AIVATResult,
    ProfileValues,
    ValueFunction,
    ValueSource,
    aivat_head_to_head,
    exact_match_values,
    tree_values,
)
from pokerzoo.evaluation.tournament import Entrant
from pokerzoo.games.base import Game
from pokerzoo.runs.folder import SavedRun
from pokerzoo.runs.tournament import builtin_entrants, run_entrants, tree_if_fits
from pokerzoo.tree.game_tree import GameTree

VALUE_CHOICES = ("agent", "profile", "check-down")


def add_aivat_flags(p: argparse.ArgumentParser) -> None:
    """``--aivat``, ``--versus``, ``--aivat-values``, ``--aivat-outside``."""
    p.add_argument("--aivat", action="store_true",
                   help="score the first run against each opponent (--versus runs, the other "
                        "runs, --opponents) in duplicate matches of --hands hands, raw and "
                        "AIVAT-corrected (mean, 95%% CI, variance ratio; exact value where the "
                        "tree fits); --json: raw_mean, raw_ci95, aivat_mean, aivat_ci95, "
                        "variance_ratio, exact_value in chips per hand")
    p.add_argument("--versus", nargs="+", default=[], metavar="RUN",
                   help="--aivat: run folders the first run plays (besides --opponents)")
    p.add_argument("--aivat-values", choices=VALUE_CHOICES, default=None,
                   help="--aivat: the value function: agent (the first run's self-play values, "
                        "tree games' default), profile (the pairing's own exact values), "
                        "check-down (hold'em's default: chips if checked down from the state)")
    p.add_argument("--aivat-log", metavar="LOG",
                   help="--aivat: score the hands of this plain-text hand log (an ACPC match's "
                        "log, evaluate.py/play.py --hand-history) instead of playing: the first "
                        "run's decisions and chance corrected, every other player an outsider")
    p.add_argument("--log-name", metavar="NAME",
                   help="--aivat-log: the first run's player name in the log (default: the "
                        "run's label)")
    p.add_argument("--aivat-outside", action="store_true",
                   help="--aivat: score the opponents as outside players (their decisions not "
                        "corrected)")


def value_source(game: Game, tree: GameTree | None, first: Entrant, choice: str | None,
                 ) -> tuple[ValueSource, str]:
    """The value function ``--aivat-values`` names for ``game`` and its name."""
    if choice is None:
        choice = "agent" if tree is not None else "check-down"
    if choice in ("agent", "profile") and tree is None:
        raise ConfigError(f"--aivat-values {choice} needs a game whose tree fits (Kuhn, Leduc); "
                          f"on {game.name} use check-down")
    if choice == "agent":
        assert tree is not None
        return tree_values(tree, [first.policy] * game.num_players), choice
    if choice == "profile":
        assert tree is not None
        return ProfileValues(tree), choice
    if not (game.game_type.lbr and game.num_players == 2):
        raise ConfigError(f"--aivat-values check-down is for heads-up hold'em, not {game.name}")
    from pokerzoo.evaluation.holdem_values import CheckDownValues

    return CheckDownValues(game), choice


def log_report(runs: Sequence[SavedRun], args: argparse.Namespace) -> dict[str, Any]:
    """``--aivat-log``: the logged hands scored by AIVAT, the first run's strategy known."""
    from pokerzoo.evaluation.aivat import score_logged_hands
    from pokerzoo.evaluation.text_log import read_text_log

    game = runs[0].game
    first = run_entrants(runs[:1])[0]
    name = args.log_name or first.name
    hands = read_text_log(args.aivat_log, game)
    value, value_name = value_source(game, tree_if_fits(game), first, args.aivat_values)
    if not isinstance(value, ValueFunction):
        raise ConfigError("--aivat-values profile needs every player's policy; a log's other "
                          "players are outsiders: use agent (or check-down on hold'em)")
    scored = score_logged_hands(game, hands, value, {name: first.policy})
    return {"log": str(args.aivat_log), "agent": name, "value_function": value_name,
            **scored.to_json()}


def format_log_report(report: dict[str, Any]) -> str:
    """``--aivat-log``'s report as text: one line per player of the log."""
    lines = [f"AIVAT over {report['hands']:,} logged hands ({report['value_function']} "
             f"values; known: {', '.join(report['known'])}), chips per hand, 95% intervals:"]
    for name, p in report["players"].items():
        ratio = p["variance_ratio"]
        lines.append(f"  {name}: raw {p['raw_mean']:+.4f} +- {p['raw_ci95']:.4f}, AIVAT "
                     f"{p['aivat_mean']:+.4f} +- {p['aivat_ci95']:.4f}"
                     + ("" if ratio is None else f", variance ratio {ratio:.1f}"))
    return "\n".join(lines)


def aivat_report(runs: Sequence[SavedRun], args: argparse.Namespace) -> dict[str, Any]:
    """The ``--aivat`` results: one pairing per opponent, chips per hand of the first run."""
    versus = [SavedRun.open(folder) for folder in args.versus]
    everyone = list(runs) + versus
    game = runs[0].game
    if game.num_players != 2:
        raise ConfigError(f"--aivat plays heads-up pairings; {game.name} has "
                          f"{game.num_players} seats")
    for run in everyone[1:]:
        if repr(run.game) != repr(game):
            raise ConfigError(f"--aivat: {run.folder} is a run of {run.game!r}, the first run "
                              f"of {game!r}")
    entrants = run_entrants(everyone)
    opponents = entrants[1:] + builtin_entrants(
        [n for n in args.opponents.split(",") if n and n != "none"] if args.opponents else [],
        game, [e.name for e in entrants])
    if not opponents:
        raise ConfigError("--aivat needs an opponent: --versus RUN, another run folder, or "
                          "--opponents NAME")
    first = entrants[0]
    tree = tree_if_fits(game)
    value, value_name = value_source(game, tree, first, args.aivat_values)
    deals = max(2, args.hands // 2)
    pairings = []
    for opponent in opponents:
        pols = [first.policy, opponent.policy]
        exact = exact_match_values(tree, pols) if tree is not None else None
        result = aivat_head_to_head(
            game, pols, deals, value, known=(True, not args.aivat_outside), seed=args.seed,
            exact_value=exact, executor=getattr(args, "executor", None))
        pairings.append({"agent": first.name, "opponent": opponent.name,
                         "value_function": value_name,
                         "opponent_known": not args.aivat_outside, **result.to_json()})
    report: dict[str, Any] = {**pairings[0], "pairings": pairings}
    if tree is None and game.game_type.lbr and args.lbr_deals > 0 \
            and isinstance(value, ValueFunction):
        from pokerzoo.evaluation.lbr import local_best_response

        lbr = local_best_response(game, first.policy, args.lbr_deals, seed=args.seed,
                                  aivat=value, executor=getattr(args, "executor", None))
        report["lbr"] = {"deals": lbr.num_deals, "raw_mean": lbr.mean_chips,
                         "raw_ci95": lbr.ci_chips, "aivat_mean": lbr.aivat_mean_chips,
                         "aivat_ci95": lbr.aivat_ci_chips,
                         "variance_ratio": lbr.variance_ratio, "units": "chips per hand"}
    return report


def format_aivat_report(report: dict[str, Any]) -> str:
    """The report as text: one line per pairing."""
    lines = [f"AIVAT ({report['value_function']} values), chips per hand of "
             f"{report['agent']}, 95% intervals:"]
    for p in report["pairings"]:
        ratio = p["variance_ratio"]
        ratio_text = "zero AIVAT variance" if ratio is None else f"variance ratio {ratio:.1f}"
        line = (f"  vs {p['opponent']} ({p['deals']:,} deals): raw {p['raw_mean']:+.4f} +- "
                f"{p['raw_ci95']:.4f}, AIVAT {p['aivat_mean']:+.4f} +- {p['aivat_ci95']:.4f}, "
                f"{ratio_text}")
        if "exact_value" in p:
            line += f"; exact {p['exact_value']:+.4f}"
        lines.append(line)
    if "lbr" in report:
        lbr = report["lbr"]
        ratio = lbr["variance_ratio"]
        lines.append(f"  LBR against {report['agent']} ({lbr['deals']:,} deals): raw "
                     f"{lbr['raw_mean']:+.4f} +- {lbr['raw_ci95']:.4f}, AIVAT "
                     f"{lbr['aivat_mean']:+.4f} +- {lbr['aivat_ci95']:.4f}"
                     + ("" if ratio is None else f", variance ratio {ratio:.1f}"))
    return "\n".join(lines)


__all__ = ["AIVATResult", "add_aivat_flags", "aivat_report", "format_aivat_report",
           "format_log_report", "log_report"]
