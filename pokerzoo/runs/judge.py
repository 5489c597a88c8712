"""``evaluate.py --policy SPEC``: an outside player judged exactly on a small game, or on the
shipped hold'em spots, with the flags of the LLM player and the report files."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from pokerzoo.atomic import check_target, write_atomically
from pokerzoo.errors import ConfigError
from pokerzoo.games.leduc import LEDUC_VARIANTS
from pokerzoo.judge import (
    FALLBACKS,
    SPEC_FORMS,
    holdem_match,
    judge_game,
    judge_suite,
    player_from_spec,
    spec_kind,
)
from pokerzoo.judge.holdem import HOLDEM_FAMILIES
from pokerzoo.judge.response_cache import user_cache_folder
from pokerzoo.runs.cli import count_arg, parse_assignments


def add_judge_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of ``evaluate.py --policy``."""
    group = parser.add_argument_group(
        "judging an outside player (--policy; no run folders)",
        "ask an outside player every decision of a small game and score it exactly "
        "(NashConv, exploitability, chips against CFR+ and uniform), or on hold'em spots")
    group.add_argument("--policy", metavar="SPEC",
                       help="the player: " + "; ".join(SPEC_FORMS))
    group.add_argument("--game", default=None,
                       help="the game: kuhn_poker or leduc_holdem (exact scores; default "
                            "leduc_holdem unless --spots), or limit_holdem / no_limit_holdem "
                            "(duplicate matches of --hands hands against --opponents and "
                            "any run folders given)")
    group.add_argument("--game-variant", default=None, metavar="NAME",
                       help="a named Leduc variant: "
                            + ", ".join(LEDUC_VARIANTS) + " (rlcard: RLCard's rules, which "
                            "rlcard: players need)")
    group.add_argument("--game-param", action="append", default=None, metavar="KEY=VALUE",
                       help="a parameter of --game (repeatable), e.g. num_players=3")
    group.add_argument("--spots", metavar="SUITE",
                       help="judge on a suite of solved hold'em spots instead (EV loss in %% "
                            "of the pot): 'default' for the shipped suite")
    group.add_argument("--judge-hands", default="all",
                       help="--spots: the hands of the judged range asked at each decision: "
                            "'all', or how many to sample (the EV loss then has an interval)")
    group.add_argument("--samples", type=count_arg("--samples", 1), default=1,
                       help="k: questions per information state (1 for a deterministic "
                            "player; more for a sampled one: the interval is a bootstrap over "
                            "them)")
    group.add_argument("--fallback", choices=FALLBACKS, default="check-fold",
                       help="the answer given for the player at a decision it answered badly "
                            "twice (counted and reported)")
    group.add_argument("--base-url", default=None,
                       help="openai:MODEL: the OpenAI-compatible endpoint (default "
                            "https://api.openai.com/v1), e.g. http://127.0.0.1:8080/v1")
    group.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                       help="openai:MODEL: the environment variable holding the key ('none' "
                            "for a server that needs none)")
    group.add_argument("--temperature", type=float, default=None,
                       help="openai:MODEL: sampling temperature (default: the server's)")
    group.add_argument("--max-tokens", type=count_arg("--max-tokens", 1), default=None,
                       help="openai:MODEL: most tokens of one answer")
    group.add_argument("--votes", type=count_arg("--votes", 1), default=1,
                       help="openai:MODEL: majority vote over this many answers per question")
    group.add_argument("--concurrency", type=count_arg("--concurrency", 1), default=4,
                       help="openai:MODEL: requests in flight at once")
    group.add_argument("--cache", metavar="DIR", default=None,
                       help="openai:MODEL: the response cache (default $POKERZOO_CACHE/llm or "
                            "~/.cache/pokerzoo/llm; a rerun sends no request); 'none' to "
                            "send every request")
    group.add_argument("--transcript", metavar="JSONL", default=None,
                       help="openai:MODEL: append every exchange to this JSONL file")
    group.add_argument("--timeout", type=float, default=60.0,
                       help="seconds a program or an endpoint may take for one answer")
    group.add_argument("--report", metavar="MD", default=None,
                       help="write the Markdown report (with the per-state table) here")


def player_from_args(args: argparse.Namespace) -> Any:
    """The outside player ``--policy`` and the LLM flags name."""
    kind = spec_kind(args.policy)
    if kind in ("callable", "openspiel", "rlcard") and os.getcwd() not in sys.path:
        # As uvicorn and gunicorn do: module:function names a module of the folder it is run in.
        sys.path.insert(0, os.getcwd())
    if kind != "openai":
        given = [flag for flag, value in (
            ("--base-url", args.base_url), ("--temperature", args.temperature),
            ("--max-tokens", args.max_tokens), ("--transcript", args.transcript),
            ("--cache", args.cache)) if value is not None]
        if args.votes != 1:
            given.append("--votes")
        if given:
            raise ConfigError(f"{', '.join(given)} apply to an openai:MODEL player only")
        return player_from_spec(args.policy, timeout=args.timeout)
    options: dict[str, Any] = {"votes": args.votes, "concurrency": args.concurrency,
                               "seed": args.seed}
    if args.temperature is not None:
        options["temperature"] = args.temperature
    if args.max_tokens is not None:
        options["max_tokens"] = args.max_tokens
    if args.transcript is not None:
        options["transcript"] = args.transcript
    cache = args.cache if args.cache is not None else str(user_cache_folder("llm"))
    options["cache_dir"] = None if cache.lower() == "none" else cache
    key_env = None if args.api_key_env.lower() == "none" else args.api_key_env
    return player_from_spec(args.policy, base_url=args.base_url, api_key_env=key_env,
                            timeout=args.timeout, **options)


