"""Ask a served chat model every information state of a small game and measure how it answers.

The prompt is the judge's: the decision's text rendering, its ``Legal actions:`` line, and the
instruction to end with a ``Final Answer:`` line (Kaggle Game Arena's convention). For each
setting of ``max_tokens`` it records seconds per answer, completion tokens, the share of replies
that have a ``Final Answer:`` line, the share whose answer is a legal action as written (exact
label, as ``Decision.action_of`` reads it) and the share whose answer at least names a legal
kind (``bet`` for ``bet 1``: what a soft parser repairs), and each state's answers.

Run (with a server from ``serve.py`` on port 8765)::

    PYTHONPATH=. python bench/judge_model/probe.py --base-url http://127.0.0.1:8765/v1 \\
        --max-tokens 64 128 --json bench/results/judge/model_probe.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Sequence
from typing import Any, TypeVar

from pokerzoo.atomic import write_atomically
from pokerzoo.games import load_game
from pokerzoo.games.base import Game, State
from pokerzoo.judge.decision import Decision, describe

T = TypeVar("T")
INSTRUCTION = "End your reply with a line 'Final Answer: <one legal action>'."


class ProbeError(RuntimeError):
    """A request that failed, with a one-line reason."""


def information_states(game: Game) -> list[Decision]:
    """One decision per information state of ``game``, in order of key (every chance outcome
    and every action is followed; the first state met stands for its information state)."""
    seen: dict[str, Decision] = {}
    stack: list[State] = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            decision = describe(state)
            seen.setdefault(decision.key, decision)
        stack.extend(state.child(action) for action in state.legal_actions())
    return [seen[key] for key in sorted(seen)]


def evenly_spaced(items: Sequence[T], count: int | None) -> list[T]:
    """``count`` of ``items`` at evenly spaced positions (all of them for ``None``).

    >>> evenly_spaced(list("abcdefgh"), 3)
    ['a', 'c', 'f']
    """
    if count is None or count >= len(items):
        return list(items)
    return [items[i * len(items) // count] for i in range(count)]


def prompt_of(decision: Decision) -> str:
    """The user message the judge sends for ``decision``."""
    return decision.text + "\n" + decision.legal_line() + "\n" + INSTRUCTION


def final_answer(text: str) -> str | None:
    """The answer on the reply's last line that begins ``Final Answer:`` (markdown emphasis,
    quotes and a closing full stop stripped), or ``None`` when no line does.

    >>> final_answer("I hold the king.\\n**Final Answer:** bet 1.")
    'bet 1'
    >>> final_answer("check") is None
    True
    """
    answer = None
    for line in text.splitlines():
        bare = line.strip().lstrip("*#> ").replace("**", "")
        if bare.lower().startswith("final answer:"):
            answer = bare[len("final answer:"):].strip().strip("*`'\" ").rstrip(".").strip()
    return answer


def names_legal_kind(decision: Decision, answer: str) -> bool:
    """Whether ``answer``'s first word is the kind of a legal action (``bet`` for ``bet 1``)."""
    words = answer.lower().split()
    return bool(words) and any(words[0] == legal.kind for legal in decision.legal)


