"""Deep GXFP on state traversals, for games without a compiled tree (hold'em);
``make_agent("deep-gxfp", game)`` builds it for such games.

``DeepGXFP`` walks the compiled tree in ``sample_utilities``, its one traversal seam. Here
that seam runs the traversal chosen when the agent is built by the config's
``traversal_backend`` (``array_traversal.sampled_traversal``: for hold'em
``external_sampling_arrays``, the same samples as ``external_sampling_states`` from array
rows, unless it says ``"states"``): batches of states, every seat's actions sampled from the
strategy network (the paper's note in its Sec. 2.3.4; uniform before the first training,
GXFP's b_0), one batched network call per seat and frontier round. The sampled action
utilities ``q`` at the traverser's decisions, in the tensor's chip unit
(``state_traversal.value_scale``), are the utility network's targets. Everything else
(utility and strategy networks, best decisions, memories, checkpoints) is
``deep_gxfp_base.DeepGXFPBase``'s. ``policy()`` is the strategy network as a
``NetworkStatePolicy`` (a copy, so later training does not change it).

>>> from pokerzoo import load_game
>>> agent = StateDeepGXFP(load_game("kuhn_poker"), seed=0, traversals=20, utility_steps=2,
...                       strategy_steps=2, device="cpu")
>>> agent.iterate(1)
>>> agent.iteration, agent.nodes_touched > 0
(1, True)
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from pokerzoo.agents.deep.array_traversal import sampled_traversal
from pokerzoo.agents.deep.base import configured
from pokerzoo.agents.deep.deep_gxfp_base import DeepGXFPBase, DeepGXFPConfig, UtilitySamples
from pokerzoo.agents.deep.state_policy import NetworkStatePolicy, env_turn_probabilities
from pokerzoo.agents.deep.state_traversal import SampledTraversal, value_scale
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.parallel import Executor


class StateDeepGXFP(DeepGXFPBase):
    """Deep GXFP whose traversals run on batches of game states or array rows (any game;
    meant for those whose tree does not fit).

    Args:
        game, config, seed, overrides: as ``DeepGXFP``.
        workers: must be 1 (state traversals run in this process).
        frontier: traversals advanced together.
    """

    traversal: SampledTraversal

    def __init__(
        self,
        game: Game,
        config: DeepGXFPConfig | None = None,
        seed: int = 0,
        *,
        workers: int = 1,
        executor: Executor | None = None,
        frontier: int = 256,
        **overrides: Any,
    ) -> None:
        self.config = configured(config, DeepGXFPConfig, overrides)
        self._start_states(game, seed, workers, executor, frontier, sampled_traversal)
        self._sigma = np.zeros((0, self.num_actions))  # no table: traversals ask the network
        self._init_learning()

    def _traversal_probs(self, seat: int, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if len(self.strategy_memory) == 0:  # b_0: uniform until the first best decisions
            return mask / mask.sum(axis=1, keepdims=True)
        return self.strategy_probs(x, mask)

    def sample_utilities(self, player: int, traversals: int) -> UtilitySamples:
        """``traversals`` state traversals of ``player``: tensors, masks, sampled utilities."""
        s = self.traversal(self._traversal_probs, player, traversals, self.rng)
        return s.tensors, s.masks, (s.values * value_scale(self.game)).astype(np.float32)

    def _refresh_table(self, p: int) -> None:
        """Nothing to tabulate: traversals ask the strategy network."""

    def policy(self) -> NetworkStatePolicy:
        """GXFP's strategy b: a copy of the strategy network as a state policy (uniform
        before any update)."""
        if len(self.strategy_memory) == 0:
            return NetworkStatePolicy(self.game, [None] * self.num_players)
        net = copy.deepcopy(self.strategy_net).eval()
        return NetworkStatePolicy(self.game, [net] * self.num_players, device=self.device)

    def current_policy(self) -> NetworkStatePolicy:
        """Not available without a tree: the latest best decisions are an argmax over utility
        networks, which ``NetworkStatePolicy`` does not play.

        Raises:
            ConfigError: always, naming what to use instead.
        """
        raise ConfigError(
            "current_policy() needs a compiled tree; without one use policy() (the strategy "
            "network) or utility_nets directly")

    def act_probabilities(self, observation: Any, info: Any = None) -> np.ndarray:
        """The strategy network at an env turn (one network serves every seat)."""
        return env_turn_probabilities(self.policy(), observation)
