"""The public-state engine: public trees with per-hand arrays and range-vs-range solvers.

``tree`` (the data model and its builder), ``small_games`` (Kuhn and Leduc from their rules,
``solve_game``), ``solver`` (CFR+, DCFR, postflop preset over the compiled ``sweep_kernel``),
``results`` (node results, save / load). The solving entry points are imported on first use,
so ``import pokerzoo.public`` does not compile anything.
"""

from __future__ import annotations

import importlib
from typing import Any

from pokerzoo.public.tree import (
    CHANCE,
    DECISION,
    FOLD,
    SHOWDOWN,
    PublicTree,
    TerminalValues,
)
from pokerzoo.public.tree_builder import PublicTreeBuilder

_LAZY = {
    "PublicSolver": "pokerzoo.public.solver",
    "SolverConfig": "pokerzoo.public.solver",
    "estimate_memory": "pokerzoo.public.solver",
    "strategy_best_responses": "pokerzoo.public.solver",
    "PASS_KINDS": "pokerzoo.public.solver",
    "PassResult": "pokerzoo.public.solver",
    "NodeRecord": "pokerzoo.public.solver",
    "FrontierReaches": "pokerzoo.public.solver",
    "public_game_tree": "pokerzoo.public.small_games",
    "solve_game": "pokerzoo.public.small_games",
    "node_result": "pokerzoo.public.results",
    "save_solver": "pokerzoo.public.results",
    "load_solver": "pokerzoo.public.results",
    "HoldemSpot": "pokerzoo.public.holdem_spot",
    "SpotSolution": "pokerzoo.public.holdem_spot",
    "solve_spot": "pokerzoo.public.holdem_spot",
    "Subgame": "pokerzoo.public.subgame",
    "public_subgame": "pokerzoo.public.subgame",
    "public_line": "pokerzoo.public.subgame",
    "tree_subgame": "pokerzoo.public.subgame",
    "LeafValues": "pokerzoo.public.depth_limit",
    "DepthLimitedSolver": "pokerzoo.public.depth_limit",
    "OracleLeaves": "pokerzoo.public.leaf_values",
    "MultiValuedLeaves": "pokerzoo.public.multi_valued",
    "resolve": "pokerzoo.public.resolve",
    "ResolveConfig": "pokerzoo.public.resolve",
    "Resolution": "pokerzoo.public.resolve",
    "node_beliefs": "pokerzoo.public.resolve",
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
