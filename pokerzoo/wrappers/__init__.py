"""Wrappers over pokerzoo's AEC envs (public API only)."""

from pokerzoo.wrappers.transitions import Transition, TransitionRecorder

__all__ = ["Transition", "TransitionRecorder"]
