"""The chat-completions player against a real server on 127.0.0.1: prompt, parser, re-ask and
fallback, retries, timeouts, refusals, the key, the cache, votes, concurrency, the transcript."""

from __future__ import annotations

import json
import socket
import threading
import warnings
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.errors import ConfigError, PlayerError, PokerzooWarning
from pokerzoo.evaluation import nash_conv
from pokerzoo.judge import llm
from pokerzoo.judge.decision import Decision, LegalAction, describe
from pokerzoo.judge.llm import ChatPlayer
from pokerzoo.judge.loopback import (
    ChatServer,
    dropping_first,
    failing_first,
    fixed,
    hanging,
    in_turn,
    policy_responder,
)
from pokerzoo.judge.prompting import (
    ANSWER_INSTRUCTION,
    SYSTEM_PROMPT,
    chat_messages,
    read_final_answer,
)
from pokerzoo.judge.protocol import BadAnswer, ask, ask_many
from pokerzoo.tree import TabularPolicy, build


def kuhn_decision(cards=(0, 1), history=()):
    state = load_game("kuhn_poker").new_initial_state()
    for action in (*cards, *history):
        state.apply_action(action)
    return describe(state)


def all_decisions(name: str) -> list[Decision]:
    """One decision per information state of the game, in a fixed order."""
    found: dict[str, Decision] = {}

    def visit(state):
        if state.is_terminal():
            return
        if not state.is_chance_node():
            decision = describe(state)
            found.setdefault(decision.key, decision)
        for action in state.legal_actions():
            visit(state.child(action))

    visit(load_game(name).new_initial_state())
    return list(found.values())


# A no-limit-like decision with several raise sizes, for the soft rules on amounts.
SIZES = Decision(game="test", player=0, key="sizes", text="A test state.", observation=(),
                 legal=(LegalAction(0, "fold", None, "fold"), LegalAction(1, "call", None, "call"),
                        LegalAction(2, "raise", 4, "raise 4"),
                        LegalAction(3, "raise", 8, "raise 8"),
                        LegalAction(4, "raise", 20, "raise 20")))


def player(server: ChatServer, **options) -> ChatPlayer:
    options = {"timeout": 1.0, "retries": 2, "backoff": 0.01, **options}
    return ChatPlayer(server.base_url, "tiny-model", **options)


