"""Deep GXFP on state traversals, for games without a compiled tree (hold'em).

``DeepGXFP`` walks the compiled tree in ``sample_utilities``, its one traversal seam. Here
that seam runs ``state_traversal.external_sampling_states`` instead (for hold'em
``array_traversal.external_sampling_arrays``, the same samples from array rows, unless the
config's ``traversal_backend`` says ``"states"``): batches of states, every
seat's actions sampled from the strategy network (the paper's note in its Sec. 2.3.4; uniform
before the first training, GXFP's b_0), one batched network call per seat and frontier round.
The sampled action utilities ``q`` at the traverser's decisions, in the tensor's chip unit
(``state_traversal.value_scale``), are the utility network's targets. Everything else
(utility and strategy networks, best decisions, memories, checkpoints) is ``DeepGXFP``'s.
``policy()`` is the strategy network as a ``NetworkStatePolicy`` (a copy, so later training
does not change it).

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

from pokerzoo.agents.deep.array_traversal import traversal_function
from pokerzoo.agents.deep.deep_cfr import configured
from pokerzoo.agents.deep.deep_gxfp import DeepGXFP, DeepGXFPConfig, UtilitySamples
from pokerzoo.agents.deep.state_policy import NetworkStatePolicy, env_turn_probabilities
from pokerzoo.agents.deep.state_traversal import start_state_run, value_scale
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.parallel import Executor


class StateDeepGXFP(DeepGXFP):
    """Deep GXFP whose traversals run on batches of game states (any game; meant for those
    whose tree does not fit).

    Args:
        game, config, seed, overrides: as ``DeepGXFP``.
        workers: must be 1 (state traversals run in this process).
        frontier: traversals advanced together.
    """

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
        start_state_run(self, game, seed, workers, executor, frontier)
        size, A = self._layout.size, self.num_actions
        # No information-set table: DeepGXFP's per-table steps run on these empty arrays.
        self._x = np.zeros((0, size), dtype=np.float32)
        self._mask = np.zeros((0, A), dtype=bool)
        self._sigma = np.zeros((0, A))
        self._player_isets = [np.zeros(0, dtype=np.int64)] * self.num_players
        self._init_learning()
        self._nodes = np.zeros(1, dtype=np.int64)

    @property
    def nodes_touched(self) -> int:
        """Decision and terminal states visited by this agent's traversals (not checkpointed)."""
        return int(self._nodes[0])

    def _traversal_probs(self, seat: int, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if len(self.strategy_memory) == 0:  # b_0: uniform until the first best decisions
            return mask / mask.sum(axis=1, keepdims=True)
        return self.strategy_probs(x, mask)

    def sample_utilities(self, player: int, traversals: int) -> UtilitySamples:
        """``traversals`` state traversals of ``player``: tensors, masks, sampled utilities."""
        traverse = traversal_function(self.game, self.config.traversal_backend)
        s = traverse(self.game, self._traversal_probs, player, traversals, self.rng,
                     frontier=self.frontier)
        self._nodes[0] += s.nodes
        return s.tensors, s.masks, (s.values * value_scale(self.game)).astype(np.float32)

    def policy(self) -> NetworkStatePolicy:  # type: ignore[override]
        """GXFP's strategy b: a copy of the strategy network as a state policy (uniform
        before any update)."""
        if len(self.strategy_memory) == 0:
            return NetworkStatePolicy(self.game, [None] * self.num_players)
        net = copy.deepcopy(self.strategy_net).eval()
        return NetworkStatePolicy(self.game, [net] * self.num_players, device=self.device)

    def current_policy(self) -> NetworkStatePolicy:  # type: ignore[override]
        """Not available without a tree: the latest best decisions are an argmax over utility
        networks, which ``NetworkStatePolicy`` does not play."""
        raise ConfigError(
            "current_policy() needs a compiled tree; without one use policy() (the strategy "
            "network) or utility_nets directly")

    def act_probabilities(self, observation: Any, info: Any = None) -> np.ndarray:
        """The strategy network at an env turn (one network serves every seat)."""
        return env_turn_probabilities(self.policy(), observation)
