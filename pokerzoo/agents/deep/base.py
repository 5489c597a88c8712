"""What every deep agent shares: the run-only config fields, checkpoint checks, the traversal
and policy faces, and ``DeepAgent`` (the run's attributes and its start on a compiled tree or
on sampled traversals).

The deep modules import downward only: ``base`` (this module), ``network``, ``kernels`` and
the traversal modules import no agent; ``deep_cfr_base``/``deep_gxfp_base`` hold each
method's learning; the tree versions (``deep_cfr``, ``deep_gxfp``) and the state versions
(``state_deep_cfr``, ``state_gxfp``) build on those, and each family's ``make_preset`` (in the
tree version's module, the agent table's entry point) picks the version by ``tree_fits``.

>>> from pokerzoo import load_game
>>> tree_fits(load_game("leduc_holdem")), tree_fits(load_game("no_limit_holdem"))
(True, False)
"""

from __future__ import annotations

import contextlib
import dataclasses
from abc import abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

import numpy as np
import torch

from pokerzoo.agents.base import Agent, check_units
from pokerzoo.components.networks import torch_threads
from pokerzoo.config import check, with_overrides
from pokerzoo.errors import CheckpointError, ConfigError, TreeTooLargeError
from pokerzoo.games.base import Game, State
from pokerzoo.parallel import Executor, check_workers
from pokerzoo.tree import build
from pokerzoo.tree.kernels.arrays import tree_arrays


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


RUN_ONLY = tuple(f.name for f in dataclasses.fields(DeepRunFields))
"""Config fields a checkpoint may differ in: where and how the agent runs, not what it is."""

MAX_TREE_NODES = 20_000_000
"""Trees up to this many histories are compiled (``tree.build``'s default); larger games
traverse states."""


def tree_fits(game: Game, max_nodes: int = MAX_TREE_NODES) -> bool:
    """Whether ``game``'s tree has at most ``max_nodes`` histories (judged from the game's
    estimate, in microseconds for hold'em; a game without an estimate is assumed to fit)."""
    estimate = game.estimated_tree_size(max_nodes)
    return estimate is None or estimate <= max_nodes


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


def check_saved_game(saved: Mapping[str, Any], game: Game) -> None:
    """Refuse a checkpoint (its ``"game"`` entry, ``saved``) of another game.

    Raises:
        CheckpointError: naming both games.
    """
    ours = {"name": game.name, "params": game.params()}
    if dict(saved) != ours:
        raise CheckpointError(f"checkpoint is of game {dict(saved)}, this agent plays {ours}")


def configured(config: Any, default: type, overrides: Mapping[str, Any]) -> Any:
    """``config`` (``default()`` when None) with ``overrides`` replacing its fields, checked
    by ``pokerzoo.config.with_overrides`` as ``make_agent`` checks them (one ``ConfigError``
    line naming a wrong field, or an unknown one with the valid ones)."""
    return with_overrides(default, config, overrides)


def resolve_device(device: str) -> torch.device:
    """``"auto"``: CUDA when available, else CPU; anything else as torch reads it."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def regret_matching(advantages: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Rows proportional to the positive advantages over legal actions; the argmax legal
    action (first on ties) where no advantage is positive."""
    positive = np.where(mask, np.maximum(advantages, 0.0), 0.0)
    total = positive.sum(axis=1, keepdims=True)
    best = np.argmax(np.where(mask, advantages, -np.inf), axis=1)
    argmax = np.zeros_like(positive)
    argmax[np.arange(len(best)), best] = 1.0
    return np.where(total > 0, positive / np.where(total > 0, total, 1.0), argmax)


@runtime_checkable
class DeepPolicy(Protocol):
    """What every deep agent's ``policy()`` (and ``current_policy()``) hands out: a state
    policy. The tree versions hand out a ``TabularPolicy`` (scored exactly as it is), the
    state versions a ``NetworkStatePolicy`` (played in matches and by LBR, and tabularised by
    ``evaluation.tabularize`` on a game whose tree fits); evaluators need nothing else."""

    def action_probabilities(
        self, state: State, player: int | None = None
    ) -> Mapping[int, float]: ...


StrategyT = TypeVar("StrategyT", contravariant=True)
SamplesT = TypeVar("SamplesT", covariant=True)


