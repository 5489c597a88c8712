"""``pokerzoo.version``: the one ``__version__``, written once (pyproject.toml reads it as its
``dynamic`` version), the front door's, a checkpoint header's, the changelog's newest release
and the citation's."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pokerzoo
from pokerzoo.version import __version__

ROOT = Path(__file__).resolve().parents[1]


def test_pyproject_reads_the_version_from_pokerzoo_version() -> None:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        pyproject = tomllib.load(fh)
    assert "version" not in pyproject["project"]
    assert pyproject["project"]["dynamic"] == ["version"]
    dynamic = pyproject["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "pokerzoo.version.__version__"}
    assert pokerzoo.__version__ is __version__


def test_the_version_is_a_release_number_and_the_changelog_and_citation_state_it() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", changelog, re.M)
    assert releases and releases[0][0] == __version__, releases
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(rf"^version: \"?{re.escape(__version__)}\"?$", citation, re.M)
    assert re.search(rf"^date-released: \"?{releases[0][1]}\"?$", citation, re.M)


def test_a_checkpoint_header_records_the_version(tmp_path: Path) -> None:
    from pokerzoo.agents.cfr.full_width import CFRPlus
    from pokerzoo.checkpoint import read_header

    agent = CFRPlus(pokerzoo.load_game("kuhn_poker"))
    agent.iterate(1)
    path = tmp_path / "cfr.pzc"
    agent.save(path)
    assert read_header(path)["meta"]["pokerzoo_version"] == __version__
