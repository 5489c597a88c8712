"""Games compiled into flat arrays (``build``), their sequence form, and policies as tables."""

from pokerzoo.tree.game_tree import GameTree, build
from pokerzoo.tree.sequence_form import SequenceForm, sequence_form
from pokerzoo.tree.tabular_policy import TabularPolicy, normalise_rows

__all__ = [
    "GameTree",
    "SequenceForm",
    "TabularPolicy",
    "build",
    "normalise_rows",
    "sequence_form",
]
