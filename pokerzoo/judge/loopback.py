"""A real chat-completions server on 127.0.0.1, for tests and benchmarks of the LLM player.

``ChatServer(responder)`` is an ``http.server.ThreadingHTTPServer`` on a free port of 127.0.0.1
in a daemon thread, speaking the OpenAI chat-completions wire format at
``POST /v1/chat/completions``: the request's JSON goes to ``responder(request) -> (status,
content)`` (or ``(status, content, headers)``), and the reply is
``{"id", "object", "created", "model", "choices": [{"message": {"role", "content"}}],
"usage"}`` (an ``{"error": ...}`` body for a status other than 200). Usage counts words, so
token counts are exact numbers a test can know.

``policy_responder(table)`` answers from a known policy, so a judge run through the whole HTTP
path can be checked against the policy's exact NashConv; ``failing_first``, ``dropping_first``,
``hanging``, ``fixed`` and ``in_turn`` script an endpoint's failures.

>>> import json, urllib.request
>>> with ChatServer(fixed("Final Answer: call")) as server:
...     request = urllib.request.Request(server.base_url + "/chat/completions",
...         data=json.dumps({"model": "m", "messages": []}).encode(), method="POST")
...     body = json.load(urllib.request.urlopen(request))
>>> body["choices"][0]["message"]["content"], server.requests
('Final Answer: call', 1)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import numpy as np

from pokerzoo.errors import ConfigError

__all__ = ["DROP", "ChatServer", "Responder", "dropping_first", "failing_first", "fixed",
           "hanging", "in_turn", "policy_responder"]

Response = tuple[int, str | None] | tuple[int, str | None, Mapping[str, str]]
Responder = Callable[[dict[str, Any]], Response]

LEGAL_PREFIX = "\nLegal actions:"

DROP = 0
"""The status a responder returns to have the connection closed with no reply at all."""


class ChatServer:
    """A chat-completions endpoint on 127.0.0.1 (a context manager; see the module).

    Attributes:
        base_url: ``http://127.0.0.1:PORT/v1``, as a client's base URL.
        requests: chat-completion requests received so far (every POST, answered or not).
        received: each request's JSON body, in the order they came.
        headers: each request's headers (``{name.lower(): value}``), in the same order.
    """

    def __init__(self, responder: Responder) -> None:
        self.responder = responder
        self.requests = 0
        self.received: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving and free the port (requests still being answered are abandoned)."""
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()

    def _count(self, body: dict[str, Any], headers: dict[str, str]) -> int:
        with self._lock:
            self.requests += 1
            self.received.append(body)
            self.headers.append(headers)
            return self.requests


def _words(text: str | None) -> int:
    return len(text.split()) if text else 0


def _handler_for(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return  # a test's output stays clean

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw)
                if not isinstance(body, dict):
                    raise ValueError("not an object")
            except ValueError:
                self._send(400, {"error": {"message": "the body is not a JSON object",
                                           "type": "invalid_request_error"}})
                return
            number = server._count(body, {k.lower(): v for k, v in self.headers.items()})
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}",
                                           "type": "invalid_request_error"}})
                return
            answer = server.responder(body)
            status, content = answer[0], answer[1]
            if status == DROP:
                self.close_connection = True  # closed with no reply: the client sees a reset
                return
            extra: Mapping[str, str] = answer[2] if len(answer) > 2 else {}
            if status != 200:
                self._send(status, {"error": {"message": content or f"status {status}",
                                              "type": "server_error", "code": status}}, extra)
                return
            prompt = sum(_words(m.get("content")) for m in body.get("messages", [])
                         if isinstance(m, dict) and isinstance(m.get("content"), str))
            completion = _words(content)
            self._send(200, {
                "id": f"chatcmpl-loopback-{number}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", ""),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                          "total_tokens": prompt + completion},
            }, extra)

        def _send(self, status: int, payload: dict[str, Any],
                  extra: Mapping[str, str] | None = None) -> None:
            data = json.dumps(payload).encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (extra or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout under test): nobody is left to answer

    return Handler


def fixed(content: str | None, status: int = 200) -> Responder:
    """A responder that always answers ``content`` (``""``/``None`` for an empty reply)."""
    return lambda request: (status, content)


