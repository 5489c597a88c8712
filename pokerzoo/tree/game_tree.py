"""Compile a game into flat arrays: every history a row, ordered by depth.

Solvers and evaluators sweep these arrays with vectorised or compiled loops (see
``pokerzoo.evaluation.exact`` and ``pokerzoo.agents.cfr``) instead of walking ``State`` objects.
Because the rows are in breadth-first order, every node's children are contiguous and come after
it, so one forward sweep computes reach probabilities and one reverse sweep computes values.

Trees are immutable: the dataclass is frozen, every array is read-only once the tree exists
(solvers copy what they update), and derived data (``sequence_form``, ``infoset_sizes``) lives
in ``functools.cached_property``s built on first use. Trees of one unknown-environment base game
share their structure arrays, which is safe only because nobody can write them.

Unknown-environment games (``pokerzoo.games.unknown``): ``build(game)`` compiles the model an
agent believes (the agent view's, by default the prior mean), never the hidden true model d*
implicitly; evaluators compile d* with ``build(game, model=true_model_of(game))`` (that is
``pokerzoo.evaluation.unknown.true_model_tree``).
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np

from pokerzoo.errors import ConfigError, TreeTooLargeError
from pokerzoo.games.base import CHANCE, TERMINAL, Game, State, check_tree_size
from pokerzoo.games.unknown.game import UnknownGameBase

if TYPE_CHECKING:
    from pokerzoo.tree.sequence_form import SequenceForm


@dataclass(frozen=True, eq=False)
class GameTree:
    """A game compiled into flat numpy arrays (build it with ``pokerzoo.tree.build``).

    Node arrays (length ``num_nodes``, breadth-first, root at 0):
        parent: parent row (-1 for the root).
        depth: number of actions from the root.
        player: acting player, ``CHANCE`` (-1) or ``TERMINAL`` (-4).
        infoset: information-set id at decision nodes, -1 elsewhere.
        action: the action that led here from the parent (-1 for the root).
        chance_prob: probability of that action when the parent is a chance node, else 1.
        utilities: ``[num_nodes, num_players]`` payoffs at terminals (zeros elsewhere).
        first_child, num_children: children occupy ``first_child .. first_child+num_children-1``.
    Information-set arrays (length ``num_infosets``):
        infoset_player, infoset_mask (``[num_infosets, num_actions]`` bool of legal actions),
        infoset_node (one history in the set), infoset_depth, infoset_keys.

    Every array is read-only (``flags.writeable`` is False) and the tree is frozen; copy an
    array before changing it.
    """

    game: Game
    num_players: int
    num_actions: int
    parent: np.ndarray
    depth: np.ndarray
    player: np.ndarray
    infoset: np.ndarray
    action: np.ndarray
    chance_prob: np.ndarray
    utilities: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    depth_offsets: np.ndarray
    infoset_player: np.ndarray
    infoset_mask: np.ndarray
    infoset_node: np.ndarray
    infoset_depth: np.ndarray
    infoset_keys: list[Hashable]
    key_to_infoset: dict[Hashable, int] = field(repr=False)
    model: Any = None

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.ndarray):
                value.flags.writeable = False

    @property
    def num_nodes(self) -> int:
        return len(self.parent)

    @functools.cached_property
    def sequence_form(self) -> SequenceForm:
        """The tree's ``SequenceForm``, built on first use and kept (the tree is not mutated)."""
        from pokerzoo.tree.sequence_form import sequence_form

        return sequence_form(self)

    @functools.cached_property
    def infoset_sizes(self) -> np.ndarray:
        """``[num_infosets]``: the number of histories in each information set (read-only)."""
        decision = self.infoset[self.player >= 0]
        sizes = np.bincount(decision, minlength=self.num_infosets).astype(np.float64)
        sizes.flags.writeable = False
        return sizes

    @functools.cached_property
    def information_state_tensors(self) -> np.ndarray:
        """``[num_infosets, *information_state_shape]`` float32 (read-only): each information
        set's tensor, as its player sees one state of it (``infoset_state``): the inputs a
        network policy answers for the whole table, replayed once and kept."""
        tensors = np.stack([
            self.infoset_state(i).information_state_tensor(int(self.infoset_player[i]))
            for i in range(self.num_infosets)
        ]).astype(np.float32)
        tensors.flags.writeable = False
        return tensors

    @property
    def num_infosets(self) -> int:
        return len(self.infoset_player)

    @property
    def num_terminals(self) -> int:
        return int(np.count_nonzero(self.player == TERMINAL))

    def history(self, node: int) -> list[int]:
        """The action sequence from the root to ``node``."""
        actions = []
        while node > 0:
            actions.append(int(self.action[node]))
            node = int(self.parent[node])
        return actions[::-1]

    def state(self, node: int) -> State:
        """The game state of ``node`` in the tree's game, rebuilt by replaying its history."""
        return _replay(self.game.new_initial_state(), self.history(node))

    def infoset_state(self, infoset: int) -> State:
        """One state of information set ``infoset``, as a policy may see it: for
        unknown-environment games a state of the agent's view (same history and information,
        the believed model's numbers), so asking a policy never hands it d*."""
        view = getattr(self.game, "agent_view", None)
        game = view() if view is not None else self.game
        return _replay(game.new_initial_state(), self.history(int(self.infoset_node[infoset])))

    def infoset_id(self, key: Hashable) -> int:
        """The id of the information set with this key (``KeyError`` with a hint otherwise)."""
        try:
            return self.key_to_infoset[key]
        except KeyError:
            raise KeyError(
                f"information state {key!r} is not in the tree of {self.game!r}"
            ) from None

    def infosets_of(self, player: int) -> np.ndarray:
        """Ids of ``player``'s information sets."""
        return np.flatnonzero(self.infoset_player == player)

    def summary(self) -> dict[str, int]:
        """Sizes: histories, terminals, chance nodes, decision nodes, information sets."""
        return {
            "histories": self.num_nodes,
            "terminals": self.num_terminals,
            "chance_nodes": int(np.count_nonzero(self.player == CHANCE)),
            "decision_nodes": int(np.count_nonzero(self.player >= 0)),
            "infosets": self.num_infosets,
        }