def test_the_prompt_has_the_state_then_the_legal_actions_line_then_the_instruction():
    decision = kuhn_decision(history=(1,))  # player 1 with the queen faces a bet
    messages = chat_messages(decision)
    assert messages[0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert "Final Answer: <action>" in SYSTEM_PROMPT
    assert messages[1]["role"] == "user"
    assert messages[1]["content"] == (decision.text + "\nLegal actions: fold, call\n"
                                      + ANSWER_INSTRUCTION)


@pytest.mark.parametrize(("reply", "action"), [
    ("Final Answer: raise 4", 2),
    ("final answer: RAISE 8", 3),
    ("I raise.\n**Final Answer:** raise 20", 4),
    ("**Final Answer: Call**", 1),
    ("Final Answer: **fold**", 0),
    ('Final Answer: "raise to 8"', 3),
    ("Final Answer: raise 8 chips.", 3),
    ("Final Answer: <raise 8>", 3),
    ("Final Answer: [fold].", 0),
    ("## Final answer: `call`", 1),
    ("Final Answer: call (pot odds).", 1),
    ("Final Answer: fold\nOn second thought...\nFinal Answer: call", 1),  # the last one wins
    ("Final Answer: raise 2", 2),      # below the smallest size: the smallest
    ("Final Answer: raise 100", 4),    # above the largest: the largest
    ("Final Answer: raise 5", 2),      # between: the nearer
    ("Final Answer: raise 7", 3),
    ("Final Answer: raise 6", 2),      # a tie: the smaller
    ("Final Answer: bet 8", 3),        # bet for raise where only raises are legal
    ("Final Answer: $8", None),
    ("Final Answer: all in", 4),
    ("Final Answer: ALL-IN", 4),
    ("Final Answer: allin", 4),
    ("Final Answer: shove", 4),
    ("Final Answer: call 8", 1),
    ("Final Answer: check", None),     # check and call are never swapped
    ("Final Answer: raise", None),     # several sizes: an amount is needed
    ("Final Answer: call, because I have odds", None),
    ("Final Answer:", None),
    ("I would call here.", None),
    ("", None),
    ("   \n ", None),
    (None, None),
])
def test_the_soft_parser_reads_known_answers(reply, action):
    if action is None:
        with pytest.raises(BadAnswer):
            read_final_answer(reply, SIZES)
    else:
        assert read_final_answer(reply, SIZES) == action


def test_the_strict_parser_takes_only_the_legal_labels():
    assert read_final_answer("Final Answer: raise 8", SIZES, soft=False) == 3
    for reply in ("Final Answer: raise 5", "Final Answer: all in", "Final Answer: bet 8"):
        with pytest.raises(BadAnswer, match="not a legal action here; legal actions: fold, "
                                            "call, raise 4, raise 8, raise 20"):
            read_final_answer(reply, SIZES, soft=False)


def test_the_parser_says_why_it_refuses():
    decision = kuhn_decision()
    with pytest.raises(BadAnswer, match="the reply is empty"):
        read_final_answer("", decision)
    with pytest.raises(BadAnswer, match="no line beginning 'Final Answer:'"):
        read_final_answer("bet", decision)
    with pytest.raises(BadAnswer, match="'fold' is not a legal action here; legal actions: "
                                        "check, bet 1"):
        read_final_answer("Final Answer: fold", decision)
    # One bet size: a bare "bet" or "raise" is it.
    assert read_final_answer("Final Answer: bet", decision) == 1
    assert read_final_answer("Final Answer: raise", decision) == 1
    with pytest.raises(BadAnswer):  # no bet or raise legal: all in names nothing
        read_final_answer("Final Answer: all in", kuhn_decision(history=(1,)))


def test_an_answer_is_asked_once_with_the_prompt_and_read():
    decision = kuhn_decision()
    with ChatServer(fixed("I have the jack.\nFinal Answer: check")) as server:
        chat = player(server)
        reply = ask(chat, decision)
        body = server.received[0]
    assert reply.probs == {0: 1.0}
    assert (reply.requests, reply.illegal, reply.fallback, reply.cached) == (1, 0, False, False)
    assert reply.text == "I have the jack.\nFinal Answer: check"
    assert body["model"] == "tiny-model"
    assert body["messages"] == chat_messages(decision)
    assert (body["temperature"], body["seed"]) == (0.0, 0)
    assert "max_tokens" not in body
    # Usage as the server counted it: the words of the messages and of the reply.
    words = sum(len(m["content"].split()) for m in body["messages"])
    assert (reply.prompt_tokens, reply.completion_tokens) == (words, 7)
    assert chat.stats() == {"requests": 1, "cache_hits": 0, "retries": 0,
                            "prompt_tokens": words, "completion_tokens": 7, "unreadable": 0,
                            "reasks": 0}


@pytest.mark.parametrize("bad", ["garbage with no answer", "Final Answer: fold", "", None])
def test_a_bad_answer_is_reasked_quoting_the_error_then_accepted(bad):
    decision = kuhn_decision()
    with ChatServer(in_turn([bad, "Final Answer: bet 1"])) as server:
        chat = player(server)
        reply = ask(chat, decision, fallback="check-fold")
        second = server.received[1]["messages"]
    assert reply.probs == {1: 1.0}
    assert (reply.illegal, reply.fallback) == (1, False)
    assert second[:2] == chat_messages(decision)
    assert second[2] == {"role": "assistant", "content": bad or ""}
    assert second[3]["role"] == "user"
    reason = {"garbage with no answer": "no line beginning 'Final Answer:'",
              "Final Answer: fold": "'fold' is not a legal action here",
              "": "the reply is empty", None: "the reply is empty"}[bad]
    assert reason in second[3]["content"]
    assert "Legal actions: check, bet 1" in second[3]["content"]
    assert chat.stats()["unreadable"] == 1 and chat.stats()["reasks"] == 1


@pytest.mark.parametrize("bad", ["garbage", "Final Answer: check", ""])
def test_two_bad_answers_go_to_the_declared_fallback_and_are_counted(bad):
    decision = kuhn_decision(history=(1,))  # facing a bet: check-fold folds
    with ChatServer(fixed(bad or None)) as server:
        chat = player(server)
        folded = ask(chat, decision, fallback="check-fold")
        uniform = ask(chat, decision, sample=1, fallback="uniform")
        assert server.requests == 4
    assert folded.probs == {0: 1.0} and uniform.probs == {0: 0.5, 1: 0.5}
    assert (folded.illegal, folded.fallback) == (2, True)
    assert (uniform.illegal, uniform.fallback) == (2, True)
    assert chat.stats()["unreadable"] == 4
    assert not chat._refused  # nothing kept once the fallback answered


@pytest.mark.parametrize("status", [429, 500, 503])
def test_429_and_5xx_are_retried_then_answered(status):
    with ChatServer(failing_first(2, status, fixed("Final Answer: check"),
                                  retry_after=0)) as server:
        chat = player(server, retries=2)
        reply = ask(chat, kuhn_decision())
        assert server.requests == 3
    assert reply.probs == {0: 1.0}
    assert chat.stats()["retries"] == 2 and chat.stats()["requests"] == 1


def test_a_reset_connection_is_retried_then_answered():
    with ChatServer(dropping_first(2, fixed("Final Answer: check"))) as server:
        chat = player(server, retries=2)
        reply = ask(chat, kuhn_decision())
        assert server.requests == 3
    assert reply.probs == {0: 1.0} and chat.stats()["retries"] == 2
    with ChatServer(dropping_first(5, fixed("Final Answer: check"))) as server:
        with pytest.raises(PlayerError, match="failed after 2 tries: the connection was reset$"):
            ask(player(server, retries=1), kuhn_decision())


def test_retries_run_out_with_one_line_naming_the_last_failure():
    with ChatServer(failing_first(10, 500, fixed("Final Answer: check"))) as server:
        chat = player(server, retries=1)
        with pytest.raises(PlayerError) as caught:
            ask(chat, kuhn_decision())
        assert server.requests == 2
    message = str(caught.value)
    assert "\n" not in message
    assert message == (f"{server.base_url}/chat/completions failed after 2 tries: status 500: "
                       "scripted failure with status 500")


def test_a_status_that_is_not_retried_fails_at_once():
    with ChatServer(fixed("model 'tiny-model' not found", status=404)) as server:
        chat = player(server)
        with pytest.raises(PlayerError, match="refused the request with status 404: model "
                                              "'tiny-model' not found .check the base URL"):
            ask(chat, kuhn_decision())
        assert server.requests == 1


def test_a_hung_endpoint_times_out_in_one_line_after_the_retries():
    with ChatServer(hanging(3.0, fixed("Final Answer: check"))) as server:
        chat = player(server, timeout=0.2, retries=1)
        with pytest.raises(PlayerError) as caught:
            ask(chat, kuhn_decision())
        assert server.requests == 2
    assert str(caught.value) == (f"{server.base_url}/chat/completions failed after 2 tries: "
                                 "no reply within the timeout of 0.2 s")


def test_a_refused_connection_is_one_line_naming_the_url():
    with socket.socket() as probe:  # a port that was free a moment ago, now closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    chat = ChatPlayer(f"http://127.0.0.1:{port}/v1", "m", retries=3, backoff=0.01)
    with pytest.raises(PlayerError) as caught:
        ask(chat, kuhn_decision())
    assert str(caught.value) == (f"cannot connect to http://127.0.0.1:{port}/v1/chat/completions:"
                                 " the connection was refused (is the server running?)")
    assert chat.stats()["retries"] == 0


def test_a_reply_that_is_not_a_chat_completion_is_one_line():
    class NotChat(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            body = b"<html>a web page</html>"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), NotChat)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        chat = ChatPlayer(f"http://127.0.0.1:{server.server_address[1]}/v1", "m")
        with pytest.raises(PlayerError, match="with a body that is not a chat completion") as e:
            ask(chat, kuhn_decision())
    finally:
        server.shutdown()
        server.server_close()
    assert "\n" not in str(e.value)


