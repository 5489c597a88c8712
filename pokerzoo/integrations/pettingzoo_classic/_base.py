"""What every PettingZoo-classic compatible env shares: the AEC bookkeeping of PettingZoo's
``RLCardBase`` (agent order, rewards, masks shown to every agent, the end of a hand), RLCard's
seeded generator, rendering and the wrappers of ``env()``.

A subclass deals a hand and plays its actions through five hooks (``_new_hand``, ``_play``,
``_legal_ids``, ``_payoffs``, ``_observation``) and draws it with ``_table_text``; the
invariants (an illegal action, a step after the end, masks at the end) are enforced here once.

PettingZoo's ``env()`` stacks ``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and
``OrderEnforcingWrapper``; every attribute read then climbs three wrappers, which costs more
than the hand itself. Here the first two are done by the env's own ``step``
(``illegal_action="penalize"``, with the same rewards, terminations, truncations and warning)
and only ``OrderEnforcingWrapper`` wraps it (a subclass reading the env directly on the hot
path, ``OrderEnforcing``).
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)
from rlcard.utils import seeding

from pokerzoo.errors import ConfigError, IllegalActionError

RENDER_MODES = ["human", "rgb_array", "ansi"]


def classic_metadata(name: str) -> dict[str, Any]:
    """PettingZoo's metadata of the classic env ``name`` (plus the ``"ansi"`` render mode)."""
    return {
        "render_modes": RENDER_MODES,
        "name": name,
        "is_parallelizable": False,
        "render_fps": 1,
    }


