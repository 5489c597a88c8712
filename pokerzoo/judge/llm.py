"""An LLM behind an OpenAI-compatible chat-completions endpoint, as an outside player.

``ChatPlayer(base_url, model)`` asks each decision with ``prompting.chat_messages`` (Kaggle Game
Arena's harness: the state, a ``Legal actions:`` line, an answer on a last ``Final Answer:``
line) by ``POST {base_url}/chat/completions`` and reads the answer with
``prompting.read_final_answer``. It speaks the protocol of ``pokerzoo.judge.protocol``:
``decide`` (one decision), ``decide_many`` (many, on ``concurrency`` threads, answers in order)
and ``reask`` (the conversation continued, quoting why the answer was refused); the judge's
declared fallback takes over after a second refused answer.

Requests go through the standard library's ``http.client`` (no proxy is used). A 429, a 5xx, a
timeout or a reset connection is tried again up to ``retries`` times, waiting ``backoff * 2**n``
seconds or what the server's ``Retry-After`` asks (at most ``MAX_WAIT`` seconds); a refused
connection, another status or a body that is not a chat completion fails at once. Every failure
is one ``PlayerError`` line naming the URL.

Sampling: request ``i`` of sample ``s`` is sent with ``seed + s * votes + i`` (``seed + s`` with
one vote), so the k samples of a decision differ and each is reproducible. With ``votes > 1``
each decision is asked ``votes`` times and the plurality of the readable answers wins, a tie
going to the action that comes first in the game's order; every unreadable vote is counted in
``Reply.illegal``, and a re-ask (when no vote was readable) is one request continuing the first
vote's conversation.

Costs: a ``Reply`` carries the requests sent (0 from the cache), whether the cache answered,
and the usage tokens of what was sent; ``stats()`` keeps running totals. ``cache_dir`` keeps
every reply on disk (``response_cache``), so a rerun sends nothing; ``transcript`` appends one
JSON line per exchange.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import math
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pokerzoo.atomic import check_target
from pokerzoo.errors import ConfigError, PlayerError
from pokerzoo.judge.decision import Decision
from pokerzoo.judge.prompting import (
    SYSTEM_PROMPT,
    chat_messages,
    read_final_answer,
    reask_messages,
)
from pokerzoo.judge.protocol import BadAnswer, Reply
from pokerzoo.judge.response_cache import CachedReply, ResponseCache

__all__ = ["MAX_WAIT", "ChatPlayer"]

MAX_WAIT = 60.0
"""The longest wait between two tries, in seconds, whatever ``Retry-After`` asks."""

_RESET = (ConnectionResetError, ConnectionAbortedError, BrokenPipeError,
          http.client.RemoteDisconnected, http.client.IncompleteRead)


@dataclass(frozen=True)
class _Exchange:
    """One request and its reply (from the endpoint or the cache), with its reading."""

    messages: list[dict[str, Any]]
    content: str | None
    prompt_tokens: int
    completion_tokens: int
    cached: bool
    action: int | None
    error: str | None


class _Endpoint:
    """``POST`` of chat-completion bodies to one URL, with retries (see the module)."""

    def __init__(self, base_url: str, api_key: str | None, timeout: float, retries: int,
                 backoff: float) -> None:
        self.url = _completions_url(base_url)
        parts = urlsplit(self.url)
        self.https = parts.scheme == "https"
        self.host = parts.hostname or ""
        self.port = parts.port
        self.path = parts.path + (f"?{parts.query}" if parts.query else "")
        self.headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key is not None:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff

    def post(self, body: dict[str, Any], on_retry: Any) -> dict[str, Any]:
        """The endpoint's JSON reply to ``body``; ``on_retry()`` is called before each retry."""
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        last = ""
        for attempt in range(self.retries + 1):
            wait_for: float | None = None
            try:
                status, headers, raw = self._once(data)
            except ConnectionRefusedError:
                raise PlayerError(f"cannot connect to {self.url}: the connection was refused "
                                  "(is the server running?)") from None
            except TimeoutError:
                last = f"no reply within the timeout of {self.timeout:g} s"
            except _RESET:
                last = "the connection was reset"
            except http.client.HTTPException as error:
                last = f"a broken HTTP reply ({type(error).__name__})"
            except OSError as error:
                raise PlayerError(f"cannot reach {self.url}: "
                                  f"{error.strerror or error}") from None
            else:
                if status == 200:
                    return self._json(raw)
                if status != 429 and not 500 <= status < 600:
                    raise PlayerError(self._refusal(status, raw))
                last = f"status {status}: {_error_message(raw)}"
                wait_for = _retry_after(headers.get("retry-after"))
            if attempt < self.retries:
                on_retry()
                delay = self.backoff * 2 ** attempt if wait_for is None else wait_for
                time.sleep(min(delay, MAX_WAIT))
        tries = "1 try" if self.retries == 0 else f"{self.retries + 1} tries"
        raise PlayerError(f"{self.url} failed after {tries}: {last}")

    def _once(self, data: bytes) -> tuple[int, dict[str, str], bytes]:
        kind = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
        connection = kind(self.host, self.port, timeout=self.timeout)
        try:
            connection.request("POST", self.path, body=data, headers=self.headers)
            response = connection.getresponse()
            raw = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, raw
        finally:
            connection.close()

    def _json(self, raw: bytes) -> dict[str, Any]:
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            body = None
        if not isinstance(body, dict) or not isinstance(body.get("choices"), list) \
                or not body["choices"] or not isinstance(body["choices"][0], dict) \
                or not isinstance(body["choices"][0].get("message"), dict):
            raise PlayerError(f"{self.url} answered status 200 with a body that is not a chat "
                              "completion (no choices[0].message): is it an OpenAI-compatible "
                              "/v1 endpoint?")
        return body

    def _refusal(self, status: int, raw: bytes) -> str:
        hint = {401: " (check the API key)", 403: " (check the API key and the model's access)",
                404: " (check the base URL, usually ending in /v1, and the model name)"}
        return (f"{self.url} refused the request with status {status}: "
                f"{_error_message(raw)}{hint.get(status, '')}")


