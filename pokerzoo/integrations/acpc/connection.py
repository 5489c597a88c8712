"""Lines of text over a TCP socket, with a deadline per line: what the ACPC dealer and client
say to each other (one message a line, ``\\r\\n`` ends a line the dealer sends, a client may end
its lines with ``\\n`` alone)."""

from __future__ import annotations

import socket
import time

from pokerzoo.errors import PlayerError
from pokerzoo.integrations.acpc.matchstate import MAX_MESSAGE

VERSION = "VERSION:2.0.0"
"""The protocol version a client announces first."""


class Closed(PlayerError):
    """The other side closed the connection (or reset it)."""


class Stalled(PlayerError):
    """The other side said nothing, or no full line, within the time allowed."""


class LineSocket:
    """A connected socket read and written one line at a time."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buffer = b""

    def send_line(self, line: str) -> None:
        """Send ``line`` and ``\\r\\n``; raises ``Closed`` if the other side is gone."""
        try:
            self.sock.sendall(line.encode("ascii") + b"\r\n")
        except OSError as exc:
            raise Closed(f"the connection is closed ({exc.strerror or exc})") from None

    def read_line(self, timeout: float | None) -> str:
        """The next line that is not a comment (``#`` or ``;`` first), without its line end.

        Raises:
            Closed: the other side closed the connection before a full line.
            Stalled: no full line within ``timeout`` seconds (``None``: wait for ever).
            PlayerError: a line longer than a message can be, or not ASCII text.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                raw, self._buffer = self._buffer[:end], self._buffer[end + 1:]
                try:
                    line = raw.rstrip(b"\r").decode("ascii")
                except UnicodeDecodeError:
                    raise PlayerError("sent a line that is not ASCII text") from None
                if line.startswith(("#", ";")):
                    continue
                return line
            if len(self._buffer) > MAX_MESSAGE:
                raise PlayerError(f"sent a line longer than {MAX_MESSAGE} characters")
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Stalled(f"sent no full line within {timeout:g} s")
                self.sock.settimeout(left)
            else:
                self.sock.settimeout(None)
            try:
                chunk = self.sock.recv(MAX_MESSAGE)
            except TimeoutError:
                continue  # the deadline check above says so
            except OSError as exc:
                raise Closed(f"the connection is closed ({exc.strerror or exc})") from None
            if not chunk:
                raise Closed("closed the connection")
            self._buffer += chunk

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already closed by the other side
        self.sock.close()
