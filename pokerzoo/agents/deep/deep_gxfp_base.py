"""Deep GXFP's config, presets and learning, shared by its tree and state versions.

``DeepGXFPBase`` is the algorithm (Giordano 2024; see ``deep_gxfp`` for the method and the
choices the paper leaves open) with its one traversal seam, ``sample_utilities``, left to its
versions: ``deep_gxfp.DeepGXFP`` walks the compiled tree under the strategy table,
``state_gxfp.StateDeepGXFP`` walks states or array rows under the strategy network.
Everything else (utility and strategy networks, best decisions, memories, checkpoints) is
here.
"""

from __future__ import annotations

import copy
import dataclasses
from abc import abstractmethod
from collections.abc import Callable, Mapping
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
from pokerzoo.checkpoint import checked_weights
from pokerzoo.components.replay import ReservoirBuffer
from pokerzoo.config import check, from_mapping, normalise
from pokerzoo.errors import CheckpointError

Learner = tuple[CardBettingNet, torch.optim.Adam]
"""A network and the optimiser that trains it (kept together across trainings)."""

UtilitySamples = tuple[np.ndarray, np.ndarray, np.ndarray]
"""``(x, mask, utility)``: information-state tensors ``[N, size]`` float32 of the traverser's
visits, their legal-action masks ``[N, A]`` bool, the sampled action utilities ``[N, A]``
float32 (0 at illegal actions)."""


@dataclass(frozen=True)
class DeepGXFPConfig(DeepRunFields):
    """Hyperparameters of Deep GXFP; [G] Giordano 2024, [B] Brown et al. 2019 (Deep CFR).

    Defaults are [G]'s Kuhn settings; see the module docstring for the choices [G] leaves open.
    """

    traversals: int = 1_000
    """External-sampling traversals per player and iteration ([G] Kuhn: 1,000)."""
    utility_steps: int = 100
    """SGD steps per training of an action-utility network ([G] Kuhn: 100)."""
    strategy_steps: int = 100
    """SGD steps per training of the strategy network (after each player's update)."""
    batch_size: int = 1_024
    """Mini-batch of both networks (not in [G]; [B] used 10,000)."""
    utility_scope: Literal["iteration", "reservoir"] = "iteration"
    """Utility targets: this iteration's samples only, or a reservoir over all iterations
    with the loss weighted by t (Deep CFR's memory)."""
    utility_memory: int = 1_000_000
    """Reservoir capacity of each player's utility memory (``utility_scope="reservoir"``)."""
    strategy_memory: int = 1_000_000
    """Reservoir capacity of the best-decision memory."""
    best_decisions: Literal["per_visit", "per_infoset"] = "per_visit"
    """Best decisions recorded per iteration: one per traversal visit (an information set's
    average over iterations weighted by how often each reached it) or one per distinct
    information set visited (each iteration counts once, tabular GXFP's step)."""
    strategy_weighting: Literal["uniform", "linear"] = "uniform"
    """Weight of iteration t's best decisions in the strategy loss: 1 (GXFP's average) or t."""
    utility_targets: Literal["auto", "means", "samples"] = "auto"
    """What the utility network is fitted to: ``"means"``, the samples folded into one row per
    information set (rows with equal tensor and mask) holding their mean, weighted by their
    number, in full batches while they fit in one; ``"samples"``, mini-batches of the samples
    themselves; ``"auto"``, means on a compiled tree, samples without one (hold'em, where
    information sets hardly repeat). Both minimise the same squared error."""
    strategy_targets: Literal["auto", "frequencies", "samples"] = "auto"
    """What the strategy network is fitted to: ``"frequencies"``, the strategy memory folded
    into each information set's (weighted) frequency of best decisions, a soft cross-entropy
    target weighted by the set's total weight, in full batches while they fit in one;
    ``"samples"``, mini-batches of single best decisions; ``"auto"`` as ``utility_targets``.
    Both minimise the same cross-entropy."""
    from_scratch: bool = False
    """Retrain each network from a fresh initialisation every time instead of training on."""
    width: int = 64
    """Units per hidden layer (the papers: 64-192)."""
    learning_rate: float = 1e-3
    """Adam's learning rate ([B]; the author's code too)."""
    grad_clip: float = 1.0
    """Gradient-norm clip ([B])."""

    def __post_init__(self) -> None:
        normalise(self)
        super().__post_init__()
        for name in ("traversals", "utility_steps", "strategy_steps", "batch_size",
                     "utility_memory", "strategy_memory", "width"):
            check(getattr(self, name) >= 1, name, ">= 1", getattr(self, name))
        check(self.learning_rate > 0, "learning_rate", "> 0", self.learning_rate)
        check(self.grad_clip > 0, "grad_clip", "> 0", self.grad_clip)

    @classmethod
    def from_params(cls, **params: Any) -> DeepGXFPConfig:
        """Build from keyword parameters (names checked, with a did-you-mean)."""
        return from_mapping(cls, params)


