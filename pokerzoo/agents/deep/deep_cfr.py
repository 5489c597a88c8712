"""Deep CFR (Brown, Lerer, Gross, Sandholm 2019) on games whose tree fits (Kuhn, Leduc).

Per iteration t and per player p: ``traversals`` external-sampling traversals of p over the
compiled tree (``traversal.TreeTraversal``), reading a strategy table computed once per
iteration from the advantage networks over every information set's tensor; p's sampled
regrets (with t) go to p's reservoir memory, the next player's sampled strategies (with t) to
the strategy reservoir; then p's advantage network is retrained from scratch on its memory
with the loss weighted by t (linear CFR weighting). Regret matching on the predicted
advantages gives the strategy, the argmax action when none is positive (the paper found the
uniform choice 50% more exploitable). ``policy()`` trains the strategy network on the strategy
reservoir (loss weighted by t) and tabularises it over the tree, so evaluators score it exactly.

Defaults are the paper's where they apply (Adam lr 1e-3, gradient-norm clip 1) with small
budgets that solve Kuhn in seconds; ``DEEP_CFR_PRESETS["openspiel-leduc"]`` holds the
OpenSpiel / Single Deep CFR settings for Leduc, ``"leduc-fast"`` the same algorithm with every
SGD step on the whole memory folded onto its information sets (``batch_mode``), which reaches
OpenSpiel's 100-iteration Leduc NashConv in under a tenth of its CPU time.

Games whose tree does not fit (hold'em) are traversed as states by
``state_deep_cfr.StateDeepCFR``; ``make_preset`` (the agent table's factory, behind
``make_agent("deep-cfr", game)``) picks the version by the game's size, and ``DeepCFR`` built
on such a game refuses it, naming the state version.

>>> from pokerzoo import load_game
>>> agent = DeepCFR(load_game("kuhn_poker"), seed=0)
>>> agent.iterate(1)
>>> agent.iteration
1
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import torch

from pokerzoo.agents.deep.base import (
    RUN_ONLY,
    configured,
    regret_matching,
    tree_fits,
)
from pokerzoo.agents.deep.deep_cfr_base import (
    DEEP_CFR_PRESETS,
    EARLIER_DEEP_CFR,
    Batch,
    DeepCFRBase,
    DeepCFRConfig,
)
from pokerzoo.agents.deep.state_deep_cfr import StateDeepCFR
from pokerzoo.agents.deep.traversal import Samples, TreeTraversal
from pokerzoo.components.replay import ReservoirBuffer
from pokerzoo.entry_points import unknown_name
from pokerzoo.games.base import Game
from pokerzoo.parallel import Executor
from pokerzoo.tree.tabular_policy import TabularPolicy

__all__ = [
    "DEEP_CFR_PRESETS",
    "EARLIER_DEEP_CFR",
    "RUN_ONLY",
    "DeepCFR",
    "DeepCFRConfig",
    "make_preset",
    "regret_matching",
]


class DeepCFR(DeepCFRBase):
    """Deep CFR over a compiled tree; one ``iterate`` unit is one CFR iteration.

    Args:
        game: a game whose tree fits in memory (``base.tree_fits``).
        config: a ``DeepCFRConfig``; keyword ``overrides`` replace its fields.
        seed: seed of the agent's ``numpy.random.Generator`` (traversals, initialisations and
            the memories' sampling all derive from it).
        workers: traversal workers (``agents.deep.traversal``): 1 traverses here; N > 1 splits
            each player's traversals into N shares, each from its own seed drawn from the
            agent's generator, merged in share order (reproducible for a fixed N).
        executor: where the shares run (a ``pokerzoo.parallel.Executor``; default here).

    Raises:
        TreeTooLargeError: the game's tree does not fit; ``StateDeepCFR`` traverses its states.
    """

    traversal: TreeTraversal

    def __init__(
        self,
        game: Game,
        config: DeepCFRConfig | None = None,
        seed: int = 0,
        *,
        workers: int = 1,
        executor: Executor | None = None,
        **overrides: Any,
    ) -> None:
        self.config = configured(config, DeepCFRConfig, overrides)
        self._start_run(game, seed, workers, executor)
        tree = self._start_tree("StateDeepCFR (pokerzoo.agents.deep.state_deep_cfr)")
        # The networks' inputs: every information set's tensor (a copy: torch writes).
        self._tensors = torch.tensor(tree.information_state_tensors, device=self.device)
        self._masks = torch.as_tensor(np.array(tree.infoset_mask), device=self.device)
        self._start_learning({
            "iset": ((), np.int64),
            "value": ((self.num_actions,), np.float32),
            "t": ((), np.float32),
        })
        self._sigma = tree.infoset_mask / tree.infoset_mask.sum(axis=1, keepdims=True)
        self.traversal = TreeTraversal(self._arrays, self.num_actions, self.config.traversals,
                                       self.workers, self.executor)

    # Learning ---------------------------------------------------------------------------------

    def _traverse(self, p: int, t: int) -> None:
        parts = self.traversal(self._sigma, p, self.config.traversals, self.rng)
        self._store_samples(p, t, parts)

    def _store_samples(self, p: int, t: int, parts: list[Samples]) -> None:
        """Add traversal samples to p's regret memory and the strategy memory, in order."""
        for r_iset, r_value, s_iset, s_value in parts:
            if len(r_iset):
                self.advantage_memories[p].add_batch({
                    "iset": r_iset, "value": r_value.astype(np.float32),
                    "t": np.full(len(r_iset), t, dtype=np.float32),
                })
            if len(s_iset):
                self.strategy_memory.add_batch({
                    "iset": s_iset, "value": s_value.astype(np.float32),
                    "t": np.full(len(s_iset), t, dtype=np.float32),
                })

    def _batch(self, batch: Any) -> Batch:
        """A mini-batch folded onto its information sets (``_folded_batch``)."""
        return self._folded_batch(batch)

    def _whole_memory(self, memory: ReservoirBuffer) -> Batch:
        """The whole of ``memory`` folded onto its distinct information sets (``batch_mode
        "full_memory"``: one fold per training, every step's exact full-memory gradient)."""
        return self._folded_batch(memory.gather(np.arange(len(memory))))

    def _folded_batch(self, batch: Any) -> Batch:
        """A batch folded onto its distinct information sets: their inputs and masks, summed
        weights ``W`` and weighted mean targets ``m``.

        The network sees each information set once instead of once per sample; the loss
        ``sum_I W_I l(f_I, m_I) / sum W`` has the per-sample loss's gradient exactly (squared
        error differs by a constant, cross-entropy is linear in the target), so training is
        the same SGD at a fraction of the cost (Leduc: at most 936 rows per batch of 2,048).
        """
        # Sums per tree information set (bincount: linear, no sort even over a whole memory of
        # 1e6 samples); every t >= 1, so the rows with weight are those the batch names.
        n, t = self.tree.num_infosets, batch.t.astype(np.float64)
        weight = np.bincount(batch.iset, weights=t, minlength=n)
        rows = np.flatnonzero(weight)
        value = batch.value
        mean = np.stack([
            np.bincount(batch.iset, weights=t * value[:, a], minlength=n)[rows]
            for a in range(value.shape[1])  # a few actions, not samples
        ], axis=1) / weight[rows, None]
        weight = weight[rows]
        index = torch.as_tensor(rows, device=self.device)
        return (
            self._tensors[index], self._masks[index],
            torch.as_tensor(weight, dtype=torch.float32, device=self.device),
            torch.as_tensor(mean, dtype=torch.float32, device=self.device),
        )

    def _refresh_sigma(self, p: int) -> None:
        """Player p's rows of the strategy table from its advantage network."""
        isets = self._player_isets[p]
        net = self.advantage_nets[p]
        if net is None:
            return
        with torch.no_grad():
            adv = net.advantages(self._tensors[isets], self._masks[isets]).cpu().numpy()
        sigma = self._sigma.copy()
        sigma[isets] = regret_matching(adv.astype(np.float64), self.tree.infoset_mask[isets])
        self._sigma = sigma

    # Policies ---------------------------------------------------------------------------------

    def current_policy(self) -> TabularPolicy:
        """Regret matching on the advantage networks (the strategy of the next iteration)."""
        return TabularPolicy.from_tree(self.tree, self._sigma)

    def policy(self) -> TabularPolicy:
        """The average strategy: the strategy network trained on the strategy memory,
        tabularised over the tree (uniform before any iteration); cached per iteration, and
        computing it does not change the run (``_average_net``)."""
        if self._policy_cache is not None and self._policy_cache[0] == self._iteration:
            return self._policy_cache[1]
        net = self._average_net()
        if net is None:
            result = TabularPolicy.uniform(self.tree)
        else:
            with torch.no_grad():
                probs = torch.softmax(net.policy_logits(self._tensors, self._masks), dim=-1)
            result = TabularPolicy.from_tree(self.tree, probs.cpu().numpy().astype(np.float64))
        self._policy_cache = (self._iteration, result)
        return result


def make_preset(preset: str, game: Game, seed: int = 0, *, workers: int = 1,
                executor: Executor | None = None, **params: Any) -> DeepCFRBase:
    """The registry's agent ``preset`` (a key of ``DEEP_CFR_PRESETS``), ``params`` overriding
    its config fields: ``DeepCFR`` where the game's tree fits (``tree_fits``), else
    ``StateDeepCFR``; ``workers``/``executor`` as they take them.

    >>> from pokerzoo import load_game
    >>> type(make_preset("deep-cfr", load_game("no_limit_holdem"), device="cpu")).__name__
    'StateDeepCFR'
    """
    if preset not in DEEP_CFR_PRESETS:
        raise unknown_name("Deep CFR preset", preset, DEEP_CFR_PRESETS)
    base = dataclasses.asdict(DEEP_CFR_PRESETS[preset])
    config = DeepCFRConfig.from_params(**{**base, **params})
    version = DeepCFR if tree_fits(game) else StateDeepCFR
    return version(game, config, seed=seed, workers=workers, executor=executor)
