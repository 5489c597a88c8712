"""The four commands, in the package so that an installed pokerzoo has them without a checkout:
``pokerzoo-train``, ``pokerzoo-evaluate``, ``pokerzoo-play`` and ``pokerzoo-solve`` (the
console scripts of ``pyproject.toml``), ``python -m pokerzoo train|evaluate|play|solve``, and
the root scripts ``train.py``, ``evaluate.py``, ``play.py`` and ``solve.py``, which call the
same ``main`` through the same ``run_cli``: the same flags, output, one-line errors and exit
codes whichever way a command is started.

A command's module is imported only when it runs (``COMMANDS`` names it as a string), so
``python -m pokerzoo solve`` never imports the training run nor torch.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from pokerzoo.entry_points import load
from pokerzoo.runs.cli import run_cli

COMMANDS: dict[str, str] = {
    "train": "pokerzoo.runs.commands.train:main",
    "evaluate": "pokerzoo.runs.commands.evaluate:main",
    "play": "pokerzoo.runs.commands.play:main",
    "solve": "pokerzoo.runs.solve:main",
}
"""Each command and its ``main(argv) -> exit code``, as ``"module:function"``."""

USAGE = (f"usage: python -m pokerzoo {{{','.join(COMMANDS)}}} [ARGS ...] "
         "(COMMAND --help for its flags)")


def _run(command: str) -> int:
    return run_cli(load(COMMANDS[command]), None)


def train() -> int:
    """``pokerzoo-train``: ``train.py``."""
    return _run("train")


def evaluate() -> int:
    """``pokerzoo-evaluate``: ``evaluate.py``."""
    return _run("evaluate")


def play() -> int:
    """``pokerzoo-play``: ``play.py``."""
    return _run("play")


def solve() -> int:
    """``pokerzoo-solve``: ``solve.py``."""
    return _run("solve")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m pokerzoo COMMAND ARGS``: the command with ``ARGS`` (its usage names it
    ``python -m pokerzoo COMMAND``). No command, or one not in ``COMMANDS``, is one line on
    stderr and exit code 2; ``-h``/``--help`` prints that line on stdout, ``--version`` the
    version."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    if args and args[0] == "--version":
        from pokerzoo.version import __version__

        print(f"pokerzoo {__version__}")
        return 0
    if not args or args[0] not in COMMANDS:
        said = f"unknown command {args[0]!r}" if args else "no command given"
        print(f"error: {said}; {USAGE.removeprefix('usage: ')}", file=sys.stderr)
        return 2
    command, rest = args[0], args[1:]
    # argparse names the program after sys.argv[0]; run_cli reads --debug from sys.argv.
    sys.argv = [f"python -m pokerzoo {command}", *rest]
    return _run(command)
