"""``connect``: an address that does not answer fails within the timeout in one line naming the
address and what to check (Ray alone retries it for minutes), bad arguments fail before Ray
starts, and a local Ray started for ``--workers`` prints none of Ray's start-up lines."""

from __future__ import annotations

import math
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import ray

from pokerzoo.distributed import connect, executor_for
from pokerzoo.distributed.address import parse_address, probe_address
from pokerzoo.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
HINT = r"; check the address \(`ray start --head` prints it\)"


def _refuse_within(address: str, timeout: float, message: str, limit: float) -> None:
    assert not ray.is_initialized()
    start = time.monotonic()
    with pytest.raises(ConfigError, match=message + HINT) as info:
        connect(2, address=address, timeout=timeout)
    assert time.monotonic() - start < limit
    assert "\n" not in str(info.value)
    assert not ray.is_initialized()  # nothing half-joined is left behind


def test_an_unknown_host_fails_at_once() -> None:
    # The audit's call, which Ray alone retried for over a minute.
    _refuse_within("nohost:1", 5, r"'nohost:1': the host name 'nohost' does not resolve", 25)


def test_a_closed_port_fails_at_once() -> None:
    with socket.socket() as s:  # a port just freed: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _refuse_within(f"127.0.0.1:{port}", 5, f"nothing listens on port {port} of 127.0.0.1", 25)


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_a_silent_server_fails_after_the_timeout(scheme: str) -> None:
    with socket.socket() as server:  # accepts connections (the kernel does) but never answers
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        address = f"{scheme}127.0.0.1:{server.getsockname()[1]}"
        start = time.monotonic()
        _refuse_within(address, 1.5, r"no answer within 1.5 s", 25)
        assert time.monotonic() - start >= 1.4


@pytest.mark.parametrize("address", ["foo", "host:", ":6379", "host:0", "host:70000",
                                     "http://host:6379", "ray://", "", 6379, ["host", 6379]])
def test_malformed_addresses_fail_before_ray_starts(address) -> None:
    with pytest.raises(ConfigError, match="a Ray address must be 'auto', host:port"):
        connect(2, address=address)
    assert not ray.is_initialized()


@pytest.mark.parametrize("timeout", [0, -1, math.nan, math.inf, "5", True, None])
def test_a_bad_timeout_fails_before_ray_starts(timeout) -> None:
    with pytest.raises(ConfigError, match="timeout must be a number of seconds > 0"):
        connect(2, address="nohost:1", timeout=timeout)
    with pytest.raises(ConfigError, match="num_cpus must be an integer >= 1"):
        connect(2, num_cpus=0)
    with pytest.raises(ConfigError, match="workers must be an integer >= 1"):
        executor_for(0, "nohost:1")


def test_addresses_ray_finds_itself_are_not_probed(monkeypatch) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert parse_address("auto") is None and parse_address("local") is None
    probe_address("auto", 0.1)
    monkeypatch.setenv("RAY_ADDRESS", "nohost:1")
    assert parse_address("auto") == ("nohost", 1)
    with pytest.raises(ConfigError, match="'auto': the host name 'nohost' does not resolve"):
        probe_address("auto", 5)


@pytest.mark.slow
def test_workers_print_no_ray_start_up_lines(tmp_path: Path) -> None:
    """``train.py --workers 2`` starts a local Ray: none of its banner, token or INFO lines
    reach the user (about a minute on a loaded two-core machine, most of it Ray's start)."""
    result = subprocess.run(
        [sys.executable, "train.py", "--agent", "nfsp", "--game", "kuhn_poker", "--episodes",
         "200", "--workers", "2", "--no-progress", "--out", str(tmp_path / "run")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    output = result.stdout + result.stderr
    for noise in ("Started a local Ray instance", "authentication token", "Token authentication",
                  "INFO worker.py", "View the dashboard", "RAY_"):
        assert noise not in output, output
