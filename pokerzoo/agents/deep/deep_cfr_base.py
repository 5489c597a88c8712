"""Deep CFR's config, presets and learning, shared by its tree and state versions.

``DeepCFRBase`` is the algorithm (Brown, Lerer, Gross, Sandholm 2019) with the traversals and
the memories' rows left to its versions: per iteration t and per player p, ``_traverse`` adds
p's sampled regrets (with t) to p's reservoir memory and the next player's sampled strategies
(with t) to the strategy reservoir; then p's advantage network is retrained from scratch on
its memory with the loss weighted by t (linear CFR weighting). ``deep_cfr.DeepCFR`` traverses
the compiled tree and stores information-set ids; ``state_deep_cfr.StateDeepCFR`` traverses
states or array rows and stores tensors.
"""

from __future__ import annotations

import copy
import dataclasses
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch

from pokerzoo.agents.base import check_state_iteration
from pokerzoo.agents.deep.base import (
    DeepAgent,
    DeepRunFields,
    check_saved_config,
    check_saved_game,
)
from pokerzoo.agents.deep.network import CardBettingNet
from pokerzoo.checkpoint import checked_array, checked_weights
from pokerzoo.components.replay import ReservoirBuffer
from pokerzoo.config import check, from_mapping, normalise

Batch = tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]
"""``(x, mask, t, target)``: network inputs, legal masks, loss weights and targets."""


@dataclass(frozen=True)
class DeepCFRConfig(DeepRunFields):
    """Hyperparameters of Deep CFR. [B] Brown et al. 2019; [OS] OpenSpiel's Deep CFR.

    The defaults keep the paper's optimiser and the network of ``CardBettingNet`` but small
    budgets (100 traversals, 200/1,000 steps, batch 256, memories 100,000) that suit Kuhn;
    the ``openspiel-leduc`` preset has the recommended Leduc budgets.
    """

    traversals: int = 100
    """External-sampling traversals per player and iteration ([B]: 10,000; [OS] Leduc 1,500)."""
    advantage_steps: int = 200
    """SGD steps retraining an advantage network from scratch ([B]: 4,000; [OS] 750)."""
    policy_steps: int = 1_000
    """SGD steps training the strategy network ([OS] 5,000)."""
    batch_size: int = 256
    """Mini-batch of both networks ([B]: 10,000; [OS] 2,048)."""
    advantage_memory: int = 100_000
    """Reservoir capacity of each player's regret memory ([OS] 1e6)."""
    strategy_memory: int = 100_000
    """Reservoir capacity of the strategy memory ([OS] 1e6)."""
    width: int = 64
    """Units per hidden layer (the papers: 64-192)."""
    learning_rate: float = 1e-3
    """Adam's learning rate ([B])."""
    grad_clip: float = 1.0
    """Gradient-norm clip ([B])."""
    regret_scale: float = 1.0
    """Advantage targets are divided by this before fitting. Regret matching (and its argmax
    fallback) is unchanged by a positive scale, so only the numbers the network must reach
    change: the game's largest payoff (Leduc: 13) makes them of order one, which a network
    trained from scratch reaches in fewer steps. 1 fits raw regrets ([B], [OS])."""
    batch_mode: Literal["sample", "full_memory"] = "sample"
    """What one SGD step sees. ``"sample"`` ([B], [OS]): ``batch_size`` samples drawn from
    the memory. ``"full_memory"``: the whole memory, folded once per training onto its
    distinct information sets (summed weights ``W_I``, weighted mean targets ``m_I``), so
    every step takes the exact gradient of the loss over the whole memory at the cost of one
    network row per information set (Leduc: at most 468 per player, 936 for the strategy
    memory); ``batch_size`` is then unused. This is still Deep CFR: the same networks trained
    on the same t-weighted objective over the same reservoir memories (the squared error
    differs from the per-sample one by a constant, the cross-entropy is linear in its target),
    only by full-batch instead of mini-batch gradient steps. Needs a game whose tree fits
    (every sample names a tree information set)."""
    lr_schedule: Literal["constant", "linear"] = "constant"
    """Adam's learning rate over one training: ``"constant"`` ([B], [OS]) or ``"linear"``,
    decaying from ``learning_rate`` to 0 at the last step. A network trained from scratch
    then ends at a point of its loss's basin instead of wherever constant-step Adam's
    oscillation leaves it: with full-memory steps on Leduc the strategy network's exact
    NashConv swung between 0.21 and 0.40 over steps 1,000-2,500 at a nearly flat loss, and
    stayed within 0.19-0.21 with the linear decay (``bench/results/deep/leduc_notes.md``)."""

    def __post_init__(self) -> None:
        normalise(self)
        super().__post_init__()
        for name in ("traversals", "advantage_steps", "policy_steps", "batch_size",
                     "advantage_memory", "strategy_memory", "width"):
            check(getattr(self, name) >= 1, name, ">= 1", getattr(self, name))
        check(self.learning_rate > 0, "learning_rate", "> 0", self.learning_rate)
        check(self.grad_clip > 0, "grad_clip", "> 0", self.grad_clip)
        check(self.regret_scale > 0, "regret_scale", "> 0", self.regret_scale)

    @classmethod
    def from_params(cls, **params: Any) -> DeepCFRConfig:
        """Build from keyword parameters (names checked, with a did-you-mean)."""
        return from_mapping(cls, params)


