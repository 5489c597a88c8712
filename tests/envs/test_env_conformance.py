"""PettingZoo's own checkers over every named env and a sample of game parameters."""

from __future__ import annotations

import copy
import functools
import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from pokerzoo.envs import make, registered_envs

pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
]

CASES = [(name, {}) for name in registered_envs()] + [
    ("kuhn_poker_v0", {"num_players": 3}),
    ("leduc_holdem_v0", {"num_players": 3, "num_ranks": 4}),
    ("leduc_holdem_v0", {"max_raises_per_round": None, "bet_cap": 5, "raise_sizes": (1, 1)}),
]
CASES.append(("no_limit_holdem_v0", {"num_players": 3, "bet_fractions": (0.5, 1.0, 2.0)}))
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in p.items())}" for n, p in CASES]


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_api(name: str, params: dict) -> None:
    api_test(make(name, **params), num_cycles=200)


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_seed(name: str, params: dict) -> None:
    if name.startswith("unknown_"):
        # A hidden-model game built without a seed draws a new environment d* each time (from
        # 128 bits the learner cannot enumerate): two envs agree only with one game seed.
        params = {"seed": 0, **params}
    seed_test(functools.partial(make, name, **params), num_cycles=200)


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_render(name: str, params: dict, capsys: pytest.CaptureFixture) -> None:
    render_test(functools.partial(make, name, **params))
    env = make(name, render_mode="ansi", **params)
    env.reset(seed=0)
    text = env.render()
    assert "pot" in text and "player_0" in text and "??" in text  # opponents' cards hidden


@pytest.mark.parametrize("name", registered_envs())
def test_pickle_and_deepcopy(name: str) -> None:
    env = make(name)
    env.reset(seed=5)
    clone = copy.deepcopy(env)
    for e in (env, clone):
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(np.flatnonzero(mask)[0]))
    np.testing.assert_array_equal(
        env.observe(env.agent_selection)["observation"],
        clone.observe(clone.agent_selection)["observation"],
    )
    restored = pickle.loads(pickle.dumps(env))
    assert restored.game == env.game and restored.illegal_action == "penalize"
    restored.reset(seed=5)
    # PettingZoo's no-limit env (and its drop-in) seats the dealer by the seed.
    first = "player_1" if name == "classic_texas_holdem_no_limit_v6" else "player_0"
    assert restored.agent_selection == first


def test_registries() -> None:
    import gymnasium
    import pettingzoo

    from pokerzoo.envs.registration import GYM_IDS, register_all

    register_all()
    register_all()  # idempotent: no "overriding" warnings, same specs
    env = pettingzoo.make("aec", "pokerzoo/leduc_holdem-v0", num_ranks=4)
    env.reset(seed=0)
    assert env.game.config.num_ranks == 4 and env.illegal_action == "penalize"
    assert str(pettingzoo.make("aec", "pokerzoo/kuhn_poker_v0")) == "kuhn_poker_v0"
    for gym_id, name in GYM_IDS.items():
        assert gymnasium.spec(gym_id).kwargs == {"env": name}
