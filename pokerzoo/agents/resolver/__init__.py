"""Continual re-solving agents with depth-limited leaf values.

``agent`` (the ``resolver`` of the agent table: DeepStack's loop on Kuhn and the Leduc family),
``config`` (its ``ResolverConfig``), ``process`` (the loop as a function of seat and public
state, memoised, so play and tabularisation perform the same re-solves), ``solves`` (one
re-solve and what the agent keeps of it), ``tabular`` (the whole agent as a ``TabularPolicy``),
``leaves`` (oracle leaf values); the value network over public belief states and its data:
``value_net``, ``value_training``, ``pbs``, ``pbs_kernel``, ``pbs_data``. Heads-up no-limit
hold'em: ``holdem_agent`` (the agent there: a blueprint re-solved on the turn and river),
``holdem`` (the re-solving policy), ``holdem_ranges`` (the blueprint's ranges along a line),
``holdem_tree`` (a street as a range-solver spot, actions matched by chips).
"""