DEEP_CFR_PRESETS: dict[str, DeepCFRConfig] = {
    "deep-cfr": DeepCFRConfig(),
    "openspiel-leduc": DeepCFRConfig(
        traversals=1_500, advantage_steps=750, policy_steps=5_000, batch_size=2_048,
        advantage_memory=1_000_000, strategy_memory=1_000_000,
    ),
    # Leduc in a tenth of OpenSpiel's time (run 45 iterations): traversals are cheap on the
    # compiled tree, so the paper's 10,000; every step the exact full-memory gradient (at most
    # 468 rows), decayed to 0 so each network ends fitted; regrets in units of the largest
    # payoff. Still Deep CFR: same networks, memories and t-weighted losses.
    "leduc-fast": DeepCFRConfig(
        traversals=10_000, advantage_steps=400, policy_steps=1_000,
        advantage_memory=1_000_000, strategy_memory=1_000_000, learning_rate=2e-3,
        regret_scale=13.0, batch_mode="full_memory", lr_schedule="linear",
    ),
}
"""Named configs: the small default, OpenSpiel's recommended Leduc settings, and
``leduc-fast`` (45 iterations reach OpenSpiel's 100-iteration NashConv in a tenth of its CPU
time, ``bench/results/deep/leduc.md``)."""

EARLIER_DEEP_CFR = {"batch_mode": "sample", "lr_schedule": "constant"}
"""Fields added to ``DeepCFRConfig`` after checkpoints were written, with what the agent did
before they existed: an older checkpoint without them means these values."""


