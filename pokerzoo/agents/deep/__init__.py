"""Neural full-game solvers: Deep CFR and Deep GXFP, on a compiled tree (``DeepCFR``,
``DeepGXFP``) or on sampled traversals of states (``StateDeepCFR``, ``StateDeepGXFP``), and
their card/betting network. ``make_agent("deep-cfr", game)`` picks the version by the game's
size. The names below are imported on first use (torch is not imported before).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "DeepCFR": "deep_cfr",
    "DeepCFRConfig": "deep_cfr_base",
    "StateDeepCFR": "state_deep_cfr",
    "DeepGXFP": "deep_gxfp",
    "DeepGXFPConfig": "deep_gxfp_base",
    "StateDeepGXFP": "state_gxfp",
    "NetworkStatePolicy": "state_policy",
    "DeepPolicy": "base",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
