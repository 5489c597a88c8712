"""MkDocs hooks: the parts of the site generated from the code at build time.

- ``<!-- parameters: NAME ... -->`` becomes the agents' parameter tables, read from the registry
  and the config dataclasses (``pokerzoo.runs.help.parameters_markdown``, the rows of
  ``train.py --help``), so an agent page's parameters never fall behind the code.
- ``<!-- include: PATH -->`` becomes the text of a file at the repository's root (CONTRIBUTING.md,
  CHANGELOG.md), so the site and the files GitHub shows are one text.
- A Markdown link to a file of the repository outside ``docs/`` (``bench/results/x.md``) becomes
  the path in code: the site holds only the documentation, and a link that leaves it would be
  broken in a built site opened from ``file://``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PARAMETERS = re.compile(r"^<!-- parameters: ([^>]+?) -->$", re.M)
INCLUDE = re.compile(r"^<!-- include: ([^>]+?) -->$", re.M)
LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s]+)\)")


def _parameters(match: re.Match[str]) -> str:
    from pokerzoo.runs.config import default_budget
    from pokerzoo.runs.help import parameters_markdown

    return parameters_markdown(match.group(1).split(), default_budget)


def _include(match: re.Match[str]) -> str:
    path = (ROOT / match.group(1).strip()).resolve()
    if ROOT not in path.parents or not path.is_file():
        raise ValueError(f"docs include {match.group(1)!r} is not a file of the repository")
    text = path.read_text(encoding="utf-8")
    # Links in the included file are relative to the repository's root.
    return LINK.sub(lambda m: _relink(m, ROOT, path.parent), text)


def _relink(match: re.Match[str], base: Path, page_dir: Path) -> str:
    label, target = match.group(1), match.group(2)
    if re.match(r"^[a-z]+:", target) or target.startswith("#"):
        return match.group(0)
    path_part, _, anchor = target.partition("#")
    resolved = (page_dir / path_part).resolve()
    if DOCS in resolved.parents or resolved == DOCS:
        relative = resolved.relative_to(DOCS).as_posix()
        return f"[{label}]({_from(page_dir, relative)}{'#' + anchor if anchor else ''})"
    if ROOT in resolved.parents and resolved.exists():
        path = resolved.relative_to(ROOT).as_posix()
        return label if label.strip("`") == path else f"{label} (`{path}`)"
    return match.group(0)


def _from(page_dir: Path, docs_relative: str) -> str:
    """``docs_relative`` as a link from a page in ``page_dir`` (a folder under docs/, or the
    root for an included file, whose text ends up on a page at docs/)."""
    here = page_dir.relative_to(DOCS) if DOCS in page_dir.parents or page_dir == DOCS else Path()
    depth = len(here.parts)
    return "../" * depth + docs_relative


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Fill in the generated parts of one page (see the module docstring)."""
    page_dir = (DOCS / page.file.src_uri).parent
    markdown = INCLUDE.sub(_include, markdown)
    markdown = PARAMETERS.sub(_parameters, markdown)
    return LINK.sub(lambda m: _relink(m, DOCS, page_dir), markdown)
