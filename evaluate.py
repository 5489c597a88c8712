#!/usr/bin/env python
"""The ``pokerzoo-evaluate`` command (``python -m pokerzoo evaluate``), run from a checkout.

Its flags, examples and code are in ``pokerzoo/runs/commands/evaluate.py``;
``python evaluate.py --help`` prints them."""

from __future__ import annotations

import sys

from pokerzoo.runs.cli import run_cli
from pokerzoo.runs.commands.evaluate import main, parser

__all__ = ["main", "parser"]

if __name__ == "__main__":
    sys.exit(run_cli(main, None))