def test_null_content_is_an_empty_reply():
    with ChatServer(fixed(None)) as server:
        reply = ask(player(server), kuhn_decision())
    assert reply.fallback and reply.illegal == 2


def test_an_unset_key_variable_is_a_config_error_naming_it(monkeypatch):
    monkeypatch.delenv("POKERZOO_TEST_KEY", raising=False)
    with pytest.raises(ConfigError) as caught:
        ChatPlayer("http://127.0.0.1:1/v1", "m", api_key_env="POKERZOO_TEST_KEY")
    assert str(caught.value) == ("the API key variable POKERZOO_TEST_KEY is not set: export "
                                 "POKERZOO_TEST_KEY=<your key>, or pass api_key_env=None for "
                                 "a server that needs no key")


def test_the_key_is_sent_as_a_bearer_token_and_kept_out_of_cache_and_transcript(
        monkeypatch, tmp_path):
    monkeypatch.setenv("POKERZOO_TEST_KEY", "sk-secret-123")
    with ChatServer(fixed("Final Answer: check")) as server:
        keyed = player(server, api_key_env="POKERZOO_TEST_KEY", cache_dir=tmp_path / "cache",
                       transcript=tmp_path / "log.jsonl")
        ask(keyed, kuhn_decision())
        ask(player(server), kuhn_decision(cards=(1, 0)))
        headers = server.headers
    assert headers[0]["authorization"] == "Bearer sk-secret-123"
    assert "authorization" not in headers[1]
    written = [p.read_text() for p in (tmp_path / "cache").iterdir()]
    written.append((tmp_path / "log.jsonl").read_text())
    assert written and not any("sk-secret" in text for text in written)


