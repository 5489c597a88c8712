"""PettingZoo-classic compatible poker envs on pokerzoo's engine.

``leduc_holdem_v4``, ``texas_holdem_v4`` and ``texas_holdem_no_limit_v6`` here have the same
face as the modules of ``pettingzoo.classic`` (RLCard's games): the same agent names,
observations, action ids, masks, rewards and arguments, so code and policies written for
PettingZoo's envs run unchanged. Each module's docstring lists what is the same and every
difference. Registered as ``pokerzoo.make("classic_leduc_holdem_v4")``,
``"classic_texas_holdem_v4"`` and ``"classic_texas_holdem_no_limit_v6"``, and in PettingZoo's
registry as ``pettingzoo.make("aec", "pokerzoo/classic_texas_holdem_no_limit-v6")`` and so on.

>>> from pokerzoo.integrations.pettingzoo_classic import texas_holdem_no_limit_v6
>>> env = texas_holdem_no_limit_v6.env()
>>> env.reset(seed=0)
>>> env.observe(env.agent_selection)["observation"].shape
(54,)
"""

from pokerzoo.integrations.pettingzoo_classic import (
    leduc_holdem_v4,
    texas_holdem_no_limit_v6,
    texas_holdem_v4,
)

__all__ = ["leduc_holdem_v4", "texas_holdem_no_limit_v6", "texas_holdem_v4"]
