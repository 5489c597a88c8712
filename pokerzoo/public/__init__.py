"""The public-state engine and what is built on it, in three parts by job:

* ``pokerzoo.public.engine``: public trees, the range solver and its pass API, the compiled
  sweep and its backends, hold'em terminals, Kuhn and Leduc as public trees, results;
* ``pokerzoo.public.spots``: hold'em spots, ranges, bet sizes, spot files, locks, charts;
* ``pokerzoo.public.subgames``: subgames, depth-limited solving, leaf values, re-solving.

The public names of all three are importable from ``pokerzoo.public`` itself; the solving
entry points are imported on first use, so ``import pokerzoo.public`` compiles nothing.
"""

from __future__ import annotations

import importlib
from typing import Any

from pokerzoo.public.engine.tree import (
    CHANCE,
    DECISION,
    FOLD,
    SHOWDOWN,
    PublicTree,
    TerminalValues,
)
from pokerzoo.public.engine.tree_builder import PublicTreeBuilder

_LAZY = {
    "PublicSolver": "pokerzoo.public.engine.solver",
    "BACKENDS": "pokerzoo.public.engine.backend",
    "BackendSupport": "pokerzoo.public.engine.backend",
    "SolverBackend": "pokerzoo.public.engine.backend",
    "SolverConfig": "pokerzoo.public.engine.solver",
    "estimate_memory": "pokerzoo.public.engine.solver",
    "strategy_best_responses": "pokerzoo.public.engine.solver",
    "PASS_KINDS": "pokerzoo.public.engine.solver",
    "PassResult": "pokerzoo.public.engine.solver",
    "NodeRecord": "pokerzoo.public.engine.solver",
    "FrontierReaches": "pokerzoo.public.engine.solver",
    "public_game_tree": "pokerzoo.public.engine.small_games",
    "solve_game": "pokerzoo.public.engine.small_games",
    "node_result": "pokerzoo.public.engine.results",
    "save_solver": "pokerzoo.public.engine.results",
    "load_solver": "pokerzoo.public.engine.results",
    "HoldemSpot": "pokerzoo.public.spots.holdem_spot",
    "SpotSolution": "pokerzoo.public.spots.holdem_spot",
    "solve_spot": "pokerzoo.public.spots.holdem_spot",
    "Subgame": "pokerzoo.public.subgames.subgame",
    "public_subgame": "pokerzoo.public.subgames.subgame",
    "public_line": "pokerzoo.public.subgames.subgame",
    "tree_subgame": "pokerzoo.public.subgames.subgame",
    "LeafValues": "pokerzoo.public.subgames.depth_limit",
    "DepthLimitedSolver": "pokerzoo.public.subgames.depth_limit",
    "OracleLeaves": "pokerzoo.public.subgames.leaf_values",
    "MultiValuedLeaves": "pokerzoo.public.subgames.multi_valued",
    "resolve": "pokerzoo.public.subgames.resolve",
    "ResolveConfig": "pokerzoo.public.subgames.resolve",
    "Resolution": "pokerzoo.public.subgames.resolve",
    "node_beliefs": "pokerzoo.public.subgames.resolve",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pokerzoo.public' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "CHANCE", "DECISION", "FOLD", "SHOWDOWN", "PublicTree", "PublicTreeBuilder", "TerminalValues",
    *_LAZY,
]  # fmt: skip