def _completions_url(base_url: str) -> str:
    if not isinstance(base_url, str):
        raise ConfigError(f"base_url must be a URL string, got {type(base_url).__name__}")
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"base_url {base_url!r} is not an http:// or https:// URL with a "
                          "host (for example http://127.0.0.1:8080/v1)")
    try:
        parts.port  # noqa: B018 (urlsplit checks the port only when it is read)
    except ValueError:
        raise ConfigError(f"base_url {base_url!r} has a port that is not a number in "
                          "0-65535") from None
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    return parts._replace(path=path, fragment="").geturl()


def _error_message(raw: bytes) -> str:
    """The ``error.message`` of an error body, else its first line (shortened)."""
    text = raw.decode("utf-8", "replace")
    try:
        body = json.loads(text)
        message = body["error"]["message"] if isinstance(body.get("error"), dict) \
            else body.get("error") or body.get("message") or text
    except (ValueError, AttributeError, KeyError, TypeError):
        message = text
    line = " ".join(str(message).split())
    return (line[:200] + "...") if len(line) > 200 else (line or "no message")


def _retry_after(value: str | None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (a number or an HTTP date), or ``None``."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = (when - datetime.now(when.tzinfo or UTC)).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _content(body: dict[str, Any]) -> str | None:
    """``choices[0].message.content``: text, or text parts joined; ``None`` where absent."""
    content = body["choices"][0]["message"].get("content")
    if isinstance(content, list):  # content parts, as some servers send them
        texts = [part.get("text") for part in content if isinstance(part, dict)]
        return "".join(t for t in texts if isinstance(t, str))
    return content if isinstance(content, str) else None


def _usage(body: dict[str, Any]) -> tuple[int, int]:
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return 0, 0
    counts = []
    for name in ("prompt_tokens", "completion_tokens"):
        value = usage.get(name)
        counts.append(value if isinstance(value, int) and value >= 0 else 0)
    return counts[0], counts[1]


def _number(name: str, value: Any, *, low: float, integer: bool, allow_none: bool = False,
            strict: bool = False) -> Any:
    """``value`` checked: a number (an int where ``integer``) >= ``low`` (> where ``strict``)."""
    if value is None and allow_none:
        return None
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not math.isfinite(value) \
            or value < low or (strict and value == low):
        bound = f"> {low:g}" if strict else f">= {low:g}"
        kind = "a whole number" if integer else "a number"
        none = " or None" if allow_none else ""
        raise ConfigError(f"{name} must be {kind} {bound}{none}, got {value!r}")
    return value


def _api_key(api_key_env: str | None) -> str | None:
    if api_key_env is None:
        return None
    if not isinstance(api_key_env, str) or not api_key_env:
        raise ConfigError("api_key_env names the environment variable holding the key (for "
                          f"example OPENAI_API_KEY), or is None; got {api_key_env!r}")
    key = os.environ.get(api_key_env)
    if not key:
        raise ConfigError(f"the API key variable {api_key_env} is not set: export "
                          f"{api_key_env}=<your key>, or pass api_key_env=None for a server "
                          "that needs no key")
    return key


class ChatPlayer:
    """An LLM behind ``POST {base_url}/chat/completions``, asked as an outside player.

    Args:
        base_url: The API root, like ``http://127.0.0.1:8080/v1`` (a URL already ending in
            ``/chat/completions`` is taken as it is).
        model: The ``model`` field of each request.
        api_key_env: The environment variable holding the key, sent as ``Authorization:
            Bearer``; ``None`` for a local server that needs none. Read once, here.
        temperature: Sampling temperature, sent with each request.
        seed: Base seed (see the module); ``None`` sends no seed.
        max_tokens: Longest reply, or ``None`` to leave it to the server.
        votes: Requests per decision, the plurality answer winning (see the module).
        concurrency: Threads ``decide_many`` sends requests on.
        retries: Further tries after a 429, a 5xx, a timeout or a reset connection.
        timeout: Seconds each try may wait for the socket.
        backoff: Seconds before the first retry, doubling after each.
        cache_dir: A folder caching every reply (created if missing), or ``None``.
        transcript: A JSONL file every exchange is appended to, or ``None``.
        soft: Read answers with ``read_final_answer``'s soft rules.
        system: The system message.

    Raises:
        ConfigError: a parameter out of range, a bad URL, or an ``api_key_env`` that is unset.
    """

    def __init__(self, base_url: str, model: str, *, api_key_env: str | None = None,
                 temperature: float = 0.0, seed: int | None = 0, max_tokens: int | None = None,
                 votes: int = 1, concurrency: int = 4, retries: int = 3, timeout: float = 60.0,
                 backoff: float = 1.0, cache_dir: str | os.PathLike[str] | None = None,
                 transcript: str | os.PathLike[str] | None = None, soft: bool = True,
                 system: str = SYSTEM_PROMPT) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ConfigError(f"model must be the model's name (a non-empty string), got "
                              f"{model!r}")
        self.model = model
        self.temperature = float(_number("temperature", temperature, low=0.0, integer=False))
        self.seed = _number("seed", seed, low=-(2 ** 63), integer=True, allow_none=True)
        self.max_tokens = _number("max_tokens", max_tokens, low=1, integer=True,
                                  allow_none=True)
        self.votes = _number("votes", votes, low=1, integer=True)
        self.concurrency = _number("concurrency", concurrency, low=1, integer=True)
        retries = _number("retries", retries, low=0, integer=True)
        timeout = float(_number("timeout", timeout, low=0.0, integer=False, strict=True))
        backoff = float(_number("backoff", backoff, low=0.0, integer=False))
        self.soft = bool(soft)
        self.system = system
        self._endpoint = _Endpoint(base_url, _api_key(api_key_env), timeout, retries, backoff)
        self.url = self._endpoint.url
        self._cache = ResponseCache(cache_dir) if cache_dir is not None else None
        self._transcript: Path | None = None
        if transcript is not None:
            check_target(transcript, "transcript")
            self._transcript = Path(transcript)
        self._lock = threading.Lock()
        self._totals = {"requests": 0, "cache_hits": 0, "retries": 0, "prompt_tokens": 0,
                        "completion_tokens": 0, "unreadable": 0, "reasks": 0}
        # The refused conversation of each (game, information state, sample), for its re-ask.
        self._refused: dict[tuple[str, str, int], _Exchange] = {}

    def stats(self) -> dict[str, int]:
        """Running totals: ``requests`` sent and answered, ``cache_hits``, ``retries``,
        ``prompt_tokens`` and ``completion_tokens`` of what was sent, ``unreadable`` replies
        (refused by the parser) and ``reasks``."""
        with self._lock:
            return dict(self._totals)

    def decide(self, decision: Decision, sample: int) -> Reply:
        """Ask ``decision`` (``votes`` requests) and return the answer as a ``Reply``.

        A reply naming no legal action is returned with empty ``probs``, which the protocol
        refuses, then calls ``reask``.
        """
        exchanges = [self._exchange(decision, sample, vote) for vote in range(self.votes)]
        return self._combine(decision, sample, exchanges)

    def decide_many(self, requests: Sequence[tuple[Decision, int]]) -> list[Reply]:
        """``decide`` for each ``(decision, sample)``, ``concurrency`` requests at a time;
        the replies in the order asked. The first failing request stops the rest."""
        jobs = [(index, vote) for index in range(len(requests)) for vote in range(self.votes)]
        if self.concurrency == 1 or len(jobs) <= 1:
            return [self.decide(decision, sample) for decision, sample in requests]
        results: dict[tuple[int, int], _Exchange] = {}
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(jobs))) as pool:
            futures = {pool.submit(self._exchange, *requests[index], vote): (index, vote)
                       for index, vote in jobs}
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            failed = [f for f in done if f.exception() is not None]
            if failed:
                pool.shutdown(wait=True, cancel_futures=True)
                raise failed[0].exception()  # type: ignore[misc]
            for future, job in futures.items():
                results[job] = future.result()
        return [self._combine(decision, sample, [results[(index, vote)]
                                                 for vote in range(self.votes)])
                for index, (decision, sample) in enumerate(requests)]

    def reask(self, decision: Decision, sample: int, error: str) -> Reply:
        """Ask again after a refused answer: the conversation so far (the model's reply as the
        assistant message) and a user message quoting the reason and the legal actions."""
        with self._lock:
            refused = self._refused.pop((decision.game, decision.key, sample), None)
            self._totals["reasks"] += 1
        if refused is None:
            messages = chat_messages(decision, self.system)
            reason = error
        else:
            messages, reason = refused.messages, refused.error or error
        conversation = reask_messages(messages, (refused.content or "") if refused else "",
                                      reason, decision)
        exchange = self._exchange(decision, sample, 0, conversation, attempt=1)
        # Only one re-ask: a second refusal goes to the protocol's fallback, so none is kept.
        return self._combine(decision, sample, [exchange], keep_refused=False)

    def _combine(self, decision: Decision, sample: int, exchanges: list[_Exchange],
                 keep_refused: bool = True) -> Reply:
        sent = [e for e in exchanges if not e.cached]
        costs = Reply({}, requests=len(sent), cached=not sent,
                      prompt_tokens=sum(e.prompt_tokens for e in sent),
                      completion_tokens=sum(e.completion_tokens for e in sent))
        readable = [e for e in exchanges if e.action is not None]
        unreadable = len(exchanges) - len(readable)
        if not readable:
            if keep_refused:
                with self._lock:
                    self._refused[(decision.game, decision.key, sample)] = exchanges[0]
            # Empty probs are refused by the protocol, which counts that one; the others here.
            return replace(costs, illegal=unreadable - 1, text=exchanges[0].content or "")
        counts = {a: sum(e.action == a for e in readable) for a in decision.actions}
        winner = max(decision.actions, key=lambda a: counts[a])  # max keeps the first of a tie
        text = next(e.content or "" for e in readable if e.action == winner)
        return replace(costs, probs={winner: 1.0}, illegal=unreadable, text=text)

    def _fields(self, messages: list[dict[str, Any]], sample: int, vote: int,
                attempt: int) -> dict[str, Any]:
        """What decides a request's reply (its cache key): never the URL or the key."""
        seed = None if self.seed is None else self.seed + sample * self.votes + vote
        return {"model": self.model, "messages": messages, "temperature": self.temperature,
                "seed": seed, "max_tokens": self.max_tokens, "sample": sample, "vote": vote,
                "attempt": attempt}

    def _exchange(self, decision: Decision, sample: int, vote: int,
                  messages: list[dict[str, Any]] | None = None, attempt: int = 0) -> _Exchange:
        if messages is None:
            messages = chat_messages(decision, self.system)
        fields = self._fields(messages, sample, vote, attempt)
        where = {"game": decision.game, "info_state": decision.key, "sample": sample,
                 "vote": vote, "attempt": attempt}
        started = time.monotonic()
        retries = [0]

        def count_retry() -> None:
            retries[0] += 1
            with self._lock:
                self._totals["retries"] += 1

        cached = self._cache.get(fields) if self._cache is not None else None
        from_cache = cached is not None
        if cached is None:
            body = {"model": self.model, "messages": messages, "temperature": self.temperature}
            if fields["seed"] is not None:
                body["seed"] = fields["seed"]
            if self.max_tokens is not None:
                body["max_tokens"] = self.max_tokens
            try:
                reply = self._endpoint.post(body, count_retry)
            except PlayerError as failure:
                self._log({**where, "messages": messages, "reply": None, "action": None,
                           "error": str(failure), "status": "failed",
                           "latency_s": round(time.monotonic() - started, 6),
                           "prompt_tokens": 0, "completion_tokens": 0, "cached": False,
                           "retries": retries[0]})
                raise
            prompt_tokens, completion_tokens = _usage(reply)
            cached = CachedReply(_content(reply), prompt_tokens, completion_tokens)
            if self._cache is not None:
                self._cache.put(fields, cached)
        try:
            action: int | None = read_final_answer(cached.content, decision, soft=self.soft)
            error = None
        except BadAnswer as refused:
            action, error = None, str(refused)
        exchange = _Exchange(messages, cached.content, cached.prompt_tokens,
                             cached.completion_tokens, from_cache, action, error)
        labels = {a.action: a.label for a in decision.legal}
        with self._lock:
            totals = self._totals
            if from_cache:
                totals["cache_hits"] += 1
            else:
                totals["requests"] += 1
                totals["prompt_tokens"] += exchange.prompt_tokens
                totals["completion_tokens"] += exchange.completion_tokens
            totals["unreadable"] += action is None
        self._log({**where, "messages": messages, "reply": exchange.content,
                   "action": labels[action] if action is not None else None, "error": error,
                   "status": "cached" if from_cache else 200,
                   "latency_s": round(time.monotonic() - started, 6),
                   "prompt_tokens": exchange.prompt_tokens,
                   "completion_tokens": exchange.completion_tokens, "cached": from_cache,
                   "retries": retries[0]})
        return exchange

    def _log(self, entry: dict[str, Any]) -> None:
        """Append one exchange to the transcript (one write under the lock: lines of
        concurrent requests never interleave)."""
        if self._transcript is None:
            return
        line = {"time": datetime.now(UTC).isoformat(timespec="milliseconds"),
                "model": self.model, **entry}
        with self._lock:
            try:
                with open(self._transcript, "a", encoding="utf-8") as out:
                    out.write(json.dumps(line, ensure_ascii=False) + "\n")
            except OSError as error:
                raise PlayerError(f"cannot append to the transcript {str(self._transcript)!r}: "
                                  f"{error.strerror}") from None