class Traversal(Protocol[StrategyT, SamplesT]):
    """External-sampling traversals of one player, an object the agent holds (chosen once,
    when it is built): over a compiled tree reading a strategy table
    (``traversal.TreeTraversal``), or over game states or hold'em array rows asking a
    batched strategy function (``state_traversal.SampledTraversal``)."""

    @property
    def nodes_touched(self) -> int:
        """Nodes visited by the traversals run in this process so far (not checkpointed)."""
        ...

    def __call__(self, strategy: StrategyT, player: int, count: int,
                 rng: np.random.Generator, /) -> SamplesT:
        """``count`` traversals of ``player`` under ``strategy``, drawn from ``rng``."""
        ...


class DeepAgent(Agent):
    """What Deep CFR and Deep GXFP (tree and state versions) share: the run's attributes,
    set by ``_start_run``, then ``_start_tree`` (a compiled tree) or ``_start_states``
    (traversals of states or array rows); the iterate loop under the config's threads."""

    config: Any
    game: Game
    seed: int
    rng: np.random.Generator
    device: torch.device
    workers: int
    executor: Executor | None
    tree: Any
    """The compiled ``GameTree``, or None for agents traversing states."""
    traversal: Traversal[Any, Any]
    """The traversals the agent runs (see ``Traversal``)."""
    num_players: int
    num_actions: int
    _iteration: int
    _layout: Any
    _arrays: Any
    _player_isets: list[np.ndarray]

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

    def _start_tree(self, instead: str) -> Any:
        """Compile the game's tree, with its kernel arrays and sizes (returns the tree).

        Raises:
            TreeTooLargeError: the tree does not fit (``tree_fits``), naming ``instead``, the
                class that traverses states.
        """
        if not tree_fits(self.game):
            raise TreeTooLargeError(
                f"{type(self).__name__} walks the compiled tree and {self.game.name}'s has more "
                f"than {MAX_TREE_NODES:,} histories; build {instead} for it, or "
                f"make_agent({self.name!r}, game), which picks the version by the game's size",
                estimated_nodes=self.game.estimated_tree_size(MAX_TREE_NODES),
            )
        tree = self.tree = build(self.game)
        self._arrays = tree_arrays(tree)
        self.num_players, self.num_actions = tree.num_players, tree.num_actions
        self._player_isets = [tree.infosets_of(p) for p in range(tree.num_players)]
        return tree

    def _start_states(self, game: Game, seed: int, workers: int, executor: Executor | None,
                      frontier: int, traversal: Callable[[Game, str, int], Any]) -> None:
        """``_start_run`` for an agent traversing states or array rows: one worker (the
        traversals run in this process), ``frontier`` traversals advanced together, the
        traversal ``traversal(game, backend, frontier)`` for the config's backend (which
        refuses a backend the game lacks), and no compiled tree."""
        if check_workers(workers) != 1:
            raise ConfigError(f"state traversals run in this process: workers must be 1, got "
                              f"{workers}")
        check(frontier >= 1, "frontier", ">= 1", frontier)
        self.traversal = traversal(game, self.config.traversal_backend, int(frontier))
        self._start_run(game, seed, 1, executor)
        self.tree = None  # no compiled tree: that is the point
        self.num_players, self.num_actions = game.num_players, game.num_distinct_actions

    @property
    def nodes_touched(self) -> int:
        """Nodes (tree nodes, or decision and terminal states) visited by the traversals run
        in this process so far (not part of checkpoints): the cost measure of the Deep CFR
        and DREAM papers."""
        return self.traversal.nodes_touched

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations (see ``_iterate_once``), torch's threads as the config says."""
        n = check_units(n)
        with self._threads():
            for _ in range(n):
                self._iterate_once()

    @abstractmethod
    def _iterate_once(self) -> None:
        """One iteration of the method."""

    @abstractmethod
    def policy(self) -> DeepPolicy:
        """The average strategy, as evaluators score it (see ``DeepPolicy``)."""

    @abstractmethod
    def current_policy(self) -> DeepPolicy:
        """The strategy the next traversals read (see ``DeepPolicy``)."""

    def _threads(self) -> contextlib.AbstractContextManager[None]:
        """torch's CPU threads as ``config.torch_threads`` says, for a block of training."""
        count = self.config.torch_threads
        return torch_threads(count) if count else contextlib.nullcontext()
