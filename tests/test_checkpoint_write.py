"""write_checkpoint on a full disk: one CheckpointError line, the target and folder unchanged."""

from __future__ import annotations

import errno
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from pokerzoo.checkpoint import read_checkpoint, write_checkpoint
from pokerzoo.errors import CheckpointError


def _no_space(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("where", ["fsync", "write_array"])
def test_a_full_disk_is_one_line_and_keeps_the_old_checkpoint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    target = tmp_path / "agent.ckpt"
    write_checkpoint(target, agent_name="a", state={"w": np.arange(3.0)})
    before = target.read_bytes()
    if where == "fsync":
        monkeypatch.setattr(os, "fsync", _no_space)
    else:
        monkeypatch.setattr(np.lib.format, "write_array", _no_space)
    with pytest.raises(CheckpointError) as err:
        write_checkpoint(target, agent_name="a", state={"w": np.zeros(5)})
    message = str(err.value)
    assert message == (f"cannot write the checkpoint to {str(target)!r}: No space left on "
                       f"device (the file there, if any, is unchanged)")
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["agent.ckpt"]  # no temporary left
    monkeypatch.undo()
    assert np.array_equal(read_checkpoint(target)[1]["w"], np.arange(3.0))


def test_a_folder_that_cannot_be_created_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(CheckpointError, match="cannot create its folder"):
        write_checkpoint(blocker / "sub" / "a.ckpt", agent_name="a", state={})
    assert zipfile.is_zipfile(blocker) is False and blocker.read_text() == "x"
