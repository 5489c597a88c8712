"""evaluate.py's picture flags onto a link: one line, exit status 2, the link's target
unchanged, refused before any run is opened."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("flag", "what"), [("--plot", "curves picture"),
                                            ("--heatmap", "heatmap"),
                                            ("--strategy-chart", "strategy chart")])
def test_a_picture_flag_onto_a_link_is_one_line(tmp_path: Path, flag: str, what: str) -> None:
    kept = tmp_path / "kept.txt"
    kept.write_bytes(b"kept")
    link = tmp_path / "picture.png"
    link.symlink_to(kept)
    result = subprocess.run(
        [sys.executable, "evaluate.py", str(tmp_path / "no_such_run"), flag, str(link)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert f"cannot write the {what} to {str(link)!r}: it is a symbolic link" in lines[0]
    assert kept.read_bytes() == b"kept" and link.is_symlink()
