"""pokerzoo.atomic: regular files are written whole (old or new, never half) and nothing else at
the path (a link, a folder, a pipe, a device) is ever replaced."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from pokerzoo.atomic import check_target, write_atomically
from pokerzoo.errors import ConfigError


def test_writes_a_new_file_with_the_mode_open_gives(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        path = write_atomically(tmp_path / "a.txt", "héllo\n")
    finally:
        os.umask(umask)
    assert path.read_bytes() == "héllo\n".encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]  # no temporary file left


def test_replaces_a_regular_file_keeping_its_permissions(tmp_path: Path) -> None:
    path = tmp_path / "a.bin"
    path.write_bytes(b"old")
    path.chmod(0o600)
    write_atomically(path, b"new\x00bytes")
    assert path.read_bytes() == b"new\x00bytes"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def _symlink(tmp_path: Path) -> tuple[Path, Path]:
    target = tmp_path / "target.txt"
    target.write_text("kept")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    return link, target


def _fifo(tmp_path: Path) -> tuple[Path, None]:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path, None


def _folder(tmp_path: Path) -> tuple[Path, None]:
    path = tmp_path / "folder"
    path.mkdir()
    (path / "inside.txt").write_text("kept")
    return path, None


@pytest.mark.parametrize(("make", "kind"), [(_symlink, "a symbolic link"),
                                            (_fifo, "a named pipe (FIFO)"),
                                            (_folder, "a folder")])
def test_a_non_regular_target_is_refused_and_left_untouched(tmp_path: Path, make, kind) -> None:
    path, target = make(tmp_path)
    before = os.lstat(path)
    listing = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(ConfigError, match=re.escape(f"it is {kind}; only a new path or an "
                                                    "existing regular file")):
        write_atomically(path, "data", what="hand history")
    with pytest.raises(ConfigError, match="hand history"):
        check_target(path, "hand history")
    after = os.lstat(path)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert sorted(p.name for p in tmp_path.iterdir()) == listing
    if target is not None:
        assert target.read_text() == "kept"  # a link's target is not written through either


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_a_device_is_refused() -> None:
    with pytest.raises(ConfigError, match="character device"):
        write_atomically("/dev/null", "data")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_bad_paths_and_data_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        write_atomically(tmp_path / "missing" / "a.txt", "x")
    with pytest.raises(ConfigError, match="no file name"):
        write_atomically("", "x")
    with pytest.raises(ConfigError, match="NUL"):
        write_atomically(str(tmp_path / "a\0b"), "x")
    with pytest.raises(ConfigError, match="file path"):
        write_atomically(3, "x")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="bytes or str"):
        write_atomically(tmp_path / "a.txt", 3)  # type: ignore[arg-type]
    assert not (tmp_path / "a.txt").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_refused_write_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(ConfigError, match="Permission denied"):
            write_atomically(folder / "a.txt", "x")
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o700)
