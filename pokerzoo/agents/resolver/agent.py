"""``resolver``: the continual re-solving agent (DeepStack's loop) on Kuhn and the Leduc family.

At each of its turns the agent re-solves the game from the current public state, from its own
range and the opponent's counterfactual values kept from its previous solve (``process``),
with a depth limit and leaf values (``leaves``), and plays the re-solve's strategy for its
hand. Its ``policy()`` is the whole agent as a table: every public state either seat can
reach, re-solved exactly as play would (``tabular``), so ``pokerzoo.evaluation`` scores the
whole agent exactly (``nash_conv(tree, agent)``) and ``evaluate.py`` scores its runs like any
tabular agent's.

Units (``iterate``): with ``leaves="oracle"`` (or a given ``network``) one unit is one
re-solve of the tabularisation, in a fixed order (shallow public states first), so a run's
progress bar and checkpoints follow the work; ``policy()`` finishes whatever is left. With
``leaves="network"`` and no ``network`` file, one unit is one training step of the value
network (``value_training.ValueNetTrainer``); the re-solves are redone with the new net.

Heads-up no-limit hold'em is played by ``holdem_agent.HoldemResolver`` (what ``make_agent``
builds there): a ``blueprint`` (a run folder or checkpoint of an agent on the same game, e.g.
Deep CFR) plays preflop and flop, and the turn and river are re-solved at their start with
the range solver's spots from the blueprint's ranges (unsafe re-solving, ``holdem``). Limit
hold'em is refused (the spots have pot-fraction sizes only).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from pokerzoo.agents.base import Agent, check_state_iteration, check_units
from pokerzoo.agents.resolver.config import ResolverConfig
from pokerzoo.agents.resolver.holdem_agent import HoldemResolver, is_holdem, legal_distribution
from pokerzoo.agents.resolver.process import ContinualResolver
from pokerzoo.agents.resolver.solves import Solve, played_solve, solve_subgame, subtree_nodes
from pokerzoo.agents.resolver.tabular import InfosetIndex, tabular_policy, walk_order
from pokerzoo.config import with_overrides
from pokerzoo.errors import ConfigError, TreeTooLargeError
from pokerzoo.games.base import Game
from pokerzoo.public.engine.small_games import public_game_tree
from pokerzoo.public.engine.solver import PublicSolver, SolverConfig
from pokerzoo.public.engine.tree import CHANCE, DECISION
from pokerzoo.tree import build
from pokerzoo.tree.tabular_policy import TabularPolicy


class Resolver(Agent):
    """The continual re-solving agent (see the module docstring; ``ResolverConfig``).

    >>> from pokerzoo import load_game
    >>> from pokerzoo.evaluation import nash_conv
    >>> agent = Resolver(load_game("kuhn_poker"), depth=None, iterations=300)
    >>> nash_conv(agent.tree, agent) < 0.01
    True
    """

    name = "resolver"

    def __init__(self, game: Game, config: ResolverConfig | Mapping[str, Any] | None = None,
                 seed: int = 0, name: str | None = None, **overrides: Any) -> None:
        self.config = with_overrides(ResolverConfig, config, overrides)
        if name is not None and name != "resolver":
            raise ConfigError(f"the resolver agent has no preset {name!r}; its name is resolver")
        if not isinstance(game, Game):
            raise ConfigError(f"the resolver needs a pokerzoo Game, got {game!r}")
        if self.config.blueprint is not None:
            raise ConfigError(f"blueprint is for heads-up no-limit hold'em; {game.name} is "
                              "re-solved from its own solves (trunk='solve' or 'blueprint')")
        self.game = game
        self.seed = int(seed)
        self.small = _small_tree(game)
        has_rounds = bool(np.any(self.small.tree.kind == CHANCE))
        if self.config.leaves == "network" and not has_rounds:
            raise ConfigError(f"leaves='network' values depth-limit leaves at the end of a "
                              f"betting round; {game.name} has one round (its re-solves reach "
                              "the end of the game): use leaves='oracle' or depth=None")
        if self.config.trunk == "blueprint" and not has_rounds:
            raise ConfigError(f"trunk='blueprint' plays the blueprint in the first round and "
                              f"re-solves later rounds; {game.name} has one round")
        self.tree = build(game)
        self.index = InfosetIndex.build(self.small, self.tree)
        self.order = walk_order(self.small)
        self._trainer: Any = None
        self._leaves: Any = None
        self._make_leaves()
        self._process = self._new_process()
        self._table: TabularPolicy | None = None
        self._iteration = 0

    # Leaves and the loop -------------------------------------------------------------------

    @property
    def trains_network(self) -> bool:
        """Whether the units are the value network's training steps."""
        return self.config.leaves == "network" and self.config.network is None

    def _make_leaves(self) -> None:
        cfg = self.config
        if cfg.depth is None:
            return  # no depth-limit leaves
        if cfg.leaves == "oracle":
            from pokerzoo.agents.resolver.leaves import CompiledOracleLeaves, JointOracle

            self._leaves = (JointOracle(self.game) if cfg.oracle_mode == "joint" else
                            CompiledOracleLeaves(self.game, cfg.leaf_iterations))
            return
        from pokerzoo.agents.resolver.value_net import NetworkLeaves, load_value_net

        if cfg.network is not None:
            self._leaves = NetworkLeaves(load_value_net(cfg.network, self.game), self.game)
            return
        from pokerzoo.agents.resolver.value_training import ValueNetTrainer

        self._trainer = ValueNetTrainer(self.game, seed=self.seed, progress=False,
                                        states=cfg.value_states,
                                        validation_states=cfg.value_validation_states)
        self._leaves = NetworkLeaves(self._trainer.net, self.game)

    def use_leaf_source(self, wrap: Callable[[Any], Any]) -> None:
        """Replace the per-pass leaf source by ``wrap(source)`` (e.g. a ``leaves.
        RecordingLeaves`` keeping the public belief states the re-solves ask about, or the
        diagnostic ``leaves.HandOffLeaves``); the re-solves done so far are dropped."""
        from pokerzoo.agents.resolver.leaves import JointOracle

        if self._leaves is None or isinstance(self._leaves, JointOracle):
            raise ConfigError("use_leaf_source wraps a per-pass leaf source (leaves='network' "
                              "or oracle_mode='per-pass' with depth='round'); this agent has "
                              "none")
        self._leaves = wrap(self._leaves)
        self._process = self._new_process()
        self._table = None

    def _leaf_source(self) -> Any:
        """The leaf values of one re-solve (the joint oracle's rests are the solve's own)."""
        from pokerzoo.agents.resolver.leaves import JointOracle

        if isinstance(self._leaves, JointOracle):
            return self._leaves.fresh(SolverConfig(algorithm=self.config.algorithm))
        return self._leaves

    def _new_process(self) -> ContinualResolver:
        cfg = self.config
        small = self.small

        def resolve(root: int, seat: int, own: np.ndarray, opp_range: np.ndarray | None,
                    opp_values: np.ndarray | None, draw: int | None) -> Solve:
            return solve_subgame(small, root, seat, own, opp_range, opp_values,
                                 depth=cfg.depth, leaves=self._leaf_source(),
                                 iterations=cfg.iterations, gadget=cfg.gadget,
                                 algorithm=cfg.algorithm, draw=draw, leaf_rule=cfg.leaf_rule)

        return ContinualResolver(small, cfg, resolve, self._trunk, self.seed)

    def _trunk(self, seat: int) -> Solve:
        """The solve before the agent's first turn in ``seat``."""
        tree = self.small.tree
        cfg = self.config
        if cfg.trunk == "solve":
            return solve_subgame(self.small, 0, seat, np.array(tree.initial_reach[seat]),
                                 np.array(tree.initial_reach[1 - seat]), None, depth=cfg.depth,
                                 leaves=self._leaf_source(), iterations=cfg.iterations,
                                 gadget="unsafe", algorithm=cfg.algorithm,
                                 leaf_rule=cfg.leaf_rule)
        solver = PublicSolver(tree, algorithm="cfr+")
        solver.iterate(cfg.blueprint_iterations)
        first = subtree_nodes(tree, 0, stop_at_chance=True)
        mine = [n for n in first if tree.kind[n] == DECISION and tree.player[n] == seat]
        leaves = frozenset(n for n in first if tree.kind[n] == CHANCE)
        return played_solve(solver, 0, seat, {n: n for n in first},
                            {n: solver.strategy(n) for n in mine}, leaves, played_as_is=True)

    # The agent's face ----------------------------------------------------------------------

    def iterate(self, n: int = 1) -> None:
        """``n`` units: re-solves of the tabularisation, or value-net training steps."""
        n = check_units(n)
        if self.trains_network:
            self._trainer.iterate(n)
            self._trainer.net.eval()  # leaves answer in evaluation mode (suit-averaged)
            self._process = self._new_process()  # the leaves changed: re-solve with them
            self._table = None
        else:
            pending = (key for key in self.order if not self._process.done(*key))
            for _, key in zip(range(n), pending, strict=False):
                self._process.solve_at(*key)
        self._iteration += n

    def strategy(self, seat: int, node: int) -> np.ndarray:
        """``[actions, hands]``: what the agent plays in ``seat`` at public node ``node``."""
        return self._process.strategy(seat, node)

    def policy(self) -> TabularPolicy:
        """The whole agent as a table (every public state of both seats re-solved)."""
        if self._table is None:
            self._table = tabular_policy(self.tree, self.index, self.strategy, self.small)
        return self._table

    def act_probabilities(self, observation: Any,
                          info: Mapping[str, Any] | None = None) -> np.ndarray:
        """Probabilities over all actions at an env turn: the re-solve at the public state of
        ``info["info_state"]`` (and the agent's earlier turns on its line), for its hand."""
        if not isinstance(info, Mapping) or "info_state" not in info:
            raise ConfigError("Resolver.act_probabilities needs the info dict of a pokerzoo "
                              "env turn (with 'info_state'), e.g. obs, _, _, _, info = env.last()")
        key = info["info_state"]
        if key not in self.index.where:
            raise ConfigError(f"information state {key!r} is not one of {self.game.name}'s; "
                              "the resolver was built for another game")
        node, hand = self.index.where[key]
        block = self.strategy(int(self.small.tree.player[node]), node)
        probs = np.zeros(self.game.num_distinct_actions)
        probs[self.index.actions[node]] = block[:, hand]
        return legal_distribution(probs, observation, key)

    def state_dict(self) -> dict[str, Any]:
        return {
            "iteration": self._iteration,
            "process": self._process.state(),
            "trainer": self._trainer.state_dict() if self._trainer is not None else None,
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        iteration = check_state_iteration(state["iteration"])
        if (state["trainer"] is None) != (self._trainer is None):
            raise ConfigError("the checkpoint's leaves are not this agent's (a value-net "
                              "trainer in one, not the other)")
        if self._trainer is not None:
            self._trainer.load_state_dict(state["trainer"])
            self._leaves.net = self._trainer.net
            self._trainer.net.eval()
        self._process = self._new_process()
        self._process.restore(dict(state["process"]))
        self._table = None
        self._iteration = iteration

    @property
    def resolves(self) -> int:
        """Re-solves performed so far by this process (not counting trunks)."""
        return self._process.resolves


def _small_tree(game: Game) -> Any:
    if is_holdem(game):
        raise ConfigError(f"{game.name} is too large for the small games' dense public "
                          "trees; hold'em is played by HoldemResolver: "
                          "make_agent('resolver', game, blueprint=<run folder>)")
    if game.num_players != 2:
        raise ConfigError(f"the resolver plays heads-up games; {game.name} has "
                          f"{game.num_players} players")
    try:
        return public_game_tree(game)
    except TreeTooLargeError:
        raise ConfigError(
            f"the resolver re-solves Kuhn, the Leduc family and heads-up no-limit hold'em; "
            f"{game.name} is too large for the small games' dense public trees") from None


def make_agent(game: Game, seed: int = 0, **params: Any) -> Agent:
    """The agent table's factory (``HoldemResolver`` on hold'em)."""
    if is_holdem(game):
        name = params.pop("name", None)
        if name is not None and name != "resolver":
            raise ConfigError(f"the resolver agent has no preset {name!r}; its name is resolver")
        return HoldemResolver(game, with_overrides(ResolverConfig, None, params), seed=seed)
    return Resolver(game, seed=seed, **params)
