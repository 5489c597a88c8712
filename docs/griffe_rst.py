"""A griffe extension for the API reference: pokerzoo's docstrings are written for ``help()``
and doctest (reStructuredText habits: ``code``, :class:`~a.B`, bare ``>>>`` examples); this
turns those into the Markdown mkdocstrings renders (`code`, fenced ``pycon`` blocks), so the
examples show as code and their output is never read as Markdown links."""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension

ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|obj|exc):`~?([^`]+)`")


def markdown_of(text: str) -> str:
    """The docstring ``text`` with its doctest blocks fenced and RST code quotes as Markdown."""
    out: list[str] = []
    in_example = False
    for line in text.splitlines():
        stripped = line.strip()
        if not in_example and stripped.startswith(">>>"):
            out.append("```pycon")
            in_example = True
        elif in_example and not stripped:
            out.append("```")
            in_example = False
        if in_example:
            out.append(stripped)
            continue
        line = ROLE.sub(lambda m: f"`{m.group(1).rsplit('.', 1)[-1]}`", line)
        # A literal block introduced by "::" is shown as code too.
        out.append(line.replace("``", "`"))
    if in_example:
        out.append("```")
    return "\n".join(out)


class RstToMarkdown(Extension):
    """Rewrite every docstring of the loaded objects (see the module docstring)."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_of(obj.docstring.value)
