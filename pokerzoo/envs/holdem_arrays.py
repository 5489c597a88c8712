"""Moved to ``pokerzoo.games.holdem.arrays`` (hold'em's batched rules live beside its object
rules); this module keeps the old import path working."""

from pokerzoo.games.holdem.arrays import NBOARD, HoldemArrays, hand_value, hand_values

__all__ = ["NBOARD", "HoldemArrays", "hand_value", "hand_values"]
