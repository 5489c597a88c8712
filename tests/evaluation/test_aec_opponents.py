"""The built-in opponents of AEC envs: they read the mask (in the observation or in info) and
nothing else; unknown names are refused with the list."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.aec_opponents import aec_opponent_names, make_aec_opponent
from pokerzoo.evaluation.opponents import parse_opponents

MASK = np.array([0, 1, 0, 1, 1], np.int8)


@pytest.mark.parametrize(("name", "probs"), [
    ("random", [0, 1 / 3, 0, 1 / 3, 1 / 3]),
    ("first-legal", [0, 1, 0, 0, 0]),
    ("last-legal", [0, 0, 0, 0, 1]),
])
def test_opponents_play_from_the_mask_wherever_it_is(name, probs):
    player = make_aec_opponent(name)
    in_obs = player.act_probabilities({"observation": np.zeros(2), "action_mask": MASK}, {})
    in_info = player.act_probabilities(np.zeros(2), {"action_mask": MASK})
    assert np.allclose(in_obs, probs) and np.array_equal(in_obs, in_info)


def test_unknown_names_and_missing_masks_are_refused():
    with pytest.raises(ConfigError, match="first-legal"):
        make_aec_opponent("always-call")
    with pytest.raises(ConfigError, match="no action mask"):
        make_aec_opponent("random").act_probabilities(np.zeros(2), {})
    with pytest.raises(ConfigError, match="built-in opponents are"):
        parse_opponents("random,always-call", known=aec_opponent_names())
    assert parse_opponents("random,last-legal", known=aec_opponent_names()) == [
        "random", "last-legal"]
