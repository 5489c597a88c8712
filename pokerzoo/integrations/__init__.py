"""Adapters that make pokerzoo's engine a drop-in for other libraries' poker environments.

``pettingzoo_classic``: PettingZoo-classic compatible envs (``leduc_holdem_v4``,
``texas_holdem_v4``, ``texas_holdem_no_limit_v6``) with the same agent names, observations,
action ids, masks, rewards and arguments as PettingZoo's RLCard-based envs, registered as
``pokerzoo/classic_leduc_holdem-v4``, ``pokerzoo/classic_texas_holdem-v4`` and
``pokerzoo/classic_texas_holdem_no_limit-v6``.

``rllib`` and ``rllib_selfplay``: the envs on RLlib's current API stack (``MultiAgentEnv``,
an action-masking PPO module reading the observation dict as it is) and PPO self-play against
frozen snapshots measured in mbb/hand (``pip install "pokerzoo[rllib]"``; ray is imported
only when they are used).
"""