@pytest.mark.parametrize(("options", "message"), [
    ({"base_url": "127.0.0.1:8080/v1"}, "is not an http:// or https:// URL"),
    ({"base_url": "http://127.0.0.1:99999/v1"}, "port that is not a number"),
    ({"model": ""}, "model must be"),
    ({"temperature": -0.5}, "temperature must be a number >= 0"),
    ({"votes": 0}, "votes must be a whole number >= 1"),
    ({"concurrency": 1.5}, "concurrency must be a whole number >= 1"),
    ({"timeout": 0}, "timeout must be a number > 0"),
    ({"max_tokens": 0}, "max_tokens must be a whole number >= 1 or None"),
    ({"retries": -1}, "retries must be a whole number >= 0"),
    ({"seed": "7"}, "seed must be a whole number"),
    ({"api_key_env": ""}, "api_key_env names the environment variable"),
])
def test_bad_parameters_are_one_line_config_errors(options, message):
    arguments = {"base_url": "http://127.0.0.1:8080/v1", "model": "m", **options}
    with pytest.raises(ConfigError, match=message) as caught:
        ChatPlayer(arguments.pop("base_url"), arguments.pop("model"), **arguments)
    assert "\n" not in str(caught.value)


def test_a_base_url_ending_in_the_route_is_taken_as_it_is():
    chat = ChatPlayer("http://127.0.0.1:8080/v1/chat/completions/", "m")
    assert chat.url == "http://127.0.0.1:8080/v1/chat/completions"


def deterministic_table(decisions: list[Decision]) -> dict[str, dict[str, float]]:
    """A pure policy: each state's action chosen by its position in the list."""
    return {d.text: {a.label: float(i % len(d.legal) == j) for j, a in enumerate(d.legal)}
            for i, d in enumerate(decisions)}


