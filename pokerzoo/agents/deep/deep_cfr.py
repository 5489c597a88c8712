"""Deep CFR (Brown, Lerer, Gross, Sandholm 2019) on games whose tree fits (Kuhn, Leduc).

Per iteration t and per player p: ``traversals`` external-sampling traversals of p over the
compiled tree (``kernels.external_traversals``), reading a strategy table computed once per
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

>>> from pokerzoo import load_game
>>> agent = DeepCFR(load_game("kuhn_poker"), seed=0)
>>> agent.iterate(1)
>>> agent.iteration
1
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
from abc import abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch

from pokerzoo.agents.base import Agent, check_units
from pokerzoo.agents.deep import kernels as K
from pokerzoo.agents.deep.network import CardBettingNet
from pokerzoo.agents.deep.traversal import Samples, traversal_shares
from pokerzoo.components.networks import torch_threads
from pokerzoo.components.replay import ReservoirBuffer
from pokerzoo.config import check, from_mapping, normalise
from pokerzoo.entry_points import unknown_name
from pokerzoo.errors import CheckpointError, ConfigError
from pokerzoo.games.base import Game
from pokerzoo.parallel import Executor, check_workers
from pokerzoo.tree import build
from pokerzoo.tree.kernels.arrays import tree_arrays
from pokerzoo.tree.tabular_policy import TabularPolicy


@dataclass(frozen=True)
class DeepRunFields:
    """The config fields of a deep agent that say where and how it runs, not what it
    computes: a checkpoint may differ in them (``RUN_ONLY``)."""

    device: str = "auto"
    """``"auto"`` (CUDA when available), ``"cpu"`` or a torch device string."""
    torch_threads: int = 1
    """torch's CPU threads while the agent trains (restored after; 0 leaves torch's setting).
    The networks are small, so one thread is fastest on CPU and does not fight other jobs:
    three ``leduc-fast`` iterations took 23 CPU s with one thread and 136 with torch's
    default beside another job."""
    traversal_backend: Literal["auto", "arrays", "states"] = "auto"
    """How traversals run where no tree is compiled (hold'em): ``"arrays"`` as batches of
    ``HoldemArrays`` rows (``array_traversal``, hold'em only), ``"states"`` as ``State``
    objects (``state_traversal``, any game), ``"auto"`` arrays for hold'em, else states. The
    samples are the same in distribution; arrays are several times faster. Like ``device`` it
    is not part of a checkpoint's identity."""

    def __post_init__(self) -> None:
        check(self.torch_threads >= 0, "torch_threads", ">= 0", self.torch_threads)


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
        check(self.torch_threads >= 0, "torch_threads", ">= 0", self.torch_threads)

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


RUN_ONLY = tuple(f.name for f in dataclasses.fields(DeepRunFields))
"""Config fields a checkpoint may differ in: where and how the agent runs, not what it is."""

EARLIER_DEEP_CFR = {"batch_mode": "sample", "lr_schedule": "constant"}
"""Fields added to ``DeepCFRConfig`` after checkpoints were written, with what the agent did
before they existed: an older checkpoint without them means these values."""


def check_saved_config(
    saved: Mapping[str, Any], config: Any, earlier: Mapping[str, Any],
    canonical: Callable[[dict[str, Any]], dict[str, Any]] = dict,
) -> None:
    """Refuse a checkpoint whose config is not ``config`` (a deep agent's dataclass).

    Fields in ``RUN_ONLY`` may differ. A field the checkpoint lacks was added after it was
    written and takes its ``earlier`` value (what the code did then), so a run started
    before a field existed resumes when its behaviour is unchanged and is refused, naming
    the field, when it is not. Both sides pass through ``canonical`` (an agent's resolution
    of values such as ``"auto"``) before they are compared.

    Raises:
        CheckpointError: naming the fields that differ and both values of each.
    """
    ours = {k: v for k, v in dataclasses.asdict(config).items() if k not in RUN_ONLY}
    theirs = {**earlier, **{k: v for k, v in dict(saved).items() if k not in RUN_ONLY}}
    ours, theirs = canonical(ours), canonical(theirs)
    differ = sorted(k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k))
    if differ:
        shown = "; ".join(f"{k}: checkpoint {theirs.get(k, '(absent)')!r}, agent "
                          f"{ours.get(k, '(absent)')!r}" for k in differ)
        raise CheckpointError(
            f"the checkpoint's config differs from this agent's ({shown}); build the agent "
            "with the checkpoint's values to resume it"
        )


def configured(config: Any, default: Callable[[], Any], overrides: Mapping[str, Any]) -> Any:
    """``config`` (``default()`` when None) with ``overrides`` replacing its fields."""
    base = config if config is not None else default()
    return dataclasses.replace(base, **overrides) if overrides else base


def new_for_game(
    cls: type, base: type, state_class: Callable[[], type], args: tuple, kwargs: Mapping
) -> Any:
    """``__new__`` of a deep agent: ``base`` built on a game whose tree does not fit (hold'em)
    becomes its state-traversal subclass ``state_class()``; copies and loads pass no game."""
    game = args[0] if args else kwargs.get("game")
    if cls is base and game is not None:
        from pokerzoo.agents.deep.state_traversal import tree_fits

        if not tree_fits(game):
            return object.__new__(state_class())
    return object.__new__(cls)


def resolve_device(device: str) -> torch.device:
    """``"auto"``: CUDA when available, else CPU; anything else as torch reads it."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def infoset_tensors(tree: Any) -> np.ndarray:
    """``[num_infosets, size]`` float32: each information set's tensor, from its player's
    view of a state in it (the networks' inputs, computed once)."""
    return np.stack([
        tree.infoset_state(i).information_state_tensor(int(tree.infoset_player[i]))
        for i in range(tree.num_infosets)
    ]).astype(np.float32)


def regret_matching(advantages: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Rows proportional to the positive advantages over legal actions; the argmax legal
    action (first on ties) where no advantage is positive."""
    positive = np.where(mask, np.maximum(advantages, 0.0), 0.0)
    total = positive.sum(axis=1, keepdims=True)
    best = np.argmax(np.where(mask, advantages, -np.inf), axis=1)
    argmax = np.zeros_like(positive)
    argmax[np.arange(len(best)), best] = 1.0
    return np.where(total > 0, positive / np.where(total > 0, total, 1.0), argmax)


class DeepAgent(Agent):
    """What Deep CFR and Deep GXFP (and their state-traversal versions) share: the run's
    attributes, set by ``_start_run``, and with a compiled tree ``_start_tree``."""

    config: Any
    game: Game
    seed: int
    rng: np.random.Generator
    device: torch.device
    workers: int
    executor: Executor | None
    tree: Any
    """The compiled ``GameTree``, or None for agents traversing states."""
    num_players: int
    num_actions: int
    _iteration: int
    _layout: Any
    _arrays: Any
    _player_isets: list[np.ndarray]
    frontier: int
    """Traversals advanced together (agents traversing states or array rows)."""

    def _start_run(self, game: Game, seed: int, workers: int,
                   executor: Executor | None) -> None:
        """Set what every deep agent starts with, its ``config`` already built: the game,
        seed and generator, device, workers and executor, and iteration 0."""
        self.workers = check_workers(workers)
        self.executor = executor
        self.game = game
        self.seed = int(seed)
        self._iteration = 0
        self.device = resolve_device(self.config.device)
        self.rng = np.random.default_rng(seed)
        self._layout = game.information_state_layout

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations (see ``_iterate_once``), torch's threads as the config says."""
        n = check_units(n)
        with self._threads():
            for _ in range(n):
                self._iterate_once()

    @abstractmethod
    def _iterate_once(self) -> None:
        """One iteration of the method."""

    def _threads(self) -> contextlib.AbstractContextManager[None]:
        """torch's CPU threads as ``config.torch_threads`` says, for a block of training."""
        count = self.config.torch_threads
        return torch_threads(count) if count else contextlib.nullcontext()

    def _start_tree(self) -> Any:
        """Compile the game's tree, with its kernel arrays and sizes (returns the tree)."""
        tree = self.tree = build(self.game)
        self._arrays = tree_arrays(tree)
        self.num_players, self.num_actions = tree.num_players, tree.num_actions
        self._player_isets = [tree.infosets_of(p) for p in range(tree.num_players)]
        return tree


class DeepCFR(DeepAgent):
    """Deep CFR over a compiled tree; one ``iterate`` unit is one CFR iteration.

    Args:
        game: a game whose tree fits in memory.
        config: a ``DeepCFRConfig``; keyword ``overrides`` replace its fields.
        seed: seed of the agent's ``numpy.random.Generator`` (traversals, initialisations and
            the memories' sampling all derive from it).
        workers: traversal workers (``agents.deep.traversal``): 1 traverses here; N > 1 splits
            each player's traversals into N shares, each from its own seed drawn from the
            agent's generator, merged in share order (reproducible for a fixed N).
        executor: where the shares run (a ``pokerzoo.parallel.Executor``; default here).
    """

    name: str = "deep-cfr"

    def __new__(cls, *args: Any, **kwargs: Any) -> DeepCFR:
        # Hold'em gets the subclass that traverses batches of states and stores tensors.
        return new_for_game(cls, DeepCFR, _state_deep_cfr, args, kwargs)

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
        tree = self._start_tree()
        self._tensors = torch.as_tensor(infoset_tensors(tree), device=self.device)
        self._masks = torch.as_tensor(np.array(tree.infoset_mask), device=self.device)
        mem_rng = np.random.default_rng(self.rng.integers(2**63))
        fields = {
            "iset": ((), np.int64),
            "value": ((self.num_actions,), np.float32),
            "t": ((), np.float32),
        }
        self.advantage_memories = [
            ReservoirBuffer(self.config.advantage_memory, fields, seed=mem_rng)
            for _ in range(self.num_players)
        ]
        self.strategy_memory = ReservoirBuffer(self.config.strategy_memory, fields, seed=mem_rng)
        self.advantage_nets: list[CardBettingNet | None] = [None] * self.num_players
        self._sigma = tree.infoset_mask / tree.infoset_mask.sum(axis=1, keepdims=True)
        n, width = tree.num_nodes, max(self.num_actions, int(tree.num_children.max()))
        self._bound = K.samples_bound(tree)
        capacity = max(self._bound, min(self.config.traversals * self._bound, 1 << 18))
        self._work = (
            np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n),
            np.zeros(n, dtype=np.int64), np.zeros(width),
        )
        self._samples = (
            np.zeros(capacity, dtype=np.int64), np.zeros((capacity, self.num_actions)),
            np.zeros(capacity, dtype=np.int64), np.zeros((capacity, self.num_actions)),
        )
        self._policy_cache: tuple[int, TabularPolicy] | None = None
        self._nodes = np.zeros(1, dtype=np.int64)

    @property
    def nodes_touched(self) -> int:
        """Tree nodes visited by this process's traversals so far (``workers=1``; not part
        of checkpoints): the cost measure of the Deep CFR and DREAM papers."""
        return int(self._nodes[0])

    # Learning ---------------------------------------------------------------------------------

    def _new_net(self, rng: np.random.Generator) -> CardBettingNet:
        generator = torch.Generator().manual_seed(int(rng.integers(2**63)))
        net = CardBettingNet(self._layout, self.num_actions, self.config.width, generator)
        return net.to(self.device)

    def _traverse(self, p: int, t: int) -> None:
        if self.workers > 1:
            self._store_samples(p, t, traversal_shares(
                self.executor, self._arrays, self._sigma, p, self.config.traversals,
                self.workers, self.rng,
            ))
            return
        remaining = self.config.traversals
        while remaining > 0:
            done, n_r, n_s = K.external_traversals(
                self.rng, self._arrays, self._sigma, p, remaining, self._bound,
                *self._work, *self._samples, self._nodes,
            )
            remaining -= done
            r_iset, r_value, s_iset, s_value = self._samples
            self._store_samples(p, t, [(r_iset[:n_r], r_value[:n_r], s_iset[:n_s],
                                        s_value[:n_s])])

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

    def _train(
        self, memory: ReservoirBuffer, steps: int, rng: np.random.Generator, policy: bool
    ) -> CardBettingNet:
        """A network trained from scratch on ``memory``, each sample's loss weighted by its
        iteration t: squared error on advantages, or cross-entropy on strategies."""
        net = self._new_net(rng)
        optimiser = torch.optim.Adam(net.parameters(), lr=self.config.learning_rate)
        folded = type(self)._inputs is DeepCFR._inputs
        whole = None
        if self.config.batch_mode == "full_memory":
            if not folded:
                raise ConfigError(
                    "batch_mode 'full_memory' needs a game whose tree fits (its samples name "
                    f"tree information sets); {self.game.name} is traversed by states: use "
                    "batch_mode 'sample'"
                )
            whole = self._folded_memory(memory)
        for step in range(steps):
            if self.config.lr_schedule == "linear":
                for group in optimiser.param_groups:
                    group["lr"] = self.config.learning_rate * (1.0 - step / steps)
            if whole is not None:
                x, mask, t, target = whole
            else:
                batch = memory.gather(rng.integers(0, len(memory), size=self.config.batch_size))
                if folded:
                    x, mask, t, target = self._folded_batch(batch)
                else:
                    x, mask = self._inputs(batch)
                    target = torch.as_tensor(batch.value, device=self.device)
                    t = torch.as_tensor(batch.t, device=self.device)
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

    def _folded_memory(
        self, memory: ReservoirBuffer
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """The whole of ``memory`` folded onto its distinct information sets (``batch_mode
        "full_memory"``: one fold per training, every step's exact full-memory gradient)."""
        return self._folded_batch(memory.gather(np.arange(len(memory))))

    def _inputs(self, batch: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """A memory batch's network inputs and legal masks (here: rows of the infoset table)."""
        iset = torch.as_tensor(batch.iset, device=self.device)
        return self._tensors[iset], self._masks[iset]

    def _folded_batch(
        self, batch: Any
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
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

    # Policies ---------------------------------------------------------------------------------

    def current_policy(self) -> TabularPolicy:
        """Regret matching on the advantage networks (the strategy of the next iteration)."""
        return TabularPolicy.from_tree(self.tree, self._sigma)

    def policy(self) -> TabularPolicy:
        """The average strategy: the strategy network trained on the strategy memory,
        tabularised over the tree (uniform before any iteration).

        Training draws from a generator seeded by (seed, iteration), not from the agent's, so
        calling it does not change the run; the result is cached per iteration.
        """
        if self._policy_cache is not None and self._policy_cache[0] == self._iteration:
            return self._policy_cache[1]
        if len(self.strategy_memory) == 0:
            result = TabularPolicy.uniform(self.tree)
        else:
            rng = np.random.default_rng([self.seed, self._iteration, 1])
            with self._threads():
                net = self._train(self.strategy_memory, self.config.policy_steps, rng, True)
            with torch.no_grad():
                probs = torch.softmax(net.policy_logits(self._tensors, self._masks), dim=-1)
            result = TabularPolicy.from_tree(self.tree, probs.cpu().numpy().astype(np.float64))
        self._policy_cache = (self._iteration, result)
        return result

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
        game = {"name": self.game.name, "params": self.game.params()}
        if dict(state["game"]) != game:
            raise CheckpointError(
                f"checkpoint is of game {dict(state['game'])}, this agent plays {game}"
            )
        check_saved_config(state["config"], self.config, EARLIER_DEEP_CFR)
        sigma = np.asarray(state["sigma"], dtype=np.float64)
        if sigma.shape != self._sigma.shape:
            raise CheckpointError(f"strategy table {sigma.shape}, expected {self._sigma.shape}")
        nets: list[CardBettingNet | None] = []
        for saved_net in state["advantage_nets"]:
            if saved_net is None:
                nets.append(None)
                continue
            net = CardBettingNet(self._layout, self.num_actions, self.config.width)
            net.load_state_dict({k: torch.as_tensor(v) for k, v in saved_net.items()})
            nets.append(net.to(self.device))
        for memory, saved_memory in zip(
            self.advantage_memories, state["advantage_memories"], strict=True
        ):
            memory.load_state_dict(saved_memory)
        self.strategy_memory.load_state_dict(state["strategy_memory"])
        self.advantage_nets = nets
        self._sigma = sigma.copy()
        self.rng.bit_generator.state = copy.deepcopy(state["rng"])
        self._iteration = int(state["iteration"])
        self.seed = int(state["seed"])
        self._policy_cache = None


def make_preset(preset: str, game: Game, seed: int = 0, *, workers: int = 1,
                executor: Executor | None = None, **params: Any) -> DeepCFR:
    """The registry's agent ``preset`` (a key of ``DEEP_CFR_PRESETS``), ``params`` overriding
    its config fields; ``workers``/``executor`` as ``DeepCFR`` takes them."""
    if preset not in DEEP_CFR_PRESETS:
        raise unknown_name("Deep CFR preset", preset, DEEP_CFR_PRESETS)
    base = dataclasses.asdict(DEEP_CFR_PRESETS[preset])
    return DeepCFR(game, DeepCFRConfig.from_params(**{**base, **params}), seed=seed,
                   workers=workers, executor=executor)


def _state_deep_cfr() -> type:
    from pokerzoo.agents.deep.state_traversal import StateDeepCFR

    return StateDeepCFR
