"""Atomic writes of regular files that never replace anything else at the path.

``write_atomically(path, data)`` writes ``data`` to a temporary file in the same folder, flushes
it to disk and renames it over ``path``, so a reader (or a crash) sees the old file or the new
one, never half of one. Renaming replaces whatever the path names, so the target is checked
first: a new path or an existing regular file is written; a symbolic link (even one to a
regular file: the link, not its target, would be replaced), a folder, a named pipe, a device
or a socket is refused with a ``ConfigError`` saying what is there (``check_target`` makes the
same check early, before the work whose result will be written).

A new file gets the mode ``open(path, "w")`` would give it (0o666 less the umask); a replaced
file keeps its permission bits.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> write_atomically(os.path.join(folder, "a.txt"), "hello\\n").read_text()
'hello\\n'
>>> os.symlink(os.path.join(folder, "a.txt"), os.path.join(folder, "link.txt"))
>>> write_atomically(os.path.join(folder, "link.txt"), "bye\\n")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
pokerzoo.errors.ConfigError: cannot write the file to '...link.txt': it is a symbolic link; ...
"""

from __future__ import annotations

import io
import os
import secrets
import stat
from pathlib import Path
from typing import Any

from pokerzoo.errors import ConfigError

__all__ = ["check_target", "fsync_folder", "write_atomically", "write_figure"]

_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def check_target(path: str | os.PathLike[str], what: str = "file") -> os.stat_result | None:
    """Check that ``path`` may be written by ``write_atomically``: its folder exists and the
    path is new or a regular file (not followed if it is a link).

    Returns:
        The ``lstat`` of the existing regular file, or ``None`` for a new path.

    Raises:
        ConfigError: naming what is at the path, or the missing folder; ``what`` names the
            file in the message (e.g. ``"hand history"``).
    """
    if not isinstance(path, str | os.PathLike):
        raise ConfigError(f"the {what} path must be a file path, got {path!r}")
    target = Path(path)
    if not target.name or "\0" in str(target):
        why = "a NUL character" if target.name else "no file name"
        raise ConfigError(f"cannot write the {what} to {str(path)!r}: the path has {why}")
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise ConfigError(f"cannot write the {what} to {str(path)!r}: {exc.strerror}") from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise ConfigError(
            f"cannot write the {what} to {str(path)!r}: it is {_kind(info.st_mode)}; only a new "
            "path or an existing regular file is written (give another path)"
        )
    if not target.parent.is_dir():
        raise ConfigError(
            f"cannot write the {what} to {str(path)!r}: the folder {str(target.parent)!r} does "
            "not exist"
        )
    return info


def write_atomically(
    path: str | os.PathLike[str], data: bytes | str, *, what: str = "file"
) -> Path:
    """Write ``data`` (``str`` as UTF-8) to ``path`` atomically (see the module doc); returns
    the path.

    Raises:
        ConfigError: for a path that is not new or a regular file, a missing folder, or a
            write the system refuses (no permission, disk full), naming the path; nothing at
            the path changes then.
    """
    if not isinstance(data, bytes | str):
        raise ConfigError(f"write_atomically writes bytes or str, got {type(data).__name__}")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    existing = check_target(path, what)
    target = Path(path)
    tmp: Path | None = None
    try:
        fd, tmp = _create_temporary(target)
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            if existing is not None:
                os.fchmod(fh.fileno(), stat.S_IMODE(existing.st_mode))
            os.fsync(fh.fileno())
        # A link or a FIFO put there since check_target would be replaced by the rename: the
        # check again, as close to the rename as it can be, narrows that race to nothing a user
        # does by hand.
        check_target(path, what)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise ConfigError(f"cannot write the {what} to {str(path)!r}: {exc.strerror}") from None
    finally:
        if tmp is not None and os.path.lexists(tmp):
            os.unlink(tmp)
    fsync_folder(target.parent)
    return target


def write_figure(
    figure: Any, path: str | os.PathLike[str], *, what: str = "picture", **savefig_options: Any
) -> Path:
    """Render a matplotlib ``figure`` to PNG bytes in memory and write them to ``path`` with
    ``write_atomically`` (``savefig`` on a path would follow a link there and overwrite its
    target); the target is checked before rendering. ``savefig_options`` go to ``savefig``
    (``dpi``, ``bbox_inches``). Returns the path.

    Raises:
        ConfigError: as ``write_atomically``; nothing at the path changes then.
    """
    check_target(path, what)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", **savefig_options)
    return write_atomically(path, buffer.getvalue(), what=what)


def _create_temporary(target: Path) -> tuple[int, Path]:
    """A new file beside ``target`` (hidden, random name), created exclusively with the mode a
    plain ``open`` would give it."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue


def fsync_folder(folder: Path) -> None:
    """Make the rename durable (POSIX); platforms that cannot open folders skip it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
