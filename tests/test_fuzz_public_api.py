"""Property-based fuzz of the public entry points: random names, parameters and arguments of
random types either work or fail with a pokerzoo error that has a message; nothing hangs.

Hypothesis draws the inputs (bounded sizes, a deadline per example); a bare Python error
(``TypeError``, ``KeyError``, ``AttributeError``, ``OverflowError``, ...) or a ``MemoryError``
fails the test with the input that caused it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokerzoo.agents.registry import make_agent, registered_agents
from pokerzoo.envs.poker_env import PokerEnv
from pokerzoo.errors import PokerzooError
from pokerzoo.evaluation import best_response, exploitability, head_to_head, nash_conv
from pokerzoo.games import load_game
from pokerzoo.games.registry import _GAMES, registered_games
from pokerzoo.tree import build
from pokerzoo.tree.tabular_policy import TabularPolicy

FUZZ = settings(
    max_examples=60,
    deadline=3000,  # ms per example: a hang or a huge allocation fails here
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=True,  # the same examples on every run (CI must not flake)
)

# Values of every kind a user (or a config file) might pass where something else is meant.
junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 12),
    st.integers(-3, 12).map(np.int64),
    st.sampled_from([10**9, 10**40, -(10**20), 2**63]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, 0.5, 1.5, np.float32(2.0)]),
    st.text(max_size=6),
    st.lists(st.integers(-2, 6), max_size=3),
    st.tuples(st.integers(-2, 6), st.integers(-2, 6)),
    st.dictionaries(st.text(max_size=4), st.integers(-2, 6), max_size=2),
    st.just(object()),
)


def expect_pokerzoo_error_or_success(call: Callable[[], Any]) -> Any:
    """Run ``call``; an exception must be a ``PokerzooError`` with a non-empty message."""
    try:
        return call()
    except PokerzooError as exc:
        assert str(exc).strip(), f"{type(exc).__name__} without a message"
        return None


def _game_params(name: str) -> list[str]:
    return [f.name for f in dataclasses.fields(_GAMES[name].config_class)]


@st.composite
def game_calls(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    names = registered_games()
    name = draw(st.one_of(st.sampled_from(names), junk))
    valid = _game_params(name) if isinstance(name, str) and name in _GAMES else []
    keys = draw(st.lists(st.one_of(st.sampled_from(valid or ["x"]), st.text(max_size=5)),
                         max_size=3, unique=True))
    return name, {k: draw(junk) for k in keys}


@FUZZ
@given(game_calls())
def test_load_game_with_random_names_and_parameters(call) -> None:
    name, params = call
    game = expect_pokerzoo_error_or_success(lambda: load_game(name, **params))
    if game is not None:
        state = game.new_initial_state()
        assert state.information_state_tensor(0).shape == game.information_state_shape


SMALL_GAMES = {
    "kuhn_poker": load_game("kuhn_poker"),
    "leduc_holdem": load_game("leduc_holdem"),
    "limit_holdem": load_game("limit_holdem"),
    "unknown_kuhn_poker": load_game("unknown_kuhn_poker"),
}

env_ops = st.lists(
    st.one_of(
        st.tuples(st.just("reset"), st.one_of(st.none(), junk)),
        st.tuples(st.just("step"), st.one_of(junk, st.integers(0, 3))),
        st.tuples(st.just("observe"), st.one_of(junk, st.sampled_from(["player_0", "player_1",
                                                                         "player_9"]))),
        st.tuples(st.just("last"), st.none()),
        st.tuples(st.just("state"), st.none()),
    ),
    max_size=12,
)


@FUZZ
@given(st.sampled_from(sorted(SMALL_GAMES)), st.sampled_from(["raise", "penalize"]), env_ops)
def test_env_calls_with_random_inputs(game_name, mode, ops) -> None:
    env = PokerEnv(SMALL_GAMES[game_name], illegal_action=mode)
    for op, arg in ops:
        if op == "reset":
            expect_pokerzoo_error_or_success(lambda arg=arg: env.reset(seed=arg))
        elif op == "step":
            expect_pokerzoo_error_or_success(lambda arg=arg: env.step(arg))
        elif op == "observe":
            obs = expect_pokerzoo_error_or_success(lambda arg=arg: env.observe(arg))
            if obs is not None:
                assert np.isfinite(obs["observation"]).all()
        elif op == "last":
            expect_pokerzoo_error_or_success(env.last)
        else:
            expect_pokerzoo_error_or_success(env.state)


def _not_a_long_run(n: Any) -> bool:
    # A valid huge count is a legitimately long run, not a hang: keep the valid ones small.
    return not (isinstance(n, int | np.integer) and not isinstance(n, bool) and n > 12)


@FUZZ
@given(st.one_of(junk, st.sampled_from([-1, 0, 1, 2]), st.integers(0, 3).map(np.int64))
       .filter(_not_a_long_run))
def test_iterate_with_random_arguments(n) -> None:
    agent = make_agent("cfr+", SMALL_GAMES["kuhn_poker"])
    expect_pokerzoo_error_or_success(lambda: agent.iterate(n))
    whole = isinstance(n, int | np.integer) and not isinstance(n, bool) and n >= 0
    assert type(agent.iteration) is int and agent.iteration == (int(n) if whole else 0)


KUHN_TREE = build(SMALL_GAMES["kuhn_poker"])


@st.composite
def policy_args(draw: st.DrawFn) -> Any:
    shape = (KUHN_TREE.num_infosets, KUHN_TREE.num_actions)
    kind = draw(st.sampled_from(["junk", "array", "uniform"]))
    if kind == "junk":
        return draw(junk)
    if kind == "uniform":
        return np.full(shape, 0.5)
    fill = draw(st.sampled_from([0.0, math.nan, -0.5, 2.0, 1.0, math.inf]))
    array = np.full(shape, 0.5)
    array[draw(st.integers(0, shape[0] - 1))] = fill
    return array


@FUZZ
@given(policy_args(), st.one_of(junk, st.integers(0, 1)))
def test_exact_evaluators_with_random_arguments(policy, player) -> None:
    value = expect_pokerzoo_error_or_success(lambda: exploitability(KUHN_TREE, policy))
    if value is not None:
        assert math.isfinite(value) and value >= -1e-9
    expect_pokerzoo_error_or_success(lambda: nash_conv(KUHN_TREE, policy))
    expect_pokerzoo_error_or_success(lambda: best_response(KUHN_TREE, policy, player))
    # Something that is not a tree where the tree goes: the evaluators must say so.
    expect_pokerzoo_error_or_success(lambda: exploitability(player, policy))


@FUZZ
@given(
    st.one_of(st.integers(-2, 3), junk),
    st.one_of(st.none(), junk),
    st.lists(st.one_of(st.just("uniform"), junk), min_size=0, max_size=3),
)
def test_head_to_head_with_random_arguments(num_deals, seed, seats) -> None:
    if isinstance(num_deals, int | np.integer) and not isinstance(num_deals, bool):
        num_deals = min(int(num_deals), 3)  # valid counts stay small: no long matches
    policies = [np.full((KUHN_TREE.num_infosets, 2), 0.5) if s == "uniform" else s
                for s in seats]
    policies = [TabularPolicy.from_tree(KUHN_TREE, p) if isinstance(p, np.ndarray) else p
                for p in policies]
    expect_pokerzoo_error_or_success(
        lambda: head_to_head(SMALL_GAMES["kuhn_poker"], policies, num_deals, seed=seed)
    )


TABULAR_AGENTS = ["cfr", "cfr+", "lcfr", "dcfr", "mccfr-os", "mccfr-es", "xfp", "gxfp",
                  "bufp-x", "bufp-ef"]


@st.composite
def agent_calls(draw: st.DrawFn) -> tuple[Any, Any, dict[str, Any]]:
    name = draw(st.one_of(st.sampled_from(TABULAR_AGENTS), junk))
    spec = registered_agents().get(name) if isinstance(name, str) else None
    config = spec.config_class if spec is not None else None
    valid = [f.name for f in dataclasses.fields(config)] if config is not None else []
    keys = draw(st.lists(st.one_of(st.sampled_from(valid or ["x"]), st.text(max_size=5)),
                         max_size=2, unique=True))
    return name, draw(st.one_of(st.integers(0, 5), junk)), {k: draw(junk) for k in keys}


@FUZZ
@given(agent_calls())
def test_make_agent_with_random_parameters(call) -> None:
    name, seed, params = call
    agent = expect_pokerzoo_error_or_success(
        lambda: make_agent(name, SMALL_GAMES["kuhn_poker"], seed=seed, **params)
    )
    if agent is not None:
        agent.iterate(1)
        assert exploitability(KUHN_TREE, agent.policy()) >= -1e-9


@pytest.mark.parametrize("name", ["nfsp", "nfsp-per"])
@settings(max_examples=8, deadline=None, derandomize=True)
@given(params=st.dictionaries(st.sampled_from(["eta", "per_eps", "hidden_sizes", "batch_size",
                                               "bogus", "replay"]), junk, max_size=2))
def test_make_nfsp_with_random_parameters(name, params) -> None:
    expect_pokerzoo_error_or_success(
        lambda: make_agent(name, SMALL_GAMES["kuhn_poker"], seed=0, **params)
    )
