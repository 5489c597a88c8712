"""Neural fictitious self-play: NFSP, NFSP with prioritized replay (PER) and learning times (PLT).

``agent`` is the agent, ``config`` its hyperparameters, ``learner`` one player's networks and
buffers, ``selfplay`` the batched hands, ``uct_best_response`` the adaptive-UCT best response.
"""

from pokerzoo.agents.nfsp.agent import NFSP, NetworkPolicy
from pokerzoo.agents.nfsp.config import PRESETS, NFSPConfig

__all__ = ["NFSP", "PRESETS", "NFSPConfig", "NetworkPolicy"]
