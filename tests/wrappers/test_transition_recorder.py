"""TransitionRecorder: per-agent transitions chain up and carry exactly the hand's rewards."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo import IllegalActionError
from pokerzoo.envs import make
from pokerzoo.wrappers import Transition, TransitionRecorder


def _play(env, rng: np.random.Generator) -> dict[str, float]:
    """One random hand through ``env``; returns each agent's total reward seen via ``last``."""
    totals: dict[str, float] = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        if terminated or truncated:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
    return totals


@pytest.mark.parametrize("num_players", [2, 3])
def test_transitions_chain_and_sum_to_returns(num_players: int) -> None:
    env = TransitionRecorder(make("leduc_holdem_v0", num_players=num_players))
    rng = np.random.default_rng(0)
    env.reset(seed=1)
    for hand in range(300):
        if hand:
            env.reset()
        totals = _play(env, rng)
        by_agent: dict[str, list[Transition]] = {}
        for t in env.drain():
            by_agent.setdefault(t.agent, []).append(t)
        for agent, ts in by_agent.items():
            assert [t.done for t in ts] == [False] * (len(ts) - 1) + [True]
            for a, b in zip(ts, ts[1:]):
                np.testing.assert_array_equal(a.next_obs, b.obs)
                np.testing.assert_array_equal(a.next_mask, b.mask)
                assert a.reward == 0.0  # poker pays only at the end
            for t in ts:
                assert t.mask[t.action] == 1
                assert t.info_state[0] == int(agent.split("_")[1])
            assert not ts[-1].next_mask.any()
            assert sum(t.reward for t in ts) == pytest.approx(totals[agent])
        # Everyone who acted has a closing transition; the chips add up to zero.
        assert sum(sum(t.reward for t in ts) for ts in by_agent.values()) == pytest.approx(
            sum(totals[a] for a in by_agent)
        )


def test_illegal_action_penalty_is_recorded_and_callback_runs() -> None:
    seen: list[Transition] = []
    env = TransitionRecorder(
        make("leduc_holdem_v0", illegal_reward=-5.0), on_transition=seen.append, keep=False
    )
    env.reset(seed=0)
    env.step(1)  # player_0 checks
    env.step(0)  # player_1 folds without facing a bet: illegal
    assert env.transitions == []
    ends = {t.agent: t for t in seen}
    assert ends["player_1"].reward == -5.0 and ends["player_1"].done
    assert ends["player_0"].reward == 0.0 and ends["player_0"].done


def test_raw_env_error_records_nothing_and_play_continues() -> None:
    env = TransitionRecorder(make("leduc_holdem_v0", raw=True))
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(0)
    env.step(1)
    env.step(1)
    assert env.transitions == []  # nobody has acted twice and the hand goes on
    env.reset()
    assert env.agent_selection == "player_0"
