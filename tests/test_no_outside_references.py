"""Nothing in the repository points outside it.

Every tracked text file (``git ls-files``: Python, Markdown, TOML, text, config, YAML, JSON,
CSV, logs and shell scripts, with or without an extension when they start with ``#!``; files
with a NUL byte or that are not UTF-8 are binary and skipped) is read line by line for:

- ``../shared``, ``shared/seeds``, ``shared/tools``: folders beside the checkout, which a
  reader of the repository does not have;
- ``ANCHORS.md`` and ``DESIGN.md``: documents outside the repository (a reference is allowed
  once such a file is tracked here);
- ``issue 28``, ``issue #28``, ``issues 15``, ``task 7``: numbers of a project tracker the
  reader cannot see. A GitHub issue of another project cited by its URL
  (``github.com/owner/repo/issues/95``) is not matched, since a ``/`` separates the word from
  the number;
- absolute paths into this machine's layout: ``/work/``, ``/root/``, ``/home/``, ``/mnt/``
  at the start of a path (not inside a URL such as ``example.org/work/``). ``/tmp/`` is not
  matched: it is scratch space every machine has (tests use ``tmp_path``, scripts default
  their scratch folders there), not a pointer to something only this machine holds.

Papers are cited by title (and arXiv id where there is one) and facts are stated in place.
A failure names every hit as ``file:line: text`` with the reason.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
THIS_FILE = Path(__file__).resolve().relative_to(ROOT).as_posix()
TEXT_SUFFIXES = frozenset({
    ".py", ".pyi", ".md", ".rst", ".toml", ".txt", ".cfg", ".ini", ".yml", ".yaml", ".json",
    ".csv", ".log", ".sh", ".bash", ".cff",
})
OUTSIDE_DOCUMENTS = ("ANCHORS.md", "DESIGN.md")
PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\.\./shared\b"), "a folder beside the checkout; state the fact in place"),
    (re.compile(r"\bshared/(?:seeds|tools)\b"),
     "a folder outside the repository; cite the paper by title and arXiv id, or name the tool"),
    (re.compile(r"\b(?:issues?|tasks?)\s*#?\d+\b", re.IGNORECASE),
     "a project-tracker number the reader cannot see; say what it was about instead"),
    (re.compile(r"(?<![\w.~/-])/(?:work|root|home|mnt)/"),
     "an absolute path into this machine's layout; use a path relative to the repository"),
)


def outside_references(
    text: str, tracked: frozenset[str] = frozenset()
) -> list[tuple[int, str, str]]:
    """The references in ``text`` that point outside the repository.

    Args:
        text: a file's contents.
        tracked: the repository's tracked paths, so that a document named in
            ``OUTSIDE_DOCUMENTS`` counts as inside once the repository holds it.

    Returns:
        ``(line number, matched text, why)`` for each hit, in order.
    """
    tracked_names = {Path(path).name for path in tracked}
    document_patterns = [
        (re.compile(re.escape(name)), f"{name} is not in the repository; state its facts in place")
        for name in OUTSIDE_DOCUMENTS if name not in tracked_names
    ]
    hits: list[tuple[int, str, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        for pattern, why in (*PATTERNS, *document_patterns):
            hits.extend((number, match.group(0), why) for match in pattern.finditer(line))
    return hits


def tracked_files() -> list[str]:
    """The repository's tracked paths, or a skip where this is not a git checkout."""
    try:
        listing = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                                 check=True, timeout=60).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"not a git checkout ({error}): the tracked files are unknown")
    return [path for path in listing.decode().split("\0") if path]


def read_text_file(path: Path) -> str | None:
    """The file's text if it is a text file to scan, else ``None`` (binary, a link, absent)."""
    if path.is_symlink() or not path.is_file():
        return None
    data = path.read_bytes()
    if path.suffix.lower() not in TEXT_SUFFIXES and not data.startswith(b"#!"):
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_no_tracked_file_points_outside_the_repository() -> None:
    paths = tracked_files()
    tracked = frozenset(paths)
    problems: list[str] = []
    scanned = 0
    for relative in paths:
        if relative == THIS_FILE:
            continue  # it spells the patterns out
        text = read_text_file(ROOT / relative)
        if text is None:
            continue
        scanned += 1
        problems.extend(f"{relative}:{number}: {found!r}: {why}"
                        for number, found, why in outside_references(text, tracked))
    assert scanned > 100, f"only {scanned} text files scanned: is this the repository?"
    assert not problems, (
        f"{len(problems)} reference(s) outside the repository:\n" + "\n".join(problems))


@pytest.mark.parametrize("line", [
    "see ../../../shared/ANCHORS.md for the number",
    "Papers: `../shared/seeds/` of the project.",
    "the work that remains is listed in issue 28.",
    "# Second pass (Issue #27's speed target)",
    "help='training time per agent (task 7: 8 minutes)'",
    "DATA holds the chunks, /work/valuenet here",
    "reusing /root/cache/run.json",
    'import layers of DESIGN.md',
])
def test_each_kind_of_outside_reference_is_found(line: str) -> None:
    assert outside_references(line), line


@pytest.mark.parametrize("line", [
    "TexasSolver divides by 47/46 (github.com/bupticybee/TexasSolver/issues/95)",
    "https://github.com/x/y/issues/12 is fine",
    "out = tmp_path / 'run'; default='/tmp/pokerzoo-hunl-deep'",
    "https://example.org/work/page and bench/results/subgame.md",
    "slots wrap: items 5, 6, 7 overwrote 0, 1, 2; tissue 3",
    "python train.py --out runs/cfr_leduc  # relative run folders",
])
def test_citations_urls_and_scratch_paths_are_not_outside_references(line: str) -> None:
    assert outside_references(line) == [], line


def test_a_tracked_design_document_may_be_referenced() -> None:
    line = "the layers of DESIGN.md"
    assert outside_references(line)
    assert outside_references(line, frozenset({"docs/DESIGN.md"})) == []


def test_the_failure_names_file_line_text_and_why() -> None:
    hits = outside_references("fine\nsee issue 28 here\n")
    assert hits == [(2, "issue 28", PATTERNS[2][1])]