def test_decide_many_answers_every_kuhn_state_in_order_on_several_threads():
    decisions = all_decisions("kuhn_poker")
    assert len(decisions) == 12
    table = deterministic_table(decisions)
    with ChatServer(policy_responder(table)) as server:
        chat = player(server, concurrency=4)
        replies = ask_many(chat, [(d, s) for s in range(2) for d in decisions])
        seeds = sorted(body["seed"] for body in server.received)
    expected = [{d.legal[i % len(d.legal)].action: 1.0} for i, d in enumerate(decisions)]
    assert [r.probs for r in replies] == expected * 2
    assert seeds == [0] * 12 + [1] * 12  # seed + sample index
    assert chat.stats()["requests"] == 24


def test_the_cache_answers_a_rerun_with_zero_requests_whatever_the_url(tmp_path):
    decisions = all_decisions("kuhn_poker")
    table = {d.text: {a.label: 1 / len(d.legal) for a in d.legal} for d in decisions}
    questions = [(d, s) for s in range(3) for d in decisions]
    with ChatServer(policy_responder(table)) as server:
        first = ask_many(player(server, temperature=0.7, cache_dir=tmp_path), questions)
        assert server.requests == 36
        again = player(server, temperature=0.7, cache_dir=tmp_path)
        second = ask_many(again, questions)
        assert server.requests == 36
    assert [r.probs for r in second] == [r.probs for r in first]
    assert all(r.cached and r.requests == 0 and r.prompt_tokens == 0 for r in second)
    assert again.stats()["cache_hits"] == 36 and again.stats()["requests"] == 0
    # The same model behind another address answers from the same cache.
    with ChatServer(fixed("never asked")) as other:
        ask_many(player(other, temperature=0.7, cache_dir=tmp_path), questions)
        assert other.requests == 0
    # Another temperature is another request.
    with ChatServer(policy_responder(table)) as server:
        ask(player(server, temperature=0.8, cache_dir=tmp_path), decisions[0])
        assert server.requests == 1


def test_a_corrupt_cache_file_is_ignored_with_a_warning_and_asked_again(tmp_path):
    decision = kuhn_decision()
    with ChatServer(fixed("Final Answer: check")) as server:
        ask(player(server, cache_dir=tmp_path), decision)
        (entry,) = tmp_path.iterdir()
        for broken in ('{"format": "pokerzoo-chat-cache-1", "content"', "[1, 2]",
                       entry.read_text().replace('"prompt_tokens"', '"prompt"')):
            entry.write_text(broken)
            with pytest.warns(PokerzooWarning, match="ignoring the cached reply"):
                reply = ask(player(server, cache_dir=tmp_path), decision)
            assert reply.probs == {0: 1.0} and not reply.cached
        assert server.requests == 4
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert ask(player(server, cache_dir=tmp_path), decision).cached
        assert server.requests == 4


def test_votes_take_the_plurality_with_ties_to_the_first_legal_action():
    decision = kuhn_decision()
    with ChatServer(in_turn(["Final Answer: bet 1", "Final Answer: check",
                             "Final Answer: bet 1"])) as server:
        reply = ask(player(server, votes=3), decision, sample=1)
        seeds = [body["seed"] for body in server.received]
    assert reply.probs == {1: 1.0} and reply.requests == 3
    assert seeds == [3, 4, 5]  # seed + sample * votes + vote
    with ChatServer(in_turn(["Final Answer: bet 1", "Final Answer: check"])) as server:
        assert ask(player(server, votes=2), decision).probs == {0: 1.0}  # check comes first
    with ChatServer(in_turn(["nonsense", "Final Answer: bet 1"])) as server:
        reply = ask(player(server, votes=2), decision)
    assert reply.probs == {1: 1.0} and (reply.illegal, reply.fallback) == (1, False)


