"""The CFR family: full-width CFR, CFR+, linear and discounted CFR, and Monte Carlo CFR.

``full_width`` sweeps the compiled tree every iteration (``kernels``); ``mccfr`` samples
outcome or external traversals (``mccfr_kernels``).
"""

from pokerzoo.agents.cfr.full_width import CFR, CFR_PRESETS, CFRConfig, CFRPlus, CFRSolver
from pokerzoo.agents.cfr.mccfr import MCCFRConfig, MCCFRSolver

__all__ = [
    "CFR",
    "CFR_PRESETS",
    "CFRConfig",
    "CFRPlus",
    "CFRSolver",
    "MCCFRConfig",
    "MCCFRSolver",
]
