"""The AEC learner adapter: AEC semantics (rewards through last(), dead steps, early exits, three
players), requirement checks, seeding, checkpoints that replay the hands in flight."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.classic import tictactoe_v3

from pokerzoo.agents.nfsp.config import NFSPConfig
from pokerzoo.agents.nfsp.rollout import _ActingSeat
from pokerzoo.agents.nfsp.selfplay import SelfPlay
from pokerzoo.errors import CheckpointError, ConfigError, EnvStateError, IllegalActionError
from pokerzoo.integrations.pettingzoo_classic import leduc_holdem_v4 as our_classic_leduc
from pokerzoo.wrappers.aec_learner import AECLearnerEnv, check_copyable


class ThreeToy(AECEnv):
    """Three agents take turns a0, a1, a2, ...; action k pays the actor k and the next agent 1
    at once (rewards at non-final steps); a0 leaves after its second action with -5; the hand
    ends after ``length`` live decisions, paying a1 +2 and a2 -2. ``truth`` sums everything paid.
    The mask is in ``info`` (observation: a Box) when ``mask_in_info``; ``seed`` picks ``length``;
    ``finished`` keeps ``truth`` of every hand that ended (appended at the next reset)."""

    metadata = {"name": "three_toy_v0"}

    def __init__(self, mask_in_info: bool = False, ante: float = 0.0) -> None:
        self.possible_agents = ["a0", "a1", "a2"]
        self.mask_in_info = mask_in_info
        self.ante = ante
        box = spaces.Box(0.0, 10.0, (4,), np.float32)
        mask = spaces.Box(0, 1, (3,), np.int8)
        self.observation_spaces = {
            a: box if mask_in_info else spaces.Dict({"observation": box, "action_mask": mask})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(3) for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.length = 5 + int(np.random.default_rng(seed).integers(0, 4))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        if getattr(self, "moves", 0):
            self.finished.append(self.truth)
        self.finished = getattr(self, "finished", [])
        # An ante paid at reset: read through last() at each agent's first selection.
        self.truth = dict.fromkeys(self.agents, -self.ante)
        self._cumulative_rewards = dict.fromkeys(self.agents, -self.ante)
        self.moves = 0
        self.a0_moves = 0
        self.agent_selection = "a0"
        self._set_masks()

    def _mask(self, agent):
        return np.array([1, 1, 0 if agent == "a2" else 1], np.int8)

    def _set_masks(self):
        if self.mask_in_info:
            for a in self.agents:
                self.infos[a] = {"action_mask": self._mask(a)}

    def observe(self, agent):
        obs = np.array([self.moves, self.a0_moves, self.possible_agents.index(agent),
                        self.length], np.float32)
        return obs if self.mask_in_info else {"observation": obs, "action_mask": self._mask(agent)}

    def _pay(self, agent, amount):
        self.rewards[agent] += amount
        self.truth[agent] += amount

    def _next_live(self, after):
        order = self.possible_agents
        i = order.index(after)
        for k in range(1, 4):
            cand = order[(i + k) % 3]
            if cand in self.agents and not self.terminations[cand]:
                return cand
        return None

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        assert self._mask(agent)[action]
        self.moves += 1
        self._pay(agent, float(action))
        nxt = self._next_live(agent)
        if nxt is not None and nxt != agent:
            self._pay(nxt, 1.0)
        if agent == "a0":
            self.a0_moves += 1
            if self.a0_moves == 2:
                self._pay("a0", -5.0)
                self.terminations["a0"] = True
        if self.moves >= self.length:
            self._pay("a1", 2.0)
            self._pay("a2", -2.0)
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self._set_masks()
        # Dead agents first (PettingZoo's convention: they are selected for their dead step,
        # then play resumes with ``_skip_agent_selection``).
        dead = [a for a in self.agents if self.terminations[a]]
        following = self._next_live(agent)
        if dead:
            self._skip_agent_selection = following
        self.agent_selection = dead[0] if dead else following


def toy(mask_in_info=False, ante=0.0):
    return lambda: ThreeToy(mask_in_info, ante)


def hands_until_done(venv, mask, rng):
    """Random legal actions until row 0's hand ends; the rewards credited to it meanwhile."""
    credited = np.zeros(venv.num_players)
    while True:
        result = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
        credited += result.rewards[0]
        mask = result.mask
        if result.done[0]:
            return credited, mask


