"""Register pokerzoo's envs with PettingZoo's and Gymnasium's registries.

``register_all()`` (called when ``pokerzoo`` is imported) adds:

* AEC envs to PettingZoo's registry when it exists (``pettingzoo.register``, PettingZoo
  1.27+): ``pettingzoo.make("aec", "pokerzoo/leduc_holdem-v0")``;
* single-agent envs to Gymnasium's: ``gymnasium.make("pokerzoo/LeducHoldem-v0",
  opponent=..., seat=...)``, also reachable as ``"pokerzoo:pokerzoo/LeducHoldem-v0"``.

Entry points are strings, so registering imports neither the env modules nor the games.
"""

from __future__ import annotations

import gymnasium

GYM_IDS = {
    "pokerzoo/KuhnPoker-v0": "kuhn_poker_v0",
    "pokerzoo/LeducHoldem-v0": "leduc_holdem_v0",
    "pokerzoo/LimitHoldem-v0": "limit_holdem_v0",
    "pokerzoo/NoLimitHoldem-v0": "no_limit_holdem_v0",
}
"""Gymnasium id -> named AEC env played by ``SingleAgentEnv``."""

AEC_IDS = {
    "pokerzoo/kuhn_poker-v0": "pokerzoo.envs.kuhn_poker_v0:env",
    "pokerzoo/leduc_holdem-v0": "pokerzoo.envs.leduc_holdem_v0:env",
    "pokerzoo/limit_holdem-v0": "pokerzoo.envs.limit_holdem_v0:env",
    "pokerzoo/no_limit_holdem-v0": "pokerzoo.envs.no_limit_holdem_v0:env",
    "pokerzoo/unknown_kuhn_poker-v0": "pokerzoo.envs.unknown_kuhn_poker_v0:env",
    "pokerzoo/unknown_leduc_holdem-v0": "pokerzoo.envs.unknown_leduc_holdem_v0:env",
}
"""PettingZoo id -> entry point of the AEC env."""

_done = False


def register_all() -> None:
    """Register every id above (idempotent; a no-op for PettingZoo releases without a
    registry)."""
    global _done
    if _done:
        return
    _done = True
    for gym_id, name in GYM_IDS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                id=gym_id,
                entry_point="pokerzoo.wrappers.single_agent:make_single_agent_env",
                kwargs={"env": name},
            )
    for pz_id, entry_point in AEC_IDS.items():
        register_aec(pz_id, entry_point)


def register_aec(pz_id: str, entry_point: str) -> None:
    """Add one more AEC env to PettingZoo's registry (for envs defined outside this module,
    e.g. the unknown-environment games); a no-op without ``pettingzoo.register``."""
    try:
        from pettingzoo import aec_registry
        from pettingzoo import register as pz_register
    except ImportError:
        return
    if pz_id not in aec_registry:
        pz_register("aec", pz_id, entry_point)
