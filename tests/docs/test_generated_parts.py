"""The site's generated parts: agent parameter tables from the registry and config classes,
and docstrings turned from reStructuredText habits into Markdown for the API reference."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.runs.config import default_budget
from pokerzoo.runs.help import agents_help, parameters_markdown

ROOT = Path(__file__).resolve().parents[2]


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_parameter_tables_hold_the_rows_of_train_help() -> None:
    table = parameters_markdown(["cfr", "cfr+", "pcfr+"], default_budget)
    assert table.startswith("**cfr, cfr+, pcfr+ (default budget 20,000 iterations")
    assert "| `regret_matching_plus` | `False` | cfr+: True; pcfr+: True |" in table
    assert "``" not in table  # RST quotes became Markdown ones
    help_text = agents_help(default_budget)
    for line in table.splitlines()[4:]:
        name = line.split("`")[1]
        assert f"  {name}" in help_text, name


def test_parameter_tables_refuse_an_unknown_agent_in_one_line() -> None:
    with pytest.raises(ConfigError, match=r"unknown agents \['nobody'\]; registered: "):
        parameters_markdown(["cfr", "nobody"], default_budget)


def test_hooks_fill_parameters_and_includes_and_unlink_files_outside_the_site() -> None:
    hooks = _hooks()

    class Page:
        class file:
            src_uri = "agents/cfr.md"

    text = hooks.on_page_markdown(
        "<!-- parameters: dcfr -->\nsee [the table](../../bench/results/schedules.md) and "
        "[Solving](../solving/index.md)", Page, None, None)
    assert "| `discount` |" in text
    assert "see the table (`bench/results/schedules.md`)" in text
    assert "[Solving](../solving/index.md)" in text

    class Root:
        class file:
            src_uri = "contributing.md"

    included = hooks.on_page_markdown("<!-- include: CONTRIBUTING.md -->", Root, None, None)
    assert included.startswith((ROOT / "CONTRIBUTING.md").read_text()[:40])
    with pytest.raises(ValueError, match="is not a file of the repository"):
        hooks.on_page_markdown("<!-- include: ../outside.md -->", Root, None, None)


def test_docstrings_become_markdown_for_the_api_reference() -> None:
    pytest.importorskip("griffe")
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        from griffe_rst import markdown_of
    finally:
        sys.path.remove(str(ROOT / "docs"))
    text = markdown_of("Uses ``x`` and :class:`~a.b.Solver`.\n\n>>> f()\n['a', 'b']\n\nDone.")
    assert text == ("Uses `x` and `Solver`.\n\n```pycon\n>>> f()\n['a', 'b']\n```\n\nDone.")