@pytest.mark.parametrize(("mask_in_info", "ante"), [(False, 0.0), (True, 0.0), (False, 0.5)])
def test_three_players_early_exit_and_mid_hand_rewards_are_credited(mask_in_info, ante):
    venv = AECLearnerEnv(toy(mask_in_info, ante), num_envs=1, seed=0)
    obs, mask, player = venv.reset(seed=1)
    assert obs.shape == (1, 4) and mask.shape == (1, 3) and player.tolist() == [0]
    rng = np.random.default_rng(0)
    for hand in range(20):
        credited, mask = hands_until_done(venv, mask, rng)
        paid = venv.envs[0].finished[-1]  # everything the env paid in that hand, per agent
        np.testing.assert_allclose(credited, [paid["a0"], paid["a1"], paid["a2"]])
        assert venv.episodes == hand + 1
    # Seats act in turn, a0 leaving after two moves: a0, a1, a2, a0, a1, a2, a1, a2, ...
    venv.reset(seed=4)
    seats = []
    for _ in range(6):
        seats.append(int(venv._player[0]))
        result = venv.step(np.array([1]))
        if result.done[0]:
            break
    assert seats[:6] == [0, 1, 2, 0, 1, 2][: len(seats)]


def test_selfplay_transitions_carry_every_reward_and_end_each_seats_hand():
    venv = AECLearnerEnv(toy(ante=0.5), num_envs=1, seed=0)
    config = NFSPConfig.from_params(num_envs=1, hidden_sizes=(8,))
    seats = [_ActingSeat(4, 3, config) for _ in range(3)]
    selfplay = SelfPlay(venv, seats, 0.5, np.random.default_rng(0))  # type: ignore[arg-type]
    selfplay.restart(7)
    hands = 0
    while hands < 25:
        hands += selfplay.step(0.1)
    transitions = [seat.drain()[0] for seat in seats]
    finished = venv.envs[0].finished
    assert len(finished) == hands
    for p, batch in enumerate(transitions):
        # Every hand ends each seat's transitions once (done=1), and what the seats stored
        # adds up to everything the env paid them (no hand is in flight for the recorder).
        assert batch["done"].sum() == hands
        paid = sum(h[f"a{p}"] for h in finished)
        assert batch["reward"].sum() == pytest.approx(paid)
    a0 = transitions[0]
    # a0 leaves after its second move with -5 (plus its own action, at most 2).
    assert np.all(a0["reward"][a0["done"] == 1] <= -3.0)
    # Its first transition holds the ante (read at its first selection), its own action and
    # the 1 that a2 paid it before its second move: -0.5 + {0, 1, 2} + 1.
    assert set(a0["reward"][a0["done"] == 0].tolist()) <= {0.5, 1.5, 2.5}
    assert (a0["done"] == 0).sum() == hands  # its first move continues to its second