def test_the_transcript_has_one_line_per_exchange(tmp_path):
    decision = kuhn_decision()
    log = tmp_path / "log.jsonl"
    with ChatServer(in_turn(["no idea", "Final Answer: check"])) as server:
        ask(player(server, transcript=log, cache_dir=tmp_path / "c"), decision)
        ask(player(server, transcript=log, cache_dir=tmp_path / "c"), decision)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == 4
    assert [(x["attempt"], x["action"], x["status"], x["cached"]) for x in lines] == [
        (0, None, 200, False), (1, "check", 200, False),
        (0, None, "cached", True), (1, "check", "cached", True)]
    assert lines[0]["error"] == "the reply has no line beginning 'Final Answer:'"
    assert lines[0]["reply"] == "no idea" and lines[1]["error"] is None
    assert lines[0]["messages"] == chat_messages(decision)
    assert (lines[0]["model"], lines[0]["info_state"], lines[0]["sample"]) == (
        "tiny-model", decision.key, 0)
    assert lines[1]["completion_tokens"] == 3
    assert set(lines[0]) >= {"time", "latency_s", "prompt_tokens"}


def test_a_transcript_path_that_is_a_folder_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="it is a folder"):
        ChatPlayer("http://127.0.0.1:8080/v1", "m", transcript=tmp_path)


def test_a_failed_exchange_is_in_the_transcript_and_retries_are_counted_per_line(tmp_path):
    log = tmp_path / "log.jsonl"
    with ChatServer(failing_first(1, 503, fixed("Final Answer: check"), retry_after=0)) as s:
        ask(player(s, transcript=log, retries=1), kuhn_decision())
    with ChatServer(failing_first(9, 500, fixed("Final Answer: check"))) as server:
        with pytest.raises(PlayerError):
            ask(player(server, transcript=log, retries=1), kuhn_decision())
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(x["status"], x["retries"], x["action"]) for x in lines] == [
        (200, 1, "check"), ("failed", 1, None)]
    assert lines[1]["error"].endswith("failed after 2 tries: status 500: scripted failure "
                                      "with status 500")


def test_decide_many_stops_at_the_first_failure_with_its_one_line():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    chat = ChatPlayer(f"http://127.0.0.1:{port}/v1", "m", concurrency=4)
    decisions = all_decisions("kuhn_poker")
    with pytest.raises(PlayerError, match=r"^cannot connect to .*\(is the server running\?\)$"):
        ask_many(chat, [(d, 0) for d in decisions])


def test_content_sent_as_text_parts_is_joined():
    parts = [{"type": "text", "text": "Final "}, {"type": "text", "text": "Answer: bet 1"}]
    assert llm._content({"choices": [{"message": {"content": parts}}]}) == "Final Answer: bet 1"
    assert llm._content({"choices": [{"message": {}}]}) is None


@pytest.mark.parametrize(("header", "seconds"), [
    ("2", 2.0), ("0.5", 0.5), ("-3", 0.0), ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),
    ("soon", None), ("", None), (None, None), ("nan", None),
])
def test_retry_after_is_read_as_seconds_or_an_http_date(header, seconds):
    assert llm._retry_after(header) == seconds


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_holdem"])
def test_a_known_policy_comes_back_through_http_with_its_exact_nash_conv(name):
    game = load_game(name)
    tree = build(game)
    decisions = [describe(tree.infoset_state(i)) for i in range(tree.num_infosets)]
    assert len({d.text for d in decisions}) == len(decisions)  # each text names one state
    chosen = [zlib.crc32(d.key.encode()) % len(d.legal) for d in decisions]
    table = {d.text: {a.label: float(j == pick) for j, a in enumerate(d.legal)}
             for d, pick in zip(decisions, chosen, strict=True)}
    truth = np.zeros(tree.infoset_mask.shape)
    for i, (d, pick) in enumerate(zip(decisions, chosen, strict=True)):
        truth[i, d.legal[pick].action] = 1.0
    with ChatServer(policy_responder(table)) as server:
        replies = ask_many(player(server, concurrency=4), [(d, 0) for d in decisions])
        assert server.requests == len(decisions)
    answered = np.zeros_like(truth)
    for i, reply in enumerate(replies):
        for action, p in reply.probs.items():
            answered[i, action] = p
    assert np.array_equal(answered, truth)
    assert abs(nash_conv(tree, TabularPolicy.from_tree(tree, answered))
               - nash_conv(tree, TabularPolicy.from_tree(tree, truth))) <= 1e-12
