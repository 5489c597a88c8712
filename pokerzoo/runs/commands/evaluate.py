"""Evaluate saved runs: exploitability, a tournament of the runs and built-in opponents, curves.

Examples:
    python evaluate.py runs/cfr_leduc
    python evaluate.py runs/cfr_leduc runs/cfr+_leduc --plot curves.png
    python evaluate.py runs/cfr_leduc --json
    python evaluate.py runs/cfr runs/bufp-ef --total-exploitability --forced 0:call
    python evaluate.py runs/a runs/b runs/c --opponents random,always-call --heatmap t.png
    python evaluate.py runs/cfr_kuhn --strategy
    python evaluate.py runs/nfsp_holdem --strategy-chart chart.png --history call
    python evaluate.py runs/nfsp_holdem runs/nfsp_plt_holdem --hands 100000 --workers 2
    python evaluate.py runs/nfsp_leduc_v4 --opponents random,first-legal,last-legal --plot c.png
    python evaluate.py runs/cfr+_leduc_holdem --versus runs/nfsp_leduc --aivat --json
    python evaluate.py runs/deep_cfr_holdem --spot configs/spots/nlh_limped_river.toml --json
    python evaluate.py --policy mybot:act --game kuhn_poker
    python evaluate.py --policy openai:gpt-4o-mini --game leduc_holdem --samples 5 --json
    python evaluate.py --policy 'cmd:./my_bot --fast' --game leduc_holdem --report judge.md

Runs trained with train.py --env MODULE:FACTORY are played in their env against the built-in
AEC opponents (random, first-legal, last-legal) and, on a two-player env, against each other.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Hashable, Sequence
from typing import Any

from pokerzoo.atomic import check_target
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation import (
    AEC_OPPONENTS,
    OPPONENTS,
    Tournament,
    parse_opponents,
    run_tournament,
    score_entrants,
    tabularize,
)
from pokerzoo.runs.aivat_report import add_aivat_flags
from pokerzoo.runs.cli import (
    add_debug_flag,
    add_worker_flags,
    count_arg,
    executor_from_flags,
)
from pokerzoo.runs.folder import SavedRun
from pokerzoo.runs.judge import add_judge_flags, judge_from_args
from pokerzoo.runs.reports import (
    on_sampled_environments,
    parse_forced,
    plot_curves,
    total_scores,
    tree_for,
)
from pokerzoo.runs.shipped import resolve_shipped
from pokerzoo.runs.tournament import (
    builtin_entrants,
    foreign_report,
    format_foreign_report,
    is_foreign_folder,
    open_foreign_run,
    plot_tournament,
    run_entrants,
    tree_if_fits,
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter,
                                allow_abbrev=False)
    p.add_argument("runs", nargs="*", help="run folders written by train.py (none with "
                                           "--policy)")
    p.add_argument("--plot", metavar="PNG", help="draw the exploitability curves to this PNG")
    p.add_argument("--json", action="store_true", help="print machine-readable results")
    p.add_argument("--hands", type=count_arg("--hands", 1), default=4_000,
                   help="hands per pairing of the tournament where the tree does not fit "
                        "(hold'em; each deal is played twice, seats swapped)")
    p.add_argument("--opponents", default="random",
                   help="built-in opponents joining the tournament, comma-separated, or none: "
                        + "; ".join(f"{s.name} ({s.doc})" for s in OPPONENTS.values())
                        + "; on a train.py --env run: "
                        + "; ".join(f"{n} ({doc})" for n, (_, doc) in AEC_OPPONENTS.items()))
    p.add_argument("--lbr-deals", type=count_arg("--lbr-deals", 0), default=25,
                   help="deals (2 hands each) of the local best response scoring each entrant "
                        "where the tree does not fit (heads-up hold'em; a network policy takes "
                        "seconds per deal; 0: skip)")
    p.add_argument("--heatmap", metavar="PNG", help="draw the tournament table to this PNG")
    p.add_argument("--seed", type=count_arg("--seed", 0), default=0, help="seed for matches")
    p.add_argument("--total-exploitability", action="store_true",
                   help="also the gain of best responses at every information set (mbb/hand)")
    p.add_argument("--beliefs", choices=("bayes", "uniform"), default="bayes",
                   help="beliefs at unreached information sets for --total-exploitability")
    p.add_argument("--forced", metavar="PLAYER:ACTION",
                   help="payoff table with PLAYER forced to ACTION at its first decision, "
                        "e.g. 0:call (the BUFP paper's Table 2)")
    p.add_argument("--strategy", action="store_true",
                   help="print the policy as tables instead of scoring it: one row per "
                        "information set, actions by name (Kuhn, Leduc)")
    p.add_argument("--strategy-chart", metavar="PNG",
                   help="draw hold'em 13x13 pre-flop charts, one panel per action, instead "
                        "of scoring (several runs: PNG_<run>.png)")
    p.add_argument("--seat", type=int, default=None,
                   help="--strategy: that seat's rows only; --strategy-chart: the seat to "
                        "act after --history (default: whoever acts)")
    p.add_argument("--history", default="",
                   help="--strategy-chart: pre-flop betting before the decision, actions by "
                        "name or id separated by commas, e.g. 'call' or 'raise,raise'")
    p.add_argument("--hand-history", metavar="PATH",
                   help="keep the hands the matches deal: hold'em in the PHH format (PATH "
                        "ending .phhs), other games in a plain-text log (e.g. hands.txt); where "
                        "pairings are exact (Kuhn, Leduc) --hands hands per pairing are played "
                        "for the log; a rare hold'em hand PokerKit cannot replay (TDA's all-in "
                        "reopening rule) is left out of a PHH file (the count is printed)")
    p.add_argument("--spot", metavar="TOML",
                   help="instead of the usual scores: each hold'em run's strategy at this spot "
                        "(configs/spots/*.toml), scored by the spot's best response: its EV "
                        "loss against the equilibrium in chips and %% of the pot, at the spot's "
                        "declared ranges (spot_ev_loss_chips, spot_ev_loss_pct_pot); a path that "
                        "does not exist names a spot shipped with pokerzoo, by its path or "
                        "name (nlh_limped_river)")
    p.add_argument("--spot-player", choices=("oop", "ip", "both"), default="both",
                   help="--spot: the spot's player the run is scored as")
    p.add_argument("--spot-ranges", choices=("declared", "own"), default="declared",
                   help="--spot: the spot's declared ranges, or those the run's own play "
                        "(both seats) reaches the spot with (one equilibrium per run)")
    p.add_argument("--spot-exploitability", type=float, default=0.3,
                   help="--spot: solve the spot's equilibrium to this %% of the pot")
    p.add_argument("--spot-decision", metavar="LINE",
                   help="--spot: score only the decision this line of spot actions leads to "
                        "(e.g. 'bet 5'; the line locked, the rest solved to equilibrium with "
                        "and without the run's frequencies there): "
                        "pokerzoo.evaluation.spot_decision")
    p.add_argument("--spot-scope", choices=("decision", "street"), default="decision",
                   help="--spot-decision: lock the run at that node only, or at every node of "
                        "its player below it on the same street")
    p.add_argument("--spot-hands", default="",
                   help="--spot-decision: combos whose frequencies to show, e.g. AdQh")
    add_aivat_flags(p)
    add_judge_flags(p)
    add_worker_flags(p)
    add_debug_flag(p)
    return p


PICTURE_FLAGS = (("plot", "curves picture"), ("heatmap", "heatmap"),
                 ("strategy_chart", "strategy chart"))
"""The picture flags and the names their errors give the file."""


def check_picture_paths(args: argparse.Namespace) -> None:
    """Refuse a picture path holding a link, a folder or anything but a regular file before
    any evaluation runs (the writers check again when they write)."""
    for flag, what in PICTURE_FLAGS:
        path = getattr(args, flag, None)
        if path and os.path.lexists(path):
            check_target(path, what)


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.spot:
        args.spot = resolve_shipped(args.spot)
    if args.spot_decision is not None and not args.spot:
        # Before any run folder is opened: without a spot the line names nothing to score.
        raise ConfigError("--spot-decision scores a decision of a spot: give the spot too "
                          "(--spot configs/spots/NAME.toml --spot-decision LINE)")
    check_picture_paths(args)
    if (args.versus or args.aivat_values or args.aivat_outside or args.aivat_log
            or args.log_name) and not args.aivat:
        raise ConfigError("--versus, --aivat-values, --aivat-outside, --aivat-log and "
                          "--log-name go with --aivat")
    if args.policy is not None:
        return judge_from_args(args)
    if not args.runs:
        raise ConfigError("give the run folders to evaluate (written by train.py), or an "
                          "outside player to judge with --policy SPEC")
    args.executor = executor_from_flags(args.workers, args.ray_address)
    if any(is_foreign_folder(folder) for folder in args.runs):
        return evaluate_foreign(args)
    if args.hand_history is None:
        return evaluate(args)
    if args.executor is not None and args.executor.workers > 1:
        raise ConfigError("--hand-history records the hands in this process: use --workers 1")
    from pokerzoo.evaluation import HandRecorder, record_pairings, recording

    game = SavedRun.open(args.runs[0]).game  # a format that cannot hold it fails now
    # A rare hold'em hand PHH cannot hold is left out (and counted) rather than ending the run.
    with HandRecorder(game, args.hand_history, skip_unwritable=True) as recorder, \
            recording(recorder):
        code = evaluate(args)
        if recorder.num_hands == 0 and not (args.strategy or args.strategy_chart):
            runs = [SavedRun.open(folder) for folder in args.runs]
            entrants = run_entrants(runs)
            entrants += builtin_entrants(parse_opponents(args.opponents), runs[0].game,
                                         [e.name for e in entrants])
            record_pairings(runs[0].game, {e.name: e.policy for e in entrants}, args.hands,
                            recorder, seed=args.seed)
    print(recorder.summary(), file=sys.stderr)
    return code


def evaluate(args: argparse.Namespace) -> int:
    """Score, play and print as ``main``'s arguments ask (all but ``--hand-history``)."""
    runs = [SavedRun.open(folder) for folder in args.runs]
    if args.spot and args.spot_decision:
        from pokerzoo.runs.solve import default_threads
        from pokerzoo.runs.spot_reports import decision_report, format_decision_report

        # All the cores, as solve.py: the locked solves give the same bits on any number.
        report = decision_report(runs, args.spot, args.spot_decision.split(","),
                                 args.spot_scope, args.spot_exploitability, args.spot_ranges,
                                 [h for h in args.spot_hands.split(",") if h],
                                 threads=default_threads())
        print(json.dumps(report, indent=2) if args.json else format_decision_report(report))
        return 0
    if args.spot:
        from pokerzoo.runs.spot_reports import format_spot_report, spot_report

        report = spot_report(runs, args.spot, args.spot_player, args.spot_exploitability,
                             args.spot_ranges)
        print(json.dumps(report, indent=2) if args.json else format_spot_report(report))
        return 0
    if args.strategy or args.strategy_chart:
        from pokerzoo.runs.strategy_plots import strategy_report

        text, shown = strategy_report(runs, args.strategy, args.strategy_chart, args.seat,
                                      args.history, seed=args.seed)
        print(json.dumps(shown, indent=2) if args.json else text)
        return 0
    if args.aivat:
        from pokerzoo.runs.aivat_report import (
            aivat_report,
            format_aivat_report,
            format_log_report,
            log_report,
        )

        if args.aivat_log:
            report = log_report(runs, args)
            print(json.dumps(report, indent=2) if args.json else format_log_report(report))
            return 0
        report = aivat_report(runs, args)
        print(json.dumps(report, indent=2) if args.json else format_aivat_report(report))
        return 0
    if on_sampled_environments(runs):
        results, tournament, forced_table = score_in_own_environments(runs), None, ""
    else:
        results, tournament, forced_table = score_runs(runs, args)
    executor = getattr(args, "executor", None)
    if executor is not None:
        results_note = f"{executor.workers} workers: {executor.stats.summary()}"
        if args.json:
            results["distributed"] = {"workers": executor.workers,
                                      **dataclasses.asdict(executor.stats)}
        else:
            print(results_note, file=sys.stderr)
    write_pictures(runs, tournament, args)
    if args.json:
        if tournament is not None:
            results["tournament"] = tournament.to_dict()
        print(json.dumps(results, indent=2))
        return 0
    if tournament is not None:
        print(tournament.format())
    else:
        for label, r in results.items():
            if "exploitability" in r:
                print(f"{label} ({r['agent']}): exploitability {r['exploitability']:.6g} "
                      f"chips/game = {r['exploitability_mbb_per_game']:.4g} mbb/g "
                      f"(NashConv {r['nash_conv']:.6g})")
            else:
                print(f"{label} ({r['agent']}): no exact exploitability (the tree of "
                      f"{r['game']} does not fit)")
        if len(runs) > 1:
            print(f"no tournament: {next(iter(results.values()))['note']}")
        summary = environment_summary(results)
        if summary:
            print(summary)
    for label, r in results.items():
        if "total_exploitability_mbb" in r:
            per = ", ".join(f"{v:.3f}" for v in r["total_exploitability_per_player_mbb"])
            # A sum over information sets, so it grows with the game: say what it adds up.
            print(f"{label}: total exploitability {r['total_exploitability_mbb']:.4g} mbb/hand, "
                  "the sum over every information set, on or off the path of play, of what a "
                  "best response there gains (the BUFP paper's measure; per player "
                  f"{per}; mean per information set "
                  f"{r['total_exploitability_mean_per_infoset_mbb']:.4g})")
    if args.forced:
        print(forced_table)
    return 0


