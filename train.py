#!/usr/bin/env python
"""The ``pokerzoo-train`` command (``python -m pokerzoo train``), run from a checkout.

Its flags, examples and code are in ``pokerzoo/runs/commands/train.py``;
``python train.py --help`` prints them."""

from __future__ import annotations

import sys

from pokerzoo.runs.cli import run_cli
from pokerzoo.runs.commands.train import default_out, main, parser

__all__ = ["default_out", "main", "parser"]

if __name__ == "__main__":
    sys.exit(run_cli(main, None))
