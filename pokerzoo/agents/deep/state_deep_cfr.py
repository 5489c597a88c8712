"""Deep CFR on traversals of game states or hold'em array rows, for games whose tree does not
fit (hold'em); ``make_agent("deep-cfr", game)`` builds it for such games.

The traversal is chosen once, when the agent is built, by the config's ``traversal_backend``
(``array_traversal.sampled_traversal``: array rows for hold'em, else states). The memories
hold information-state tensors and legal masks instead of information-set ids, and
``policy()`` is a ``NetworkStatePolicy`` that LBR and head-to-head matches play (and that
``evaluation.tabularize`` scores exactly where a tree fits: Kuhn and Leduc test it so).

>>> from pokerzoo import load_game
>>> agent = StateDeepCFR(load_game("kuhn_poker"), seed=0, traversals=4, advantage_steps=2,
...                      policy_steps=2, device="cpu")
>>> agent.iterate(1)
>>> agent.iteration, agent.nodes_touched > 0
(1, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from pokerzoo.agents.deep.array_traversal import sampled_traversal
from pokerzoo.agents.deep.base import configured
from pokerzoo.agents.deep.deep_cfr_base import Batch, DeepCFRBase, DeepCFRConfig
from pokerzoo.agents.deep.state_policy import NetworkStatePolicy, env_turn_probabilities
from pokerzoo.agents.deep.state_traversal import SampledTraversal, value_scale
from pokerzoo.components.replay import ReservoirBuffer
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.parallel import Executor


class StateDeepCFR(DeepCFRBase):
    """Deep CFR whose traversals run on batches of game states or array rows (any game; meant
    for those whose tree does not fit). Kuhn and Leduc test it against the tree version.

    The memories hold information-state tensors and legal masks with the regrets (in the
    tensor's chip unit, ``value_scale``) or strategies, and the iteration; strategies during
    traversals come from the advantage networks (regret matching, argmax when none is
    positive), one batched call per seat and frontier round.

    Args:
        game, config, seed, overrides: as ``DeepCFR``.
        workers: must be 1 (state traversals run in this process).
        frontier: traversals advanced together.
    """

    traversal: SampledTraversal

    def __init__(
        self,
        game: Game,
        config: DeepCFRConfig | None = None,
        seed: int = 0,
        *,
        workers: int = 1,
        executor: Executor | None = None,
        frontier: int = 256,
        **overrides: Any,
    ) -> None:
        self.config = configured(config, DeepCFRConfig, overrides)
        self._start_states(game, seed, workers, executor, frontier, sampled_traversal)
        size, A = self._layout.size, self.num_actions
        self._start_learning({
            "x": ((size,), np.float32),
            "mask": ((A,), np.bool_),
            "value": ((A,), np.float32),
            "t": ((), np.float32),
        })
        self._sigma = np.zeros((0, A))  # no table: strategies come from the networks

    def traversal_strategy(self) -> NetworkStatePolicy:
        """The current strategy (regret matching on the advantage networks)."""
        return NetworkStatePolicy(self.game, self.advantage_nets, regret=True, device=self.device)

    def _traverse(self, p: int, t: int) -> None:
        samples = self.traversal(self.traversal_strategy().probabilities, p,
                                 self.config.traversals, self.rng)
        for memory, x, mask, value in (
            (self.advantage_memories[p], samples.tensors, samples.masks,
             samples.regrets * value_scale(self.game)),
            (self.strategy_memory, samples.strategy_tensors, samples.strategy_masks,
             samples.strategy_sigma),
        ):
            if len(x):
                memory.add_batch({"x": x, "mask": mask, "value": value.astype(np.float32),
                                  "t": np.full(len(x), t, dtype=np.float32)})

    def _batch(self, batch: Any) -> Batch:
        """Memory rows as they are: tensors, masks, iterations and targets."""
        x = torch.as_tensor(batch.x, device=self.device)
        mask = torch.as_tensor(batch.mask, device=self.device)
        target = torch.as_tensor(batch.value, device=self.device)
        return x, mask, torch.as_tensor(batch.t, device=self.device), target

    def _whole_memory(self, memory: ReservoirBuffer) -> Batch:
        """Refused: folding needs the tree's information sets."""
        raise ConfigError(
            "batch_mode 'full_memory' needs a game whose tree fits (its samples name tree "
            f"information sets); {self.game.name} is traversed by states: use batch_mode "
            "'sample'"
        )

    def _refresh_sigma(self, p: int) -> None:
        """Nothing to tabulate: traversals ask the networks."""

    def current_policy(self) -> NetworkStatePolicy:
        """Regret matching on the advantage networks (the next iteration's strategy)."""
        return self.traversal_strategy()

    def policy(self) -> NetworkStatePolicy:
        """The average strategy: the strategy network trained on the strategy memory (uniform
        before any iteration), as a state policy; cached per iteration, and computing it does
        not change the run (``_average_net``)."""
        if self._policy_cache is not None and self._policy_cache[0] == self._iteration:
            return self._policy_cache[1]
        net = self._average_net()
        result = NetworkStatePolicy(self.game, [net] * self.num_players, device=self.device)
        self._policy_cache = (self._iteration, result)
        return result

    def act_probabilities(self, observation: Any, info: Any = None) -> np.ndarray:
        """The average strategy at an env turn (one strategy network serves every seat)."""
        return env_turn_probabilities(self.policy(), observation)