def write_pictures(runs: list, tournament: Any, args: argparse.Namespace) -> None:
    """The curves (``--plot``) and the tournament heatmap (``--heatmap``) where asked, for
    game runs and ``--env`` runs alike."""
    if args.plot:
        path = plot_curves(runs, args.plot)
        if not args.json:
            print(f"curves written to {path}")
    if args.heatmap and tournament is not None:
        path = plot_tournament(tournament, args.heatmap)
        if not args.json:
            print(f"tournament heatmap written to {path}")


def evaluate_foreign(args: argparse.Namespace) -> int:
    """``train.py --env`` runs: each against the built-in AEC opponents, a tournament on a
    two-player env, curves of ``vs_random_per_hand`` with ``--plot``."""
    if not all(is_foreign_folder(folder) for folder in args.runs):
        raise ConfigError("train.py --env runs play in their env: evaluate them apart from "
                          "runs on a pokerzoo game")
    refused = [flag for flag, on in (
        ("--strategy", args.strategy), ("--strategy-chart", args.strategy_chart),
        ("--total-exploitability", args.total_exploitability), ("--forced", args.forced),
        ("--hand-history", args.hand_history)) if on]
    if refused:
        raise ConfigError(f"{', '.join(refused)} need a pokerzoo game; a train.py --env run "
                          "takes --opponents, --hands, --seed, --plot, --heatmap, --json")
    if args.executor is not None and args.executor.workers > 1:
        raise ConfigError("train.py --env runs are evaluated in one process: use --workers 1")
    runs = [open_foreign_run(folder) for folder in args.runs]
    opponents = parse_opponents(args.opponents, known=list(AEC_OPPONENTS))
    results, tournament = foreign_report(runs, opponents, args.hands, args.seed)
    write_pictures(runs, tournament, args)
    if args.json:
        out: dict = dict(results)
        if tournament is not None:
            out["tournament"] = tournament.to_dict()
        print(json.dumps(out, indent=2))
        return 0
    print(format_foreign_report(results))
    if tournament is not None:
        print(f"{tournament.format()}\n(an AEC env's payoffs are its rewards: mbb/g here reads "
              "as thousandths of a reward per hand)")
    return 0