class ClassicPokerEnv(AECEnv, EzPickle):
    """The AEC face of PettingZoo's RLCard envs over a hand a subclass plays (see the module)."""

    metadata: ClassVar[dict[str, Any]]
    game: Any
    """pokerzoo's game: card names, blinds and (unless a subclass says otherwise) the rules."""

    def __init__(
        self,
        num_players: int,
        render_mode: str | None,
        screen_height: int | None,
        observation: spaces.Box,
        num_actions: int,
        illegal_action: str,
    ) -> None:
        super().__init__()
        if illegal_action not in ("raise", "penalize"):
            raise ConfigError(
                f"illegal_action must be 'raise' or 'penalize', got {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.screen_height = screen_height
        self.num_players = num_players
        self.agents = [f"player_{i}" for i in range(num_players)]
        self.possible_agents = self.agents[:]
        self.num_actions = num_actions
        obs_space = spaces.Dict({
            "observation": observation,
            "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self._rng: np.random.RandomState = seeding.np_random(None)[0]
        self._seeded = True  # a fresh generator: the next hand is the first after seeding
        self.next_legal_moves: list[int] = []

    # Hooks ---------------------------------------------------------------------------------------

    def _new_hand(self) -> int:
        """Deal a hand with ``self._rng`` as RLCard does; the index of the agent to act."""
        raise NotImplementedError

    def _play(self, action: int) -> int:
        """Play the legal RLCard action id ``action``; the index of the agent RLCard's turn
        pointer shows next (after the last action: where RLCard leaves it)."""
        raise NotImplementedError

    def _hand_over(self) -> bool:
        raise NotImplementedError

    def _legal_ids(self) -> list[int]:
        """RLCard's ids of the legal actions of the agent to act, in increasing order."""
        raise NotImplementedError

    def _payoffs(self) -> list[float]:
        """Each agent's reward at the end of the hand."""
        raise NotImplementedError

    def _observation(self, agent_index: int) -> np.ndarray:
        raise NotImplementedError

    def _table_text(self) -> str:
        raise NotImplementedError

    # PettingZoo API ------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new hand; ``seed`` deals as PettingZoo's env does with the same seed."""
        if seed is not None:
            self._rng = seeding.np_random(seed)[0]
            self._seeded = True
        first = self._new_hand()
        self._seeded = False
        self.agents = self.possible_agents[:]
        self.agent_selection = self.possible_agents[first]
        self.rewards: dict[str, float] = {a: 0 for a in self.agents}
        self._cumulative_rewards: dict[str, float] = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.next_legal_moves = self._legal_ids()
        if self.render_mode == "human":  # a frame after reset and after every action
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """RLCard's vector for ``agent``; the mask is that of the agent to act."""
        try:
            index = self.possible_agents.index(agent)
        except ValueError:  # a ValueError still, as PettingZoo's, naming the agents
            raise ConfigError(
                f"unknown agent {agent!r}; the agents are {self.possible_agents}"
            ) from None
        mask = np.zeros(self.num_actions, np.int8)
        mask[self.next_legal_moves] = 1
        return {"observation": self._observation(index), "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        done = self.terminations[agent] or self.truncations[agent]
        if self.illegal_action == "penalize":  # PettingZoo's two wrappers, see the module
            in_space = (
                type(action) is int and 0 <= action < self.num_actions  # the common case
            ) or self.action_spaces[agent].contains(action)
            assert (action is None and done) or in_space, "action is not in action space"
            if not done and action not in self.next_legal_moves:
                self._end_by_illegal_move(agent)
                if self.render_mode == "human":
                    self.render()
                return
        if done:
            self._was_dead_step(action)
            return
        nxt = self._play(self._checked(action))
        if self._hand_over():
            payoffs = self._payoffs()
            self.rewards = dict(zip(self.possible_agents, payoffs))
            self.next_legal_moves = []
            self.terminations = {a: True for a in self.agents}
            self.truncations = {a: False for a in self.agents}
        else:
            self.next_legal_moves = self._legal_ids()
        self._cumulative_rewards[self.agent_selection] = 0
        self.agent_selection = self.possible_agents[nxt]
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def render(self) -> np.ndarray | str | None:
        """``"human"`` prints the table as text, ``"ansi"`` returns the text, ``"rgb_array"``
        returns it drawn as an image."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        from pokerzoo.envs.rendering import text_to_rgb

        text = self._table_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text if self.render_mode == "ansi" else text_to_rgb(text)

    def close(self) -> None:
        pass

    def __deepcopy__(self, memo: dict) -> ClassicPokerEnv:
        # A full copy of the running hand (PettingZoo's RLCard envs cannot be deep-copied);
        # pickling rebuilds a fresh env from the arguments (EzPickle). The game is immutable.
        memo[id(self.game)] = self.game
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            setattr(new, key, copy.deepcopy(value, memo))
        return new

    def _end_by_illegal_move(self, agent: str) -> None:
        """``TerminateIllegalWrapper(illegal_reward=-1)``: every agent terminated and
        truncated, -1 to the agent that moved, 0 to the others."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0)
        self.rewards[agent] = -1.0
        self._accumulate_rewards()
        self._deads_step_first()

    def _checked(self, action: Any) -> int:
        """``action`` as an int if it is legal, else ``IllegalActionError`` naming the legal
        ids (PettingZoo's RLCard env would play check or fold instead)."""
        try:
            index = int(action)
        except (TypeError, ValueError):
            raise IllegalActionError(action, self.next_legal_moves, self.agent_selection) from None
        if index != action or index not in self.next_legal_moves:
            raise IllegalActionError(action, self.next_legal_moves, self.agent_selection)
        return index


def rlcard_deal(
    rng: np.random.RandomState, deck: tuple[int, ...], num_players: int, cards_each: int
) -> tuple[list[list[int]], list[int]]:
    """Shuffle ``deck`` (card ids in RLCard's deck order) with RLCard's generator and deal
    ``cards_each`` rounds of one card per agent off its end, as RLCard does: each agent's
    cards, and the rest of the deck (dealt on from the end)."""
    cards = list(deck)
    rng.shuffle(cards)
    hands: list[list[int]] = [[] for _ in range(num_players)]
    for i in range(cards_each * num_players):
        hands[i % num_players].append(cards.pop())
    return hands, cards


def classic_env(
    cls: type[ClassicPokerEnv], raw_env: Callable[..., ClassicPokerEnv], kwargs: dict[str, Any]
) -> AECEnv:
    """The env ``raw_env(**kwargs)`` would make, penalizing illegal actions, as PettingZoo's
    classic ``env()`` returns it: calls out of order raise, an illegal action ends the hand with
    reward -1 for the agent that played it. Unknown arguments raise ``ConfigError`` naming the
    arguments ``raw_env`` takes."""
    allowed = list(inspect.signature(raw_env).parameters)
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown:
        raise ConfigError(f"unknown arguments {unknown}; the arguments are {allowed}")
    return OrderEnforcing(cls(**kwargs, illegal_action="penalize"))


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with the same checks and messages, whose ``step``,
    ``last`` and ``agent_iter`` loop read the env directly: the generic wrapper fetches each
    attribute through ``__getattr__``, eight times per decision."""

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> _OrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderEnforcingIterable(self, max_iter)


class _OrderEnforcingIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _OrderEnforcingIterator:
        return _OrderEnforcingIterator(self.env, self.max_iter)


class _OrderEnforcingIterator(AECOrderEnforcingIterator):
    def __next__(self) -> str:
        base = self.env.env
        if not base.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        return base.agent_selection
