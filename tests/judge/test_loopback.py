"""The loopback chat-completions server: wire format, scripted failures, policy responder."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.errors import ConfigError
from pokerzoo.judge import loopback
from pokerzoo.judge.decision import describe
from pokerzoo.judge.loopback import ChatServer
from pokerzoo.judge.prompting import chat_messages


def post(server: ChatServer, body: object, path: str = "/chat/completions",
         timeout: float = 5.0) -> tuple[int, dict, dict]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(server.base_url + path, data=data, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.load(error)


def kuhn_decision(cards=(0, 1), history=()):
    state = load_game("kuhn_poker").new_initial_state()
    for action in (*cards, *history):
        state.apply_action(action)
    return describe(state)


def test_a_reply_has_the_chat_completions_fields_and_word_counts_as_usage():
    body = {"model": "tiny", "messages": [{"role": "system", "content": "two words"},
                                          {"role": "user", "content": "three more words"}]}
    with ChatServer(loopback.fixed("I call.\nFinal Answer: call")) as server:
        status, _, reply = post(server, body)
        assert server.requests == 1
        assert server.received == [body]
    assert status == 200
    assert reply["id"] == "chatcmpl-loopback-1"
    assert reply["object"] == "chat.completion"
    assert reply["model"] == "tiny"
    assert reply["choices"][0]["message"] == {"role": "assistant",
                                              "content": "I call.\nFinal Answer: call"}
    assert reply["usage"] == {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}
    assert server.base_url == f"http://127.0.0.1:{server.port}/v1"


def test_an_empty_reply_is_sent_as_null_content():
    with ChatServer(loopback.fixed(None)) as server:
        _, _, reply = post(server, {"model": "m", "messages": []})
    assert reply["choices"][0]["message"]["content"] is None
    assert reply["usage"]["completion_tokens"] == 0


def test_failing_first_answers_its_status_and_retry_after_then_the_responder():
    responder = loopback.failing_first(2, 429, loopback.fixed("Final Answer: fold"),
                                       retry_after=1.5)
    with ChatServer(responder) as s:
        answers = [post(s, {"model": "m", "messages": []}) for _ in range(3)]
    assert [a[0] for a in answers] == [429, 429, 200]
    assert answers[0][1]["Retry-After"] == "1.5"
    assert answers[0][2]["error"]["message"] == "scripted failure with status 429"
    assert answers[2][2]["choices"][0]["message"]["content"] == "Final Answer: fold"


def test_dropping_first_closes_the_connection_with_no_reply():
    with ChatServer(loopback.dropping_first(1, loopback.fixed("x"))) as server:
        with pytest.raises(http.client.RemoteDisconnected):
            post(server, {"model": "m", "messages": []})
        assert post(server, {"model": "m", "messages": []})[0] == 200
        assert server.requests == 2


def test_in_turn_answers_each_content_then_repeats_the_last():
    with ChatServer(loopback.in_turn(["a", "b"])) as server:
        contents = [post(server, {"model": "m", "messages": []})[2]["choices"][0]["message"]
                    ["content"] for _ in range(3)]
    assert contents == ["a", "b", "b"]
    with pytest.raises(ConfigError, match="at least one"):
        loopback.in_turn([])


def test_hanging_holds_only_the_first_requests():
    with ChatServer(loopback.hanging(0.3, loopback.fixed("x"), count=1)) as server:
        with pytest.raises(TimeoutError):
            post(server, {"model": "m", "messages": []}, timeout=0.05)
        status, _, _ = post(server, {"model": "m", "messages": []})
        assert status == 200
        assert server.requests == 2


def test_a_body_that_is_not_json_and_a_wrong_path_are_refused():
    with ChatServer(loopback.fixed("x")) as server:
        assert post(server, b"{not json")[0] == 400
        assert post(server, {"model": "m"}, path="/embeddings")[0] == 404
        assert server.requests == 1  # the JSON one is counted, the broken body is not


def test_the_policy_responder_answers_a_sure_label_whatever_the_seed():
    decision = kuhn_decision()
    responder = loopback.policy_responder({decision.text: {"check": 0.0, "bet 1": 1.0}})
    for seed in (0, 1, 17, None):
        body = {"model": "m", "messages": chat_messages(decision)}
        if seed is not None:
            body["seed"] = seed
        status, content = responder(body)
        assert status == 200
        assert content.splitlines()[-1] == "Final Answer: bet 1"


def test_the_policy_responder_draws_with_the_request_seed_as_numpy_does():
    decision = kuhn_decision()
    row = {"check": 0.3, "bet 1": 0.7}
    responder = loopback.policy_responder({decision.text: row})
    drawn = [responder({"messages": chat_messages(decision), "seed": s})[1].splitlines()[-1]
             for s in range(200)]
    expected = [["check", "bet 1"][np.random.default_rng(s).choice(2, p=[0.3, 0.7])]
                for s in range(200)]
    assert drawn == [f"Final Answer: {label}" for label in expected]
    # The same request always gets the same answer.
    again = responder({"messages": chat_messages(decision), "seed": 5})[1]
    assert again.splitlines()[-1] == drawn[5]


def test_the_policy_responder_tells_apart_a_text_that_starts_another():
    short = "state A"
    long = "state A, then a bet"
    responder = loopback.policy_responder({short: {"call": 1.0}, long: {"fold": 1.0}})
    assert responder({"messages": [{"role": "user", "content": long + "\nLegal actions: x"}]}
                     )[1].endswith("fold")
    assert responder({"messages": [{"role": "user", "content": short + "\nLegal actions: x"}]}
                     )[1].endswith("call")
    # Written another way (no Legal actions line right after), the longest text it contains.
    assert responder({"messages": [{"role": "user", "content": "Q: " + long + "?"}]}
                     )[1].endswith("fold")


def test_the_policy_responder_refuses_a_prompt_and_a_table_it_does_not_know():
    responder = loopback.policy_responder({"known": {"call": 1.0}})
    assert responder({"messages": [{"role": "user", "content": "another state"}]})[0] == 400
    for row in ({"call": 0.5}, {"call": -0.5, "fold": 1.5}, {"call": float("nan")}, {}):
        with pytest.raises(ConfigError, match="not a distribution"):
            loopback.policy_responder({"t": row})
