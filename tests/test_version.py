"""``pokerzoo.version``: the one ``__version__``, the release pyproject.toml states, and the
front door's."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pokerzoo
from pokerzoo.version import __version__

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_the_release_pyproject_states() -> None:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        assert __version__ == tomllib.load(fh)["project"]["version"]
    assert pokerzoo.__version__ is __version__
