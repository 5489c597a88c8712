#!/usr/bin/env python
"""The judge's speed: questions judged per second on Leduc (all 936 information states x k).

Three players answer the same questions: a Python callable (the judge's own cost: rendering
every decision, checking the answers, tabularising, NashConv and its bootstrap interval, the
exact chips and a duplicate match on the same table), the same policy behind a chat-completions
server on 127.0.0.1 (``pokerzoo.judge.loopback``: the HTTP client's cost at a few concurrency
levels), and that server again with the response cache filled (a rerun: zero requests). A
packaged model's table (``bench/judge_model/``) is added from its results file where one is
given.

    python bench/bench_judge.py                       # writes bench/results/judge/speed.md
    python bench/bench_judge.py --samples 1 5 --out /tmp/judge.md
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_subgame import cpu_name  # noqa: E402
from bench.common import code_version, library_versions, table  # noqa: E402
from pokerzoo import load_game  # noqa: E402
from pokerzoo.atomic import write_atomically  # noqa: E402
from pokerzoo.judge import judge_game  # noqa: E402
from pokerzoo.judge.decision import describe  # noqa: E402
from pokerzoo.judge.protocol import ask_many  # noqa: E402
from pokerzoo.tree import build  # noqa: E402


def hashed_choice(decision: Any, sample: int = 0) -> int:
    """A deterministic policy: the action a hash of the state's key picks."""
    digest = zlib.crc32(decision.key.encode())
    return decision.legal[digest % len(decision.legal)].action


def timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def asking_rate(game: Any, player: Any, samples: int) -> float:
    """Questions per second of ``ask_many`` alone (decisions rendered beforehand)."""
    tree = build(game)
    decisions = [describe(tree.infoset_state(i)) for i in range(tree.num_infosets)]
    requests = [(d, s) for s in range(samples) for d in decisions]
    seconds, _ = timed(lambda: ask_many(player, requests))
    return len(requests) / seconds


def callable_rows(game: Any, samples: list[int], hands: int) -> list[list[object]]:
    rows = []
    for k in samples:
        seconds, report = timed(lambda k=k: judge_game(game, hashed_choice, samples=k,
                                                       hands=hands, progress=False))
        rows.append(["callable", k, report.queries, f"{seconds:.2f}",
                     f"{report.queries / seconds:,.0f}",
                     f"{asking_rate(game, hashed_choice, k):,.0f}",
                     f"{report.nash_conv:.4f}", report.requests])
    return rows


def endpoint_rows(game: Any, samples: list[int], concurrency: list[int],
                  hands: int) -> list[list[object]]:
    from pokerzoo.judge.llm import ChatPlayer
    from pokerzoo.judge.loopback import ChatServer, policy_responder

    tree = build(game)
    decisions = [describe(tree.infoset_state(i)) for i in range(tree.num_infosets)]
    table_of = {d.text: {next(a.label for a in d.legal if a.action == hashed_choice(d)): 1.0}
                for d in decisions}
    rows = []
    with ChatServer(policy_responder(table_of)) as server, \
            tempfile.TemporaryDirectory() as cache:
        for k in samples:
            for threads in concurrency:
                player = ChatPlayer(base_url=server.base_url, model="loopback",
                                    api_key_env=None, concurrency=threads, seed=0,
                                    cache_dir=None)
                seconds, report = timed(lambda p=player, k=k: judge_game(
                    game, p, samples=k, hands=hands, progress=False))
                rate = asking_rate(game, ChatPlayer(
                    base_url=server.base_url, model="loopback", api_key_env=None,
                    concurrency=threads, seed=0, cache_dir=None), k)
                rows.append([f"HTTP, {threads} in flight", k, report.queries,
                             f"{seconds:.2f}", f"{report.queries / seconds:,.0f}",
                             f"{rate:,.0f}", f"{report.nash_conv:.4f}", report.requests])
            cached = ChatPlayer(base_url=server.base_url, model="loopback", api_key_env=None,
                                concurrency=max(concurrency), seed=0, cache_dir=cache)
            judge_game(game, cached, samples=k, hands=hands, progress=False)
            seconds, report = timed(lambda p=cached, k=k: judge_game(
                game, p, samples=k, hands=hands, progress=False))
            rows.append(["HTTP, cache filled (rerun)", k, report.queries, f"{seconds:.2f}",
                         f"{report.queries / seconds:,.0f}",
                         f"{asking_rate(game, cached, k):,.0f}", f"{report.nash_conv:.4f}",
                         report.requests])
    return rows


