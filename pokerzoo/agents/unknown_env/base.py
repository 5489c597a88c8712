"""What every agent of an unknown game shares: an interaction view, a posterior, and rounds.

An ``UnknownEnvAgent`` learns an unknown-environment game (``pokerzoo.games.unknown``) only
from what the environment reveals when played: the hands' trajectories (chance outcomes
included) and the rewards paid. It holds the game's *interaction view*, never the game: the
view's ``sampler`` plays whole batches of hands in d* (``EnvironmentSampler.play``) and counts
them, and ``view.true_model`` raises.

**Accounting.** One unit of ``iterate`` is one *interaction episode* (one hand played in the
environment), for every agent alike, so ``iterate(20_000)`` is the papers' 20,000
interactions. Agents work in *rounds*: a round first learns (``_start_round``: fit models,
run solver iterations) and then plays ``episodes_per_round`` hands with the behaviour profiles
it chose (PSRLCFR and VCFR's Algorithm 1: two hands per round, one per seat's perspective, so
20,000 interactions are 10,000 rounds). A budget that ends inside a round plays that round's
remaining hands in the next call, so any split of the budget gives the same run.

Subclasses implement ``_start_round`` (learn; return the round's behaviour profiles, one per
hand or one for all) and ``output_policy_array`` (what evaluators score), and may override
``_observe`` (learn from the hands just played).
"""

from __future__ import annotations

import copy
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from pokerzoo.agents.base import Agent, check_state_iteration, check_units
from pokerzoo.components.posterior import Posterior
from pokerzoo.errors import CheckpointError, ConfigError, HiddenModelError
from pokerzoo.games.base import Game
from pokerzoo.games.unknown.game import AgentGameView, UnknownPokerGame
from pokerzoo.games.unknown.model import EpisodeBatch
from pokerzoo.tree.episodes import environment_hands
from pokerzoo.tree.game_tree import GameTree, build
from pokerzoo.tree.tabular_policy import TabularPolicy, normalise_rows


def interaction_view_of(game: Game, who: str) -> AgentGameView:
    """The interaction view an unknown-environment agent learns through.

    Args:
        game: an interaction view (what ``train.py`` and the unknown envs hand learners), or the
            environment game ``load_game`` returns (its ``interaction_view()`` is taken; the
            agent keeps only the view).
        who: the agent's name, for messages.

    Raises:
        ConfigError: for a game that is not an unknown-environment game.
        HiddenModelError: for a plain agent view, which cannot play the environment.
    """
    kind = game.game_type if isinstance(game, Game) else None
    if kind is not None and kind.is_environment:
        return cast(UnknownPokerGame, game).interaction_view()
    if kind is not None and kind.agent_view:
        view = cast(AgentGameView, game)
        if not view.interactive:
            raise HiddenModelError(
                f"{who} learns by playing the environment, but {game!r} is a plain view that "
                "cannot; pass game.interaction_view() or the game load_game returns"
            )
        return view
    if kind is not None and kind.hidden_model:
        raise ConfigError(f"{who} cannot learn from {game!r}")
    raise ConfigError(
        f"{who} learns unknown-environment games (load_game('unknown_kuhn_poker'), "
        f"'unknown_leduc_holdem', ...); got {getattr(game, 'name', game)!r}, whose chance and "
        "rewards are known: use a full-width solver (cfr, cfr+, dcfr) on it"
    )


