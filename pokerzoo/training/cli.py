"""Shared command-line helpers of ``train.py`` and ``evaluate.py``."""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Sequence
from typing import Any

from pokerzoo.games.base import ConfigError


def parse_assignments(items: Sequence[str] | None, flag: str) -> dict[str, Any]:
    """``["num_ranks=5", "raise_sizes=(2,4)"]`` -> ``{"num_ranks": 5, "raise_sizes": (2, 4)}``.

    Values are Python literals where they parse as one, strings otherwise.
    """
    params: dict[str, Any] = {}
    for item in items or ():
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"{flag} expects key=value, got {item!r}")
        try:
            params[key.strip()] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            params[key.strip()] = raw
    return params


def run_cli(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None) -> int:
    """Run ``main`` and turn the errors users cause into one readable line and exit code 2."""
    try:
        return main(argv)
    except (ConfigError, FileNotFoundError, ValueError, KeyError, TypeError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {message}", file=sys.stderr)
        return 2
