"""The packaged-model scripts (bench/judge_model): the probe against a real chat-completions
server on 127.0.0.1 that answers by a known rule, and the serving helpers that need no model."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import pytest

from pokerzoo.games import load_game

ROOT = Path(__file__).resolve().parents[2]


def load_script(name: str) -> ModuleType:
    path = ROOT / "bench" / "judge_model" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"judge_model_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


probe = load_script("probe")
serve = load_script("serve")


def rule(prompt: str) -> str:
    """The fake model: a king bets or calls as written; a queen writes ``**Bet**.`` where
    betting is legal (a kind without its amount) and ``check`` facing a bet (illegal); a jack
    never writes a ``Final Answer:`` line."""
    legal_line = next(line for line in prompt.splitlines() if line.startswith("Legal actions:"))
    if "Your card: K" in prompt:
        return "Strong hand.\nFinal Answer: " + ("bet 1" if "bet 1" in legal_line else "call")
    if "Your card: Q" in prompt:
        return "**Final Answer:** **Bet**." if "bet 1" in legal_line else "Final Answer: check"
    return "I would rather fold here."


class ChatHandler(BaseHTTPRequestHandler):
    requests: list[dict[str, object]] = []

    def do_GET(self) -> None:
        self.reply({"object": "list", "data": [{"id": "fake"}]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ChatHandler.requests.append(body)
        text = rule(body["messages"][0]["content"])
        self.reply({"choices": [{"message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": len(text.split())}})

    def reply(self, payload: dict[str, object]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def base_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), ChatHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    ChatHandler.requests = []
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_kuhn_has_twelve_information_states_and_leduc_936() -> None:
    kuhn = probe.information_states(load_game("kuhn_poker"))
    assert len(kuhn) == 12 and len({d.key for d in kuhn}) == 12
    assert len(probe.information_states(load_game("leduc_holdem"))) == 936


def test_probe_counts_final_lines_legal_answers_and_legal_kinds(base_url: str) -> None:
    decisions = probe.information_states(load_game("kuhn_poker"))
    result = probe.probe(base_url, "fake", decisions, max_tokens=64, samples=2, seed=5)
    # 4 states per card, 2 samples each: kings 8 legal; queens 4 kinds (bet) + 4 illegal checks;
    # jacks 8 without a Final Answer line.
    assert result["answers"] == 24
    assert result["final_answer_share"] == 16 / 24
    assert result["legal_share"] == 8 / 24
    assert result["legal_kind_share"] == 12 / 24
    assert result["prompt_tokens_mean"] == 100
    assert result["completion_tokens_mean"] == sum(
        len(rule(probe.prompt_of(d)).split()) for d in decisions) / 12
    # Player 0 holding the king (card 2), nothing bet yet.
    assert result["per_state"]["(0, 2, ())"] == {"bet 1": 2}
    assert result["per_state"]["(1, 1, (1,))"] == {"check": 2}
    sent = ChatHandler.requests
    assert [r["seed"] for r in sent[:2]] == [5, 6]
    assert {r["max_tokens"] for r in sent} == {64}
    assert sent[0]["messages"][0]["content"].endswith(  # type: ignore[index]
        "Legal actions: check, bet 1\n" + probe.INSTRUCTION)


def test_final_answer_reads_the_last_final_line() -> None:
    assert probe.final_answer("Final Answer: check\nthinking\nFinal Answer: `bet 1`") == "bet 1"
    assert probe.final_answer("final answer: Call.") == "Call"
    assert probe.final_answer("") is None


def test_probe_on_a_refused_port_says_so_in_one_line(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    run = subprocess.run([sys.executable, str(ROOT / "bench/judge_model/probe.py"),
                          "--base-url", url, "--max-tokens", "8"],
                         capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)},
                         cwd=tmp_path, check=False)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1
    assert run.stderr.startswith(f"probe.py: cannot reach {url}")


def test_wait_ready_returns_once_the_server_answers(base_url: str) -> None:
    assert serve.wait_ready(base_url, None, timeout=10) >= 0.0


def test_wait_ready_names_a_server_that_exited() -> None:
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    process.wait()
    with pytest.raises(serve.ServeError, match="exited with status 3"):
        serve.wait_ready(f"http://127.0.0.1:{free_port()}/v1", process, timeout=10)


def test_join_parts_checks_the_digest_and_leaves_nothing_on_a_mismatch(tmp_path: Path) -> None:
    parts = []
    for i, data in enumerate([b"GGUF", b"\x00" * 5, b"tail"]):
        parts.append(tmp_path / f"part{i}")
        parts[-1].write_bytes(data)
    whole = b"GGUF" + b"\x00" * 5 + b"tail"
    target = tmp_path / "models" / "m.gguf"
    assert serve.join_parts(parts, target, hashlib.sha256(whole).hexdigest()) == target
    assert target.read_bytes() == whole
    other = tmp_path / "other.gguf"
    with pytest.raises(serve.ServeError, match="SHA-256"):
        serve.join_parts(parts, other, "0" * 64)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models", "part0", "part1", "part2"]


def test_serve_without_a_venv_says_what_to_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                               ) -> None:
    assert serve.main(["path", "--venv", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err == f"serve.py: no virtual environment at {tmp_path / 'none'}: run `serve.py " \
                  f"install --venv {tmp_path / 'none'}` first\n"


def test_the_server_listens_on_loopback_only() -> None:
    command = serve.server_command(Path("/tmp/v"), Path("/tmp/m.gguf"), "smollm2", 8765, 2, 2048)
    assert command[command.index("--host") + 1] == "127.0.0.1"
    assert command[1:3] == ["-m", "llama_cpp.server"]
