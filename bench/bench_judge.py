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
from pokerzoo.tree import build  # noqa: E402


def hashed_choice(decision: Any, sample: int = 0) -> int:
    """A deterministic policy: the action a hash of the state's key picks."""
    digest = zlib.crc32(decision.key.encode())
    return decision.legal[digest % len(decision.legal)].action


def timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def callable_rows(game: Any, samples: list[int], hands: int) -> list[list[object]]:
    rows = []
    for k in samples:
        seconds, report = timed(lambda k=k: judge_game(game, hashed_choice, samples=k,
                                                       hands=hands, progress=False))
        rows.append(["callable", k, report.queries, f"{seconds:.2f}",
                     f"{report.queries / seconds:,.0f}", f"{report.nash_conv:.4f}",
                     report.requests])
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
                rows.append([f"HTTP, {threads} in flight", k, report.queries,
                             f"{seconds:.2f}", f"{report.queries / seconds:,.0f}",
                             f"{report.nash_conv:.4f}", report.requests])
            cached = ChatPlayer(base_url=server.base_url, model="loopback", api_key_env=None,
                                concurrency=max(concurrency), seed=0, cache_dir=cache)
            judge_game(game, cached, samples=k, hands=hands, progress=False)
            seconds, report = timed(lambda p=cached, k=k: judge_game(
                game, p, samples=k, hands=hands, progress=False))
            rows.append(["HTTP, cache filled (rerun)", k, report.queries, f"{seconds:.2f}",
                         f"{report.queries / seconds:,.0f}", f"{report.nash_conv:.4f}",
                         report.requests])
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, nargs="+", default=[1, 5])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--hands", type=int, default=0,
                        help="deals of each reference match (0: exact chips only)")
    parser.add_argument("--model-results", type=Path,
                        default=ROOT / "bench" / "results" / "judge" / "packaged_model.json",
                        help="the packaged model's judge results (JSON), if present")
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
        table(["player", "k", "questions", "seconds", "questions / s", "NashConv",
               "requests sent"], rows), "",
    ]
    if args.model_results.exists():
        model = json.loads(args.model_results.read_text())
        lines += ["## The packaged model", "", model.get("markdown", json.dumps(model)), ""]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(args.out, "\n".join(lines), what="benchmark results")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
