"""The manual as the tests read it: README.md, then every page of the documentation site in
the order of ``mkdocs.yml``'s nav (the order a reader meets them, and the order the shell
examples run in). A test that once read the README reads this text, so a section keeps its
checks wherever it moved."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@cache
def site_pages() -> tuple[Path, ...]:
    """The site's Markdown pages in nav order (read from ``mkdocs.yml`` without a YAML
    library: every ``.md`` path of its nav section)."""
    config = (ROOT / "mkdocs.yml").read_text()
    nav = config.split("\nnav:\n", 1)[1]
    paths = re.findall(r"^\s+- (?:[^\n]*?: )?([\w./-]+\.md)\s*$", nav, flags=re.M)
    return tuple(ROOT / "docs" / path for path in paths)


@cache
def manual_pages() -> tuple[Path, ...]:
    """README.md and the site's pages, in reading order."""
    return (ROOT / "README.md", *site_pages())


@cache
def manual_text() -> str:
    """All of the manual's text, page after page."""
    return "\n\n".join(path.read_text(encoding="utf-8") for path in manual_pages())


def section(heading: str) -> str:
    """The text under the first ``heading`` line (``"### Tianshou"``) up to the next heading
    of the same or a higher level."""
    text = manual_text()
    level = heading.split(" ", 1)[0]
    body = text.split(f"\n{heading}\n", 1)[1]
    match = re.search(rf"^#{{1,{len(level)}}} ", body, flags=re.M)
    return body[: match.start()] if match else body
