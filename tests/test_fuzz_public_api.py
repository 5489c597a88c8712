"""Property-based fuzz of the public entry points: random names, parameters and arguments of
random types either work or fail with a pokerzoo error that has a message; nothing hangs.

Covered: games, envs, agents, the exact evaluators and matches, and the newer entry points:
``pokerzoo.distributed`` (``connect``, ``executor_for``, ``independent_runs``; Ray itself never
starts), the PettingZoo-classic envs and the RLCard adapters, hand histories (recorders given
junk, logs of junk lines and bytes) and ``play.py`` (``load_opponent``, ``PlaySession``, the
script's ``main`` with junk arguments through ``run_cli``).

Hypothesis draws the inputs (bounded sizes, a deadline per example); a bare Python error
(``TypeError``, ``KeyError``, ``AttributeError``, ``OverflowError``, ...) or a ``MemoryError``
fails the test with the input that caused it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokerzoo.agents.registry import make_agent, registered_agents
from pokerzoo.envs.poker_env import PokerEnv
from pokerzoo.errors import PokerzooError
from pokerzoo.evaluation import best_response, exploitability, head_to_head, nash_conv
from pokerzoo.games import load_game
from pokerzoo.games.registry import game_class, registered_games
from pokerzoo.policy import UniformRandomPolicy
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
    return [f.name for f in dataclasses.fields(game_class(name).config_class)]


@st.composite
def game_calls(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    names = registered_games()
    name = draw(st.one_of(st.sampled_from(names), junk))
    valid = _game_params(name) if isinstance(name, str) and name in names else []
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


# The newer entry points ----------------------------------------------------------------------
# Each call either works or fails with a pokerzoo error (or FileNotFoundError) with a message.

def expect_input_error_or_success(call: Callable[[], Any]) -> Any:
    """As ``expect_pokerzoo_error_or_success``, also accepting ``FileNotFoundError`` (what a
    missing file is, and what the scripts report in one line too)."""
    try:
        return call()
    except (PokerzooError, FileNotFoundError) as exc:
        assert str(exc).strip(), f"{type(exc).__name__} without a message"
        return None


class _RayWouldStart(Exception):
    """Raised by a stand-in ``ray.init``: the arguments were valid and Ray would start."""


# Addresses that answer at once (a closed port on this machine) or are malformed; host names
# that need a DNS lookup stay out, so an offline resolver cannot slow the fuzz.
ray_addresses = st.one_of(
    junk.filter(lambda x: not isinstance(x, str) or ":" not in x),
    st.sampled_from(["127.0.0.1:1", "ray://127.0.0.1:1", "auto", "local", "127.0.0.1:0",
                     "127.0.0.1:99999", "ray://", ":1", "[::1]:1", " 127.0.0.1:1 "]),
)


@FUZZ
@given(st.one_of(st.none(), junk), st.one_of(st.none(), ray_addresses),
       st.one_of(junk, st.just(2.0)), st.one_of(junk, st.just(0)), st.one_of(st.none(), junk))
def test_connect_and_executor_for_with_random_arguments(workers, address, timeout, retries,
                                                        cpus) -> None:
    import ray

    from pokerzoo.distributed import connect, executor_for
    from pokerzoo.parallel import check_workers

    assert not ray.is_initialized()
    with mock.patch.object(ray, "init", side_effect=_RayWouldStart):
        for call in (
            lambda: connect(workers, address, max_retries=retries, num_cpus=cpus,
                            timeout=timeout),
            lambda: executor_for(workers, address),
            lambda: check_workers(workers),
        ):
            try:
                expect_input_error_or_success(call)
            except _RayWouldStart:
                pass
    assert not ray.is_initialized()


def _square(shared: Any, seed: int) -> int:
    return seed * seed


@FUZZ
@given(st.one_of(junk, st.just(_square)), st.one_of(junk, st.lists(st.integers(0, 5),
                                                                    max_size=3)))
def test_independent_runs_with_random_arguments(fn, seeds) -> None:
    from pokerzoo.distributed import independent_runs

    result = expect_input_error_or_success(lambda: independent_runs(fn, seeds))
    if result is not None:
        assert result == [s * s for s in seeds]


@FUZZ
@given(st.sampled_from(["leduc_holdem_v4", "texas_holdem_v4", "texas_holdem_no_limit_v6"]),
       st.sampled_from(["env", "raw_env"]),
       st.dictionaries(st.sampled_from(["num_players", "render_mode", "screen_height", "rules",
                                        "stack", "bogus"]),
                       st.one_of(junk, st.sampled_from(["rlcard", "pokerzoo", "ansi", 3, 100])),
                       max_size=3))
def test_pettingzoo_classic_constructors_with_random_arguments(module, kind, kwargs) -> None:
    import importlib
    import inspect

    mod = importlib.import_module(f"pokerzoo.integrations.pettingzoo_classic.{module}")
    make = getattr(mod, kind)
    if kind == "raw_env":  # a plain function: unknown keywords are Python's TypeError, as in
        # PettingZoo; env() names them (ConfigError)
        kwargs = {k: v for k, v in kwargs.items() if k in inspect.signature(make).parameters}
    env = expect_pokerzoo_error_or_success(lambda: make(**kwargs))
    if env is not None:
        env.reset(seed=0)
        assert env.agent_selection in env.agents


@FUZZ
@given(st.one_of(junk, st.sampled_from(["leduc-holdem", "limit-holdem", "no-limit-holdem",
                                        "leduc-holdem-rule-v1", "uno"])),
       st.one_of(junk, st.sampled_from(["leduc-holdem", "leduc_holdem"])),
       st.one_of(junk, st.dictionaries(st.sampled_from(["obs", "legal_actions",
                                                         "raw_legal_actions", "action_record",
                                                         "raw_obs"]), junk, max_size=3)))
def test_rlcard_adapters_with_random_arguments(name, game, rl_state) -> None:
    from pokerzoo.integrations import rlcard_agents, rlcard_states

    leduc = rlcard_states.game_for("leduc-holdem")
    expect_pokerzoo_error_or_success(lambda: rlcard_states.game_for(name))
    expect_pokerzoo_error_or_success(lambda: rlcard_states.env_of(name))
    expect_pokerzoo_error_or_success(lambda: rlcard_states.from_rlcard_state(rl_state, leduc))
    expect_pokerzoo_error_or_success(lambda: rlcard_states.to_rlcard_state(name))
    expect_pokerzoo_error_or_success(lambda: rlcard_agents.rlcard_policy(name, game))
    agent = expect_pokerzoo_error_or_success(lambda: rlcard_agents.PolicyAgent(name, game,
                                                                               seed=0))
    if agent is not None:
        expect_pokerzoo_error_or_success(lambda: agent.eval_step(rl_state))


# Hand histories: logs of junk lines and bytes, recorders given junk.

LOG_LINES = [
    "hand: 1", "hand: x", "game: kuhn_poker(num_players=2)", "game: leduc_holdem()",
    "game: kuhn_poker(num_players=[1])", "game: os.system('x')", "seat 0: alice [K]",
    "seat 1: bob [J]", "seat 1: bob", "seat 2: c [Q]", "board: []", "board: [K",
    "round 1: 0 bet, 1 bet", "round 1: x", "round 2: 0 pass", "payoffs: +2.0 -2.0",
    "payoffs: 1e999 -1e999", "payoffs: nan", "history: 2 0 1 1", "history: 2 0 1 99",
    "history: 9" * 3, "history: -1", "", "# comment", "payoffs: +1.0 -1.0",
]


VALID_LOG = ["hand: 1", "game: kuhn_poker(num_players=2)", "seat 0: alice [K]", "seat 1: bob [J]",
             "board: []", "round 1: 0 bet, 1 bet", "payoffs: +2.0 -2.0", "history: 2 0 1 1"]


@st.composite
def mutated_logs(draw: st.DrawFn) -> list[str]:
    """A valid one-hand Kuhn log with one line replaced, dropped or doubled."""
    lines = list(VALID_LOG)
    k = draw(st.integers(0, len(lines) - 1))
    how = draw(st.sampled_from(["replace", "drop", "double", "keep"]))
    if how == "replace":
        lines[k] = draw(st.one_of(st.sampled_from(LOG_LINES), st.text(max_size=12)))
    elif how == "drop":
        del lines[k]
    elif how == "double":
        lines.insert(k, lines[k])
    return lines


@FUZZ
@given(st.one_of(st.lists(st.one_of(st.sampled_from(LOG_LINES), st.text(max_size=12)),
                          max_size=12), mutated_logs()),
       st.one_of(st.none(), st.binary(max_size=24)))
def test_read_text_log_with_junk_lines_and_bytes(tmp_path_factory, lines, raw) -> None:
    from pokerzoo.evaluation.hand_history import read_text_log

    path = tmp_path_factory.mktemp("log") / "hands.txt"
    if raw is None:
        path.write_text("\n".join(lines), encoding="utf-8", errors="surrogateescape")
    else:
        path.write_bytes(raw)
    hands = expect_input_error_or_success(lambda: read_text_log(path))
    for hand in hands or []:
        assert math.fsum(hand.payoffs) == 0  # what reads back replayed in its game


@FUZZ
@given(st.one_of(junk, st.sampled_from(["kuhn_poker"])),
       st.one_of(junk, st.sampled_from(["h.txt", "h.phhs", "h.phh", "", "missing/h.txt"])),
       st.one_of(junk, st.booleans()),
       st.one_of(junk, st.lists(st.one_of(st.text(max_size=4), junk), max_size=3)))
def test_hand_recorders_with_random_arguments(tmp_path_factory, game, name, skip,
                                              names) -> None:
    from pokerzoo.evaluation.hand_history import HandRecorder, read_text_log, record_pairings

    folder = tmp_path_factory.mktemp("hh")
    kuhn = SMALL_GAMES["kuhn_poker"]
    g = kuhn if game == "kuhn_poker" else game
    path = folder / name if isinstance(name, str) else name
    recorder = expect_input_error_or_success(
        lambda: HandRecorder(g, path, skip_unwritable=skip))
    if recorder is None:
        return
    state = kuhn.new_initial_state()
    for a in (2, 0, 1, 1):
        state.apply_action(a)
    expect_pokerzoo_error_or_success(lambda: recorder.record(state, names))
    expect_pokerzoo_error_or_success(lambda: recorder.record(names, None))
    expect_pokerzoo_error_or_success(
        lambda: record_pairings(kuhn, {"a": names, "b": UniformRandomPolicy()}, 2, recorder))
    expect_pokerzoo_error_or_success(recorder.close)
    if recorder.num_hands and recorder.format == "text":
        assert len(read_text_log(recorder.path)) == recorder.num_hands


# play.py: load_opponent, PlaySession and the script's arguments.

@FUZZ
@given(st.one_of(st.none(), junk), st.one_of(st.none(), junk),
       st.one_of(st.none(), junk, st.sampled_from(["random", "always-call"])),
       st.one_of(st.none(), junk, st.sampled_from(["kuhn_poker", "leduc_holdem"])),
       st.one_of(st.none(), junk))
def test_load_opponent_with_random_arguments(run, policy, opponent, game, params) -> None:
    from pokerzoo.runs.play import load_opponent

    expect_input_error_or_success(lambda: load_opponent(run, policy, opponent, game, params))


@FUZZ
@given(st.one_of(junk, st.just("kuhn")), st.one_of(junk, st.just("random")),
       st.one_of(junk, st.integers(0, 5)), st.one_of(st.none(), junk, st.integers(1, 2)),
       st.one_of(st.none(), junk))
def test_play_session_with_random_arguments(game, opponent, seed, hands, recorder) -> None:
    import io

    from pokerzoo.runs.play import PlaySession, built_in_opponent

    kuhn = SMALL_GAMES["kuhn_poker"]
    g = kuhn if game == "kuhn" else game
    opp = built_in_opponent("random", kuhn) if opponent == "random" else opponent
    out = io.StringIO()
    session = expect_pokerzoo_error_or_success(
        lambda: PlaySession(g, opp, io.StringIO("quit\n"), out, seed=seed, hands=hands,
                            recorder=recorder))
    if session is not None:
        expect_pokerzoo_error_or_success(session.run)


PLAY_WORDS = ["--seed", "-5", "5", "--hands", "0", "2", "-1", "x", "--opponent", "random",
              "nobody", "--game", "kuhn_poker", "leduc_holdem", "nogame", "--game-param",
              "num_players=3", "x=1", "num_players", "--policy", "missing.npz", "--hand-history",
              "/dev/null", "h.txt", "runs/missing", "--se", "--", "-"]


@FUZZ
@given(st.lists(st.one_of(st.sampled_from(PLAY_WORDS), st.text(max_size=5)), max_size=7))
def test_play_script_with_junk_arguments(tmp_path_factory, monkeypatch, argv) -> None:
    import io
    import sys
    from pathlib import Path

    from pokerzoo.runs.cli import run_cli

    root = Path(__file__).resolve().parents[1]
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.chdir(tmp_path_factory.mktemp("play"))
    import play

    argv = [a for a in argv if a != "--debug"]  # --debug shows tracebacks on purpose
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    try:
        code = run_cli(play.main, argv)
    except SystemExit as exc:  # argparse's one-line usage error
        code = exc.code
    assert code in (0, 2)


def test_play_script_negative_seed_is_one_line_without_traceback() -> None:
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "play.py", "--opponent", "random", "--seed", "-5"],
                            cwd=root, capture_output=True, text=True, input="quit\n",
                            timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        "play.py: error: argument --seed: --seed must be at least 0, got -5")
    from pokerzoo.runs.play import PlaySession, built_in_opponent

    kuhn = SMALL_GAMES["kuhn_poker"]
    with pytest.raises(PokerzooError, match="seed must be an integer >= 0, got -5"):
        PlaySession(kuhn, built_in_opponent("random", kuhn), None, None, seed=-5)  # type: ignore[arg-type]