def model_table(paths: list[Path]) -> list[str]:
    """The packaged model's judge results (``bench/judge_model/``) as a Markdown table."""
    if not paths:
        return []
    rows = []
    for path in paths:
        data = json.loads(path.read_text())
        versus = {v["reference"]: v for v in data["versus"]}
        low, high = data["exploitability_ci"]

        def chips(name: str, versus: dict[str, Any] = versus) -> str:
            v = versus[name]
            return f"{v['exact_chips']:+.3f} ({v['match_chips']:+.2f} +- {v['match_ci95']:.2f})"

        rows.append([path.name, data["game"], data["samples"], f"{data['nash_conv']:.4f}",
                     f"{data['exploitability']:.4f} [{low:.4f}, {high:.4f}]",
                     data["queries"], data["requests"],
                     f"{data['illegal_answers'] / data['requests']:.1%}", data["fallbacks"],
                     chips("cfr+"), chips("uniform")])
    return ["## The packaged model", "",
            "Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF from PyPI, llama-cpp-python's server on "
            "127.0.0.1; `bench/judge_model/`, `model_search.md`), judged through the same "
            "HTTP path as any endpoint: `evaluate.py --policy openai:qwen2.5-coder-0.5b "
            "--base-url http://127.0.0.1:8765/v1 --api-key-env none --max-tokens 64 --game G "
            "--samples K --hands 200 --json` at temperature 0 (k = 1) or 1.0 (k = 10). "
            "Chips per hand: exact (duplicate match of 400 hands, 95%).", "",
            table(["results file", "game", "k", "NashConv", "exploitability [95%]",
                   "questions", "requests", "illegal answers / requests", "fallbacks",
                   "vs CFR+", "vs uniform"], rows), ""]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, nargs="+", default=[1, 5])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--hands", type=int, default=0,
                        help="deals of each reference match (0: exact chips only)")
    parser.add_argument("--model-results", type=Path, nargs="*",
                        default=[ROOT / "bench" / "results" / "judge" / name for name in (
                            "model_judge_kuhn.json", "model_judge_kuhn_t1.json",
                            "model_judge_leduc.json")],
                        help="the packaged model's judge results (evaluate.py --policy ... "
                             "--json), those present")
    parser.add_argument("--out", type=Path,
                        default=ROOT / "bench" / "results" / "judge" / "speed.md")
    args = parser.parse_args(argv)
    game = load_game("leduc_holdem")
    judge_game(load_game("kuhn_poker"), hashed_choice, hands=0, progress=False)  # compile
    rows = callable_rows(game, args.samples, args.hands)
    rows += endpoint_rows(game, args.samples, args.concurrency, args.hands)
    lines = [
        "# The judge's speed (bench/bench_judge.py)", "",
        f"Code: {code_version(ROOT)}. Libraries: {library_versions()}. Machine: {cpu_name()}, "
        f"{os.cpu_count()} cores.", "",
        "Leduc hold'em, every one of its 936 information states asked k times; seconds are "
        "the whole `judge_game` call (rendering, asking, checking, tabularising, NashConv and "
        f"its bootstrap interval, exact chips against CFR+ and uniform; match deals: "
        f"{args.hands}). The HTTP rows ask a chat-completions server on 127.0.0.1 answering "
        "from the same policy (`pokerzoo.judge.loopback.policy_responder`), so they measure "
        "the client, not a model.", "",
        table(["player", "k", "questions", "judge_game s", "questions / s (whole)",
               "questions / s (asking only)", "NashConv", "requests sent"], rows), "",
        "The whole call carries a fixed cost of about a second (rendering the 936 decisions, "
        "5,000 CFR+ iterations for the reference, the bootstrap), so the asking-only column "
        "(`ask_many` over decisions rendered beforehand) is the rate of the questions "
        "themselves. The loopback server runs in the benchmark's own process, so on 2 "
        "cores requests in flight compete with it for the interpreter: concurrency pays "
        "where the endpoint's latency, not this machine, sets the pace (a model "
        "answering in a second).", "",
    ]
    lines += model_table([path for path in args.model_results if path.exists()])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(args.out, "\n".join(lines), what="benchmark results")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