def _replay(state: State, history: list[int]) -> State:
    for a in history:
        state.apply_action(a)
    return state


def build(game: Game, model: Any = None, max_nodes: int = 20_000_000) -> GameTree:
    """Compile ``game`` into a ``GameTree``.

    Args:
        game: any game of the protocol whose tree fits in memory.
        model: for unknown-environment games, the environment model to compile (chance
            probabilities and expected rewards). ``None`` compiles what an agent believes: the
            model of ``game.agent_view()`` (the prior mean; for an ``AgentGameView``, its own
            believed model), never d*. Evaluators pass ``model=true_model_of(game)``.
        max_nodes: refuse trees larger than this (hold'em does not fit).

    An unknown-environment game walks its states once per base game; the tree of any other
    model (or of a resampled d*) then only takes that model's chance probabilities and expected
    rewards (about 0.2 ms for Leduc against 60 ms for a walk). Such trees share their structure
    arrays, so treat trees as read-only.

    Raises:
        TreeTooLargeError: if the tree has more than ``max_nodes`` histories: judged before
            anything is built from ``game.estimated_tree_size`` (hold'em: in microseconds),
            else found during the walk.
        ValueError: if an information set spans depths.
    """
    check_tree_size(game, max_nodes)
    if game.game_type.hidden_model:
        return _build_unknown(cast(UnknownGameBase, game), model, max_nodes)
    if model is not None:
        raise ConfigError(
            f"model= is for unknown-environment games; {game!r} has no environment model"
        )
    return _build_from_states(game, None, max_nodes)