EARLIER_DEEP_GXFP = {"utility_targets": "samples", "strategy_targets": "samples"}
"""Fields added to ``DeepGXFPConfig`` after checkpoints were written, with what the agent did
before they existed (mini-batches of single samples)."""


DEEP_GXFP_PRESETS: dict[str, DeepGXFPConfig] = {
    "deep-gxfp": DeepGXFPConfig(),
    "paper-hunl": DeepGXFPConfig(traversals=10_000, utility_steps=500, strategy_steps=500),
}
"""Named configs: [G]'s Kuhn settings and its hold'em ones (10,000 traversals, 500 steps)."""


class DeepGXFPBase(DeepAgent):
    """Deep GXFP's learning; one ``iterate`` unit is one iteration (both players). Its
    versions add the traversals (``sample_utilities``) and the strategy table they read
    (``_refresh_table``)."""

    name: str = "deep-gxfp"
    config: DeepGXFPConfig
    _sigma: np.ndarray
    """The strategy table the tree traversals read (no rows where states are traversed)."""

    def _init_learning(self) -> None:
        """Memories and networks (with their optimisers), from ``config``, ``_layout``,
        ``num_players``, ``num_actions`` and ``rng``: what every traversal seam shares."""
        cfg, size, num_actions = self.config, self._layout.size, self.num_actions
        fields = {"x": ((size,), np.float32), "mask": ((num_actions,), bool),
                  "t": ((), np.float32)}
        mem_rng = np.random.default_rng(self.rng.integers(2**63))
        self.utility_memories = [
            ReservoirBuffer(cfg.utility_memory, {**fields, "value": ((num_actions,), np.float32)},
                            seed=mem_rng)
            for _ in range(self.num_players)
        ] if cfg.utility_scope == "reservoir" else []
        self.strategy_memory = ReservoirBuffer(
            cfg.strategy_memory, {**fields, "action": ((), np.int64)}, seed=mem_rng)
        self._utility = [self._new_learner() for _ in range(self.num_players)]
        self._strategy = self._new_learner()
        self._trained = [False] * self.num_players

    # The traversal seam ---------------------------------------------------------------------

    @abstractmethod
    def sample_utilities(self, player: int, traversals: int) -> UtilitySamples:
        """``traversals`` external-sampling traversals of ``player`` under the current
        strategy: the only place that walks the game. Everything else sees only the
        ``UtilitySamples`` it returns."""

    @abstractmethod
    def _refresh_table(self, p: int) -> None:
        """Player p's rows of the strategy table from the strategy network (if there is a
        table)."""

    def strategy_probs(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The strategy network's probabilities ``[N, A]`` for tensors ``x`` and masks ``mask``
        (what a state-batch traversal samples from)."""
        with torch.no_grad():
            logits = self.strategy_net.policy_logits(self._tensor(x), self._tensor(mask))
            return torch.softmax(logits, dim=-1).cpu().numpy().astype(np.float64)

    # Learning -------------------------------------------------------------------------------

    def _tensor(self, a: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(a, device=self.device)

    @property
    def utility_nets(self) -> list[CardBettingNet]:
        """Each player's action-utility network."""
        return [net for net, _ in self._utility]

    @property
    def strategy_net(self) -> CardBettingNet:
        """The strategy network (both players' information sets)."""
        return self._strategy[0]

    def _new_learner(self, weights: Mapping[str, Any] | None = None,
                     optimiser: Mapping[str, Any] | None = None) -> Learner:
        """A network and its Adam: freshly initialised, or restored from saved states."""
        generator = (torch.Generator().manual_seed(int(self.rng.integers(2**63)))
                     if weights is None else None)
        net = CardBettingNet(self._layout, self.num_actions, self.config.width, generator)
        if weights is not None:
            # Finite float tensors only: a NaN net would answer NaN at every evaluation.
            net.load_state_dict(checked_weights(
                {k: torch.as_tensor(v) for k, v in weights.items()}, "network weights"))
        net = net.to(self.device)
        # Fused Adam: one kernel for all parameters, about 3x faster for these small networks.
        adam = torch.optim.Adam(net.parameters(), lr=self.config.learning_rate, fused=True)
        if optimiser is not None:
            adam.load_state_dict(dict(optimiser))
        return net, adam

    def _fit(self, learner: Learner, rows: Callable[[np.ndarray], Mapping[str, np.ndarray]],
             size: int, steps: int, weighted: bool, whole: bool = False) -> Learner:
        """``learner`` (or a fresh one) after ``steps`` Adam steps on mini-batches ``rows(idx)``
        of ``size`` rows (all of them each step when ``whole``): squared error on ``value``
        rows, cross-entropy on ``action`` rows (one-hot) or ``probs`` rows (soft targets);
        each row's loss weighted by its ``t`` when ``weighted``."""
        cfg = self.config
        net, optimiser = self._new_learner() if cfg.from_scratch else learner
        for _ in range(steps):
            batch = rows(np.arange(size) if whole
                         else self.rng.integers(0, size, size=cfg.batch_size))
            x, mask = self._tensor(batch["x"]), self._tensor(batch["mask"])
            if "action" in batch:
                logp = torch.log_softmax(net.policy_logits(x, mask), dim=-1)
                loss = -logp.gather(1, self._tensor(batch["action"])[:, None])[:, 0]
            elif "probs" in batch:
                logp = torch.log_softmax(net.policy_logits(x, mask), dim=-1)
                # Illegal actions have -inf logits and no target mass: 0, not 0 * -inf.
                loss = -(self._tensor(batch["probs"]) * logp.masked_fill(~mask, 0.0)).sum(-1)
            else:
                loss = ((net.advantages(x, mask) - self._tensor(batch["value"])) ** 2).sum(-1)
            if weighted:
                t = self._tensor(batch["t"])
                loss = (t * loss).sum() / t.sum()
            optimiser.zero_grad()
            loss.mean().backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.grad_clip)
            optimiser.step()
        return net, optimiser

    def _update(self, p: int, t: int) -> None:
        """Player p's update: utilities, best decisions, the strategy network, p's rows."""
        cfg = self.config
        x, mask, utility = self.sample_utilities(p, cfg.traversals)
        if len(x) == 0:  # p never acts where the traversals went (not in poker)
            return
        if cfg.utility_scope == "reservoir":
            memory = self.utility_memories[p]
            memory.add_batch({"x": x, "mask": mask, "value": utility,
                              "t": np.full(len(x), t, dtype=np.float32)})
            if self._folds(cfg.utility_targets):
                kept = memory.gather(np.arange(len(memory)))
                self._utility[p] = self._fit_folded(
                    self._utility[p], kept["x"], kept["mask"], kept["t"], kept["value"],
                    "value", cfg.utility_steps)
            else:
                self._utility[p] = self._fit(self._utility[p], memory.gather, len(memory),
                                             cfg.utility_steps, weighted=True)
        elif self._folds(cfg.utility_targets):
            self._utility[p] = self._fit_folded(self._utility[p], x, mask,
                                                np.ones(len(x), dtype=np.float32), utility,
                                                "value", cfg.utility_steps)
        else:
            fresh = {"x": x, "mask": mask, "value": utility}
            self._utility[p] = self._fit(
                self._utility[p], lambda idx: {k: v[idx] for k, v in fresh.items()},
                len(x), cfg.utility_steps, weighted=False)
        self._trained[p] = True
        if cfg.best_decisions == "per_infoset":
            # Equal tensors are one information set (the tensor encodes it), in visit order.
            first = np.sort(np.unique(x, axis=0, return_index=True)[1])
            x, mask = x[first], mask[first]
        self.strategy_memory.add_batch({
            "x": x, "mask": mask, "action": self._best(p, x, mask),
            "t": np.full(len(x), t, dtype=np.float32),
        })
        linear = cfg.strategy_weighting == "linear"
        if self._folds(cfg.strategy_targets):
            kept = self.strategy_memory.gather(np.arange(len(self.strategy_memory)))
            weight = kept["t"] if linear else np.ones(len(kept["t"]), dtype=np.float32)
            one_hot = np.eye(self.num_actions, dtype=np.float32)[kept["action"]]
            self._strategy = self._fit_folded(self._strategy, kept["x"], kept["mask"], weight,
                                              one_hot, "probs", cfg.strategy_steps)
        else:
            self._strategy = self._fit(
                self._strategy, self.strategy_memory.gather, len(self.strategy_memory),
                cfg.strategy_steps, weighted=linear)
        self._refresh_table(p)

    def _canonical(self, fields: dict[str, Any]) -> dict[str, Any]:
        """Config fields with the targets as this agent fits them (``"auto"`` resolved), so
        a checkpoint is refused only when the fits differ."""
        resolved = dict(fields)
        for name in ("utility_targets", "strategy_targets"):
            if name in resolved:
                resolved[name] = "folded" if self._folds(resolved[name]) else "samples"
        return resolved

    def _folds(self, targets: str) -> bool:
        """Whether ``utility_targets``/``strategy_targets`` value ``targets`` folds the rows
        (``"auto"``: on a compiled tree, where information sets repeat)."""
        return targets in ("means", "frequencies") or (targets == "auto"
                                                       and self.tree is not None)

    def _fit_folded(self, learner: Learner, x: np.ndarray, mask: np.ndarray,
                    weight: np.ndarray, targets: np.ndarray, key: str, steps: int) -> Learner:
        """``_fit`` on the rows folded per information set (``fold_rows``): each set's weighted
        mean target under ``key`` (``"value"`` or ``"probs"``), its loss weighted by the set's
        total weight; full batches while the sets fit in one."""
        fx, fmask, total, mean = fold_rows(x, mask, weight, targets)
        folded = {"x": fx, "mask": fmask, key: mean.astype(np.float32),
                  "t": total.astype(np.float32)}
        return self._fit(learner, lambda idx: {k: v[idx] for k, v in folded.items()},
                         len(fx), steps, weighted=True, whole=len(fx) <= self.config.batch_size)

    def _best(self, p: int, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Best decisions: the argmax legal action of p's utility network (first on ties)."""
        with torch.no_grad():
            logits = self.utility_nets[p].policy_logits(self._tensor(x), self._tensor(mask))
            return logits.argmax(dim=-1).cpu().numpy()

    def _iterate_once(self) -> None:
        """One Deep GXFP iteration: one update per player, in turn."""
        t = self._iteration + 1
        for p in range(self.num_players):
            self._update(p, t)
        self._iteration = t

    # Checkpoints ----------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Networks with their optimisers, memories, the strategy table, counters and the RNG
        state (copies on the CPU; the agent is unchanged)."""
        return {
            "game": {"name": self.game.name, "params": self.game.params()},
            "config": dataclasses.asdict(self.config),
            "iteration": self._iteration,
            "seed": self.seed,
            "rng": copy.deepcopy(self.rng.bit_generator.state),
            "utility": [_learner_state(learner) for learner in self._utility],
            "trained": list(self._trained),
            "strategy": _learner_state(self._strategy),
            "utility_memories": [m.state_dict() for m in self.utility_memories],
            "strategy_memory": self.strategy_memory.state_dict(),
            "sigma": self._sigma.copy(),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` returned.

        Raises:
            CheckpointError: a checkpoint of another game or config (the device may differ).
        """
        iteration = check_state_iteration(state["iteration"])  # refused before any change
        check_saved_game(state["game"], self.game)
        check_saved_config(state["config"], self.config, EARLIER_DEEP_GXFP, self._canonical)
        sigma = np.asarray(state["sigma"], dtype=np.float64)
        if sigma.shape != self._sigma.shape:
            raise CheckpointError(f"strategy table {sigma.shape}, expected {self._sigma.shape}")
        utility = [self._new_learner(s["weights"], s["adam"]) for s in state["utility"]]
        if len(utility) != self.num_players:
            raise CheckpointError(f"{len(utility)} utility networks, expected {self.num_players}")
        strategy = self._new_learner(state["strategy"]["weights"], state["strategy"]["adam"])
        for memory, saved_memory in zip(self.utility_memories, state["utility_memories"],
                                        strict=True):
            memory.load_state_dict(saved_memory)
        self.strategy_memory.load_state_dict(state["strategy_memory"])
        self._utility, self._strategy = utility, strategy
        self._trained = [bool(b) for b in state["trained"]]
        self._sigma = sigma.copy()
        self.rng.bit_generator.state = copy.deepcopy(state["rng"])
        self._iteration = iteration
        self.seed = int(state["seed"])


def fold_rows(x: np.ndarray, mask: np.ndarray, weight: np.ndarray,
              targets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows with equal tensor and mask (one information set) merged, in first-seen order:
    ``(x, mask, total weight, weighted mean of targets)`` per set. A squared error or a
    cross-entropy summed over the rows equals, up to a constant, the same loss of the means
    weighted by the totals.

    >>> x = np.array([[1.0], [2.0], [1.0]], dtype=np.float32)
    >>> fx, _, total, mean = fold_rows(x, np.ones((3, 2), bool), np.array([1.0, 1.0, 3.0]),
    ...                                np.array([[0.0, 4.0], [1.0, 1.0], [4.0, 0.0]]))
    >>> fx[:, 0].tolist(), total.tolist(), mean.tolist()
    ([1.0, 2.0], [4.0, 1.0], [[3.0, 1.0], [1.0, 1.0]])
    """
    n = len(x)
    raw = np.concatenate([np.ascontiguousarray(x).view(np.uint8).reshape(n, -1),
                          np.ascontiguousarray(mask).view(np.uint8).reshape(n, -1)], axis=1)
    keys = np.ascontiguousarray(raw).view(np.dtype((np.void, raw.shape[1])))[:, 0]
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first)  # sets in first-seen order, not byte order
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    inverse = rank[inverse.reshape(-1)]
    weight = np.asarray(weight, dtype=np.float64)
    total = np.bincount(inverse, weights=weight, minlength=len(first))
    sums = np.stack([np.bincount(inverse, weights=weight * targets[:, a], minlength=len(first))
                     for a in range(targets.shape[1])], axis=1)
    return x[first[order]], mask[first[order]], total, sums / total[:, None]


def _on_cpu(value: Any) -> Any:
    """``value`` with every tensor in it copied to the CPU (dicts, lists, tuples rebuilt)."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().clone()
    if isinstance(value, dict):
        return {k: _on_cpu(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_on_cpu(v) for v in value)
    return value


def _learner_state(learner: Learner) -> dict[str, Any]:
    """A network's weights and its Adam's state, as checkpoints hold them."""
    net, adam = learner
    return {"weights": _on_cpu(net.state_dict()), "adam": _on_cpu(adam.state_dict())}

