"""Deep GXFP (V. Giordano, "Deep GXFP", April 2024) on games whose tree fits.

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

import dataclasses
from typing import Any

import numpy as np

from pokerzoo.agents.deep.base import configured, tree_fits
from pokerzoo.agents.deep.deep_gxfp_base import (
    DEEP_GXFP_PRESETS,
    EARLIER_DEEP_GXFP,
    DeepGXFPBase,
    DeepGXFPConfig,
    Learner,
    UtilitySamples,
    fold_rows,
)
from pokerzoo.agents.deep.state_gxfp import StateDeepGXFP
from pokerzoo.agents.deep.traversal import TreeTraversal, traverser_rows
from pokerzoo.entry_points import unknown_name
from pokerzoo.games.base import Game
from pokerzoo.parallel import Executor
from pokerzoo.tree.tabular_policy import TabularPolicy

__all__ = [
    "DEEP_GXFP_PRESETS",
    "EARLIER_DEEP_GXFP",
    "DeepGXFP",
    "DeepGXFPConfig",
    "Learner",
    "UtilitySamples",
    "fold_rows",
    "make_preset",
]


class DeepGXFP(DeepGXFPBase):
    """Deep GXFP over a compiled tree; one ``iterate`` unit is one iteration (both players).

    Args:
        game: a game whose tree fits in memory (``base.tree_fits``).
        config: a ``DeepGXFPConfig``; keyword ``overrides`` replace its fields.
        seed: seed of the agent's ``numpy.random.Generator`` (traversals, initialisations,
            mini-batches and the memories all derive from it).
        workers: traversal workers: N > 1 cuts each player's traversals into N shares, each
            from a seed drawn from the agent's generator (reproducible for a fixed N).
        executor: where the shares run (a ``pokerzoo.parallel.Executor``; default here).

    Raises:
        TreeTooLargeError: the game's tree does not fit; ``StateDeepGXFP`` traverses its
            states.
    """

    traversal: TreeTraversal

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
        tree = self._start_tree("StateDeepGXFP (pokerzoo.agents.deep.state_gxfp)")
        self._x = tree.information_state_tensors
        self._mask = np.array(tree.infoset_mask, dtype=bool)
        self._sigma = self._mask / self._mask.sum(axis=1, keepdims=True)
        self.traversal = TreeTraversal(self._arrays, self.num_actions, self.config.traversals,
                                       self.workers, self.executor, utilities=True)
        self._init_learning()

    def sample_utilities(self, player: int, traversals: int) -> UtilitySamples:
        """``traversals`` traversals of ``player`` over the tree under the strategy table:
        each visited information set's tensor and mask, and the sampled action utilities."""
        iset, utility = traverser_rows(self.traversal(self._sigma, player, traversals, self.rng))
        return self._x[iset], self._mask[iset], utility.astype(np.float32)

    def _refresh_table(self, p: int) -> None:
        """Player p's rows of the strategy table from the strategy network."""
        isets = self._player_isets[p]
        sigma = self._sigma.copy()
        sigma[isets] = self.strategy_probs(self._x[isets], self._mask[isets])
        self._sigma = sigma

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



def make_preset(preset: str, game: Game, seed: int = 0, *, workers: int = 1,
                executor: Executor | None = None, **params: Any) -> DeepGXFPBase:
    """The registry's agent ``preset`` (a key of ``DEEP_GXFP_PRESETS``), ``params`` overriding
    its config fields: ``DeepGXFP`` where the game's tree fits (``tree_fits``), else
    ``StateDeepGXFP``; ``workers``/``executor`` as they take them."""
    if preset not in DEEP_GXFP_PRESETS:
        raise unknown_name("Deep GXFP preset", preset, DEEP_GXFP_PRESETS)
    base = dataclasses.asdict(DEEP_GXFP_PRESETS[preset])
    config = DeepGXFPConfig.from_params(**{**base, **params})
    version = DeepGXFP if tree_fits(game) else StateDeepGXFP
    return version(game, config, seed=seed, workers=workers, executor=executor)
