"""PokerVectorEnv: make_vec, Gymnasium's checks and vector wrappers, next-step autoreset,
seeding, opponents, and rewards that match SingleAgentEnv's against the same opponent."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import vector as vw

from pokerzoo import load_game
from pokerzoo.envs.batch_opponents import TableLookup
from pokerzoo.envs.gym_vector import PokerVectorEnv
from pokerzoo.envs.registration import GYM_IDS, register_all
from pokerzoo.errors import ConfigError, InvalidPolicyError
from pokerzoo.tree import TabularPolicy, build
from pokerzoo.wrappers import SingleAgentEnv

register_all()


def _masked_random(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.argmax(masks * rng.random(masks.shape), axis=1)


def _rollout(envs, seed, steps, actions_rng_seed=0):
    """Observations, rewards and terminations of ``steps`` masked-random steps."""
    rng = np.random.default_rng(actions_rng_seed)
    obs, infos = envs.reset(seed=seed)
    out = [obs]
    for _ in range(steps):
        obs, rew, term, trunc, infos = envs.step(_masked_random(infos["action_mask"], rng))
        out += [obs, rew, term]
    return out


@pytest.mark.parametrize("gym_id", list(GYM_IDS))
def test_make_vec_builds_the_array_env_with_batched_spaces(gym_id: str) -> None:
    envs = gymnasium.make_vec(gym_id, num_envs=5, seat="random")
    single = gymnasium.make(gym_id)
    assert isinstance(envs, PokerVectorEnv)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    assert envs.observation_space == gymnasium.vector.utils.batch_space(
        single.observation_space, 5
    )
    obs, infos = envs.reset(seed=0)
    assert obs in envs.observation_space
    rng = np.random.default_rng(0)
    for _ in range(12):
        masks = envs.action_masks()
        assert masks.dtype == bool and masks.shape == (5, single.action_space.n)
        assert masks.any(axis=1).all()
        obs, rew, term, trunc, infos = envs.step(_masked_random(masks, rng))
        assert obs in envs.observation_space
        assert rew.dtype == np.float64 and rew.shape == (5,)
        assert term.dtype == np.bool_ and trunc.dtype == np.bool_ and not trunc.any()
        assert infos["_seat"].all() and infos["_action_mask"].all()
        np.testing.assert_array_equal(infos["action_mask"], masks_after := envs.action_masks())
        assert masks_after[term].all()  # rows about to be reset accept anything
    envs.close()
    assert envs.closed
    sync = gymnasium.make_vec(gym_id, num_envs=2, vectorization_mode="sync")  # still offered
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    assert sync.single_observation_space == envs.single_observation_space


@pytest.mark.parametrize("obs_type", ["box", "dict", "flat"])
def test_gymnasium_checks(obs_type: str) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".*maximum value is infinity")
        check_env(gymnasium.make("pokerzoo/LeducHoldem-v0", obs_type=obs_type).unwrapped)
    envs = gymnasium.make_vec("pokerzoo/LeducHoldem-v0", num_envs=6, obs_type=obs_type)
    # What Gymnasium's checker asks of single envs, asked of the vector env: same seed, same
    # data; different seeds, different data; returned data not reused between steps.
    first = _rollout(envs, 7, 20)
    assert data_equivalence(first, _rollout(envs, 7, 20), exact=True)
    assert not data_equivalence(first, _rollout(envs, 8, 20))
    obs_a, infos = envs.reset(seed=1)
    obs_b, *_ = envs.step(envs.action_space.sample(mask=None) * 0 + 1)
    assert not data_equivalence(obs_a, obs_b)
    for obs in (obs_a, obs_b):
        assert obs in envs.observation_space


def test_seeding_follows_gymnasium_vector_rules() -> None:
    envs = PokerVectorEnv(4, "leduc_holdem_v0", seat="random")
    by_int = _rollout(envs, 10, 15)
    assert envs.np_random_seed == 10
    assert data_equivalence(by_int, _rollout(envs, [10, 11, 12, 13], 15), exact=True)
    assert not data_equivalence(by_int, _rollout(envs, [10, 11, 12, 99], 15))
    # An unseeded reset continues the seeded generator: reproducible as a sequence.
    envs.reset(seed=3)
    again = _rollout(envs, None, 5)
    envs.reset(seed=3)
    assert data_equivalence(again, _rollout(envs, None, 5), exact=True)
    with pytest.raises(ConfigError, match="4 seeds"):
        envs.reset(seed=[1, 2])
    with pytest.raises(ConfigError, match="non-negative"):
        envs.reset(seed=[1, 2, -3, 4])
    envs.reset(seed=[1, None, 2, None])  # None entries draw fresh entropy


def test_next_step_autoreset_semantics() -> None:
    envs = PokerVectorEnv(64, "kuhn_poker_v0", obs_type="dict", seat="random")
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(1)
    seen_end = seen_reset = 0
    for _ in range(30):
        actions = _masked_random(envs.action_masks(), rng)
        ended = envs._autoreset.copy()
        actions[ended] = 99  # ignored: those sub-envs are reset by this step
        obs, rew, term, trunc, infos = envs.step(actions)
        assert (rew[ended] == 0).all() and not term[ended].any()
        # a reset row is at the learner's first decision: a mask with a legal action
        assert obs["action_mask"][ended].any(axis=1).all()
        seen_reset += int(ended.sum())
        # a hand that ends shows its last observation, mask zero, and pays a Kuhn amount
        assert (obs["action_mask"][term] == 0).all()
        assert set(np.abs(rew[term]).tolist()) <= {1.0, 2.0}
        assert (rew[~term] == 0).all()
        seen_end += int(term.sum())
    assert seen_end > 100 and seen_reset > 100


def test_illegal_action_ends_the_hand_with_the_penalty() -> None:
    envs = PokerVectorEnv(3, "leduc_holdem_v0", illegal_reward=-7.0)
    obs, infos = envs.reset(seed=0)
    assert (infos["action_mask"][:, 0] == 0).all()  # folding is illegal at the first decision
    obs, rew, term, trunc, infos = envs.step(np.array([0, 1, 1]))
    assert term[0] and rew[0] == -7.0 and not term[1:].any()
    np.testing.assert_array_equal(infos["action_mask"][0], [1, 1, 1])
    obs, rew, term, trunc, infos = envs.step(np.array([0, 1, 1]))
    assert rew[0] == 0 and not term[0] and infos["action_mask"][0].sum() >= 2
    with pytest.raises(ConfigError, match="0..2"):
        envs.step(np.array([5, 1, 1]))
    with pytest.raises(ConfigError, match="3 integers"):
        envs.step(np.array([1.0, 1.0, 1.0]))


def test_gymnasium_vector_wrappers() -> None:
    envs = gymnasium.make_vec("pokerzoo/LeducHoldem-v0", num_envs=32)
    envs = vw.RecordEpisodeStatistics(envs)
    envs = vw.NormalizeReward(envs)
    envs = vw.ClipReward(envs, min_reward=-5.0, max_reward=5.0)
    envs = vw.TransformObservation(envs, lambda obs: obs * 2.0)
    envs = vw.NormalizeObservation(envs)
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(40):
        obs, rew, term, trunc, infos = envs.step(_masked_random(infos["action_mask"], rng))
        assert np.isfinite(obs).all() and np.isfinite(rew).all()
        if "episode" in infos:
            np.testing.assert_array_equal(infos["_episode"], term)
            assert (infos["episode"]["l"][term] >= 1).all()
            episodes += int(term.sum())
    assert episodes > 100
    assert len(envs.unwrapped.action_masks()) == 32


def _always_raise(mask: np.ndarray) -> np.ndarray:
    return np.where(mask[..., 2] > 0, 2, 1)


@pytest.mark.slow
@pytest.mark.parametrize(("env", "kwargs"), [
    ("leduc_holdem_v0", {"seat": "random"}),
    ("leduc_holdem_v0", {"seat": 1, "num_players": 3}),
    ("kuhn_poker_v0", {"seat": 0}),
    ("kuhn_poker_v0", {"seat": 1, "backend": "state"}),  # held-back hands replayed as States
    ("leduc_holdem_v0", {"seat": "random", "autoreset_mode": "SameStep", "num_players": 3}),
])
def test_rewards_match_single_agent_env(env: str, kwargs: dict) -> None:
    """Same learner, same opponent: the mean reward per hand agrees within the 99.9% band."""
    kwargs = dict(kwargs)
    learner = (lambda m: _always_raise(m)) if env.startswith("leduc") else (
        lambda m: np.ones(len(m), np.int64) if m.ndim == 2 else 1
    )
    envs = PokerVectorEnv(2_000, env, opponent="random", **kwargs)
    assert envs.backend == kwargs.get("backend", "arrays")
    obs, infos = envs.reset(seed=0)
    vec = []
    while len(vec) < 20_000:
        obs, rew, term, trunc, infos = envs.step(learner(infos["action_mask"]))
        vec += rew[term].tolist()
    kwargs.pop("backend", None)
    kwargs.pop("autoreset_mode", None)
    single = SingleAgentEnv(env, opponent="random", **kwargs)
    one = []
    obs, info = single.reset(seed=0)
    while len(one) < 3_000:
        obs, reward, term, trunc, info = single.step(int(learner(info["action_mask"])))
        if term:
            one.append(reward)
            obs, info = single.reset()
    a, b = np.asarray(vec), np.asarray(one)
    se = np.sqrt(a.var() / len(a) + b.var() / len(b))
    assert abs(a.mean() - b.mean()) < 3.3 * se, (a.mean(), b.mean(), se)
    if kwargs.get("num_players", 2) == 3:
        assert envs.redeals == 0  # seat 1 always acts before a Leduc hand can end


def test_table_lookup_gives_the_policy_rows() -> None:
    game = load_game("leduc_holdem")
    tree = build(game)
    rng = np.random.default_rng(0)
    probs = rng.random(tree.infoset_mask.shape) * tree.infoset_mask
    policy = TabularPolicy.from_tree(tree, probs)
    lookup = TableLookup(policy, game)
    picks = rng.choice(tree.num_infosets, 200)
    states = [tree.infoset_state(int(i)) for i in picks]
    obs = np.stack([s.information_state_tensor(s.current_player()) for s in states])
    masks = np.stack([s.legal_actions_mask() for s in states])
    expected = np.stack([policy.row(s.information_state_key()) for s in states])
    np.testing.assert_array_equal(lookup(obs, masks, np.zeros(200, np.int64)), expected)
    with pytest.raises(InvalidPolicyError, match="covers no information set"):
        lookup(obs[:1] + 0.5, masks[:1], np.zeros(1, np.int64))


def test_opponents_of_every_batched_kind() -> None:
    game = load_game("kuhn_poker")
    tree = build(game)
    always_bet = np.zeros(tree.infoset_mask.shape)
    always_bet[:, 1] = 1.0
    calls = []

    def batched(observation, info):
        calls.append(len(info["seat"]))
        return np.zeros(len(info["seat"]), np.int64)  # always pass

    # Learner seat 1 passes; the opponent at seat 0 opens: its choice decides the hand.
    for opponent, opens_with_bet in [
        (TabularPolicy.from_tree(tree, always_bet), True), (batched, False),
    ]:
        envs = PokerVectorEnv(50, "kuhn_poker_v0", opponent=opponent, seat=1, obs_type="dict")
        obs, infos = envs.reset(seed=0)
        betting = obs["observation"][:, 5:]  # Kuhn: player(2), card(3), then the bets
        assert (betting[:, 1] == 1).all() == opens_with_bet
        assert (betting[:, 0] == 1).all() != opens_with_bet
    assert calls and max(calls) == 50  # the callable saw the whole batch at once
    with pytest.raises(ConfigError, match="unknown opponent"):
        PokerVectorEnv(2, "kuhn_poker_v0", opponent="greedy")
    with pytest.raises(ConfigError, match="cannot play with"):
        PokerVectorEnv(2, "kuhn_poker_v0", opponent=3.5)
    with pytest.raises(ConfigError, match="one opponent per other seat"):
        PokerVectorEnv(2, "kuhn_poker_v0", opponent=["random", "random"])
    with pytest.raises(InvalidPolicyError, match="integer actions"):
        PokerVectorEnv(2, "kuhn_poker_v0", opponent=lambda o, i: "x", seat=1).reset(seed=0)
    with pytest.raises(ConfigError, match="seat must be"):
        PokerVectorEnv(2, "kuhn_poker_v0", seat=2)
    with pytest.raises(ConfigError, match="samples a hidden environment"):
        PokerVectorEnv(2, "unknown_kuhn_poker_v0")
    with pytest.raises(ConfigError, match="draws nothing"):
        PokerVectorEnv(2, "kuhn_poker_v0", render_mode="human")


def test_kuhn_showdowns_pay_the_higher_card() -> None:
    """Both seats always bet: every hand is one learner step and a showdown for 2 chips that
    the learner wins exactly when its card (in its final tensor) beats the opponent's."""
    always_bet = lambda obs, info: np.ones(len(info["seat"]), np.int64)  # noqa: E731
    envs = PokerVectorEnv(256, "kuhn_poker_v0", opponent=always_bet, seat="random")
    obs, infos = envs.reset(seed=5)
    for step in range(6):
        obs, rew, term, trunc, infos = envs.step(np.ones(256, np.int64))
        if step % 2:  # the steps that reset: reward 0, a new hand
            assert not term.any() and (rew == 0).all()
            continue
        assert term.all() and set(np.abs(rew).tolist()) == {2.0}
        card = obs[:, 2:5].argmax(axis=1)
        assert (rew[card == 2] == 2).all() and (rew[card == 0] == -2).all()
        assert (obs[:, 5:][:, 1::2].sum(axis=1) == 2).all()  # two bets in the betting record
        np.testing.assert_array_equal(obs[:, :2].argmax(axis=1), infos["seat"])