class DeepCFRBase(DeepAgent):
    """Deep CFR's learning, memories and checkpoints; its versions add the traversals
    (``_traverse``), how memory rows become network inputs (``_batch``, ``_whole_memory``)
    and the strategy table or networks the traversals read (``_refresh_sigma``)."""

    name: str = "deep-cfr"
    config: DeepCFRConfig
    advantage_memories: list[ReservoirBuffer]
    strategy_memory: ReservoirBuffer
    advantage_nets: list[CardBettingNet | None]
    _sigma: np.ndarray
    """The strategy table the tree traversals read (no rows where states are traversed)."""
    _policy_cache: tuple[int, Any] | None
    """``policy()``'s result and the iteration it was computed at."""

    def _start_learning(self, fields: Mapping[str, tuple[tuple[int, ...], Any]]) -> None:
        """Empty memories of rows ``fields`` (from a generator drawn from the agent's), no
        networks, no cached policy."""
        mem_rng = np.random.default_rng(self.rng.integers(2**63))
        self.advantage_memories = [
            ReservoirBuffer(self.config.advantage_memory, fields, seed=mem_rng)
            for _ in range(self.num_players)
        ]
        self.strategy_memory = ReservoirBuffer(self.config.strategy_memory, fields, seed=mem_rng)
        self.advantage_nets = [None] * self.num_players
        self._policy_cache = None

    # Learning ---------------------------------------------------------------------------------

    @abstractmethod
    def _traverse(self, p: int, t: int) -> None:
        """``config.traversals`` traversals of p: regrets to p's memory, strategies to the
        strategy memory, with iteration t."""

    @abstractmethod
    def _batch(self, batch: Any) -> Batch:
        """A mini-batch of memory rows as network inputs, masks, weights and targets."""

    @abstractmethod
    def _whole_memory(self, memory: ReservoirBuffer) -> Batch:
        """The whole of ``memory`` as one batch (``batch_mode "full_memory"``)."""

    @abstractmethod
    def _refresh_sigma(self, p: int) -> None:
        """Player p's strategy for the next traversals, from its new advantage network."""

    def _new_net(self, rng: np.random.Generator) -> CardBettingNet:
        generator = torch.Generator().manual_seed(int(rng.integers(2**63)))
        net = CardBettingNet(self._layout, self.num_actions, self.config.width, generator)
        return net.to(self.device)

    def _train(
        self, memory: ReservoirBuffer, steps: int, rng: np.random.Generator, policy: bool
    ) -> CardBettingNet:
        """A network trained from scratch on ``memory``, each sample's loss weighted by its
        iteration t: squared error on advantages, or cross-entropy on strategies."""
        net = self._new_net(rng)
        optimiser = torch.optim.Adam(net.parameters(), lr=self.config.learning_rate)
        whole = (self._whole_memory(memory) if self.config.batch_mode == "full_memory"
                 else None)
        for step in range(steps):
            if self.config.lr_schedule == "linear":
                for group in optimiser.param_groups:
                    group["lr"] = self.config.learning_rate * (1.0 - step / steps)
            if whole is not None:
                x, mask, t, target = whole
            else:
                x, mask, t, target = self._batch(
                    memory.gather(rng.integers(0, len(memory), size=self.config.batch_size)))
            loss = self._loss(net, x, mask, t, target, policy)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), self.config.grad_clip)
            optimiser.step()
        return net

    def _loss(
        self, net: CardBettingNet, x: torch.Tensor, mask: torch.Tensor, t: torch.Tensor,
        target: torch.Tensor, policy: bool,
    ) -> torch.Tensor:
        """The t-weighted mean loss of rows ``x``: cross-entropy of the strategy network
        against target strategies, or squared error of the advantages against regrets in
        units of ``regret_scale``."""
        if policy:
            logp = torch.log_softmax(net.policy_logits(x, mask), dim=-1)
            per_sample = -(target * logp.masked_fill(~mask, 0.0)).sum(-1)
        else:
            scaled = target / self.config.regret_scale
            per_sample = ((net.advantages(x, mask) - scaled) ** 2).sum(-1)
        return (t * per_sample).sum() / t.sum()

    def _iterate_once(self) -> None:
        """One Deep CFR iteration: per player, traversals and a retrained advantage network."""
        t = self._iteration + 1
        for p in range(self.num_players):
            self._traverse(p, t)
            if len(self.advantage_memories[p]):
                self.advantage_nets[p] = self._train(
                    self.advantage_memories[p], self.config.advantage_steps, self.rng,
                    policy=False,
                )
                self._refresh_sigma(p)
        self._iteration = t

    def _average_net(self) -> CardBettingNet | None:
        """The strategy network trained on the strategy memory (None while it is empty).

        Training draws from a generator seeded by (seed, iteration), not from the agent's, so
        calling it does not change the run.
        """
        if len(self.strategy_memory) == 0:
            return None
        rng = np.random.default_rng([self.seed, self._iteration, 1])
        with self._threads():
            return self._train(self.strategy_memory, self.config.policy_steps, rng, True)

    # Checkpoints ------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Networks, memories, counters and the RNG state (copies; the agent is unchanged)."""
        return {
            "game": {"name": self.game.name, "params": self.game.params()},
            "config": dataclasses.asdict(self.config),
            "iteration": self._iteration,
            "seed": self.seed,
            "rng": copy.deepcopy(self.rng.bit_generator.state),
            "advantage_nets": [
                None if net is None
                else {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
                for net in self.advantage_nets
            ],
            "advantage_memories": [m.state_dict() for m in self.advantage_memories],
            "strategy_memory": self.strategy_memory.state_dict(),
            "sigma": self._sigma.copy(),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` returned.

        Raises:
            CheckpointError: a checkpoint of another game or config.
        """
        iteration = check_state_iteration(state["iteration"])  # refused before any change
        check_saved_game(state["game"], self.game)
        check_saved_config(state["config"], self.config, EARLIER_DEEP_CFR)
        # Floats only, the table's shape, finite probabilities: nothing is cast silently.
        sigma = checked_array(state["sigma"], "sigma", kinds="f", shape=self._sigma.shape,
                              low=0.0, high=1.0).astype(np.float64)
        nets: list[CardBettingNet | None] = []
        for seat, saved_net in enumerate(state["advantage_nets"]):
            if saved_net is None:
                nets.append(None)
                continue
            # Finite float tensors only: a NaN net would answer NaN at every evaluation.
            weights = checked_weights({k: torch.as_tensor(v) for k, v in saved_net.items()},
                                      f"advantage_nets[{seat}]")
            net = CardBettingNet(self._layout, self.num_actions, self.config.width)
            net.load_state_dict(weights)
            nets.append(net.to(self.device))
        for memory, saved_memory in zip(
            self.advantage_memories, state["advantage_memories"], strict=True
        ):
            memory.load_state_dict(saved_memory)
        self.strategy_memory.load_state_dict(state["strategy_memory"])
        self.advantage_nets = nets
        self._sigma = sigma.copy()
        self.rng.bit_generator.state = copy.deepcopy(state["rng"])
        self._iteration = iteration
        self.seed = int(state["seed"])
        self._policy_cache = None
