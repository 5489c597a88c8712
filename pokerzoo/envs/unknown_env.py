"""``UnknownPokerEnv``: the AEC env of unknown-environment games, reporting episodes to learners.

What agents see and what stays hidden (see ``pokerzoo.games.unknown``):

* ``env.game`` is the agent's view (``AgentGameView``): the base game's rules, the model
  structure, the prior and the believed model (the prior mean), not d*. Solvers and trees built
  on it solve the believed model; ``env.game.true_model`` raises ``HiddenModelError``.
* ``env.game_state`` is a state of that view: the hand's history and information, but
  ``chance_outcomes()`` are the believed model's and, at the end of a hand, ``returns()`` are
  the rewards the hand actually paid (never d*'s expected payoff).
* The env deals chance outcomes from ``c*`` and draws rewards from ``r*`` in ``PokerEnv``'s
  hooks (``_sample_chance``, ``_terminal_returns``) with the env's Generator, through the
  ``EnvironmentSampler`` of a private interaction view (``game.interaction_view()``): every
  draw is counted on ``env.interactions`` (an ``InteractionCounter``: ``episodes`` = hands
  paid). ``env.game`` is the plain view either way, so reading ``env.game`` never samples.
* The env is built from the environment game (what ``load_game`` returns, kept private; then
  evaluators reach d* through ``pokerzoo.evaluation.unknown``: ``environment_of(env)``,
  ``true_model_of(env)``) or from an interaction view (an agent's own env: it plays the
  environment but nothing in it, evaluators' entry points included, reads d*).
* ``reset(options={"resample_environment": True})`` draws a new d*: the env rebinds its private
  environment to ``environment.with_resampled_environment(rng)`` (and its interaction view to
  the same draw; the counter carries on). Games are immutable, so a ``copy.deepcopy`` of the
  env, hands already dealt and anyone holding the old game keep the old model; ``env.game``
  (the view) stays the same object, since nothing in it depends on d*.

Observations and the infos ``PokerEnv`` writes are the base game's: nothing of d* is in them.

What the learner is told (PSRLCFR and VCFR assume the learning algorithm sees the whole
trajectory, chance outcomes included, once an episode is over): when a hand ends normally, every
agent's info gets ``"episode": {"history": [...], "returns": [...]}``, the full action sequence
(every card dealt, the opponent's included) and the rewards actually paid (samples of r*, not
their expectations). ``Posterior.observe_info(info)`` consumes it. Hands ended by an illegal
action report no episode. Pass ``episode_info=False`` for play where hidden cards must stay
hidden after the hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np
from gymnasium.utils import EzPickle

from pokerzoo.envs.poker_env import ENV_OPTIONS, IllegalActionMode, PokerEnv, make_env
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game, State

if TYPE_CHECKING:
    from pokerzoo.games.unknown.game import AgentGameView, UnknownPokerGame, UnknownState
    from pokerzoo.games.unknown.sampler import InteractionCounter


class UnknownPokerEnv(PokerEnv):
    """``PokerEnv`` over an unknown-environment game, with end-of-hand episode reports.

    Args:
        game: an unknown-environment game (what ``load_game`` returns), its registered name,
            or an interaction view (``game.interaction_view()``).
        render_mode, illegal_action, illegal_reward: as for ``PokerEnv``.
        episode_info: report each finished hand in the agents' infos (see the module doc).

    Raises:
        ConfigError: if ``game`` is none of these (a plain agent's view cannot deal: it can
            neither read nor sample d*).
    """

    game: AgentGameView

    def __init__(
        self,
        game: Game | str,
        render_mode: str | None = None,
        illegal_action: IllegalActionMode = "penalize",
        illegal_reward: float = -1.0,
        episode_info: bool = True,
    ) -> None:
        super().__init__(game, render_mode, illegal_action, illegal_reward)
        EzPickle.__init__(self, game, render_mode, illegal_action, illegal_reward, episode_info)
        source: Any = self.game
        kind = source.game_type
        # Private: agents get the plain view; evaluators use pokerzoo.evaluation.unknown.
        self._environment: UnknownPokerGame | None
        self._interaction: AgentGameView
        if kind.is_environment:
            self._environment = source
            self._interaction = source.interaction_view()
        elif kind.agent_view and source.interactive:
            self._environment = None  # an agent's env: it samples d* but cannot read it
            self._interaction = source
        else:
            what = (
                "a plain agent's view, which cannot deal (it can neither read nor sample d*); "
                "pass the game load_game returns or its interaction_view()"
                if kind.agent_view
                else "not an unknown-environment game"
            )
            raise ConfigError(f"{source!r} is {what}")
        self.game = self._interaction.agent_view()
        self.episode_info: bool = bool(episode_info)
        self._paid: list[float] | None = None

    @property
    def interactions(self) -> InteractionCounter:
        """The counter of the env's draws from d* (``episodes``: hands paid)."""
        return self._interaction.sampler.counter

    def _sample_chance(self, state: State) -> int:
        # The hand's state is a state of the plain view: the env samples c* for it.
        return self._interaction.sampler.sample_chance_outcome(state, self.np_random)

    def _terminal_returns(self, state: State) -> list[float]:
        paid = self._interaction.sampler.sample_payoff(state, self.np_random)
        # env.game_state.returns() reports what was paid
        cast("UnknownState", state).record_paid(paid)
        self._paid = paid
        return paid

    def _resample_environment(self, rng: np.random.Generator) -> None:
        counter = self.interactions
        if self._environment is None:
            self._interaction = self._interaction.with_resampled_environment(rng)
            self._ezpickle_args = (self._interaction, *self._ezpickle_args[1:])
            return
        self._environment = self._environment.with_resampled_environment(rng)
        self._interaction = self._environment.interaction_view(
            self._interaction.believed_model, self._interaction.model_source, counter
        )
        # Pickling rebuilds the env from its constructor arguments: keep them describing the
        # environment it plays in now.
        self._ezpickle_args = (self._environment, *self._ezpickle_args[1:])

    def _end(self, state: State, last_agent: str, illegal: bool) -> None:
        super()._end(state, last_agent, illegal)
        if self.episode_info and not illegal and self._paid is not None:
            history, paid = state.history(), self._paid
            for agent in self.possible_agents:
                self.infos[agent]["episode"] = {"history": list(history), "returns": list(paid)}
        self._paid = None


UNKNOWN_ENV_OPTIONS = (*ENV_OPTIONS, "episode_info")
"""Keyword options of ``UnknownPokerEnv``; every other keyword is a game parameter."""


def make_unknown_env(game_name: str, raw: bool, **kwargs: Any) -> UnknownPokerEnv:
    """Build an ``UnknownPokerEnv``: env options as listed in ``UNKNOWN_ENV_OPTIONS``, the
    other keywords (``base``, ``prior``, ``seed``) go to the game.

    Raises:
        ConfigError: for unknown parameters, listing the game's parameters and the env options.
    """
    env = make_env(game_name, raw, UnknownPokerEnv, UNKNOWN_ENV_OPTIONS, **kwargs)
    assert isinstance(env, UnknownPokerEnv)
    return env
