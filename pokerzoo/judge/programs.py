"""A program in any language as an outside player, speaking one line per decision on its
standard input and output.

The line protocol
-----------------
The program is started once and asked each decision as one line on its standard input: a JSON
object, ``Decision.to_json()`` plus ``"sample"`` (the index of the repeated question)::

    {"game": "kuhn_poker", "player": 0, "info_state": "...", "legal_actions": [{"action": 0,
     "kind": "check", "amount": null, "label": "check"}, ...], "text": "...",
     "observation": [...], "sample": 0}

(all on one line). It answers with exactly one line on its standard output, flushed, any of:

* a label: ``call``, ``raise 4`` (case and spacing ignored);
* an action id: ``1``;
* a distribution, a JSON object ``{"check": 0.75, "bet 1": 0.25}`` (keys are labels or ids);
* ``{"action": "call"}`` or ``{"action": 1}``.

An answer that names no legal action is asked once more: the same request with an ``"error"``
field saying what was wrong (a program may ignore it); a second bad answer is replaced by the
judge's fallback (``pokerzoo.judge.protocol``). Output no request asked for (a second line
for one decision), when it is there as the next request is sent, stops the program: it would
be read as the next answer. Standard error is the program's own (its last
line is quoted when it fails). A bot of ten lines in Python::

    import json
    import sys

    for line in sys.stdin:  # one decision per line, one answer per line back
        decision = json.loads(line)
        labels = [action["label"] for action in decision["legal_actions"]]
        if "Your card: K" in decision["text"]:  # bet, raise or call with a king
            answer = next(label for label in labels if label.startswith(("bet", "raise", "call")))
        else:  # check where it is free, else fold or call, half and half
            answer = "check" if "check" in labels else json.dumps({"fold": 0.5, "call": 0.5})
        print(answer, flush=True)

Judge it with ``ProgramPlayer("python bot.py")``. Pipes are read through ``selectors``, so this
runs where selectors can wait on pipes (Linux, macOS; not Windows).
"""

from __future__ import annotations

import json
import math
import os
import selectors
import shlex
import subprocess
import time
import weakref
from collections.abc import Sequence
from typing import IO, Any

from pokerzoo.errors import ConfigError, PlayerError
from pokerzoo.judge.decision import Decision
from pokerzoo.judge.protocol import Answer

MAX_LINE_BYTES = 1 << 20
"""The longest answer line read (1 MiB): a program printing more without a newline is stopped."""

_STDERR_TAIL_BYTES = 4096


def command_args(command: str | Sequence[str]) -> list[str]:
    """The argument list of ``command``: a command line (split as a POSIX shell splits it,
    without running a shell) or a list of arguments. A command line given in quotes as a
    whole (``'"python bot.py"'``, as ``cmd:"PROGRAM ARGS"`` specs write it) is split inside.

    >>> command_args('"python bot.py --seed 3"')
    ['python', 'bot.py', '--seed', '3']

    Raises:
        ConfigError: an empty command, unbalanced quotes, or something else than a string or
            a list of strings.
    """
    if isinstance(command, str):
        try:
            args = shlex.split(command)
            if len(args) == 1 and command.strip()[:1] in "\"'" and len(args[0].split()) > 1:
                args = shlex.split(args[0])
        except ValueError as error:
            raise ConfigError(f"cannot split the command {command!r}: {error}") from None
    elif isinstance(command, Sequence) and all(isinstance(a, str) for a in command):
        args = list(command)
    else:
        raise ConfigError(f"a program is a command line or a list of arguments, not "
                          f"{type(command).__name__}")
    if not args:
        raise ConfigError("the program's command is empty; give the program and its arguments")
    return args


def _key_of(name: Any) -> Any:
    """A JSON key or value naming an action: an id where it is all digits, else a label."""
    if isinstance(name, str) and name.strip().isdigit():
        return int(name)
    return name


