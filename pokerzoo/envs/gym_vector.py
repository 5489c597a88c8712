"""``PokerVectorEnv``: N single-agent hands against a fixed opponent as one Gymnasium VectorEnv.

``gymnasium.make_vec("pokerzoo/LeducHoldem-v0", num_envs=N)`` builds it (every Gymnasium id
of the env table has this ``vector_entry_point``). Sub-env ``i`` is what
``pokerzoo.wrappers.SingleAgentEnv`` is with the same arguments: one learner seat (fixed or
``"random"`` per hand), the other seats played by ``opponent``, one hand per episode, hands
that end before the learner acts re-dealt silently, an illegal learner action ending the hand
with the env's ``illegal_reward``. The N hands are played together on ``VectorPokerEnv``'s
arrays: one learner action per hand, then the opponents' actions for all hands where they are
to act in one batched call per opponent, until every hand is back at the learner's turn.

Autoreset is Gymnasium's default, ``AutoresetMode.NEXT_STEP``: the step that ends a hand
returns its last observation (the learner's final tensor, mask zero) with ``terminated``; the
next ``step`` ignores that sub-env's action and returns the first observation of a new hand
with reward 0. ``autoreset_mode=AutoresetMode.SAME_STEP`` (as ``SyncVectorEnv`` takes it)
deals the new hand in the step that ends one: ``terminated`` comes with the new hand's first
observation, and the last one is in ``infos["final_obs"]`` (an object array, ``None`` where no
hand ended) with ``infos["final_info"]``, each with its ``_key`` mask; no step is spent on
resets (Gymnasium's observation wrappers accept only next-step envs).

Infos are arrays with ``_key`` masks: ``seat`` (the learner's seat in each hand) and
``action_mask`` (``[N, A]``; rows about to be reset accept every action, so masked samplers
never see an empty row); ``action_masks()`` returns the same as booleans.

Seeding follows Gymnasium's vector envs: ``reset(seed=s)`` stands for the sub-env seeds
``s, s+1, ..., s+N-1`` and ``reset(seed=[s0, ..., sN-1])`` gives them one by one; the list
seeds one Generator for all hands (the hands are one array, not N generators), so a seed list
reproduces the whole batch exactly.

>>> import gymnasium
>>> import pokerzoo  # registers the ids
>>> envs = gymnasium.make_vec("pokerzoo/LeducHoldem-v0", num_envs=4)
>>> obs, infos = envs.reset(seed=0)
>>> obs.shape, infos["action_mask"].shape, envs.metadata["autoreset_mode"].name
((4, 60), (4, 3), 'NEXT_STEP')
>>> obs, rewards, terminated, truncated, infos = envs.step(np.ones(4, dtype=np.int64))
>>> rewards.shape, terminated.dtype
((4,), dtype('bool'))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from pettingzoo import AECEnv

from pokerzoo.envs import batch_opponents
from pokerzoo.envs.spaces import flat_space
from pokerzoo.envs.vector import VectorPokerEnv
from pokerzoo.errors import ConfigError, EnvStateError

ObsType = Literal["box", "dict", "flat"]


class PokerVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` hands of one seat against fixed opponents, stepped as arrays.

    Args:
        num_envs: hands played at once.
        env: a named env (``"leduc_holdem_v0"``) or an AEC env instance (then ``env_kwargs``
            must be empty); only its game and ``illegal_reward`` are used. Unknown-environment
            envs are refused (their hands are paid from a hidden model through the AEC env).
        opponent: one opponent for every other seat, or a list with one per other seat in seat
            order (see ``pokerzoo.envs.batch_opponents`` for what is accepted).
        seat: the learner's seat, or ``"random"`` for a new seat every hand.
        obs_type: ``"box"``, ``"dict"`` or ``"flat"``, as ``SingleAgentEnv``'s.
        reward_scale: multiplies every reward.
        backend: ``VectorPokerEnv``'s backend (``"auto"``, ``"arrays"`` or ``"state"``).
        render_mode: only ``None`` (render a hand with ``SingleAgentEnv``).
        autoreset_mode: ``AutoresetMode.NEXT_STEP`` (default) or ``SAME_STEP`` (or their
            values, ``"NextStep"``, ``"SameStep"``).
        **env_kwargs: game parameters and env options for a named env.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        env: str | AECEnv = "leduc_holdem_v0",
        opponent: Any = "random",
        seat: int | Literal["random"] = 0,
        obs_type: ObsType = "box",
        reward_scale: float = 1.0,
        backend: Literal["auto", "arrays", "state"] = "auto",
        render_mode: str | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        **env_kwargs: Any,
    ) -> None:
        if render_mode is not None:
            raise ConfigError(
                f"the vector env draws nothing (render_mode={render_mode!r}); render one hand "
                "with SingleAgentEnv"
            )
        self.render_mode = None
        modes = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
        mode = next((m for m in modes if autoreset_mode in (m, m.value)), None)
        if mode is None:
            raise ConfigError(
                f"autoreset_mode must be one of {[m.value for m in modes]}, got {autoreset_mode!r}"
            )
        self.autoreset_mode = mode
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        built_here = isinstance(env, str)
        if isinstance(env, str):
            from pokerzoo.envs.registry import make

            env = make(env, **env_kwargs)
        elif env_kwargs:
            raise ConfigError(f"env_kwargs {sorted(env_kwargs)} need a named env, not an instance")
        aec = env.unwrapped
        if aec.game.game_type.hidden_model:
            # The AEC env samples d* through its own hooks; VectorPokerEnv on its game would
            # deal from a belief, and held-back hands (a filler move, undone) could be paid.
            raise ConfigError(
                f"{aec.game.name} samples a hidden environment: play it with SingleAgentEnv "
                "or VectorPokerEnv on the game's interaction view"
            )
        self.game = aec.game
        self.illegal_reward = float(aec.illegal_reward)
        agents = list(env.possible_agents)
        inner = env.observation_space(agents[0])
        self.single_action_space = env.action_space(agents[0])
        if built_here:  # read for its game and spaces only; a caller's instance stays open
            env.close()
        n = len(agents)
        if seat != "random" and (not isinstance(seat, int | np.integer) or not 0 <= seat < n):
            raise ConfigError(f"seat must be 0..{n - 1} or 'random', got {seat!r}")
        if obs_type not in ("box", "dict", "flat"):
            raise ConfigError(f"obs_type must be 'box', 'dict' or 'flat', got {obs_type!r}")
        self.seat = seat
        self.obs_type = obs_type
        self.reward_scale = finite_reward_scale(reward_scale)
        specs = list(opponent) if isinstance(opponent, list | tuple) else [opponent] * (n - 1)
        if len(specs) != n - 1:
            raise ConfigError(f"need one opponent per other seat ({n - 1}), got {len(specs)}")
        # One batched opponent per distinct spec; seat k of the others plays _opponents[k].
        built: dict[int, Any] = {}
        for spec in specs:
            if id(spec) not in built:
                built[id(spec)] = batch_opponents.as_batch_opponent(
                    spec, self.game, lambda: self.np_random
                )
        self._opponents = [built[id(spec)] for spec in specs]
        self._groups = list({id(o): o for o in self._opponents}.values())

        self._venv = VectorPokerEnv(self.game, num_envs, backend=backend, final_observations=True)
        self.backend = self._venv.backend
        """``"arrays"`` or ``"state"``: how the hands are held."""
        self.num_envs = num_envs
        self.num_players = n
        self.num_actions = int(self.single_action_space.n)  # type: ignore[attr-defined]
        tensor, mask = inner["observation"], inner["action_mask"]
        if obs_type == "box":
            self.single_observation_space = tensor
        elif obs_type == "dict":
            self.single_observation_space = inner
        else:
            self.single_observation_space = flat_space(tensor, mask)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

        N = num_envs
        self._obs = np.zeros((N, self._venv.observation_size), np.float32)
        self._mask = np.zeros((N, self.num_actions), np.int8)
        self._player = np.zeros(N, np.int64)
        self._seats = np.zeros(N, np.int64)
        self._acted = np.zeros(N, bool)
        self._dead = np.zeros(N, bool)
        self._autoreset = np.zeros(N, bool)
        self._started = False
        self.redeals = 0
        """Hands re-dealt because they ended before the learner acted."""

    # Gymnasium API -----------------------------------------------------------------------------

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Deal a new hand in every sub-env (see the module docstring for ``seed``)."""
        if options:
            raise ConfigError(f"reset takes no options, got {sorted(options)}")
        if seed is not None:
            self._np_random, self._np_random_seed = _generator(seed, self.num_envs)
        deal_seed = None if seed is None else int(self.np_random.integers(2**63))
        obs, mask, player = self._venv.reset(seed=deal_seed)
        self._obs, self._mask, self._player = obs, mask, player
        self._dead[:] = False
        self._autoreset[:] = False
        self._new_hands(np.ones(self.num_envs, bool))
        self._started = True
        self._play(np.zeros(self.num_envs, np.int64), np.zeros(self.num_envs, bool))
        return self._observe(self._obs, self._mask), self._info()

    def step(
        self, actions: Any
    ) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner action per sub-env (ignored in sub-envs whose hand ended last step)."""
        if not self._started:
            raise EnvStateError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ConfigError(
                f"actions must be {self.num_envs} integers, got shape {actions.shape} of "
                f"{actions.dtype}"
            )
        resetting = self._autoreset.copy()
        inside = (actions >= 0) & (actions < self.num_actions)
        if not inside[~resetting].all():
            raise ConfigError(f"actions must lie in 0..{self.num_actions - 1}")
        self._new_hands(resetting & ~self._dead)  # dead hands draw a seat once played out
        legal = np.zeros(self.num_envs, bool)
        legal[inside] = self._mask[np.flatnonzero(inside), actions[inside]] > 0
        illegal = ~resetting & ~legal
        rewards = np.zeros(self.num_envs)
        terminated = illegal.copy()
        final = np.where(illegal[:, None], self._obs, 0.0).astype(np.float32)
        rewards[illegal] = self.illegal_reward
        self._dead |= illegal  # the hand is abandoned: played out unseen before the next one
        same = self.autoreset_mode is AutoresetMode.SAME_STEP
        seats = self._seats.copy()  # of the hands now in play (same-step redraws them)
        ended, payoff, last = self._play(
            actions, ~resetting & legal, frozen=None if same else illegal
        )
        rewards[ended] = payoff[ended]
        final[ended] = last[ended]
        terminated |= ended
        truncated = np.zeros(self.num_envs, bool)
        rewards *= self.reward_scale
        if same:
            infos = self._info()
            if terminated.any():
                self._add_final(infos, final, seats, terminated)
            return self._observe(self._obs, self._mask), rewards, terminated, truncated, infos
        self._autoreset = terminated.copy()  # the caller may keep what step returns
        mask = np.where(terminated[:, None], 0, self._mask).astype(np.int8)
        obs = np.where(terminated[:, None], final, self._obs).astype(np.float32)
        return self._observe(obs, mask), rewards, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """``[N, A]`` booleans: the learner's legal actions in each sub-env (all True where the
        hand just ended, since the next step ignores that action)."""
        return self._next_mask().astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the hands are arrays in this process."""

    # Internals ---------------------------------------------------------------------------------

    def _new_hands(self, rows: np.ndarray) -> None:
        """Start the learner's next hand in ``rows`` (bool): a seat, nothing acted yet."""
        k = int(rows.sum())
        if k == 0:
            return
        if self.seat == "random":
            self._seats[rows] = self.np_random.integers(self.num_players, size=k)
        else:
            self._seats[rows] = self.seat
        self._acted[rows] = False

    def _play(
        self, actions: np.ndarray, learner: np.ndarray, frozen: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Apply the learner's ``actions`` where ``learner`` (bool), then let opponents (and
        the filler moves of abandoned hands) act until every hand not ``frozen`` is at the
        learner's turn: of the same hand, of the next one (same-step autoreset) or, if the
        hand ended after the learner acted in it, held until the next step (next-step).

        Returns ``(ended [N], learner's payoff [N], learner's final tensor [N, D])``.
        """
        N = self.num_envs
        ended = np.zeros(N, bool)
        payoff = np.zeros(N)
        last = np.zeros_like(self._obs)
        waiting = np.zeros(N, bool) if frozen is None else frozen.copy()
        pending = learner.copy()
        while True:
            to_move = self._player != self._seats
            dead = self._dead & ~waiting
            opp = to_move & ~waiting & ~self._dead
            go = pending | dead | opp
            if not go.any():
                return ended, payoff, last
            acts = np.where(pending, actions, np.argmax(self._mask, axis=1))
            if opp.any():
                acts[opp] = self._opponent_actions(np.flatnonzero(opp))
            done, rewards, final = self._tick(acts, go)
            self._acted |= pending
            pending[:] = False
            real = done & self._acted & ~self._dead
            seat = self._seats
            payoff[real] = rewards[real, seat[real]]
            if final is not None:
                last[real] = final[real, seat[real]]
            ended |= real
            if self.autoreset_mode is AutoresetMode.NEXT_STEP:
                waiting |= real  # the next step presents the new hand
                redeal = done & ~real
            else:
                redeal = done  # same step: the next hand starts now
            self.redeals += int((done & ~self._acted & ~self._dead).sum())
            self._dead &= ~done
            self._new_hands(redeal)

    def _tick(
        self, actions: np.ndarray, go: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Advance the hands in ``go`` by one action; the others stay as they are."""
        res = self._venv.step(actions, hold=None if go.all() else ~go)
        self._obs, self._mask, self._player = res.obs, res.mask, res.player
        return res.done, res.rewards, res.final_obs

    def _opponent_actions(self, rows: np.ndarray) -> np.ndarray:
        """Actions of the opponents to act in ``rows`` (one batched call per opponent)."""
        seat, learner = self._player[rows], self._seats[rows]
        which = seat - (seat > learner)  # index among the other seats, in seat order
        out = np.zeros(len(rows), np.int64)
        for opponent in self._groups:
            pick = np.flatnonzero(
                np.isin(which, [k for k, o in enumerate(self._opponents) if o is opponent])
            )
            if len(pick):
                r = rows[pick]
                out[pick] = batch_opponents.play(
                    opponent, self._obs[r], self._mask[r], seat[pick], self.np_random
                )
        return out

    def _next_mask(self) -> np.ndarray:
        return np.where(self._autoreset[:, None], 1, self._mask).astype(np.int8)

    def _observe(self, obs: np.ndarray, mask: np.ndarray) -> Any:
        if self.obs_type == "box":
            return obs.copy()
        if self.obs_type == "dict":
            return {"observation": obs.copy(), "action_mask": mask.copy()}
        return np.concatenate([obs, mask.astype(np.float32)], axis=1)

    def _add_final(
        self, infos: dict[str, Any], final: np.ndarray, seats: np.ndarray, ended: np.ndarray
    ) -> None:
        """Same-step autoreset: the ended hands' last observations and infos, as
        ``SyncVectorEnv`` reports them (``final_obs`` holds one observation per sub-env)."""
        rows = np.flatnonzero(ended)
        batch = self._observe(final[rows], np.zeros((len(rows), self.num_actions), np.int8))
        final_obs = np.full(self.num_envs, None, dtype=object)
        if self.obs_type == "dict":
            for j, i in enumerate(rows):  # Gymnasium's format: one object per sub-env
                final_obs[i] = {key: value[j] for key, value in batch.items()}
        else:
            final_obs[rows] = list(batch)
        final_seat = np.where(ended, seats, 0)
        final_mask = np.zeros((self.num_envs, self.num_actions), np.int8)
        infos["final_obs"], infos["_final_obs"] = final_obs, ended.copy()
        infos["final_info"] = {
            "seat": final_seat, "_seat": ended.copy(),
            "action_mask": final_mask, "_action_mask": ended.copy(),
        }
        infos["_final_info"] = ended.copy()

    def _info(self) -> dict[str, Any]:
        every = np.ones(self.num_envs, bool)
        return {
            "seat": self._seats.copy(), "_seat": every,
            "action_mask": self._next_mask(), "_action_mask": every.copy(),
        }


