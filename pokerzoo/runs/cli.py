"""Shared command-line helpers of ``train.py`` and ``evaluate.py``."""

from __future__ import annotations

import argparse
import ast
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from pokerzoo.errors import ConfigError, PokerzooError
from pokerzoo.parallel import check_workers


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


def count_arg(flag: str, low: int) -> Callable[[str], int]:
    """An argparse ``type`` for an integer flag of at least ``low``: anything else is
    argparse's one-line usage error naming the flag and what is allowed.

    >>> count_arg("--hands", 1)("40")
    40
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} takes a whole number, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{flag} must be at least {low}, got {value}")
        return value

    parse.__name__ = f"{flag} value"  # what argparse names in its message
    return parse


def add_debug_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--debug`` (show the traceback of an error instead of one line) to ``parser``."""
    parser.add_argument(
        "--debug", action="store_true", help="show the full traceback of an error"
    )


def add_worker_flags(parser: argparse.ArgumentParser) -> None:
    """Add ``--workers`` and ``--ray-address`` (``pokerzoo.distributed``) to ``parser``."""
    parser.add_argument(
        "--workers", type=int, default=None,
        help="worker processes (default 1: everything in this process, no Ray); more needs "
             'Ray: pip install "pokerzoo[ray]". Results are the same to the chip for any '
             "number of workers (evaluation) or reproducible for a fixed number (learning)",
    )
    parser.add_argument(
        "--ray-address", default=None, metavar="ADDR",
        help="join a running Ray cluster ('auto', host:6379 or ray://host:10001; see the "
             "README's cluster recipe); default workers: the cluster's CPUs",
    )


def executor_from_flags(workers: int | None, address: str | None) -> Any:
    """The ``pokerzoo.parallel.Executor`` that ``--workers``/``--ray-address`` ask for, or
    ``None`` for one worker in this process (Ray is then never imported)."""
    if workers is not None:
        check_workers(workers, "--workers")
    if address is None and workers in (None, 1):
        return None
    from pokerzoo.distributed import executor_for

    return executor_for(workers, address)


def run_cli(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None) -> int:
    """Run ``main`` and turn the errors that describe bad input (``PokerzooError``s: unknown
    names, bad parameters, refused checkpoints, ...; missing files) into one readable line and
    exit code 2; Ctrl-C into one line and exit code 130. Any other exception is a bug and
    propagates with its traceback, as do these when the command line has ``--debug``."""
    args = sys.argv[1:] if argv is None else list(argv)
    if "--debug" not in args:
        # A warning is a note to the user, not a message to a programmer: one line, without
        # the category and the source line Python's default format adds.
        warnings.formatwarning = _one_line_warning
    try:
        return main(argv)
    except (PokerzooError, FileNotFoundError) as exc:
        if "--debug" in args:
            raise
        print(f"error: {exc} (run with --debug for the traceback)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Ctrl-C outside a training loop (imports, building, writing): one line, no traceback.
        if "--debug" in args:
            raise
        print("stopped by Ctrl-C", file=sys.stderr)
        return 130


def _one_line_warning(message: Warning | str, category: type[Warning], filename: str,
                      lineno: int, line: str | None = None) -> str:
    return f"note: {message}\n"
