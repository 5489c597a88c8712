"""A posterior over environment models: prior parameters plus observed counts (conjugate).

Chance nodes have Dirichlet posteriors (prior ``alpha`` plus how often each outcome was dealt),
terminals have Dirichlet posteriors over their reward outcomes (Beta for the PSRLCFR prior's
+-1 rewards). ``mean_model()`` is the posterior mean; ``sample_model(rng)`` draws a model as
PSRLCFR's Thompson sampling does. Every observed (terminal, reward) pair also goes to a data
pool, for agents that fit their own reward models (VCFR's BNN).

What a learner observes (PSRLCFR and VCFR): after each episode, the *whole trajectory*, chance
outcomes included (the opponent's card too), and the rewards paid. The unknown envs report it
at the end of a hand as ``infos[agent]["episode"] = {"history": [...], "returns": [...]}``
(see ``pokerzoo.envs.unknown_env``); ``observe_info`` reads that.

>>> from pokerzoo import load_game
>>> game = load_game("unknown_kuhn_poker")
>>> posterior = Posterior(game)
>>> posterior.observe([0, 2, 1, 1], [-1.0, 1.0])   # cards 0 and 2 dealt, bet, call
>>> posterior.num_episodes
1
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pokerzoo.errors import CheckpointError, ConfigError
from pokerzoo.games.unknown.model import EnvironmentModel, EpisodeBatch, ModelStructure
from pokerzoo.games.unknown.priors import Prior, dirichlet_rows, dirichlet_segments


class Posterior:
    """Dirichlet/Beta posterior over ``EnvironmentModel``s of one base game.

    Args:
        game: an unknown-environment game (its structure and prior are used) or a
            ``ModelStructure`` (then ``prior`` is required).
        prior: the prior; defaults to the game's.
    """

    def __init__(self, game: Any, prior: Prior | None = None) -> None:
        if isinstance(game, ModelStructure):
            structure = game
        else:
            structure = game.structure
            prior = prior if prior is not None else game.prior
        if prior is None:
            raise ConfigError("a Posterior over a bare ModelStructure needs a prior")
        self.structure = structure
        self.prior = prior
        self.chance_alpha = prior.chance_alpha(structure)
        self.reward_values = prior.reward_values(structure)
        self.reward_alpha = prior.reward_alpha(structure)
        self.chance_counts: np.ndarray = np.zeros(structure.num_slots)
        """How often each chance edge (slot) was observed."""
        self.reward_counts: np.ndarray = np.zeros(self.reward_alpha.shape)
        """How often each terminal paid each of its reward outcomes."""
        self.num_episodes = 0
        self._pool_terminals = np.zeros(0, dtype=np.int64)
        self._pool_rewards = np.zeros((0, structure.num_players))
        self._pool_size = 0

    # Updates -----------------------------------------------------------------------------------

    def update(self, batch: EpisodeBatch) -> None:
        """Add a batch of observed episodes (vectorised: one ``bincount`` per kind of count).

        Raises:
            ValueError: if a reward is not one of its terminal's possible outcomes.
        """
        n = len(batch)
        if n == 0:
            return
        outcomes = self.reward_outcomes(batch.terminals, batch.rewards)
        s = self.structure
        self.chance_counts += np.bincount(batch.chance_slots, minlength=s.num_slots)
        k = self.reward_counts.shape[1]
        flat = np.bincount(batch.terminals * k + outcomes, minlength=s.num_terminals * k)
        self.reward_counts += flat.reshape(s.num_terminals, k)
        self.num_episodes += n
        self._append_pool(batch.terminals, batch.rewards)

    def observe(self, history: Sequence[int], returns: Sequence[float]) -> None:
        """Add one episode: its full history (chance outcomes included) and the rewards paid."""
        self.update(self.structure.encode([history], np.asarray([returns], dtype=np.float64)))

    def observe_info(self, info: Mapping[str, Any]) -> bool:
        """Add the episode an unknown env reported in an agent's final ``info``.

        Returns:
            True if ``info`` held an episode report (hands ended by an illegal action have none).
        """
        episode = info.get("episode")
        if episode is None:
            return False
        self.observe(episode["history"], episode["returns"])
        return True

    def reward_outcomes(self, terminals: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        """The reward outcome index ``k`` of each (terminal, reward vector) pair."""
        values = self.reward_values[terminals]  # [n, K, players]
        rewards = np.asarray(rewards, dtype=np.float64)
        match = np.all(np.isclose(values, rewards[:, None, :]), axis=2)
        found = match.any(axis=1)
        if not found.all():
            i = int(np.flatnonzero(~found)[0])
            raise ConfigError(
                f"reward {rewards[i].tolist()} is not a possible outcome of terminal "
                f"{list(self.structure.terminal_histories[terminals[i]])} under {self.prior!r}"
            )
        return match.argmax(axis=1)

    # Models ------------------------------------------------------------------------------------

    def chance_parameters(self) -> np.ndarray:
        """``[num_slots]`` posterior Dirichlet parameters of the chance nodes."""
        return self.chance_alpha + self.chance_counts

    def reward_parameters(self) -> np.ndarray:
        """``[num_terminals, K]`` posterior Dirichlet parameters of the reward outcomes."""
        return self.reward_alpha + self.reward_counts

    def mean_model(self) -> EnvironmentModel:
        """The posterior mean model."""
        s = self.structure
        chance = self.chance_parameters()
        reward = self.reward_parameters()
        return EnvironmentModel(
            s,
            chance / np.repeat(s.segment_sums(chance), np.diff(s.outcome_offsets)),
            self.reward_values,
            reward / reward.sum(axis=1, keepdims=True),
        )

    def mean_view(self, game: Any) -> Any:
        """An agent's view of ``game`` believing the posterior mean: a full-width solver on it
        solves the posterior mean (``CFRPlus(posterior.mean_view(env.game))``).

        Args:
            game: the unknown-environment game or an agent's view of it (``env.game``).
        """
        return game.agent_view(self.mean_model(), "posterior mean")

    def sample_model(self, rng: np.random.Generator) -> EnvironmentModel:
        """One model drawn from the posterior with ``rng`` (Thompson sampling, as PSRLCFR)."""
        s = self.structure
        return EnvironmentModel(
            s,
            dirichlet_segments(self.chance_parameters(), s.outcome_offsets, rng),
            self.reward_values,
            dirichlet_rows(self.reward_parameters(), rng),
        )

    # Data pool ---------------------------------------------------------------------------------

    def _append_pool(self, terminals: np.ndarray, rewards: np.ndarray) -> None:
        need = self._pool_size + len(terminals)
        if need > len(self._pool_terminals):
            # Amortised doubling: appends cost O(1) per sample however batches are sized.
            cap = max(need, 2 * len(self._pool_terminals), 1024)
            self._pool_terminals = np.resize(self._pool_terminals, cap)
            self._pool_rewards = np.resize(self._pool_rewards, (cap, self.structure.num_players))
        self._pool_terminals[self._pool_size : need] = terminals
        self._pool_rewards[self._pool_size : need] = rewards
        self._pool_size = need

    def data_pool(self) -> tuple[np.ndarray, np.ndarray]:
        """Every observed ``(terminal index, reward vector)`` so far, oldest first (copies)."""
        n = self._pool_size
        return self._pool_terminals[:n].copy(), self._pool_rewards[:n].copy()

    def terminal_samples(self, terminal: int) -> np.ndarray:
        """The reward vectors observed at terminal index ``terminal``."""
        n = self._pool_size
        return self._pool_rewards[:n][self._pool_terminals[:n] == terminal].copy()

    # Checkpoints -------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        terminals, rewards = self.data_pool()
        return {
            "chance_counts": self.chance_counts.copy(),
            "reward_counts": self.reward_counts.copy(),
            "num_episodes": self.num_episodes,
            "pool_terminals": terminals,
            "pool_rewards": rewards,
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        chance = np.asarray(state["chance_counts"], dtype=np.float64)
        reward = np.asarray(state["reward_counts"], dtype=np.float64)
        if chance.shape != self.chance_counts.shape or reward.shape != self.reward_counts.shape:
            raise CheckpointError("the state dict was saved for another base game or prior")
        self.chance_counts = chance.copy()
        self.reward_counts = reward.copy()
        self.num_episodes = int(state["num_episodes"])
        self._pool_size = 0
        self._append_pool(
            np.asarray(state["pool_terminals"], dtype=np.int64),
            np.asarray(state["pool_rewards"], dtype=np.float64),
        )

    def __repr__(self) -> str:
        game = self.structure.base_game
        return f"Posterior({game!r}, {self.prior!r}, {self.num_episodes} episodes)"