def test_agents_and_sb3_models_as_batched_opponents() -> None:
    from gymnasium import spaces

    from pokerzoo.agents.registry import make_agent

    cfr = make_agent("cfr", load_game("kuhn_poker"))
    cfr.iterate(10)
    envs = PokerVectorEnv(8, "kuhn_poker_v0", opponent=cfr, seat=1)
    assert isinstance(envs._opponents[0], TableLookup)  # the agent's policy() table, read once
    envs.reset(seed=0)

    class Model:  # Stable-Baselines3's face: a batched predict, here always "fold" (illegal)
        observation_space = spaces.Box(0.0, 1.0, (60,))
        batches: list[int] = []

        def predict(self, obs, deterministic=True):
            self.batches.append(len(obs))
            return np.zeros(len(obs), np.int64), None

    model = Model()
    envs = PokerVectorEnv(16, "leduc_holdem_v0", opponent=model, seat=1)
    obs, infos = envs.reset(seed=0)
    assert model.batches == [16]  # one call for every hand; its illegal folds replaced
    assert (obs[:, 24:27].sum(axis=1) == 1).all()  # the opponent's first action is recorded
    assert (obs[:, 24] == 0).all()


def test_same_step_autoreset_semantics() -> None:
    envs = PokerVectorEnv(
        64, "kuhn_poker_v0", obs_type="dict", seat="random", autoreset_mode="SameStep"
    )
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert PokerVectorEnv.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP  # untouched
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(20):
        obs, rew, term, trunc, infos = envs.step(_masked_random(envs.action_masks(), rng))
        assert obs["action_mask"].any(axis=1).all()  # every row is at a learner decision
        assert (rew[~term] == 0).all() and set(np.abs(rew[term]).tolist()) <= {1.0, 2.0}
        if not term.any():
            assert "final_obs" not in infos
            continue
        np.testing.assert_array_equal(infos["_final_obs"], term)
        np.testing.assert_array_equal(infos["_final_info"], term)
        assert (infos["final_obs"][~term] == None).all()  # noqa: E711
        for i in np.flatnonzero(term):
            last = infos["final_obs"][i]
            assert (last["action_mask"] == 0).all()
            assert last["observation"][:2].argmax() == infos["final_info"]["seat"][i]
            assert last["observation"][5:].sum() >= 2  # the ended hand's betting record
        ends += int(term.sum())
    assert ends > 200  # no steps spent on resets
    with pytest.raises(ConfigError, match="autoreset_mode must be one of"):
        PokerVectorEnv(2, "kuhn_poker_v0", autoreset_mode="Disabled")