def score_in_own_environments(runs: list[SavedRun]) -> dict[str, dict]:
    """Each run scored exactly in its own environment's d* (no tournament: the runs played
    different environments)."""
    from pokerzoo.evaluation import ExactScores, evaluation_tree

    results: dict[str, dict] = {}
    for run in runs:
        tree = evaluation_tree(run.game)
        policy = run.tabular_policy()
        if policy is None:
            raise ConfigError(f"{run.folder} holds no tabular policy to score in d*")
        results[run.label] = {
            "agent": run.config.get("agent"), "game": repr(run.game),
            **ExactScores.of(tree, policy).as_dict(),
            "note": "the runs played different sampled environments: each is scored in its own",
        }
    return results


def environment_summary(results: dict[str, dict]) -> str:
    """Mean and spread of NashConv per agent over sampled environments ("" for one run
    each)."""
    import math

    by_agent: dict[str, list[float]] = {}
    for r in results.values():
        if "nash_conv" in r and "sampled environments" in r.get("note", ""):
            by_agent.setdefault(str(r["agent"]), []).append(float(r["nash_conv"]))
    lines = []
    for agent, values in by_agent.items():
        logs = [math.log10(max(v, 1e-12)) for v in values]
        lines.append(f"{agent}: NashConv in d* over {len(values)} environments: mean "
                     f"{sum(values) / len(values):.4g}, log10 mean {sum(logs) / len(logs):.3f} "
                     f"(min {min(logs):.3f}, max {max(logs):.3f})")
    return "\n".join(lines)


