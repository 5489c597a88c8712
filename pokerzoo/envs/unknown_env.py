"""``UnknownPokerEnv``: the AEC env of unknown-environment games, reporting episodes to learners.

Chance outcomes are dealt from the true model c* and rewards drawn from r* through
``PokerEnv``'s hooks (``state.sample_chance_outcome``, ``state.sample_returns``);
``reset(options={"resample_environment": True})`` draws a new d*. Observations and the infos
``PokerEnv`` writes are the base game's: nothing of d* is in them.

What the learner is told (PSRLCFR and VCFR assume the learning algorithm sees the whole
trajectory, chance outcomes included, once an episode is over): when a hand ends normally, every
agent's info gets ``"episode": {"history": [...], "returns": [...]}``, the full action sequence
(every card dealt, the opponent's included) and the rewards actually paid (samples of r*, not
their expectations). ``Posterior.observe_info(info)`` consumes it. Hands ended by an illegal
action report no episode. Pass ``episode_info=False`` for play where hidden cards must stay
hidden after the hand.
"""

from __future__ import annotations

from typing import Any

from gymnasium.utils import EzPickle

from pokerzoo.envs.poker_env import ENV_OPTIONS, IllegalActionMode, PokerEnv, make_env
from pokerzoo.games.base import Game, State


class UnknownPokerEnv(PokerEnv):
    """``PokerEnv`` over an unknown-environment game, with end-of-hand episode reports.

    Args:
        game: an unknown-environment game (or its registered name).
        render_mode, illegal_action, illegal_reward: as for ``PokerEnv``.
        episode_info: report each finished hand in the agents' infos (see the module doc).
    """

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
        if not hasattr(self.game, "true_model"):
            raise TypeError(f"{self.game!r} is not an unknown-environment game")
        self.episode_info = bool(episode_info)
        self._paid: list[float] | None = None

    def _terminal_returns(self, state: State) -> list[float]:
        paid = super()._terminal_returns(state)
        self._paid = paid
        return paid

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
