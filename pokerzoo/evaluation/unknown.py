"""Measurements in unknown environments: the evaluator's side of the hidden model d*.

Agents never see d* (``pokerzoo.games.unknown``: the unknown envs and ``train.py`` hand them an
``AgentGameView``, and ``pokerzoo.tree.build`` never compiles d* implicitly). This module is the
explicit entry point for whoever *measures* them:

* ``environment_of`` / ``true_model_of`` / ``true_model_tree``: the environment game, its d*
  and the compiled tree of d*, from the game ``load_game`` returns or from an unknown env;
  ``evaluation_tree(game)`` is the tree evaluators score any game on (d*'s for unknown games);
* ``exploitability_in_true_model`` / ``nash_conv_in_true_model``: a policy measured in d*
  (the VCFR and PSRLCFR papers report NashConv in d*);
* ``nash_conv_in_model`` / ``exploitability_in_model``: a policy measured on the tree of a
  given model (chance probabilities and *expected* rewards); with no model, in d*;
* ``run_measures``: what a run of an agent that learns by playing ends with: NashConv in d* of
  its output, of the converged solution of its posterior mean ("re-solved": the quality of its
  data), of its output in its own posterior mean, and the distinct terminals it observed;
* ``InteractionRunner``: plays *interaction episodes* in the true environment with given
  interaction policies and feeds a posterior, so every agent and baseline counts interactions
  the same way (one episode = one hand = one interaction). Its default backend samples whole
  batches of hands on the compiled tree of d* (vectorised); the ``"states"`` backend plays hands
  one by one through game states exactly as the envs do, for policies that are not tabular.

Asking any of these for d* through an ``AgentGameView`` raises ``HiddenModelError``.

>>> from pokerzoo import load_game
>>> from pokerzoo.components.posterior import Posterior
>>> game = load_game("unknown_kuhn_poker", seed=1)
>>> runner = InteractionRunner(game, Posterior(game), seed=0)
>>> batch = runner.run(None, 1000)        # None: uniform random interaction policy
>>> runner.episodes, runner.posterior.num_episodes
(1000, 1000)
>>> true_model_of(game) == game.true_model
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol, cast

import numpy as np

from pokerzoo.components.posterior import Posterior
from pokerzoo.errors import ConfigError, HiddenModelError
from pokerzoo.evaluation.exact import exploitability, nash_conv, policy_array, uniform_policy_array
from pokerzoo.games.base import Game, GameType
from pokerzoo.games.unknown.game import UnknownPokerGame
from pokerzoo.games.unknown.model import EnvironmentModel, EpisodeBatch
from pokerzoo.policy import StatePolicy, as_state_policy
from pokerzoo.tree.episodes import TreeEpisodeSampler
from pokerzoo.tree.game_tree import GameTree, build

DEFAULT_MAX_NODES = 20_000_000

# ---------------------------------------------------------------------------------------------
# The true model
# ---------------------------------------------------------------------------------------------


def environment_of(source: object) -> UnknownPokerGame:
    """The environment game (the one that deals from d*) of ``source``.

    Args:
        source: an ``UnknownPokerGame`` (what ``load_game`` returns) or an unknown env (an
            ``UnknownPokerEnv``, also behind wrappers with ``unwrapped``).

    Raises:
        HiddenModelError: for an ``AgentGameView`` (it holds no d*) or an env built from an
            interaction view.
        ConfigError: for anything else.
    """
    kind = _game_type(source)
    if kind is not None and kind.is_environment:
        return cast(UnknownPokerGame, source)
    if kind is not None and kind.agent_view:
        raise HiddenModelError(
            f"{source!r} is an agent's view and holds no d*; pass the game load_game returned "
            "or the env"
        )
    env = getattr(source, "unwrapped", source)
    # The unknown envs keep their environment private (agents read env.game, the view).
    environment = getattr(env, "_environment", None)
    kind = _game_type(environment)
    if kind is not None and kind.is_environment:
        return cast(UnknownPokerGame, environment)
    kind = _game_type(getattr(env, "game", None))
    if kind is not None and kind.agent_view:
        raise HiddenModelError(
            f"{type(env).__name__} was built from an agent's interaction view: it samples d* "
            "but holds no readable d*; pass the game load_game returned"
        )
    raise ConfigError(
        f"expected an unknown-environment game (load_game('unknown_...')) or an unknown env, "
        f"got {type(source).__name__}"
    )


def _game_type(source: object) -> GameType | None:
    """What ``source`` declares it is, if it is a game."""
    return source.game_type if isinstance(source, Game) else None


def true_model_of(source: object) -> EnvironmentModel:
    """The true model d* of an unknown-environment game or env (for evaluators only)."""
    return environment_of(source).true_model


def true_model_tree(source: object, max_nodes: int = DEFAULT_MAX_NODES) -> GameTree:
    """The compiled tree of d* (chance ``c*``, expected rewards of ``r*``), for evaluators."""
    game = environment_of(source)
    return build(game, model=game.true_model, max_nodes=max_nodes)


def evaluation_tree(game: Game, max_nodes: int = DEFAULT_MAX_NODES) -> GameTree:
    """The tree evaluators score policies on: for an unknown-environment game the tree of its
    d*, for any other game its own tree.

    Raises:
        HiddenModelError: for an ``AgentGameView`` (score on the environment game instead).
        TreeTooLargeError: if the tree has more than ``max_nodes`` histories.
    """
    if game.game_type.hidden_model:
        return true_model_tree(game, max_nodes)
    return build(game, max_nodes=max_nodes)


def nash_conv_in_true_model(source: object, policy: object) -> float:
    """NashConv of ``policy`` in d* (chips per game, summed over players)."""
    return nash_conv(true_model_tree(source), policy)


def exploitability_in_true_model(source: object, policy: object) -> float:
    """Exploitability (NashConv / players) of ``policy`` in d*."""
    return exploitability(true_model_tree(source), policy)


# ---------------------------------------------------------------------------------------------
# Exploitability in a model
# ---------------------------------------------------------------------------------------------


def model_tree(game: Any, model: EnvironmentModel | None = None) -> GameTree:
    """The compiled tree of ``game`` in ``model`` (``None``: the game's true model d*, which
    needs the environment game, not an agent's view).

    Build it once and pass it to ``pokerzoo.evaluation.exploitability`` when measuring many
    policies in the same model.
    """
    if model is None:
        return true_model_tree(game)
    return build(game, model=model)


def nash_conv_in_model(game: Any, policy: object, model: EnvironmentModel | None = None) -> float:
    """NashConv of ``policy`` in ``model`` (``None``: in the true model d*)."""
    return nash_conv(model_tree(game, model), policy)


def exploitability_in_model(
    game: Any, policy: object, model: EnvironmentModel | None = None
) -> float:
    """Exploitability (NashConv / players) of ``policy`` in ``model`` (``None``: in d*)."""
    return exploitability(model_tree(game, model), policy)


# ---------------------------------------------------------------------------------------------
# The measures of a run
# ---------------------------------------------------------------------------------------------

RESOLVE_NASH_CONV = 1e-4
"""NashConv (chips, in the posterior mean) a re-solve stops at: far below the differences the
papers report (0.01 and up), so the re-solved number is the data's, not the solver's."""
RESOLVE_MAX_ITERATIONS = 100_000
"""Iterations a re-solve may take before it stops short of ``RESOLVE_NASH_CONV`` (reported)."""


class IterativeSolver(Protocol):
    """What a re-solve needs of a solver (``CFRPlus(view, tree=tree)`` is one)."""

    def iterate(self, n: int = 1) -> None: ...

    def average_policy(self) -> Any: ...


def terminals_observed(posterior: Posterior) -> int:
    """How many distinct terminals paid at least one observed hand."""
    return int(np.count_nonzero(posterior.reward_counts.sum(axis=1)))


def resolve(
    make_solver: Callable[[Game, GameTree], IterativeSolver],
    view: Game,
    tree: GameTree,
    tolerance: float = RESOLVE_NASH_CONV,
    max_iterations: int = RESOLVE_MAX_ITERATIONS,
) -> tuple[Any, float, int]:
    """Solve ``tree`` (the compiled tree of ``view``'s model) until the average policy's
    NashConv there is at most ``tolerance`` or ``max_iterations`` ran.

    Returns:
        ``(average policy, its NashConv on tree, iterations)``.
    """
    solver = make_solver(view, tree)
    done, chunk = 0, 64
    gap = nash_conv(tree, solver.average_policy())
    while gap > tolerance and done < max_iterations:
        step = min(chunk, max_iterations - done)
        solver.iterate(step)
        done += step
        chunk = min(2 * chunk, 4096)  # checks cost a best response: fewer as it converges
        gap = nash_conv(tree, solver.average_policy())
    return solver.average_policy(), gap, done


def run_measures(
    game: Game,
    policy: object,
    posterior: Posterior,
    make_solver: Callable[[Game, GameTree], IterativeSolver],
    true_tree: GameTree | None = None,
    tolerance: float = RESOLVE_NASH_CONV,
) -> dict[str, float | int]:
    """The end-of-run measures of an agent that learned ``game`` by playing it.

    Args:
        game: the environment game (its d* is read here, on the evaluator's side).
        policy: the agent's output policy.
        posterior: the agent's posterior (its mean is the model re-solved).
        make_solver: ``make_solver(view, tree)``, a solver of the view's model on its tree
            (the runs pass ``CFRPlus``: the paper's solver, run to ``tolerance``).
        true_tree: the compiled tree of d*, if already built.
        tolerance: the re-solve's NashConv target in the posterior mean.

    Returns:
        ``nash_conv_output`` (the output in d*), ``nash_conv_resolved`` (the converged
        solution of the posterior mean, in d*), ``nash_conv_in_own_mean`` (the output in its
        posterior mean), ``terminals_observed``, and the re-solve's own ``resolve_nash_conv``
        (in the posterior mean) and ``resolve_iterations``.
    """
    environment = environment_of(game)
    true_tree = true_tree if true_tree is not None else true_model_tree(environment)
    view = posterior.mean_view(environment)
    mean_tree = build(view)
    resolved, gap, iterations = resolve(make_solver, view, mean_tree, tolerance)
    return {
        "nash_conv_output": nash_conv(true_tree, policy),
        "nash_conv_resolved": nash_conv(true_tree, resolved),
        "nash_conv_in_own_mean": nash_conv(mean_tree, policy),
        "terminals_observed": terminals_observed(posterior),
        "resolve_nash_conv": gap,
        "resolve_iterations": iterations,
    }


# ---------------------------------------------------------------------------------------------
# Interaction rounds
# ---------------------------------------------------------------------------------------------


class EpisodeObserver(Protocol):
    """Anything fed with observed episodes (``pokerzoo.components.posterior.Posterior``)."""

    def update(self, batch: EpisodeBatch) -> None: ...


class InteractionRunner:
    """Runs interaction episodes in an unknown game's true environment and counts them.

    Args:
        game: an unknown-environment game (or env); its ``true_model`` deals and pays.
            Rebind ``runner.game`` (e.g. to ``game.with_resampled_environment(rng)``) to play
            in another environment.
        posterior: fed with every batch of episodes (``None``: only count and return them).
        seed: seed of the runner's Generator.
        backend: ``"tree"`` (vectorised over the compiled tree of d*) or ``"states"`` (hand by
            hand through game states, as the envs play).

    Attributes:
        episodes: interaction episodes played so far (the papers' "interaction rounds").
    """

    def __init__(
        self,
        game: Any,
        posterior: EpisodeObserver | None = None,
        seed: int = 0,
        backend: Literal["tree", "states"] = "tree",
    ) -> None:
        if backend not in ("tree", "states"):
            raise ConfigError(f"backend must be 'tree' or 'states', got {backend!r}")
        self.game = environment_of(game)
        self.posterior = posterior
        self.backend = backend
        self.rng = np.random.default_rng(seed)
        self.episodes = 0
        self._sampler: TreeEpisodeSampler | None = None
        self._sampler_game: UnknownPokerGame | None = None

    @property
    def tree(self) -> GameTree:
        """The compiled tree of the current game's d* (rebuilt when ``game`` is rebound)."""
        return self._tree_sampler().tree

    def _tree_sampler(self) -> TreeEpisodeSampler:
        if self._sampler is None or self._sampler_game is not self.game:
            self._sampler = TreeEpisodeSampler(true_model_tree(self.game))
            self._sampler_game = self.game
        return self._sampler

    def run(self, policies: object | Sequence[object] | None, num_episodes: int) -> EpisodeBatch:
        """Play ``num_episodes`` hands; feed the posterior; return what was observed.

        Args:
            policies: one policy for every seat, or one per seat (each used at its seat's
                information sets): ``TabularPolicy``, array aligned with ``self.tree``, or any
                ``action_probabilities(state)`` policy; ``None`` plays uniformly at random.
            num_episodes: hands to play.
        """
        if num_episodes < 0:
            raise ConfigError(f"num_episodes must be >= 0, got {num_episodes}")
        if self.backend == "tree":
            sampler = self._tree_sampler()
            batch = sampler.sample(self._profile(sampler.tree, policies), num_episodes, self.rng)
        else:
            batch = self._play_states(policies, num_episodes)
        if self.posterior is not None:
            self.posterior.update(batch)
        self.episodes += num_episodes
        return batch

    def _profile(self, tree: GameTree, policies: object | Sequence[object] | None) -> np.ndarray:
        if policies is None:
            return uniform_policy_array(tree)
        if isinstance(policies, list | tuple):
            if len(policies) != tree.num_players:
                raise ConfigError(
                    f"need one policy per seat ({tree.num_players}), got {len(policies)}"
                )
            probs = np.zeros(tree.infoset_mask.shape)
            for seat, policy in enumerate(policies):
                rows = tree.infosets_of(seat)
                probs[rows] = policy_array(tree, policy)[rows]
            return probs
        return policy_array(tree, policies)

    def _play_states(
        self, policies: object | Sequence[object] | None, num_episodes: int
    ) -> EpisodeBatch:
        game, rng = self.game, self.rng
        n = game.num_players
        seats: list[StatePolicy | None]
        if policies is None:
            seats = [None] * n
        elif isinstance(policies, list | tuple):
            seats = [as_state_policy(p) for p in policies]
        else:
            seats = [as_state_policy(policies)] * n
        histories, rewards = [], []
        for _ in range(num_episodes):
            state = game.new_initial_state()
            while not state.is_terminal():
                p = state.current_player()
                if p < 0:
                    state.apply_action(state.sample_chance_outcome(rng))
                    continue
                legal = state.legal_actions()
                seat = seats[p]
                if seat is None:
                    state.apply_action(legal[int(rng.integers(len(legal)))])
                    continue
                probs = seat.action_probabilities(state)
                actions = list(probs)
                weights = np.asarray([probs[a] for a in actions], dtype=np.float64)
                pick = int(rng.choice(len(actions), p=weights / weights.sum()))
                state.apply_action(actions[pick])
            histories.append(state.history())
            rewards.append(state.sample_returns(rng))
        return game.structure.encode(histories, np.asarray(rewards).reshape(-1, n))
