"""Games compiled into flat arrays (``build``) and policies as tables (``TabularPolicy``)."""

from pokerzoo.tree.game_tree import GameTree, build
from pokerzoo.tree.tabular_policy import TabularPolicy, normalise_rows

__all__ = ["GameTree", "TabularPolicy", "build", "normalise_rows"]
