"""The command line: a dealer and two clients as programs, over 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pokerzoo.evaluation.hand_history import read_text_log

ROOT = Path(__file__).resolve().parents[3]


def test_dealer_and_clients_as_programs(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "pokerzoo.integrations.acpc"]
    log = tmp_path / "match.txt"
    dealer = subprocess.Popen(
        [*command, "dealer", "--game", "limit_holdem", "--hands", "3", "--seed", "1",
         "--port", "0", "0", "--log", str(log)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert dealer.stdout is not None
    ports = dealer.stdout.readline().split()
    clients = [subprocess.Popen([*command, "client", "--port", port, "--opponent", name],
                                stdout=subprocess.PIPE, text=True, env=env)
               for port, name in zip(ports, ["random", "always-call"])]
    outputs = [c.communicate(timeout=120)[0] for c in clients]
    out, _ = dealer.communicate(timeout=120)
    assert dealer.returncode == 0 and all(c.returncode == 0 for c in clients)
    assert all(o.startswith("6 hands") for o in outputs)
    assert "6 hands (3 deals)" in out
    assert len(list(read_text_log(log))) == 6


def test_bad_input_is_one_line() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pokerzoo.integrations.acpc", "client",
                           "--port", "1", "--game", "kuhn_poker"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--game must be limit_holdem" in done.stderr