def in_turn(contents: Sequence[str | None]) -> Responder:
    """A responder answering ``contents`` one after another, the last one from then on."""
    if not contents:
        raise ConfigError("in_turn needs at least one content to answer")
    lock = threading.Lock()
    state = {"next": 0}

    def respond(request: dict[str, Any]) -> Response:
        with lock:
            index = min(state["next"], len(contents) - 1)
            state["next"] += 1
        return 200, contents[index]

    return respond


def failing_first(count: int, status: int, then: Responder,
                  retry_after: float | None = None) -> Responder:
    """A responder whose first ``count`` requests get ``status`` (429, 500, ...), with a
    ``Retry-After`` header of ``retry_after`` seconds where given; then ``then`` answers."""
    lock = threading.Lock()
    state = {"failed": 0}
    headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}

    def respond(request: dict[str, Any]) -> Response:
        with lock:
            fail = state["failed"] < count
            state["failed"] += int(fail)
        if fail:
            return status, f"scripted failure with status {status}", headers
        return then(request)

    return respond


def dropping_first(count: int, then: Responder) -> Responder:
    """A responder whose first ``count`` requests get no reply (the connection is closed, as
    a server that crashed or reset it would); then ``then`` answers."""
    return failing_first(count, DROP, then)


def hanging(seconds: float, then: Responder, count: int | None = None) -> Responder:
    """A responder that waits ``seconds`` before answering (longer than a client's timeout, to
    test it): every request, or the first ``count``; ``then`` answers those it does not hold."""
    lock = threading.Lock()
    state = {"held": 0}

    def respond(request: dict[str, Any]) -> Response:
        with lock:
            hold = count is None or state["held"] < count
            state["held"] += int(hold)
        if hold:
            threading.Event().wait(seconds)
        return then(request)

    return respond


def _decision_text(request: dict[str, Any], table: Mapping[str, Any]) -> str | None:
    """The table's decision text that the request's first matching user message asks."""
    users = [m.get("content") for m in request.get("messages", [])
             if isinstance(m, dict) and m.get("role") == "user"]
    for content in users:
        if not isinstance(content, str):
            continue
        head = content.split(LEGAL_PREFIX, 1)[0]
        if head in table:
            return head
        # A prompt written otherwise: the longest table text it contains (a text that is the
        # start of another one is then not mistaken for it).
        inside = [text for text in table if text in content]
        if inside:
            return max(inside, key=len)
    return None


def policy_responder(table: Mapping[str, Mapping[str, float]], seed_key: str = "seed",
                     reasoning: str = "I weigh my card against the betting.") -> Responder:
    """A responder that plays a known policy: ``table`` maps each decision's ``text`` to
    ``{label: probability}``.

    The decision is the one whose text the user message contains (the text before its
    ``Legal actions:`` line). A label with all the probability is always answered; otherwise
    the label is drawn with ``numpy.random.default_rng(request[seed_key])`` (0 where the
    request has no seed), so the same request always gets the same answer and requests with
    seeds ``s, s+1, ...`` sample the policy. The reply is ``reasoning`` and a line
    ``Final Answer: <label>``. A request for a text not in the table gets status 400, so a
    mis-built table fails loudly.
    """
    checked: dict[str, tuple[list[str], np.ndarray]] = {}
    for text, row in table.items():
        values = np.array([float(p) for p in row.values()], dtype=float)
        labels = [label for label, p in row.items() if p > 0]
        probs = np.array([float(row[label]) for label in labels], dtype=float)
        if not labels or not np.all(np.isfinite(values)) or np.any(values < 0) \
                or abs(values.sum() - 1.0) > 1e-9:
            raise ConfigError(f"policy_responder's row for {text[:60]!r} is not a "
                              "distribution over labels (probabilities >= 0 summing to 1)")
        checked[text] = (labels, probs / probs.sum())

    def respond(request: dict[str, Any]) -> Response:
        text = _decision_text(request, checked)
        if text is None:
            return 400, "policy_responder: the prompt asks no decision of the table"
        labels, probs = checked[text]
        if len(labels) == 1:
            label = labels[0]
        else:
            seed = request.get(seed_key)
            rng = np.random.default_rng(int(seed) if isinstance(seed, int) else 0)
            label = labels[int(rng.choice(len(labels), p=probs))]
        return 200, f"{reasoning}\nFinal Answer: {label}"

    return respond