class UnknownEnvAgent(Agent):
    """Base of agents that learn an unknown game by playing it (see the module doc).

    Args:
        game: the interaction view (or the environment game; see ``interaction_view_of``).
        seed: seed of the agent's generator (deals, rewards and its own sampling).
        episodes_per_round: hands played after each round of learning.

    Attributes:
        view: the interaction view; ``view.sampler.counter`` counts the hands played.
        tree: the agent's tree of the game (compiled from the prior mean; rows and information
            sets are the same for every model).
        posterior: the Dirichlet/Beta posterior fed with every hand played.
        rounds: rounds of learning started.
    """

    name = "unknown-env-agent"

    def __init__(self, game: Game, seed: int = 0, episodes_per_round: int = 2) -> None:
        if isinstance(episodes_per_round, bool) or not isinstance(episodes_per_round, int) or (
            episodes_per_round < 1
        ):
            raise ConfigError(f"episodes_per_round must be an integer >= 1, got "
                              f"{episodes_per_round!r}")
        self.view = interaction_view_of(game, type(self).__name__)
        self.game = self.view.agent_view()  # plain: trees and evaluators never sample d*
        self.tree: GameTree = build(self.game)
        self.posterior = Posterior(self.view)
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.episodes_per_round = episodes_per_round
        self.rounds = 0
        self._iteration = 0
        self._left_in_round = 0
        self._profiles = np.zeros((0, *self.tree.infoset_mask.shape))

    # Learning ----------------------------------------------------------------------------------

    def iterate(self, n: int = 1) -> None:
        """Play ``n`` interaction episodes, learning in rounds (see the module doc)."""
        n = check_units(n)
        while n > 0:
            if self._left_in_round == 0:
                profiles = self._start_round()
                self._profiles = self._round_profiles(profiles)
                self.rounds += 1
                self._left_in_round = self.episodes_per_round
            k = min(n, self._left_in_round)
            first = self.episodes_per_round - self._left_in_round
            self._play(first, k)
            self._left_in_round -= k
            self._iteration += k
            n -= k

    def _round_profiles(self, profiles: np.ndarray | Sequence[np.ndarray]) -> np.ndarray:
        shape = self.tree.infoset_mask.shape
        stacked = np.asarray(profiles, dtype=np.float64)
        if stacked.shape == shape:
            stacked = np.broadcast_to(stacked, (self.episodes_per_round, *shape))
        if stacked.shape != (self.episodes_per_round, *shape):
            raise ConfigError(
                f"a round needs one profile {shape} or {self.episodes_per_round} of them, got "
                f"{stacked.shape}"
            )
        return np.ascontiguousarray(stacked)

    def _play(self, first: int, count: int) -> None:
        """Play hands ``first .. first + count - 1`` of the round, one call per hand: a batch
        of two hands draws its random numbers in another order than two single hands, and a
        budget (or checkpoint) may end between any two hands of a round."""
        for hand in range(first, first + count):
            batch = self.view.sampler.play(
                self.tree, self._profiles[hand], 1, self.rng, hands=environment_hands
            )
            self.posterior.update(batch)
            self._observe(batch, hand, self._profiles[hand])

    @abstractmethod
    def _start_round(self) -> np.ndarray | Sequence[np.ndarray]:
        """Learn from what was observed so far; return this round's behaviour profile (one
        ``[num_infosets, num_actions]`` array for every hand, or one per hand)."""

    def _observe(self, batch: EpisodeBatch, hand: int, profile: np.ndarray) -> None:
        """Learn from a hand just played (hand index ``hand`` of the round, with ``profile``);
        the posterior has already seen it."""

    @property
    def episodes(self) -> int:
        """Interaction episodes played so far (the unit of ``iterate``)."""
        return self._iteration

    # Output ------------------------------------------------------------------------------------

    @abstractmethod
    def output_policy_array(self) -> np.ndarray:
        """``[num_infosets, num_actions]`` weights of the output policy (normalised later)."""

    def policy(self) -> TabularPolicy:
        """The output policy (what the papers measure in d*), over ``tree``'s information sets."""
        return TabularPolicy.from_tree(self.tree, self.output_policy_array())

    def uniform_profile(self) -> np.ndarray:
        """The uniform random profile over the legal actions."""
        mask = self.tree.infoset_mask
        return normalise_rows(np.zeros(mask.shape), mask)

    def normalised(self, weights: np.ndarray) -> np.ndarray:
        """``weights`` as a profile (rows summing to 1 over legal actions; uniform if 0)."""
        return normalise_rows(weights, self.tree.infoset_mask)

    # Checkpoints -------------------------------------------------------------------------------

    def _identity(self) -> dict[str, Any]:
        params = dict(self.game.params())
        params.pop("believed_model", None)
        return {"agent": self.name, "game": self.game.name, "params": params}

    def state_dict(self) -> dict[str, Any]:
        """The posterior, counters, the round in progress and the generator; subclasses add
        their learner's state (``_extra_state``)."""
        return {
            "identity": self._identity(),
            "iteration": self._iteration,
            "rounds": self.rounds,
            "left_in_round": self._left_in_round,
            "profiles": self._profiles.copy(),
            "rng": copy.deepcopy(self.rng.bit_generator.state),
            "posterior": self.posterior.state_dict(),
            "learner": self._extra_state(),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore ``state_dict``'s output (to resume in the same environment).

        Raises:
            CheckpointError: for a state of another agent or game.
        """
        iteration = check_state_iteration(state["iteration"])  # refused before any change
        if state["identity"] != self._identity():
            raise CheckpointError(
                f"the state is of {state['identity']}, this agent is {self._identity()}"
            )
        self.posterior.load_state_dict(state["posterior"])
        self._load_extra_state(state["learner"])
        self._iteration = iteration
        self.rounds = int(state["rounds"])
        self._left_in_round = int(state["left_in_round"])
        self._profiles = np.array(state["profiles"], dtype=np.float64)
        self.rng.bit_generator.state = copy.deepcopy(dict(state["rng"]))

    def _extra_state(self) -> dict[str, Any]:
        return {}

    def _load_extra_state(self, state: Mapping[str, Any]) -> None:
        """Restore what ``_extra_state`` saved."""

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.game.name}, {self.episodes} episodes in "
            f"{self.rounds} rounds)"
        )
