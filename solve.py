#!/usr/bin/env python
"""Solve a game on the public-state engine (range-vs-range CFR).

Examples:
    python solve.py --game kuhn_poker --json kuhn.json
    python solve.py --game leduc_holdem --exploitability 0.01 --json leduc.json
    python solve.py --game leduc_holdem --game-param num_ranks=5 --algorithm dcfr
    python solve.py --example > spot.toml        # a commented spot file (docs/spot_format.md)
    python solve.py spot.toml --chart charts --line "check, bet 50"   # root.png, check_bet_50.png
    python solve.py spot.toml --backend torch --device cuda   # batched passes on a GPU
    python solve.py configs/preflop_100bb.toml --target-bb 0.01 --chart charts --json pre.json
    python solve.py --pushfold --stacks 1:20:0.05 --json thresholds.json --chart pf.png
"""

from __future__ import annotations

import sys

from pokerzoo.runs.cli import run_cli
from pokerzoo.runs.solve import main

if __name__ == "__main__":
    sys.exit(run_cli(main, None))
