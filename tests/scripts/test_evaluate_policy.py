"""``evaluate.py --policy SPEC``: outside players judged from the command line."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pokerzoo.errors import ConfigError, PlayerError
from pokerzoo.judge.loopback import ChatServer, fixed

ROOT = Path(__file__).resolve().parents[2]
BOT = '''
def act(decision):
    return decision.legal[-1].label   # always bet, raise or call
'''


def evaluate_main():
    spec = importlib.util.spec_from_file_location("evaluate_script", ROOT / "evaluate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


@pytest.fixture()
def bot(tmp_path):
    path = tmp_path / "bot.py"
    path.write_text(BOT)
    return f"{path}:act"


def test_a_callable_is_judged_with_the_json_keys_and_a_report(bot, tmp_path, capsys):
    report = tmp_path / "kuhn.md"
    assert evaluate_main()(["--policy", bot, "--game", "kuhn_poker", "--hands", "50",
                            "--json", "--report", str(report)]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("nash_conv", "exploitability", "exploitability_ci", "queries",
                "illegal_answers", "fallbacks"):
        assert key in data
    # Always betting and calling in Kuhn: the two best responses gain 2/3 of a chip together.
    assert data["nash_conv"] == pytest.approx(2 / 3, abs=1e-12)
    assert data["queries"] == 12 and data["fallbacks"] == 0
    assert "| information state |" in report.read_text()


def test_an_endpoint_is_judged_and_cached_through_the_flags(tmp_path, capsys):
    main = evaluate_main()
    with ChatServer(fixed("I will be careful.\nFinal Answer: fold")) as server:
        argv = ["--policy", "openai:test-model", "--base-url", server.base_url,
                "--api-key-env", "none", "--game", "kuhn_poker", "--hands", "10",
                "--cache", str(tmp_path / "cache"), "--transcript",
                str(tmp_path / "talk.jsonl"), "--json"]
        assert main(argv) == 0
        first = json.loads(capsys.readouterr().out)
        sent = server.requests
        assert main(argv) == 0
        second = json.loads(capsys.readouterr().out)
        assert server.requests == sent  # the rerun sent nothing
    # "fold" is illegal where checking is free: asked again, then the check-fold fallback.
    assert first["illegal_answers"] == 12 and first["fallbacks"] == 6
    assert second["cache_hits"] == 12 and second["nash_conv"] == first["nash_conv"]
    exchanges = [json.loads(line) for line in
                 (tmp_path / "talk.jsonl").read_text().splitlines()]
    assert len(exchanges) == 2 * sent  # both runs' exchanges, the second's from the cache
    assert [e["cached"] for e in exchanges] == [False] * sent + [True] * sent


@pytest.mark.parametrize(("argv", "error", "message"), [
    (["--policy", "nocolon"], ConfigError, "a player is one of"),
    (["--policy", "no_such_module_here:act"], ConfigError, "cannot import"),
    (["--policy", "openai:m", "--api-key-env", "POKERZOO_TEST_UNSET_KEY"], ConfigError,
     "POKERZOO_TEST_UNSET_KEY"),
    (["--policy", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--api-key-env",
      "none", "--cache", "none", "--game", "kuhn_poker"], PlayerError, "refused"),
    (["--policy", "bot:act", "--temperature", "0.5"], ConfigError, "openai:MODEL"),
    (["--policy", "bot:act", "--game", "leduc_holdem", "--game-variant", "leduc9"],
     ConfigError, "variant"),
])
def test_bad_input_is_one_line(argv, error, message):
    with pytest.raises(error, match=message) as caught:
        evaluate_main()(argv)
    assert "\n" not in str(caught.value)


def test_the_script_exits_2_with_one_line_for_a_program_that_dies(tmp_path):
    program = tmp_path / "dies.py"
    program.write_text("import sys\nsys.exit(3)\n")
    done = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--policy",
                           f"cmd:{sys.executable} {program}", "--game", "kuhn_poker"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "exit" in errors[0]
    assert "Traceback" not in done.stderr