def _generator(
    seed: int | Sequence[int | None], num_envs: int
) -> tuple[np.random.Generator, int]:
    """The env's Generator from Gymnasium's vector seeds (an int ``s`` stands for
    ``s..s+N-1``; ``None`` entries draw fresh entropy) and the seed it reports."""
    if isinstance(seed, int | np.integer):
        seeds: list[int | None] = [int(seed) + i for i in range(num_envs)]
    else:
        seeds = list(seed)
        if len(seeds) != num_envs:
            raise ConfigError(f"need {num_envs} seeds (one per sub-env), got {len(seeds)}")
    entropy = []
    for s in seeds:
        if s is None:
            s = int(np.random.SeedSequence().entropy) % 2**63  # type: ignore[arg-type]
        if not isinstance(s, int | np.integer) or s < 0:
            raise ConfigError(f"seeds must be non-negative integers or None, got {s!r}")
        entropy.append(int(s))
    reported = entropy[0] if not isinstance(seed, int | np.integer) else int(seed)
    return np.random.default_rng(np.random.SeedSequence(entropy)), reported


def finite_reward_scale(reward_scale: Any) -> float:
    """``reward_scale`` as a float; ``ConfigError`` for NaN, an infinity or a non-number (they
    would turn every reward into NaN or inf without a word)."""
    try:
        scale = float(reward_scale)
    except (TypeError, ValueError):
        scale = float("nan")
    if isinstance(reward_scale, bool) or not np.isfinite(scale):
        raise ConfigError(f"reward_scale must be a finite number, got {reward_scale!r:.40}")
    return scale


def make_vector_env(num_envs: int = 1, **kwargs: Any) -> PokerVectorEnv:
    """Gymnasium's vector entry point (``make_vec`` passes ``num_envs`` and the env name)."""
    return PokerVectorEnv(num_envs=num_envs, **kwargs)
