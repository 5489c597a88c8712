"""``python -m pokerzoo.envs.docs`` writes its pages atomically: a link at a page is refused
with one line and its target keeps its content."""

from __future__ import annotations

from pathlib import Path

import pytest

import pokerzoo.envs.docs as docs
from pokerzoo.errors import ConfigError


def test_a_link_at_a_page_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kept = tmp_path / "kept.md"
    kept.write_text("kept\n")
    (tmp_path / "page.md").symlink_to(kept)
    monkeypatch.setattr(docs, "pages", lambda: {"page.md": "new text\n"})
    with pytest.raises(ConfigError, match="it is a symbolic link") as info:
        docs.main(["--out", str(tmp_path)])
    assert "\n" not in str(info.value) and kept.read_text() == "kept\n"
    assert (tmp_path / "page.md").is_symlink()
