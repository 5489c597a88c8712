"""Checking a Ray cluster's address before Ray is asked to join it.

``ray.init(address=...)`` retries an address that does not answer for minutes (20 tries of
about 36 s each in Ray 2.x) before it fails. ``probe_address`` asks the address first, within a
timeout: one gRPC call to the service Ray runs there (the head's GCS for ``host:port``, the
client server for ``ray://host:port``). A name that does not resolve, a closed port, silence,
or a server that does not offer Ray's service fail in one line naming the address and what to
check; any answer of Ray's (including "authentication token missing") passes, and ``ray.init``
then joins or says what is wrong itself.

With ``RAY_USE_TLS`` set the cluster expects Ray's certificates, which the probe does not
load, so it is skipped and Ray's own retries apply.

>>> parse_address("ray://head.example:10001")
('head.example', 10001)
>>> parse_address("[::1]:6379")
('::1', 6379)
>>> parse_address("auto") is None  # Ray finds the cluster itself (RAY_ADDRESS unset)
True
"""

from __future__ import annotations

import math
import os
from numbers import Real

from pokerzoo.errors import ConfigError

DEFAULT_TIMEOUT_S = 30.0
"""How long ``connect`` waits for a cluster's address to answer."""

_FORMS = "'auto', host:port (the head's GCS, e.g. host:6379) or ray://host:port"
_HINT = ("check the address (`ray start --head` prints it), that the cluster is running, and "
         "that this machine can reach it")
# One cheap call of the service Ray runs at each kind of address, as (method, serialized
# request): the GCS's cluster id (an empty request), and the client server's PING
# (ClusterInfoRequest with type PING = 6), which it answers before any session exists.
_GCS_CALL = ("/ray.rpc.NodeInfoGcsService/GetClusterId", b"")
_CLIENT_CALL = ("/ray.rpc.RayletDriver/ClusterInfo", b"\x08\x06")


def check_timeout(timeout: object) -> float:
    """``timeout`` as seconds (a finite number > 0), else ``ConfigError``."""
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, Real)
        or not math.isfinite(float(timeout))
        or float(timeout) <= 0
    ):
        raise ConfigError(f"timeout must be a number of seconds > 0, got {timeout!r}")
    return float(timeout)


def parse_address(address: object) -> tuple[str, int] | None:
    """``(host, port)`` of a Ray address, or ``None`` where Ray finds the cluster itself
    (``"auto"`` without ``RAY_ADDRESS``, or ``"local"``).

    Raises:
        ConfigError: for anything but ``"auto"``, ``"local"``, ``host:port`` or
            ``ray://host:port`` with a port from 1 to 65535.
    """
    if not isinstance(address, str):
        raise ConfigError(f"a Ray address must be {_FORMS}, got {address!r}")
    text = address.strip()
    if text == "auto":
        env = os.environ.get("RAY_ADDRESS", "").strip()
        return parse_address(env) if env and env not in ("auto", "local") else None
    if text == "local":
        return None
    rest = text.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]  # an IPv6 address in brackets
    if not (sep and host and port.isdigit() and 1 <= int(port) <= 65535) or "/" in host:
        raise ConfigError(f"a Ray address must be {_FORMS}, got {address!r}")
    return host, int(port)


def probe_address(address: str, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    """Check within ``timeout`` seconds that Ray answers at ``address`` (see the module doc);
    addresses that Ray resolves itself (``parse_address`` gives ``None``) pass unchecked.

    Raises:
        ConfigError: naming the address, what failed and what to check.
    """
    timeout = check_timeout(timeout)
    target = parse_address(address)
    if target is None or os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
        return
    host, port = target
    client = address.strip().startswith("ray://")
    reason = _probe(host, port, _CLIENT_CALL if client else _GCS_CALL, timeout)
    if reason is not None:
        raise ConfigError(f"cannot connect to the Ray cluster at {address!r}: {reason}; {_HINT}")


def _probe(host: str, port: int, call: tuple[str, bytes], timeout: float) -> str | None:
    """Why Ray does not answer ``call`` at ``host:port``, or ``None`` if it does."""
    import grpc  # installed with Ray, which the caller has checked

    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    channel = grpc.insecure_channel(target)
    try:
        method, request = call
        channel.unary_unary(method)(request, timeout=timeout)
    except grpc.RpcError as exc:
        code, details = exc.code(), str(exc.details() or "")
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return f"no answer within {timeout:g} s"
        if code == grpc.StatusCode.UNIMPLEMENTED:
            return "the server there does not offer Ray's service"
        if code == grpc.StatusCode.UNAVAILABLE:
            if "resolving" in details:
                return f"the host name {host!r} does not resolve"
            if "Connection refused" in details:
                return f"nothing listens on port {port} of {host}"
            return f"unreachable ({details.rpartition(': ')[2] or 'no connection'})"
        # Any other status is an answer from Ray's service (e.g. a missing auth token).
    finally:
        channel.close()
    return None
