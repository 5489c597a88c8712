"""Shared command-line helpers of ``train.py`` and ``evaluate.py``."""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Callable, Sequence
from typing import Any

from pokerzoo.errors import ConfigError, PokerzooError


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


def add_debug_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--debug`` (show the traceback of an error instead of one line) to ``parser``."""
    parser.add_argument(
        "--debug", action="store_true", help="show the full traceback of an error"
    )


def run_cli(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None) -> int:
    """Run ``main`` and turn the errors that describe bad input (``PokerzooError``s: unknown
    names, bad parameters, refused checkpoints, ...; missing files) into one readable line and
    exit code 2. Any other exception is a bug and propagates with its traceback, as do the
    input errors when the command line has ``--debug``."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        return main(argv)
    except (PokerzooError, FileNotFoundError) as exc:
        if "--debug" in args:
            raise
        print(f"error: {exc} (run with --debug for the traceback)", file=sys.stderr)
        return 2
