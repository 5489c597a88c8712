"""The public-state engine: public trees with per-hand arrays and range-vs-range solvers."""

from pokerzoo.public.tree import (
    CHANCE,
    DECISION,
    FOLD,
    SHOWDOWN,
    PublicTree,
    PublicTreeBuilder,
    TerminalValues,
)

__all__ = [
    "CHANCE", "DECISION", "FOLD", "SHOWDOWN", "PublicTree", "PublicTreeBuilder", "TerminalValues",
]