def score_runs(
    runs: list[SavedRun], args: argparse.Namespace
) -> tuple[dict[str, dict], Tournament | None, str]:
    """Each run's scores, the tournament of the runs and built-in opponents (two-player
    games), and the forced-deviation table where asked."""
    game = runs[0].game
    if len({repr(r.game) for r in runs}) != 1:
        tree_for(runs)  # raises the error naming the games
    entrants = run_entrants(runs)
    labels = [e.name for e in entrants]
    tree = tree_if_fits(game)
    if (args.total_exploitability or args.forced) and tree is None:
        raise ConfigError("--total-exploitability and --forced need a game whose tree fits "
                          "(Kuhn, Leduc), not hold'em")
    tournament = None
    if game.num_players == 2:
        opponents = builtin_entrants(parse_opponents(args.opponents), game, labels)
        tournament = run_tournament(
            game, entrants + opponents, tree=tree, num_deals=max(2, args.hands // 2),
            seed=args.seed, lbr_deals=args.lbr_deals, executor=getattr(args, "executor", None),
        )
        scores = list(tournament.scores[: len(entrants)])
    else:
        scores = score_entrants(game, entrants, tree=tree,
                                executor=getattr(args, "executor", None))
    results: dict[str, dict] = {}
    for i, (entrant, score) in enumerate(zip(entrants, scores)):
        r = results[entrant.name] = {"agent": entrant.info.get("agent"), "game": repr(game)}
        if score is not None and score.method == "exact":
            r.update(nash_conv=score.nash_conv, exploitability=score.chips,
                     exploitability_mbb_per_game=score.exploitability_mbb)
        elif score is not None:
            r.update(lbr_mbb_per_game=score.exploitability_mbb, lbr_ci95_mbb=score.ci_mbb,
                     lbr_hands=score.hands)
        if tournament is not None:
            chips = tournament.mean_mbb[i] * game.chip_unit / 1000.0
            r["vs"] = {name: float(chips[j]) for j, name in enumerate(tournament.names)}
        else:
            r["note"] = f"pairings are defined for two players; the game has {game.num_players}"
        if args.total_exploitability and tree is not None:  # the check above: it fits
            r.update(total_scores(tree, tabularize(tree, entrant.policy), args.beliefs))
    forced_table = ""
    if args.forced and tree is not None:  # the check above: it fits
        from pokerzoo.evaluation import forced_deviation_values

        forced: dict[int | Hashable, int] = {
            infoset: action for infoset, action in parse_forced(tree, args.forced).items()}
        policies = {e.name: tabularize(tree, e.policy) for e in entrants}
        table = forced_deviation_values(
            tree, policies, forced, tree.game.chip_unit
        )
        forced_table = table.format(0, f"First seat's payoff, {args.forced} forced, mbb/hand")
        for i, label in enumerate(table.names):
            results[label]["forced_first_seat_mbb"] = {
                other: float(table.matrix(0)[i, j]) for j, other in enumerate(table.names)
            }
    return results, tournament, forced_table