def _build_unknown(game: UnknownGameBase, model: Any, max_nodes: int) -> GameTree:
    """Unknown-environment games: every model has the same histories, so the states are walked
    once per base game and each model only fills in its numbers."""
    # Without a model: the agent's view, whose states deal with what it believes (never d*).
    game = game.agent_view() if model is None else game.with_model(model)  # type: ignore[attr-defined]
    structure = game.structure
    template = _MODEL_TEMPLATES.get(structure)
    if template is None:
        # Walked on a prior-mean view, so the cached template leads to no environment's d*.
        walked = game.agent_view(game.prior_mean_model, "prior mean")  # type: ignore[attr-defined]
        template = _ModelTemplate(_build_from_states(walked, None, max_nodes), structure)
        _MODEL_TEMPLATES[structure] = template
    return template.tree_for(game, model)


def _build_from_states(game: Game, model: Any, max_nodes: int) -> GameTree:
    """Walk ``game``'s states breadth-first and record every history (``build``'s slow path)."""
    n_players = game.num_players
    n_actions = game.num_distinct_actions

    parent: list[int] = [-1]
    depth: list[int] = [0]
    player: list[int] = []
    infoset: list[int] = []
    action: list[int] = [-1]
    chance_prob: list[float] = [1.0]
    first_child: list[int] = []
    num_children: list[int] = []
    utilities: dict[int, list[float]] = {}
    key_to_infoset: dict[Hashable, int] = {}
    infoset_keys: list[Hashable] = []
    infoset_player: list[int] = []
    infoset_masks: list[np.ndarray] = []
    infoset_node: list[int] = []
    infoset_depth: list[int] = []

    frontier: list[State] = [game.new_initial_state()]
    index = 0
    while index < len(frontier):
        state = frontier[index]
        frontier[index] = None  # type: ignore[call-overload]  # free memory as we go
        p = state.current_player()
        player.append(p)
        first_child.append(len(parent))
        if p == TERMINAL:
            infoset.append(-1)
            num_children.append(0)
            utilities[index] = list(state.returns())
        elif p == CHANCE:
            infoset.append(-1)
            outcomes = state.chance_outcomes()
            num_children.append(len(outcomes))
            for a, prob in outcomes:
                _add_child(state, a, prob, index, frontier, parent, depth, action, chance_prob)
        else:
            key = state.information_state_key(p)
            legal = state.legal_actions()
            iid = key_to_infoset.get(key)
            if iid is None:
                iid = len(infoset_keys)
                key_to_infoset[key] = iid
                infoset_keys.append(key)
                infoset_player.append(p)
                mask = np.zeros(n_actions, dtype=bool)
                mask[legal] = True
                infoset_masks.append(mask)
                infoset_node.append(index)
                infoset_depth.append(depth[index])
            elif infoset_depth[iid] != depth[index] or infoset_player[iid] != p:
                raise ConfigError(
                    f"information set {key!r} spans depths or players; the compiled tree needs "
                    "every history of an information set at one depth"
                )
            infoset.append(iid)
            num_children.append(len(legal))
            for a in legal:
                _add_child(state, a, 1.0, index, frontier, parent, depth, action, chance_prob)
        if len(parent) > max_nodes:
            raise TreeTooLargeError(
                f"{game!r} has more than {max_nodes:,} histories, too many for a compiled tree; "
                "use sampled evaluation instead (matches, local best response)",
                estimated_nodes=len(parent),
            )
        index += 1

    n = len(parent)
    util = np.zeros((n, n_players), dtype=np.float64)
    for node, values in utilities.items():
        util[node] = values
    depth_arr = np.asarray(depth, dtype=np.int32)
    depth_offsets = np.searchsorted(depth_arr, np.arange(depth_arr.max() + 2)).astype(np.int64)
    return GameTree(
        game=game,
        num_players=n_players,
        num_actions=n_actions,
        parent=np.asarray(parent, dtype=np.int64),
        depth=depth_arr,
        player=np.asarray(player, dtype=np.int32),
        infoset=np.asarray(infoset, dtype=np.int64),
        action=np.asarray(action, dtype=np.int64),
        chance_prob=np.asarray(chance_prob, dtype=np.float64),
        utilities=util,
        first_child=np.asarray(first_child, dtype=np.int64),
        num_children=np.asarray(num_children, dtype=np.int64),
        depth_offsets=depth_offsets,
        infoset_player=np.asarray(infoset_player, dtype=np.int32),
        infoset_mask=np.asarray(infoset_masks, dtype=bool).reshape(-1, n_actions),
        infoset_node=np.asarray(infoset_node, dtype=np.int64),
        infoset_depth=np.asarray(infoset_depth, dtype=np.int32),
        infoset_keys=infoset_keys,
        key_to_infoset=key_to_infoset,
        model=model,
    )


