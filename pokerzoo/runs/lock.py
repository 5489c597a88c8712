"""The writer's lock of a run folder: one ``train.py`` writes a folder at a time.

``hold_run_folder(folder)`` takes ``fcntl.flock`` on ``folder/run.lock`` (created if missing)
for as long as the ``with`` block runs, and writes the owner's pid, host and start time into
the file, for the message a second writer gets. The kernel releases a ``flock`` when its
process dies, so a lock file left by a killed run never blocks the next one: what counts is the
lock, not the pid in the file. Readers (``evaluate.py``, ``play.py``) take no lock and change
nothing. The lock file is opened without following links and must be a regular file, so a link
planted as ``run.lock`` is refused, never written through.
"""

from __future__ import annotations

import fcntl
import os
import socket
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pokerzoo.errors import ConfigError

LOCK_FILE = "run.lock"
"""The lock file's name inside a run folder."""

MAX_OWNER_BYTES = 512
"""The most of a lock file read back for the message (it holds one short line)."""


@contextmanager
def hold_run_folder(folder: str | os.PathLike[str]) -> Iterator[Path]:
    """Hold the writer's lock of run folder ``folder`` (created if missing) for the block.

    Raises:
        ConfigError: another process holds the lock (the message names its pid and host), or
            ``run.lock`` is a link or anything but a regular file.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        kind = "a symbolic link" if path.is_symlink() else exc.strerror
        raise ConfigError(f"cannot lock the run folder {folder}: {path} is {kind}; only a "
                          "regular lock file is used (remove it)") from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"cannot lock the run folder {folder}: {path} is not a regular "
                              "file (remove it)")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.pread(fd, MAX_OWNER_BYTES, 0).decode("utf-8", "replace").strip()
            raise ConfigError(
                f"run folder {folder} is being written by another train.py "
                f"({owner or 'owner unknown'}); wait for it to end or pick another --out"
            ) from None
        os.ftruncate(fd, 0)
        started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        os.pwrite(fd, f"pid {os.getpid()} on host {socket.gethostname()}, since {started}\n"
                  .encode(), 0)
        yield path
    finally:
        os.close(fd)  # releases the lock; the file stays (unlinking it would race a waiter)