def chat(base_url: str, model: str, prompt: str, max_tokens: int, temperature: float,
         seed: int, timeout: float) -> tuple[str, dict[str, Any], float]:
    """One chat completion: (reply text, usage, wall seconds). Raises ``ProbeError``."""
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": prompt}],
                       "max_tokens": max_tokens, "temperature": temperature,
                       "seed": seed}).encode()
    request = urllib.request.Request(base_url.rstrip("/") + "/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            reply = json.load(response)
    except urllib.error.HTTPError as exc:
        raise ProbeError(f"{base_url} answered HTTP {exc.code}: {exc.reason}") from None
    except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ProbeError(f"cannot reach {base_url}: {reason}") from None
    seconds = time.perf_counter() - start
    try:
        text = reply["choices"][0]["message"]["content"] or ""
    except (KeyError, IndexError, TypeError):
        raise ProbeError(f"{base_url} sent no choices[0].message.content") from None
    return text, reply.get("usage") or {}, seconds


def probe(base_url: str, model: str, decisions: Sequence[Decision], max_tokens: int,
          samples: int = 1, temperature: float = 0.0, seed: int = 0,
          timeout: float = 300.0) -> dict[str, Any]:
    """Ask every decision ``samples`` times at ``max_tokens``; the measurements as JSON data."""
    seconds: list[float] = []
    tokens: list[int] = []
    prompt_tokens: list[int] = []
    with_final = legal = kind_legal = 0
    per_state: dict[str, dict[str, int]] = {}
    examples: dict[str, str] = {}
    for decision in decisions:
        answers: Counter[str] = Counter()
        for sample in range(samples):
            text, usage, wall = chat(base_url, model, prompt_of(decision), max_tokens,
                                     temperature, seed + sample, timeout)
            seconds.append(wall)
            tokens.append(int(usage.get("completion_tokens", 0)))
            prompt_tokens.append(int(usage.get("prompt_tokens", 0)))
            answer = final_answer(text)
            examples.setdefault(decision.key, text)
            if answer is None:
                answers["(no Final Answer line)"] += 1
                continue
            with_final += 1
            if decision.action_of(answer) is not None:
                legal += 1
            if names_legal_kind(decision, answer):
                kind_legal += 1
            answers[answer.lower()] += 1
        per_state[decision.key] = dict(answers.most_common())
    asked = len(decisions) * samples
    return {
        "max_tokens": max_tokens, "samples": samples, "temperature": temperature, "seed": seed,
        "states": len(decisions), "answers": asked,
        "seconds_per_answer_mean": statistics.fmean(seconds),
        "seconds_per_answer_median": statistics.median(seconds),
        "completion_tokens_mean": statistics.fmean(tokens),
        "prompt_tokens_mean": statistics.fmean(prompt_tokens),
        "final_answer_share": with_final / asked,
        "legal_share": legal / asked,
        "legal_kind_share": kind_legal / asked,
        "per_state": per_state,
        "example_replies": examples,
    }


def markdown_rows(results: Sequence[dict[str, Any]]) -> str:
    """The summary table of ``results`` in Markdown."""
    lines = ["| max_tokens | answers | s/answer (mean, median) | prompt, completion tokens | "
             "`Final Answer:` line | legal as written | names a legal kind |",
             "|---:|---:|---|---:|---:|---:|---:|"]
    for r in results:
        lines.append(
            f"| {r['max_tokens']} | {r['answers']} | {r['seconds_per_answer_mean']:.2f}, "
            f"{r['seconds_per_answer_median']:.2f} | {r['prompt_tokens_mean']:.0f}, "
            f"{r['completion_tokens_mean']:.1f} | "
            f"{r['final_answer_share']:.0%} | {r['legal_share']:.0%} | "
            f"{r['legal_kind_share']:.0%} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (see the module doc)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8765/v1")
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--game", default="kuhn_poker")
    parser.add_argument("--max-tokens", type=int, nargs="+", default=[64, 128])
    parser.add_argument("--samples", type=int, default=1)
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--states", type=int, default=None,
                        help="ask only this many information states, evenly spaced in key "
                             "order (default: all)")
    parser.add_argument("--json", default=None, help="write the measurements here (JSON)")
    args = parser.parse_args(argv)
    if args.samples < 1 or min(args.max_tokens) < 1 or (args.states or 1) < 1:
        print("probe.py: --samples, --states and --max-tokens must be at least 1",
              file=sys.stderr)
        return 2
    decisions = evenly_spaced(information_states(load_game(args.game)), args.states)
    try:
        results = [probe(args.base_url, args.model, decisions, n, args.samples,
                         args.temperature, args.seed) for n in args.max_tokens]
    except ProbeError as exc:
        print(f"probe.py: {exc}", file=sys.stderr)
        return 2
    print(markdown_rows(results))
    if args.json:
        payload = {"base_url": args.base_url, "model": args.model, "game": args.game,
                   "results": results}
        write_atomically(args.json, json.dumps(payload, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
