"""Bad input gets a pokerzoo error that says what is allowed; sizes are judged before building.

Each case here was reproduced on main before the fix (bare ``TypeError``/``KeyError``/
``AttributeError``/``OverflowError``, ``MemoryError``, a hang, or a silent fallback).
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest

from pokerzoo.agents.base import check_units
from pokerzoo.agents.registry import make_agent
from pokerzoo.envs.poker_env import PokerEnv
from pokerzoo.errors import (
    ConfigError,
    EnvStateError,
    IllegalActionError,
    PokerzooError,
    TreeTooLargeError,
)
from pokerzoo.games import load_game
from pokerzoo.games.base import count_histories
from pokerzoo.games.kuhn import KuhnPoker, KuhnState
from pokerzoo.runs.cli import run_cli
from pokerzoo.runs.run import try_build_tree
from pokerzoo.tree import build

# ---------------------------------------------------------------------------------------------
# Games
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, params, says",
    [
        ((123,), {}, "must be a string"),
        (("leduc_holdem",), {"raise_sizes": 5}, "raise_sizes"),
        (("kuhn_poker",), {"num_players": 10**9}, "from 2 to 10"),
        (("leduc_holdem",), {"num_players": 10**9}, "from 2 to 10"),
        (("limit_holdem",), {"num_players": 10**9}, "from 2 to 6"),
        (("limit_holdem",), {"raise_cap": 10**9}, "from 1 to 100"),
        (("no_limit_holdem",), {"stacks": 10**40}, "stacks"),
        (("no_limit_holdem",), {"stacks": (10**40, 200)}, "stacks[0]"),
        (("kuhn_poker",), {"num_players": True}, "num_players"),
        (("kuhn_poker",), {"num_players": 2.0}, "num_players"),
        (("leduc_holdem",), {"bet_cap": 10**6, "max_raises_per_round": None, "raise_sizes": (1, 1)},
         "raises per round"),
        (("no_limit_holdem",), {"bet_fractions": (float("nan"),)}, "bet fraction"),
        (("no_limit_holdem",), {"bet_fractions": ()}, "bet_fractions"),
        (("unknown_kuhn_poker",), {"prior": {"name": "psrlcfr",
                                             "reward_support": (float("nan"), 1.0)}},
         "reward value"),
        (("unknown_kuhn_poker",), {"prior": {"name": "psrlcfr", "concentration": math.inf}},
         "concentration"),
        (("unknown_kuhn_poker",), {"seed": -1}, "seed"),
        (("unknown_leduc_holdem",), {"base": {1: 2}}, "strings"),
    ],
)
def test_bad_game_parameters_raise_config_error(args, params, says) -> None:
    with pytest.raises(ConfigError, match=None) as info:
        load_game(*args, **params)
    assert says in str(info.value)


def test_numpy_integers_are_integers() -> None:
    plain = load_game("leduc_holdem", num_players=3, raise_sizes=(2, 4))
    numpy = load_game("leduc_holdem", num_players=np.int64(3), raise_sizes=[np.int32(2), 4])
    assert numpy == plain and hash(numpy) == hash(plain)
    assert type(numpy.config.num_players) is int
    assert load_game("unknown_kuhn_poker", seed=np.int64(3)) == load_game(
        "unknown_kuhn_poker", seed=3
    )
    holdem = load_game("no_limit_holdem", stacks=(np.int64(5000), 7000), big_blind=np.int16(20),
                       small_blind=10)
    assert holdem.config.stacks == (5000, 7000) and holdem.config.big_blind == 20


def test_deepest_stacks_keep_observations_finite() -> None:
    """The largest stacks allowed give finite tensors even after an all-in."""
    game = load_game("no_limit_holdem", num_players=6, big_blind=10**6, small_blind=1,
                     stacks=10**12)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance_outcome(rng))
            continue
        for p in range(game.num_players):
            assert np.isfinite(state.information_state_tensor(p)).all()
        legal = state.legal_actions()
        state.apply_action(legal[-1] if 1 not in legal else 1 if rng.random() < 0.5 else legal[-1])
    assert all(math.isfinite(r) for r in state.returns())


# ---------------------------------------------------------------------------------------------
# Sizes
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, params",
    [
        ("kuhn_poker", {}),
        ("kuhn_poker", {"num_players": 3}),
        ("leduc_holdem", {}),
        ("leduc_holdem", {"bet_cap": 5, "max_raises_per_round": None, "raise_sizes": (1, 1)}),
        ("leduc_holdem", {"blinds": (1, 2), "ante": 0, "fold_unopposed": True}),
    ],
)
def test_estimated_tree_size_is_exact_on_small_games(name, params) -> None:
    game = load_game(name, **params)
    nodes = build(game).num_nodes
    assert game.estimated_tree_size(10**9) == nodes
    assert game.estimated_tree_size(nodes) == nodes
    assert game.estimated_tree_size(nodes - 1) == nodes  # limit + 1: "more than the limit"
    assert count_histories(game, 10) == 11


@pytest.mark.parametrize("name", ["limit_holdem", "no_limit_holdem"])
def test_holdem_tree_refused_before_building(name) -> None:
    game = load_game(name, num_players=6)
    with pytest.raises(TreeTooLargeError, match="histories") as info:
        build(game, max_nodes=5_000_000)
    assert info.value.estimated_nodes > 5_000_000


def test_cfr_on_no_limit_holdem_raises_tree_too_large() -> None:
    from pokerzoo.agents.cfr import CFRPlus

    with pytest.raises(TreeTooLargeError):
        CFRPlus(load_game("no_limit_holdem"))


def test_unknown_leduc_on_a_52_card_base_fails_fast() -> None:
    with pytest.raises(TreeTooLargeError, match="smaller base"):
        load_game("unknown_leduc_holdem", base={"num_ranks": 13, "num_suits": 4},
                  prior="poker_payoffs")


class _SpanningKuhn(KuhnPoker):
    """A broken game: every decision shares one information state across depths."""

    def new_initial_state(self) -> KuhnState:
        state = _SpanningState(self)
        return state


class _SpanningState(KuhnState):
    __slots__ = ()

    def information_state_key(self, player=None):
        return "same"

    def clone(self) -> _SpanningState:
        c = super().clone()
        c.__class__ = _SpanningState
        return c


def test_try_build_tree_warns_on_big_games_and_raises_on_broken_ones() -> None:
    with pytest.warns(UserWarning, match="Exact exploitability is replaced by matches"):
        assert try_build_tree(load_game("limit_holdem")) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert try_build_tree(load_game("kuhn_poker")) is not None
        with pytest.raises(ValueError, match="spans depths") as info:
            try_build_tree(_SpanningKuhn())
    assert not isinstance(info.value, TreeTooLargeError)


# ---------------------------------------------------------------------------------------------
# Env
# ---------------------------------------------------------------------------------------------


def test_env_calls_before_reset_raise_env_state_error() -> None:
    env = PokerEnv("kuhn_poker")
    for call in (env.last, lambda: env.step(0), lambda: env.observe("player_0"),
                 lambda: env.game_state):
        with pytest.raises(EnvStateError, match="reset"):
            call()


@pytest.mark.parametrize("action", [math.inf, -math.inf, math.nan, "a", None, True, 2, -1, 0.5,
                                    [0], np.float64(np.inf)])
def test_env_step_outside_the_action_space(action) -> None:
    env = PokerEnv("kuhn_poker", illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="outside the action space Discrete"):
        env.step(action)


@pytest.mark.parametrize("action", [1, np.int64(1), 1.0, np.array(1)])
def test_env_step_accepts_integral_actions(action) -> None:
    env = PokerEnv("kuhn_poker")
    env.reset(seed=0)
    env.step(action)
    assert env.agent_selection == "player_1"


def test_env_observe_unknown_agent_names_the_agents() -> None:
    env = PokerEnv("kuhn_poker")
    env.reset(seed=0)
    with pytest.raises(ConfigError, match=r"\['player_0', 'player_1'\]"):
        env.observe("player_9")
    with pytest.raises(ConfigError):
        env.observe(["player_0"])


@pytest.mark.parametrize("seed", ["abc", -1, 1.5, True])
def test_env_reset_bad_seed(seed) -> None:
    env = PokerEnv("kuhn_poker")
    with pytest.raises(ConfigError, match="seed"):
        env.reset(seed=seed)


def test_env_reset_numpy_seed_same_as_int() -> None:
    a, b = PokerEnv("leduc_holdem"), PokerEnv("leduc_holdem")
    a.reset(seed=np.int64(7))
    b.reset(seed=7)
    assert a.game_state.history() == b.game_state.history()


def test_env_construction_errors() -> None:
    with pytest.raises(ConfigError):
        PokerEnv(123)  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        PokerEnv("kuhn_poker", render_mode="rgb")
    with pytest.raises(ConfigError):
        PokerEnv("kuhn_poker", illegal_reward=math.nan)


# ---------------------------------------------------------------------------------------------
# Agents and the command line
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", ["5", 1.5, -1, True, None, np.float64(2.0)])
def test_iterate_refuses_non_counts(n) -> None:
    agent = make_agent("cfr+", load_game("kuhn_poker"))
    with pytest.raises(ConfigError, match="iterate"):
        agent.iterate(n)
    assert agent.iteration == 0


def test_iterate_accepts_numpy_integers() -> None:
    for name in ("cfr+", "mccfr-os", "xfp"):
        agent = make_agent(name, load_game("kuhn_poker"), seed=np.int64(1))
        agent.iterate(np.int64(3))
        assert agent.iteration == 3 and type(agent.iteration) is int
    assert check_units(np.uint8(4)) == 4


def test_make_agent_lists_valid_parameters_and_lets_bugs_through(monkeypatch) -> None:
    game = load_game("kuhn_poker")
    with pytest.raises(ConfigError, match="alternating_updates"):
        make_agent("cfr", game, alternating=True)
    with pytest.raises(ConfigError, match="seed"):
        make_agent("cfr", game, seed="x")

    from pokerzoo.agents.cfr import full_width

    def broken(self, *args, **kwargs):
        raise TypeError("a bug inside the constructor")

    monkeypatch.setattr(full_width.CFRSolver, "__init__", broken)
    with pytest.raises(TypeError, match="a bug inside"):
        make_agent("cfr", game)


def _constructors() -> list[tuple[str, type, str, str, object]]:
    """(registry name, its class, a field of its config, a wrong value for that field)."""
    from pokerzoo.agents.cfr.full_width import CFRPlus, CFRSolver
    from pokerzoo.agents.cfr.mccfr import MCCFRSolver
    from pokerzoo.agents.fictitious import FictitiousPlaySolver
    from pokerzoo.agents.unknown_env.fsp import FSP
    from pokerzoo.agents.unknown_env.mccfr_os import MCCFROS
    from pokerzoo.agents.unknown_env.model_based import ModelBasedAgent
    from pokerzoo.agents.unknown_env.psrlcfr import PSRLCFR

    return [
        ("cfr", CFRSolver, "linear_averaging", "yes"),
        ("cfr+", CFRPlus, "discount", (1.0, "x", 2.0)),
        ("mccfr-es", MCCFRSolver, "exploration", "0.6"),
        ("xfp", FictitiousPlaySolver, "normalise_beliefs", 1),
        ("vcfr", ModelBasedAgent, "normalise_gain", "yes"),
        ("psrlcfr", PSRLCFR, "cfr", 3),
        ("fsp-unknown", FSP, "eta", "x"),
        ("mccfr-os-unknown", MCCFROS, "epsilon", None),
    ]


def _error(build) -> str:
    with pytest.raises(ConfigError) as info:
        build()
    return str(info.value)


@pytest.mark.parametrize("case", range(8))
def test_constructors_refuse_what_make_agent_refuses_with_its_message(case: int) -> None:
    name, cls, field, bad = _constructors()[case]
    game = load_game("unknown_kuhn_poker" if name in ("vcfr", "psrlcfr", "fsp-unknown",
                                                      "mccfr-os-unknown") else "kuhn_poker")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrong = _error(lambda: make_agent(name, game, **{field: bad}))
        assert field in wrong and "\n" not in wrong
        assert _error(lambda: cls(game, **{field: bad})) == wrong
        unknown = _error(lambda: make_agent(name, game, bogus=1))
        assert "'bogus'" in unknown and "valid parameters are" in unknown
        assert _error(lambda: cls(game, bogus=1)) == unknown
        if "config" in inspect.signature(cls).parameters:  # CFRPlus fixes its config
            assert "config must be a" in _error(lambda: cls(game, config=3))


@pytest.mark.parametrize("name, module, cls, field", [
    ("nfsp", "pokerzoo.agents.nfsp.agent", "NFSP", "eta"),
    ("deep-cfr", "pokerzoo.agents.deep.deep_cfr", "DeepCFR", "traversals"),
    ("deep-gxfp", "pokerzoo.agents.deep.deep_gxfp", "DeepGXFP", "traversals"),
])
def test_network_agent_constructors_refuse_what_make_agent_refuses(name, module, cls, field):
    pytest.importorskip("torch")
    import importlib

    agent_class = getattr(importlib.import_module(module), cls)
    game = load_game("kuhn_poker")
    for params in ({field: "x"}, {"bogus": 1}):
        assert _error(lambda p=params: agent_class(game, **p)) == _error(
            lambda p=params: make_agent(name, game, **p))


def test_the_registry_builds_through_the_constructors_so_their_parameters_are_not_its() -> None:
    game = load_game("kuhn_poker")
    for name, extra in [("cfr", {"tree": None}), ("mccfr-os", {"rng": None}),
                        ("xfp", {"initial": None})]:
        with pytest.raises(ConfigError, match="unknown parameter"):
            make_agent(name, game, **extra)


def test_run_cli_catches_only_input_errors(capsys) -> None:
    def bad_input(argv):
        raise ConfigError("unknown game 'x'")

    def missing(argv):
        raise FileNotFoundError("no such run folder")

    def bug(argv):
        raise KeyError("internal")

    assert run_cli(bad_input, []) == 2
    assert "unknown game 'x'" in capsys.readouterr().err
    assert run_cli(missing, []) == 2
    with pytest.raises(KeyError):
        run_cli(bug, [])
    with pytest.raises(TypeError):
        run_cli(lambda argv: None + 1, [])  # type: ignore[operator]
    with pytest.raises(ConfigError):
        run_cli(bad_input, ["--debug"])


def test_every_error_type_is_a_pokerzoo_error() -> None:
    for cls in (ConfigError, EnvStateError, IllegalActionError, TreeTooLargeError):
        assert issubclass(cls, PokerzooError)


def test_workers_for_an_agent_without_them_name_the_agents_that_take_them(tmp_path) -> None:
    from pokerzoo.runs.config import RunConfig
    from pokerzoo.runs.run import train

    config = RunConfig(agent="cfr", game="kuhn_poker", iterations=1, workers=2,
                       out=str(tmp_path / "run"), tensorboard=False)
    with pytest.raises(ConfigError, match=r"'cfr' runs in one process; .* apply to deep-cfr, "
                       r"deep-gxfp, nfsp, nfsp-per, nfsp-plt$"):
        train(config, progress=False)