def _add_child(
    state: State,
    a: int,
    prob: float,
    index: int,
    frontier: list[State],
    parent: list[int],
    depth: list[int],
    action: list[int],
    chance_prob: list[float],
) -> None:
    # The actions come from the state's own legal actions / chance outcomes, so the
    # validation in apply_action would only repeat that work.
    child = state.clone()
    child._apply(a)
    frontier.append(child)
    parent.append(index)
    depth.append(depth[index] + 1)
    action.append(a)
    chance_prob.append(prob)


class _ModelTemplate:
    """The histories of an unknown-environment game, and where each model's numbers go.

    ``chance_children[k]`` is the node reached by chance edge ``slots[k]`` of the model
    structure, ``terminals[k]`` the node of terminal index ``terminal_ids[k]``.
    """

    def __init__(self, tree: GameTree, structure: Any) -> None:
        self.tree = tree
        histories: list[tuple[int, ...]] = [()]
        for node in range(1, tree.num_nodes):
            histories.append((*histories[tree.parent[node]], int(tree.action[node])))
        parent_player = np.full(tree.num_nodes, TERMINAL, dtype=np.int64)
        parent_player[1:] = tree.player[tree.parent[1:]]
        self.chance_children = np.flatnonzero(parent_player == CHANCE)
        self.slots = np.array(
            [structure.edge_index[histories[n]] for n in self.chance_children], dtype=np.int64
        )
        self.terminals = np.flatnonzero(tree.player == TERMINAL)
        self.terminal_ids = np.array(
            [structure.terminal_index[histories[n]] for n in self.terminals], dtype=np.int64
        )

    def tree_for(self, game: Any, model: Any) -> GameTree:
        """The tree of ``game`` with the numbers of the model its states deal and pay with."""
        numbers = game._model  # the model of the game's states (d* only if the caller chose it)
        chance_prob = self.tree.chance_prob.copy()
        chance_prob[self.chance_children] = numbers.chance_probs[self.slots]
        utilities = np.zeros_like(self.tree.utilities)
        utilities[self.terminals] = numbers.expected_returns[self.terminal_ids]
        # The structure arrays are shared between the trees of one base game: they are
        # read-only, so no tree can change another's.
        return dataclasses.replace(
            self.tree, game=game, chance_prob=chance_prob, utilities=utilities, model=model
        )


_MODEL_TEMPLATES: weakref.WeakKeyDictionary[Any, _ModelTemplate] = weakref.WeakKeyDictionary()


class ModelMaps(NamedTuple):
    """Where a model's numbers sit in the tree of an unknown-environment game.

    ``chance_children[k]`` is the row reached by chance edge (slot) ``slots[k]`` of the
    game's ``ModelStructure``; ``terminals[k]`` is the row of terminal index
    ``terminal_ids[k]``. Every tree of one base game (any model) has these rows.
    """

    chance_children: np.ndarray
    slots: np.ndarray
    terminals: np.ndarray
    terminal_ids: np.ndarray


def model_maps(tree: GameTree) -> ModelMaps:
    """The ``ModelMaps`` of ``tree``, a tree of an unknown-environment game.

    Raises:
        ConfigError: if ``tree`` is not the tree of an unknown-environment game.
    """
    if not tree.game.game_type.hidden_model:
        raise ConfigError(
            f"model_maps needs the tree of an unknown-environment game, got {tree.game!r}"
        )
    game = cast(UnknownGameBase, tree.game)
    template = _MODEL_TEMPLATES.get(game.structure)
    if template is None:
        build(game.agent_view())  # type: ignore[attr-defined]
        template = _MODEL_TEMPLATES[game.structure]
    return ModelMaps(template.chance_children, template.slots, template.terminals,
                     template.terminal_ids)
