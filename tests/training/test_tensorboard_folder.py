"""The TensorBoard event file is written by the tensorboard library into a run's folder: a
link (or a file) at that folder is refused with one line before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.training.callbacks import ScalarWriter


def test_a_link_at_the_tensorboard_folder_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "tensorboard"
    link.symlink_to(elsewhere)
    with pytest.raises(ConfigError) as info:
        ScalarWriter(link)
    assert "it is a symbolic link; only a real folder" in str(info.value)
    assert "\n" not in str(info.value) and list(elsewhere.iterdir()) == []


def test_a_file_at_the_tensorboard_folder_is_refused(tmp_path: Path) -> None:
    existing = tmp_path / "tensorboard"
    existing.write_bytes(b"kept")
    with pytest.raises(ConfigError, match="it is not a folder"):
        ScalarWriter(existing)
    assert existing.read_bytes() == b"kept"