def test_requirements_are_named():
    class Continuous(ThreeToy):
        def __init__(self):
            super().__init__()
            self.action_spaces = {a: spaces.Box(-1, 1, (1,)) for a in self.possible_agents}

    class NoMask(ThreeToy):
        def __init__(self):
            super().__init__(mask_in_info=True)

        def _set_masks(self):
            pass

    with pytest.raises(ConfigError, match="continuous actions"):
        AECLearnerEnv(Continuous, num_envs=2)
    with pytest.raises(ConfigError, match="no action mask"):
        AECLearnerEnv(NoMask, num_envs=2)
    with pytest.raises(ConfigError, match="expected a PettingZoo AEC env"):
        AECLearnerEnv(42, num_envs=2)
    class Uncopyable(ThreeToy):
        def __deepcopy__(self, memo):
            raise TypeError("holds a socket")

    with pytest.raises(ConfigError, match="not copyable"):
        AECLearnerEnv(Uncopyable(), num_envs=2)
    AECLearnerEnv(Uncopyable(), num_envs=1)  # one env needs no copy
    # PettingZoo's classic envs deep-copy as fresh envs (EzPickle): enough to multiply an
    # instance (copies are reset), not for search (check_copyable); our drop-in copies the
    # running game.
    venv = AECLearnerEnv(tictactoe_v3.env(), num_envs=3)
    assert len({id(e) for e in venv.envs}) == 3
    with pytest.raises(ConfigError, match="not copyable"):
        check_copyable(venv.envs[0])
    ours = our_classic_leduc.env()
    ours.reset(seed=0)
    check_copyable(ours)


def test_illegal_actions_and_order_are_refused():
    venv = AECLearnerEnv(toy(), num_envs=2, seed=0)
    with pytest.raises(EnvStateError, match="reset"):
        venv.step(np.zeros(2, np.int64))
    venv.reset()
    with pytest.raises(IllegalActionError, match="legal"):
        venv.step(np.array([0, 5]))


def test_seeded_runs_deal_the_same_hands():
    def run(seed):
        venv = AECLearnerEnv(tictactoe_v3.env, num_envs=3, seed=seed)
        obs, mask, _ = venv.reset()
        rng = np.random.default_rng(0)
        out = [obs]
        for _ in range(30):
            result = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
            mask = result.mask
            out.append(result.obs)
        return np.stack(out), venv.episodes

    a, b = run(5), run(5)
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1] == b[1]
    leduc = [AECLearnerEnv(our_classic_leduc.env, 4, seed=s).reset()[0] for s in (1, 1, 2)]
    np.testing.assert_array_equal(leduc[0], leduc[1])
    assert not np.array_equal(leduc[0], leduc[2])


def play(venv, mask, rng, steps):
    out = []
    for _ in range(steps):
        result = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
        mask = result.mask
        out.append((result.obs, result.rewards, result.done))
    return out


def test_resume_replays_the_hands_in_flight():
    venv = AECLearnerEnv(toy(ante=0.5), num_envs=3, seed=0)
    _, mask, _ = venv.reset(seed=2)
    rng = np.random.default_rng(0)
    play(venv, mask, rng, 4)
    state = copy.deepcopy(venv.state_dict())
    resumed = AECLearnerEnv(toy(ante=0.5), num_envs=3, seed=99)
    resumed.load_state_dict(state)
    assert resumed.episodes == venv.episodes
    a = play(venv, venv._mask.copy(), np.random.default_rng(5), 12)
    b = play(resumed, resumed._mask.copy(), np.random.default_rng(5), 12)
    for (oa, ra, da), (ob, rb, db) in zip(a, b):
        np.testing.assert_array_equal(oa, ob)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(da, db)
    with pytest.raises(CheckpointError, match="env copies"):
        AECLearnerEnv(toy(ante=0.5), num_envs=2).load_state_dict(state)


def test_resume_of_an_env_whose_seed_does_not_fix_its_chance_is_refused():
    class Unseeded(ThreeToy):
        draws = iter(range(10**6))

        def reset(self, seed=None, options=None):
            super().reset(seed=next(self.draws), options=options)

    venv = AECLearnerEnv(Unseeded, num_envs=4, seed=0)
    _, mask, _ = venv.reset()
    play(venv, mask, np.random.default_rng(0), 3)
    state = venv.state_dict()
    with pytest.raises(CheckpointError, match="reset\\(seed\\) must determine"):
        AECLearnerEnv(Unseeded, num_envs=4).load_state_dict(state)
    fresh = AECLearnerEnv(Unseeded, num_envs=4)
    fresh.load_state_dict(state, drop_hands=True)
    assert fresh.episodes == venv.episodes