def _closing(player: Any) -> None:
    close = getattr(player, "close", None)
    if callable(close):
        close()


def _write_report(args: argparse.Namespace, markdown: str) -> None:
    if args.report:
        write_atomically(args.report, markdown.encode(), what="report")
        if not args.json:
            print(f"report written to {args.report}")


def judge_from_args(args: argparse.Namespace) -> int:
    """Run ``evaluate.py --policy`` and print its results (JSON with ``--json``)."""
    if args.report:
        check_target(args.report, "report")
    if args.spots is not None:
        return _judge_spots(args)
    from pokerzoo.games import load_game

    params: dict[str, Any] = {}
    if args.game_variant is not None:
        if args.game_variant not in LEDUC_VARIANTS or (args.game or "leduc_holdem") != \
                "leduc_holdem":
            raise ConfigError(f"--game-variant names a Leduc variant ({', '.join(LEDUC_VARIANTS)})"
                              f", got {args.game_variant!r} for {args.game or 'leduc_holdem'}")
        params.update(LEDUC_VARIANTS[args.game_variant])
    params.update(parse_assignments(args.game_param, "--game-param"))
    game = load_game(args.game or "leduc_holdem", **params)
    if game.name.split("(")[0] in HOLDEM_FAMILIES:
        return _holdem_matches(args, game)
    if args.runs:
        raise ConfigError(f"on {game.name} the judge plays CFR+ and uniform: give no run "
                          "folders with --policy (they are hold'em opponents)")
    player = player_from_args(args)
    try:
        report = judge_game(game, player, samples=args.samples, fallback=args.fallback,
                            hands=args.hands, seed=args.seed, progress=not args.json)
    finally:
        _closing(player)
    print(json.dumps(report.to_json(), indent=2) if args.json else report.summary())
    _write_report(args, report.markdown())
    return 0


def _spot_hands(text: str) -> str | int:
    if text == "all":
        return text
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigError(f"--judge-hands takes 'all' or a number of hands >= 1, got {text!r}")
    return value


def _judge_spots(args: argparse.Namespace) -> int:
    if args.game is not None or args.game_param or args.game_variant or args.runs:
        raise ConfigError("--spots judges the suite's hold'em spots: drop --game, "
                          "--game-param and run folders")
    hands = _spot_hands(args.judge_hands)
    player = player_from_args(args)
    try:
        report = judge_suite(args.spots, player, hands=hands, seed=args.seed,
                             fallback=args.fallback, samples=args.samples,
                             progress=not args.json)
    finally:
        _closing(player)
    print(json.dumps(report.to_json(), indent=2) if args.json else report.summary())
    if args.report:
        charts = Path(args.report).with_suffix("")
        _write_report(args, report.markdown(chart_folder=f"{charts}_charts"))
    return 0


def _holdem_matches(args: argparse.Namespace, game: Any) -> int:
    from pokerzoo.evaluation import parse_opponents
    from pokerzoo.runs.folder import SavedRun
    from pokerzoo.runs.tournament import run_entrants

    opponents: list[tuple[str, Any]] = [(name, name) for name in
                                        parse_opponents(args.opponents)]
    runs = [SavedRun.open(folder) for folder in args.runs]
    for run in runs:
        if run.game != game:
            raise ConfigError(f"{run.folder} plays {run.game.name}, not {game.name}")
    opponents += [(e.name, e.policy) for e in run_entrants(runs)]
    if not opponents:
        raise ConfigError("a hold'em match needs an opponent: --opponents NAMES or run folders")
    hands = args.hands + args.hands % 2  # each deal is played twice, seats swapped
    player = player_from_args(args)
    results = []
    try:
        for name, opponent in opponents:
            result = holdem_match(player, opponent, hands, args.seed, game=game,
                                  fallback=args.fallback, progress=not args.json)
            results.append({**result.to_json(), "opponent": name})
    finally:
        _closing(player)
    if args.json:
        print(json.dumps({"game": game.name, "matches": results}, indent=2))
    else:
        for r in results:
            print(f"versus {r['opponent']}: {r['mbb_per_hand']:+.1f} +- "
                  f"{r['mbb_per_hand_ci']:.1f} mbb/hand over {r['hands']} hands "
                  f"({r['queries']} questions, {r['illegal_answers']} illegal answers, "
                  f"{r['fallbacks']} fallbacks)")
    lines = [f"# Judge report: {game.name} matches", "", "| opponent | hands | mbb/hand | "
             "95% +- | questions | illegal | fallbacks |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['opponent']} | {r['hands']} | {r['mbb_per_hand']:+.1f} | "
              f"{r['mbb_per_hand_ci']:.1f} | {r['queries']} | {r['illegal_answers']} | "
              f"{r['fallbacks']} |" for r in results]
    _write_report(args, "\n".join(lines) + "\n")
    return 0
