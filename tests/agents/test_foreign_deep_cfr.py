"""Deep CFR on copyable AEC envs: it runs, resumes exactly, and refuses envs it cannot walk."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.classic import leduc_holdem_v4 as pz_leduc

import pokerzoo
from pokerzoo.agents.cfr.aec_deep_cfr import AECDeepCFR
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Field, TensorLayout
from pokerzoo.integrations.pettingzoo_classic import leduc_holdem_v4 as our_classic_leduc

SMALL = {"traversals": 12, "advantage_steps": 10, "policy_steps": 10, "batch_size": 32,
         "device": "cpu"}
# RLCard's Leduc observation (see pokerzoo.integrations.pettingzoo_classic.leduc_holdem_v4).
RLCARD_LEDUC = TensorLayout([Field("own_rank", 3, "own card's rank"),
                             Field("public_rank", 3, "public card's rank"),
                             Field("my_chips", 15, "chips put in"),
                             Field("other_chips", 15, "the others' chips")])


def kuhn():
    return pokerzoo.make("kuhn_poker_v0")


def probe(agent, size, actions):
    x = np.ones((1, size), np.float32)
    return agent.policy().probabilities(0, x, np.ones((1, actions), bool))


@pytest.mark.parametrize(("make", "layout", "size", "actions"), [
    (kuhn, None, 11, 2),
    (our_classic_leduc.raw_env, RLCARD_LEDUC, 36, 4),
])
def test_runs_and_resumes_exactly(make, layout, size, actions):
    a = AECDeepCFR(make, seed=1, layout=layout, **SMALL)
    a.iterate(1)
    assert a.iteration == 1 and a.nodes_touched > 0
    b = AECDeepCFR(make, seed=8, layout=layout, **SMALL)
    b.load_state_dict(a.state_dict())
    a.iterate(1)
    b.iterate(1)
    np.testing.assert_array_equal(probe(a, size, actions), probe(b, size, actions))


def test_plays_an_env_turn():
    agent = AECDeepCFR(kuhn, seed=0, **SMALL)
    agent.iterate(1)
    env = kuhn()
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    probs = agent.act_probabilities(obs, info)
    assert probs.shape == (2,) and probs.sum() == pytest.approx(1.0)


def test_refuses_what_it_cannot_walk():
    with pytest.raises(ConfigError, match="not copyable"):
        AECDeepCFR(pz_leduc.env, layout=RLCARD_LEDUC, **SMALL)
    with pytest.raises(ConfigError, match="pass layout="):
        AECDeepCFR(our_classic_leduc.raw_env, **SMALL)  # its game's layout is not RLCard's
