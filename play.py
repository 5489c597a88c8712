#!/usr/bin/env python
"""The ``pokerzoo-play`` command (``python -m pokerzoo play``), run from a checkout.

Its flags, examples and code are in ``pokerzoo/runs/commands/play.py``;
``python play.py --help`` prints them."""

from __future__ import annotations

import sys

from pokerzoo.runs.cli import run_cli
from pokerzoo.runs.commands.play import main, parser

__all__ = ["main", "parser"]

if __name__ == "__main__":
    sys.exit(run_cli(main, None))