def test_same_step_with_gymnasium_wrappers_and_illegal_actions() -> None:
    envs = gymnasium.make_vec(
        "pokerzoo/LeducHoldem-v0", num_envs=16, autoreset_mode=AutoresetMode.SAME_STEP,
        illegal_reward=-5.0,
    )
    stats = vw.RecordEpisodeStatistics(envs)
    obs, infos = stats.reset(seed=0)
    obs, rew, term, trunc, infos = stats.step(np.zeros(16, np.int64))  # fold: illegal here
    assert term.all() and (rew == -5.0).all()
    assert (infos["episode"]["r"] == -5.0).all() and (infos["episode"]["l"] == 1).all()
    assert infos["action_mask"].sum(axis=1).min() >= 2  # already at the next hand
    with pytest.raises(ValueError, match="NEXT_STEP or DISABLED"):
        vw.TransformObservation(envs, lambda o: o)  # Gymnasium's own restriction


def test_an_aec_instance_gives_its_game_and_penalty() -> None:
    import pokerzoo

    aec = pokerzoo.make("leduc_holdem_v0", num_ranks=4, illegal_reward=-3.0)
    envs = PokerVectorEnv(4, aec)
    assert envs.game == aec.game and envs.illegal_reward == -3.0
    aec.reset(seed=0)  # still usable: the caller's env is not closed
    with pytest.raises(ConfigError, match="need a named env"):
        PokerVectorEnv(4, aec, num_ranks=5)
