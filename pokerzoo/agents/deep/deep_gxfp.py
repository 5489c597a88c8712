"""Deep GXFP (Giordano 2024, ``shared/seeds/deep-gxfp.txt``) on games whose tree fits.

GXFP (Schulze 1993) moves each player's behavioural strategy b towards its *best decisions*
d(I) = argmax_a U(I, a; b), the action utilities under the current strategies of both
players, by b_{n+1} = (1 - 1/(n+1)) b_n + d / (n+1). Deep GXFP replaces Deep CFR's regret
targets by these quantities. Per iteration t and per player p, in turn:

1. ``traversals`` external-sampling traversals of p (``sample_utilities``) record the sampled
   utility of each of p's actions at each visit of p's information sets, every other action
   drawn from the strategy network (the paper's note in Sec. 2.3.4);
2. p's *action-utility network* is fitted by squared error to them;
3. the argmax of its predictions at each visited information set is a best decision; these
   go to the strategy memory with t;
4. the *strategy network* is fitted by cross-entropy to the strategy memory, so it predicts
   the (weighted) frequency of each best decision: GXFP's average b. p's rows of the strategy
   table that the next traversals read are refreshed from it.

``policy()`` is that table (b, tabularised over the tree, so evaluators score it exactly);
``current_policy()`` the latest best decisions (argmax of the utility networks everywhere).
Both networks are ``CardBettingNet``: cards and betting in separate branches up to layer 5 of
7, Xavier-uniform, outputs masked to the legal actions.

Choices where the paper is silent (each a ``DeepGXFPConfig`` field; defaults in brackets):

* An *iteration* [one ``iterate`` unit] is the paper's training loop: per player, the
  "1,000 CFR iterations" that "collect data" are 1,000 traversals [``traversals=1000``], and
  each training is 100 SGD steps [``utility_steps=strategy_steps=100``] (its Kuhn settings).
  The paper's "50,000 iterations" thus read as 50,000 traversals of both players together:
  25 ``iterate`` units.
* Utility targets [``utility_scope="iteration"``]: GXFP's best decisions are against the
  *current* strategies, so the utility network fits only this iteration's samples; Deep CFR's
  reservoir over all iterations (``"reservoir"``, loss weighted by t) is the alternative
  (on Kuhn, tabular GXFP on utilities so averaged over past iterations stalls at 0.04-0.13).
* Strategy targets [``strategy_weighting="uniform"``]: every iteration's best decisions
  count alike, GXFP's 1/(n+1) step; ``"linear"`` weighs them by t like Deep CFR's average.
  They are recorded once per visit [``best_decisions="per_visit"``], so an information set's
  average weighs the iterations by how often they reached it; ``"per_infoset"`` records one
  per distinct information set visited (tabular GXFP's step; no better on Kuhn).
* What the networks fit [``utility_targets=strategy_targets="auto"``: folded on a compiled
  tree]. The paper trains "on MSE loss between the calculated utility and the network's
  predicted utility" and on "the cross-entropy loss between a calculated best decision and
  the network's predicted strategy", not how the samples reach the loss. Folding the rows
  of each information set into one (the mean sampled utility; the frequency of its stored
  best decisions), weighted by their number, leaves both losses unchanged up to a constant
  and takes the mini-batches' noise out: the 100 steps then fit the means and frequencies
  themselves. With mini-batches of single samples (``"samples"``, the only way before, and
  what ``"auto"`` keeps where information sets hardly repeat) the networks missed them on
  Kuhn: the argmax of the fitted utilities disagreed with that of the sample means at 4-8%
  of the visits and the strategy table was up to 0.035 off the exact average of the stored
  best decisions, which the next traversals read; exploitability levelled off near 0.027.
  Folded, both networks reproduce their targets exactly (no disagreement once trained, the
  table within 0.001), so Deep GXFP computes GXFP on sampled utilities; what remains is
  the sampling's noise in the best decisions (``bench/results/deep/deep_gxfp_kuhn.md``).
* Networks [``from_scratch=False``]: trained on from their last weights with one Adam each
  kept across trainings, as the author's Deep CFR code did (``bubbabjh/HeadsUp_deepCFR``; lr
  1e-3 there and in the Deep CFR paper, gradient-norm clip 1 from the latter); ``True``
  retrains each from a fresh initialisation and optimiser like Deep CFR.
* Batch [1,024] and memory [1e6 best decisions]. Large batches as in Deep CFR ([B]: 10,000):
  with mini-batches of samples, the networks' SGD noise mis-ranks near-tied actions (on Kuhn
  128 left exploitability near 0.04-0.07 after 40 iterations, 1,024 near 0.025-0.035).
  Folded targets (above) fit in one batch on Kuhn, which leaves the traversals' sampling as
  the limit: about 0.02 chips after 50 iterations, as GXFP on the same samples with exact
  tables (2,500 or 5,000 traversals per iteration at the same total do worse, 100-500 about
  as well).
* Players update in turn (tabular ``gxfp``'s ``alternating``), each against the other's
  newest strategy. The starting strategy b_0 is uniform and, as the paper's update reads from
  n = 0, the first best decisions replace it (tabular GXFP run so reaches 0.018 chips on Kuhn
  after 25 iterations; pokerzoo's ``gxfp``, which keeps b_0 as one term, 0.037).

>>> from pokerzoo import load_game
>>> agent = DeepGXFP(load_game("kuhn_poker"), seed=0, traversals=50, utility_steps=5,
...                  strategy_steps=5, device="cpu")
>>> agent.iterate(1)
>>> agent.iteration, agent.policy().probs.shape
(1, (12, 2))
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch

from pokerzoo.agents.deep.deep_cfr import (
    DeepAgent,
    DeepRunFields,
    check_saved_config,
    configured,
    infoset_tensors,
    new_for_game,
)
from pokerzoo.agents.deep.network import CardBettingNet
from pokerzoo.agents.deep.traversal import tree_utility_samples
from pokerzoo.components.replay import ReservoirBuffer
from pokerzoo.config import check, from_mapping, normalise
from pokerzoo.entry_points import unknown_name
from pokerzoo.errors import CheckpointError
from pokerzoo.games.base import Game
from pokerzoo.parallel import Executor
from pokerzoo.tree.tabular_policy import TabularPolicy

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


class DeepGXFP(DeepAgent):
    """Deep GXFP over a compiled tree; one ``iterate`` unit is one iteration (both players).

    Args:
        game: a game whose tree fits in memory.
        config: a ``DeepGXFPConfig``; keyword ``overrides`` replace its fields.
        seed: seed of the agent's ``numpy.random.Generator`` (traversals, initialisations,
            mini-batches and the memories all derive from it).
        workers: traversal workers: N > 1 cuts each player's traversals into N shares, each
            from a seed drawn from the agent's generator (reproducible for a fixed N).
        executor: where the shares run (a ``pokerzoo.parallel.Executor``; default here).
    """

    name: str = "deep-gxfp"

    def __new__(cls, *args: Any, **kwargs: Any) -> DeepGXFP:
        # Hold'em gets ``state_gxfp.StateDeepGXFP``, as ``DeepCFR`` does.
        return new_for_game(cls, DeepGXFP, _state_deep_gxfp, args, kwargs)

    def __init__(
        self,
        game: Game,
        config: DeepGXFPConfig | None = None,
        seed: int = 0,
        *,
        workers: int = 1,
        executor: Executor | None = None,
        **overrides: Any,
    ) -> None:
        self.config = configured(config, DeepGXFPConfig, overrides)
        self._start_run(game, seed, workers, executor)
        tree = self._start_tree()
        self._x = infoset_tensors(tree)
        self._mask = np.array(tree.infoset_mask, dtype=bool)
        self._sigma = self._mask / self._mask.sum(axis=1, keepdims=True)
        self._init_learning()

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

    def sample_utilities(self, player: int, traversals: int) -> UtilitySamples:
        """``traversals`` external-sampling traversals of ``player`` under the current strategy
        table: the only place that walks the game. A traversal over batches of states (games
        without a compiled tree) replaces this method, reading ``strategy_probs`` on its
        batches of information-state tensors instead of the table, and returns the same
        ``UtilitySamples``; everything else sees only those."""
        iset, utility = tree_utility_samples(
            self._arrays, self._sigma, player, traversals, self.rng, self.workers, self.executor)
        return self._x[iset], self._mask[iset], utility.astype(np.float32)

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
            net.load_state_dict({k: torch.as_tensor(v) for k, v in weights.items()})
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
        isets = self._player_isets[p]
        sigma = self._sigma.copy()
        sigma[isets] = self.strategy_probs(self._x[isets], self._mask[isets])
        self._sigma = sigma

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

    # Policies -------------------------------------------------------------------------------

    def policy(self) -> TabularPolicy:
        """GXFP's strategy b: the strategy table the traversals read, each player's rows from
        the strategy network after that player's last update (uniform before any)."""
        return TabularPolicy.from_tree(self.tree, self._sigma)

    def current_policy(self) -> TabularPolicy:
        """The latest best decisions: the argmax of each player's utility network at every
        information set (uniform for a player not yet updated)."""
        rows = self._mask / self._mask.sum(axis=1, keepdims=True)
        for p, isets in enumerate(self._player_isets):
            if self._trained[p]:
                rows[isets] = np.eye(self.num_actions)[self._best(p, self._x[isets],
                                                                  self._mask[isets])]
        return TabularPolicy.from_tree(self.tree, rows)

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
        game = {"name": self.game.name, "params": self.game.params()}
        if dict(state["game"]) != game:
            raise CheckpointError(
                f"checkpoint is of game {dict(state['game'])}, this agent plays {game}")
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
        self._iteration = int(state["iteration"])
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


def make_preset(preset: str, game: Game, seed: int = 0, *, workers: int = 1,
                executor: Executor | None = None, **params: Any) -> DeepGXFP:
    """The registry's agent ``preset`` (a key of ``DEEP_GXFP_PRESETS``), ``params`` overriding
    its config fields; ``workers``/``executor`` as ``DeepGXFP`` takes them."""
    if preset not in DEEP_GXFP_PRESETS:
        raise unknown_name("Deep GXFP preset", preset, DEEP_GXFP_PRESETS)
    base = dataclasses.asdict(DEEP_GXFP_PRESETS[preset])
    return DeepGXFP(game, DeepGXFPConfig.from_params(**{**base, **params}), seed=seed,
                    workers=workers, executor=executor)


def _state_deep_gxfp() -> type:
    from pokerzoo.agents.deep.state_gxfp import StateDeepGXFP

    return StateDeepGXFP