def read_program_line(line: str) -> Answer:
    """The answer a program's line gives (see the module): a label, an id or a distribution,
    for ``pokerzoo.judge.protocol`` to check.

    >>> read_program_line("raise 4"), read_program_line("1")
    ('raise 4', 1)
    >>> read_program_line('{"call": 0.5, "0": 0.5}'), read_program_line('{"action": "call"}')
    ({'call': 0.5, 0: 0.5}, 'call')
    """
    text = line.strip()
    try:
        value = json.loads(text)
    except ValueError:
        return text  # not JSON: a label such as ``call`` or ``raise 4``
    if isinstance(value, dict):
        if set(value) == {"action"}:
            return _key_of(value["action"])
        return {_key_of(k): p for k, p in value.items()}
    return value


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Kill ``process`` if it runs and close its pipes (also run at garbage collection)."""
    if process.poll() is None:
        process.kill()
    process.wait()
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


class ProgramPlayer:
    """A program speaking the line protocol (see the module) as an outside player.

    The program starts here, once, and answers every decision in turn; ``close()`` (or leaving
    a ``with`` block, or garbage collection) kills it.

    Args:
        command: the command line (``"python bot.py"``, split as a shell would, never run by
            one) or a list of arguments.
        timeout: seconds the program may take over one decision.
        cwd: the directory it runs in (default: the current one).
        name: the name errors and reports show (default: the command line).

    Raises:
        ConfigError: an empty command, a timeout that is not a positive number, or a program
            that cannot be started (not found, not executable, no such ``cwd``).
    """

    def __init__(self, command: str | Sequence[str], timeout: float = 10.0,
                 cwd: str | os.PathLike[str] | None = None, *, name: str | None = None) -> None:
        self.args = command_args(command)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or \
                not math.isfinite(timeout) or timeout <= 0:
            raise ConfigError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self.timeout = float(timeout)
        self.name = name or shlex.join(self.args)
        try:
            self.process = subprocess.Popen(self.args, stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            cwd=cwd, bufsize=0)
        except (OSError, ValueError) as error:
            where = f" in {os.fspath(cwd)!r}" if cwd is not None else ""
            reason = getattr(error, "strerror", None) or str(error)
            raise ConfigError(f"cannot start program {self.name!r}{where}: {reason}") from None
        # Binary pipes read by our own code: a buffered text reader could hold a line that a
        # selector would never report, and a line is checked for UTF-8 as a whole.
        for pipe in self._pipes():
            os.set_blocking(pipe.fileno(), False)
        self._out = bytearray()
        self._err_tail = b""
        self._stopped: str | None = None  # why the program can no longer be asked
        self._finalizer = weakref.finalize(self, _stop, self.process)

    def _pipes(self) -> tuple[IO[bytes], IO[bytes], IO[bytes]]:
        process = self.process
        assert process.stdin and process.stdout and process.stderr  # all three are pipes
        return process.stdin, process.stdout, process.stderr

    def decide(self, decision: Decision, sample: int) -> Answer:
        """The program's answer to ``decision`` (see the module for the line protocol).

        Raises:
            PlayerError: the program exited, hung past the timeout, or printed an empty line
                or one that is not UTF-8.
        """
        return self._exchange(decision, {**decision.to_json(), "sample": sample})

    def reask(self, decision: Decision, sample: int, error: str) -> Answer:
        """The program's second answer: the same request with ``"error"`` saying what was
        wrong with the first."""
        return self._exchange(decision, {**decision.to_json(), "sample": sample, "error": error})

    def close(self) -> None:
        """Kill the program (idempotent)."""
        if self._stopped is None:
            self._stopped = f"program {self.name!r} was closed"
        self._finalizer()

    def __enter__(self) -> ProgramPlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ProgramPlayer({self.name!r})"

    # The exchange ----------------------------------------------------------------------------

    def _fail(self, what: str, key: str, stop: bool = False) -> PlayerError:
        message = f"program {self.name!r}, asked decision {key}, {what}"
        last = self._last_stderr_line()
        if last:
            message += f"; its last stderr line: {last!r}"
        if stop:
            self._stopped = message
            self._finalizer()
        return PlayerError(message)

    def _last_stderr_line(self) -> str:
        lines = self._err_tail.decode("utf-8", "replace").strip().splitlines()
        return lines[-1].strip() if lines else ""

    def _keep_stderr(self, chunk: bytes) -> None:
        self._err_tail = (self._err_tail + chunk)[-_STDERR_TAIL_BYTES:]

    def _take_line(self) -> bytes | None:
        end = self._out.find(b"\n")
        if end < 0:
            return None
        line = bytes(self._out[:end])
        del self._out[:end + 1]
        return line

    def _exchange(self, decision: Decision, request: dict[str, Any]) -> Answer:
        key = decision.key
        if self._stopped is not None:
            raise PlayerError(f"{self._stopped}; it cannot answer decision {key}")
        stdin, stdout, stderr = self._pipes()
        pending = memoryview((json.dumps(request) + "\n").encode("ascii"))
        deadline = time.monotonic() + self.timeout
        self._check_nothing_extra(key)
        line: bytes | None = None
        with selectors.DefaultSelector() as selector:
            selector.register(stdin, selectors.EVENT_WRITE)
            selector.register(stdout, selectors.EVENT_READ)
            selector.register(stderr, selectors.EVENT_READ)
            while line is None or pending:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._fail(f"gave no answer within {self.timeout:g} s and was "
                                     "stopped", key, stop=True)
                for ready, _ in selector.select(remaining):
                    if ready.fileobj is stdin:
                        pending = _write_some(stdin, pending)
                        if not pending:
                            selector.unregister(stdin)
                    elif ready.fileobj is stderr:
                        chunk = _read(stderr)
                        if chunk == b"":
                            selector.unregister(stderr)
                        elif chunk:
                            self._keep_stderr(chunk)
                    else:
                        self._read_stdout(key)
                        line = line if line is not None else self._take_line()
        return self._answer_of(line, key)

    def _check_nothing_extra(self, key: str) -> None:
        """Refuse to go on after output no request asked for (a second line for the last
        decision would be read as the answer to this one)."""
        chunk = _read(self._pipes()[1])
        if chunk:
            self._out += chunk
        if self._out:
            extra = bytes(self._out[:40])
            raise self._fail(f"had printed more than one line for the decision before "
                             f"({extra!r}) and was stopped", key, stop=True)

    def _read_stdout(self, key: str) -> None:
        chunk = _read(self._pipes()[1])
        if chunk == b"":
            raise self._exited(key)
        if chunk:
            self._out += chunk
            if self._out.find(b"\n") < 0 and len(self._out) > MAX_LINE_BYTES:
                raise self._fail(f"printed more than {MAX_LINE_BYTES} bytes without a newline "
                                 "and was stopped", key, stop=True)

    def _exited(self, key: str) -> PlayerError:
        _, _, stderr = self._pipes()
        try:
            code: int | None = self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        while chunk := _read(stderr):  # what it wrote before it went
            self._keep_stderr(chunk)
        how = f"exited (exit code {code})" if code is not None else "closed its output"
        return self._fail(f"{how} without answering", key, stop=True)

    def _answer_of(self, raw: bytes, key: str) -> Answer:
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self._fail(f"printed a line that is not UTF-8 ({raw[:40]!r})", key) from None
        if not line.strip():
            raise self._fail("printed an empty line", key)
        return read_program_line(line)


def _write_some(pipe: IO[bytes], pending: memoryview) -> memoryview:
    """``pending`` less what the pipe took now (all of it where the reader has gone: its exit
    is then seen on its output)."""
    try:
        return pending[os.write(pipe.fileno(), pending):]
    except BlockingIOError:
        return pending
    except BrokenPipeError:
        return pending[:0]


def _read(pipe: IO[bytes]) -> bytes | None:
    """What the pipe holds now: ``b""`` at its end, ``None`` when nothing is waiting."""
    try:
        return os.read(pipe.fileno(), 65536)
    except BlockingIOError:
        return None
