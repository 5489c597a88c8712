"""The hidden model against a determined learner.

What a learner holds (an interaction view, its sampler and counter, its env, an agent built on
it) leads to no array of d* by any path a test can walk without inspecting the interpreter
(attributes, properties, ``__dict__``/slots, closure cells, bound methods' ``__self__``,
containers); every draw from d* is counted and the count cannot be set, deleted or reset; a game
built without a seed draws one a learner cannot enumerate, records it, and rebuilds from it;
explicit seeds draw the same d* as before. Python is no sandbox: ``gc.get_objects()`` and the
sampler module's private tables still reach d*, which is why the walker does not follow a
function's ``__globals__`` (the interpreter's namespace) or modules.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import json
import types

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.agents.registry import make_agent
from pokerzoo.envs.unknown_env import UnknownPokerEnv
from pokerzoo.envs.vector import VectorPokerEnv
from pokerzoo.errors import HiddenModelError
from pokerzoo.evaluation.unknown import environment_of, true_model_tree
from pokerzoo.games.unknown import (
    EnvironmentModel,
    EnvironmentSampler,
    InteractionCounter,
    UnknownPokerGame,
)
from pokerzoo.games.unknown.game import SEED_BITS
from pokerzoo.tree import build
from pokerzoo.tree.episodes import environment_hands

# ---------------------------------------------------------------------------------------------
# The walker
# ---------------------------------------------------------------------------------------------

_LEAVES = (str, bytes, int, float, complex, bool, type(None), types.ModuleType)


def _properties(obj: object) -> list[object]:
    """The values of ``obj``'s properties (what ``obj.name`` computes), those that answer."""
    values = []
    for klass in type(obj).__mro__:
        for name, member in vars(klass).items():
            if isinstance(member, property | functools.cached_property):
                try:
                    values.append(getattr(obj, name))
                except Exception:  # a refusal, e.g. view.true_model
                    continue
    return values


def _neighbours(obj: object) -> list[object]:
    """What one step from ``obj`` reaches without inspecting the interpreter."""
    if isinstance(obj, type):
        # Our classes' attributes (a table kept on a class would show here); others' are not
        # the learner's objects.
        return list(vars(obj).values()) if obj.__module__.startswith("pokerzoo") else []
    if isinstance(obj, types.FunctionType):
        # Closure cells, defaults and the function's own dict, not __globals__ (every module).
        cells = [c.cell_contents for c in obj.__closure__ or () if _filled(c)]
        return [*cells, *(obj.__defaults__ or ()), *(obj.__kwdefaults__ or {}).values(),
                *vars(obj).values(), getattr(obj, "__wrapped__", None)]
    if isinstance(obj, types.MethodType):
        return [obj.__self__, obj.__func__]
    if isinstance(obj, types.CellType):
        return [obj.cell_contents] if _filled(obj) else []
    found = [o for o in gc.get_referents(obj) if not isinstance(o, types.ModuleType)]
    if hasattr(obj, "__dict__"):
        found.extend(vars(obj).values())
    if not isinstance(obj, np.ndarray | dict | list | tuple | set | frozenset):
        found.extend(_properties(obj))
    return found


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def _walk(root: object, depth: int = 12) -> list[object]:
    """Every object within ``depth`` steps of ``root`` (see ``_neighbours``)."""
    seen: dict[int, object] = {id(root): root}
    frontier = [root]
    for _ in range(depth):
        nxt = []
        for obj in frontier:
            for other in _neighbours(obj):
                if id(other) not in seen and not isinstance(other, _LEAVES):
                    seen[id(other)] = other
                    nxt.append(other)
        frontier = nxt
    return list(seen.values())


def _d_star_arrays(game: UnknownPokerGame) -> list[np.ndarray]:
    """The arrays that are d*'s own (not shared with the prior mean): its chance and reward
    probabilities, expected payoffs and reward CDFs, and its tree's chance and utilities."""
    d, mean = game.true_model, game.prior_mean_model
    tree = true_model_tree(game)
    arrays = [d.chance_probs, d.reward_probs, d.expected_returns, d._reward_cdf,
              tree.chance_prob, tree.utilities]
    prior_tree = build(game, model=mean)
    for own, prior in zip(arrays, [mean.chance_probs, mean.reward_probs, mean.expected_returns,
                                   mean._reward_cdf, prior_tree.chance_prob, prior_tree.utilities],
                          strict=True):
        assert not np.array_equal(own, prior)  # so finding one of them is finding d*
    return arrays


def _leaks(root: object, game: UnknownPokerGame) -> list[str]:
    """What of d* the walker finds from ``root``."""
    arrays = _d_star_arrays(game)
    found = []
    for obj in _walk(root):
        if isinstance(obj, UnknownPokerGame):
            found.append(f"an environment game {obj!r}")
        elif isinstance(obj, EnvironmentModel) and obj == game.true_model:
            found.append("the model d*")
        elif isinstance(obj, np.ndarray) and any(
            obj.shape == a.shape and np.array_equal(obj, a) for a in arrays
        ):
            found.append(f"an array of d* {obj.shape}")
    return found


@pytest.fixture
def kuhn() -> UnknownPokerGame:
    return load_game("unknown_kuhn_poker", seed=11)


def test_the_walker_finds_d_star_where_it_is(kuhn: UnknownPokerGame) -> None:
    """Positive controls: closures (the old sampler's ``_chance``), bound methods, containers
    and attributes holding d* are found, so finding nothing below means something."""
    d_star = kuhn.true_model

    def chance(history, rng):
        return d_star.sample_chance(history, rng)

    assert _leaks(chance, kuhn)  # through the closure cell
    assert _leaks(d_star.sample_chance, kuhn)  # through the bound method's __self__
    assert _leaks({"x": [types.SimpleNamespace(m=d_star)]}, kuhn)
    assert _leaks(build(kuhn, model=d_star), kuhn)  # the d* tree's arrays
    assert _leaks(kuhn, kuhn)


def _played_view(game: UnknownPokerGame):
    """An interaction view after every kind of draw (so the sampler's hand sampler of d* exists)."""
    view = game.interaction_view()
    rng = np.random.default_rng(0)
    state = view.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.sample_chance_outcome(rng) if state.is_chance_node()
                           else state.legal_actions()[0])
    state.sample_returns(rng)
    tree = build(view)
    uniform = tree.infoset_mask / tree.infoset_mask.sum(axis=1, keepdims=True)
    view.sampler.play(tree, uniform, 10, rng, hands=environment_hands)
    return view


@pytest.mark.parametrize(("name", "params"), [("unknown_kuhn_poker", {"seed": 11}),
                                              ("unknown_leduc_holdem", {"base": "leduc",
                                                                        "seed": 2})])
def test_nothing_a_learner_holds_leads_to_d_star(name: str, params: dict) -> None:
    game = load_game(name, **params)
    view = _played_view(game)
    for root in (view, view.sampler, view.sampler.counter, view.sampler.play,
                 view.with_resampled_environment, view.new_initial_state()):
        assert _leaks(root, game) == [], root
    # The sampler and its counter hold nothing at all.
    for obj in (view.sampler, view.sampler.counter):
        assert not hasattr(obj, "__dict__")
        assert [o for o in gc.get_referents(obj) if o is not type(obj)] == []


def test_an_agents_env_and_a_learning_agent_lead_nowhere_either(kuhn: UnknownPokerGame) -> None:
    env = UnknownPokerEnv(kuhn.interaction_view())  # an agent's own env
    env.reset(seed=0)
    for agent in env.agent_iter(max_iter=4):
        env.step(None if env.terminations[agent] else 0)
    assert _leaks(env, kuhn) == []
    venv = VectorPokerEnv(kuhn.interaction_view(), num_envs=4, seed=0)
    venv.reset()
    venv.step(np.zeros(4, dtype=np.int64))
    assert _leaks(venv, kuhn) == []
    for name in ("vcfr", "mccfr-os-unknown"):
        agent = make_agent(name, kuhn, seed=0)
        agent.iterate(5)
        assert _leaks(agent, kuhn) == [], name


# ---------------------------------------------------------------------------------------------
# Every draw counted; counts read-only
# ---------------------------------------------------------------------------------------------


def test_no_uncounted_way_to_play(kuhn: UnknownPokerGame) -> None:
    view = kuhn.interaction_view()
    sampler = view.sampler
    for gone in ("_play", "_chance", "_payoff", "_counter", "_model", "_prior", "_structure"):
        assert not hasattr(sampler, gone), gone
    tree = build(view)
    uniform = tree.infoset_mask / tree.infoset_mask.sum(axis=1, keepdims=True)
    batch = sampler.play(tree, uniform, 7, np.random.default_rng(0), hands=environment_hands)
    assert sampler.counter.episodes == 7 and sampler.counter.chance_draws == batch.chance_slots.size
    # Another hand-sampler factory would be handed the game dealing with d*: refused, uncalled.
    seen = []

    def spy(game):
        seen.append(game)
        return environment_hands(game)

    with pytest.raises(HiddenModelError, match="environment_hands"):
        sampler.play(tree, uniform, 1, np.random.default_rng(0), hands=spy)
    assert seen == [] and sampler.counter.episodes == 7
    # The tree the learner passes is only read (its game's structure, its mask): nothing of
    # d* is handed to it.
    calls = []

    class Game:
        structure = view.structure

        def __getattr__(self, name):
            calls.append(name)
            raise AttributeError(name)

    fake = types.SimpleNamespace(game=Game(), infoset_mask=tree.infoset_mask)
    sampler.play(fake, uniform, 2, np.random.default_rng(1), hands=environment_hands)
    assert calls == [] and sampler.counter.episodes == 9
    # A resampled environment counts on the same counter.
    resampled = sampler.resampled(np.random.default_rng(3))
    resampled.sample_chance_outcome(view.new_initial_state(), np.random.default_rng(0))
    assert sampler.counter.chance_draws == batch.chance_slots.size + 4 + 1


def test_counts_cannot_be_set_deleted_or_reset(kuhn: UnknownPokerGame) -> None:
    view = kuhn.interaction_view()
    sampler, counter = view.sampler, view.sampler.counter
    view.new_initial_state().sample_chance_outcome(np.random.default_rng(0))
    assert (counter.episodes, counter.chance_draws) == (0, 1)
    for target, name in [(counter, "episodes"), (counter, "_episodes"),
                         (counter, "chance_draws"), (sampler, "counter"),
                         (sampler, "_counter"), (sampler, "_play")]:
        with pytest.raises(HiddenModelError, match=rf"refused: setting '{name}'"):
            setattr(target, name, 0)
        with pytest.raises(HiddenModelError, match=rf"refused: deleting '{name}'"):
            delattr(target, name)
    with pytest.raises(AttributeError):  # no slot to write past __setattr__ either
        object.__setattr__(counter, "_episodes", 0)
    with pytest.raises(AttributeError):
        object.__setattr__(sampler, "_counter", InteractionCounter())
    # Calling the constructors' __init__ again resets and rebinds nothing.
    counter.__init__()
    sampler.__init__(load_game("unknown_kuhn_poker", seed=1), InteractionCounter())
    assert (counter.episodes, counter.chance_draws) == (0, 1)
    assert sampler.counter is counter
    view.new_initial_state().sample_chance_outcome(np.random.default_rng(0))
    assert counter.chance_draws == 2
    # Copies share the count; a pickled counter is a record of counts, apart from this one.
    import copy
    import pickle

    assert copy.copy(counter) is counter and copy.deepcopy(counter) is counter
    record = pickle.loads(pickle.dumps(counter))
    assert record is not counter and (record.episodes, record.chance_draws) == (0, 2)
    # A sampler is made by an environment game only.
    with pytest.raises(Exception, match="environment game"):
        EnvironmentSampler(kuhn.agent_view())  # type: ignore[arg-type]


def test_bad_states_are_refused_without_drawing(kuhn: UnknownPokerGame) -> None:
    from pokerzoo.errors import EnvStateError

    view = kuhn.interaction_view()
    fake = types.SimpleNamespace(game=view, history=lambda: [9, 9], current_player=lambda: -1)
    with pytest.raises(EnvStateError, match="not a chance node"):
        view.sampler.sample_chance_outcome(fake, np.random.default_rng(0))
    fake = types.SimpleNamespace(game=view, history=lambda: [0], current_player=lambda: -4)
    with pytest.raises(EnvStateError, match="not over"):
        view.sampler.sample_payoff(fake, np.random.default_rng(0))
    assert (view.sampler.counter.episodes, view.sampler.counter.chance_draws) == (0, 0)


# ---------------------------------------------------------------------------------------------
# Seeds
# ---------------------------------------------------------------------------------------------

PINNED = {
    # model_fingerprint of each game, computed before the seed default changed.
    ("unknown_kuhn_poker", (("seed", 0),)):
        "e175da5aa058cef8ca85cec3d5b2b273e86851bfd1428a786021b01382629d17",
    ("unknown_kuhn_poker", (("seed", 7),)):
        "c763b78a852c1a8e28730c7a1b791880482e0e66944b8f84f9eab01f60edabc5",
    ("unknown_kuhn_poker", (("seed", 2**100 + 3),)):
        "a84fde7adf014fac5ae6828d48f1a11712b3858a9ca9ff176e65b6e4e7a75718",
    ("unknown_leduc_holdem", (("base", "leduc"), ("seed", 3))):
        "3d8cf8b54a645a7acdea06be8d5af0236b2a34964fdfb2f5de95ee7293e78e7d",
    ("unknown_leduc_holdem", (("seed", 0),)):
        "4e50de811a7226cc297583c29e02b906c974b8a5f198fea92a24aba320c2e65b",
    ("unknown_kuhn_poker", (("base", (("num_players", 3),)), ("prior", "poker_payoffs"),
                            ("seed", 5))):
        "ab0e4d3659c275f40a713109e733ee0061798362725f1dbf3db50a30bcf95807",
}


@pytest.mark.parametrize(("name", "params"), list(PINNED))
def test_explicit_seeds_draw_the_same_d_star_as_before(name: str, params: tuple) -> None:
    kwargs = {k: dict(v) if isinstance(v, tuple) else v for k, v in params}
    assert load_game(name, **kwargs).model_fingerprint == PINNED[(name, params)]


def test_a_game_without_a_seed_draws_an_unenumerable_one_and_records_it() -> None:
    games = [load_game("unknown_kuhn_poker") for _ in range(3)]
    seeds = [g.params()["seed"] for g in games]
    assert SEED_BITS == 128 and all(0 <= s < 2**SEED_BITS for s in seeds)
    assert max(s.bit_length() for s in seeds) > 64  # 128 random bits: all three <= 64 is 2**-192
    assert len({g.model_fingerprint for g in games}) == 3
    for game in games:
        # Its parameters, through JSON, rebuild the same d* (run folders and checkpoints do this).
        again = load_game(game.name, **json.loads(json.dumps(game.params())))
        assert again == game and again.true_model == game.true_model
        assert again.params() == game.params()
        assert str(game.params()["seed"]) in repr(game)
    leduc = load_game("unknown_leduc_holdem", base="leduc")
    assert load_game(leduc.name, **json.loads(json.dumps(leduc.params()))) == leduc
    # An env built without a seed is a game like any other: its d* rebuilds from its params.
    env = UnknownPokerEnv("unknown_kuhn_poker")
    assert environment_of(env).params()["seed"].bit_length() > 0


def test_a_run_without_a_seed_records_it_and_resumes_in_the_same_environment(tmp_path) -> None:
    from pokerzoo.runs.config import RunConfig
    from pokerzoo.runs.folder import SavedRun
    from pokerzoo.runs.load import load_agent
    from pokerzoo.runs.run import train

    out = tmp_path / "run"
    config = RunConfig(agent="cfr+", game="unknown_kuhn_poker", iterations=5, out=str(out),
                       tensorboard=False)
    first = train(config, progress=False)
    stored = json.loads((out / "config.json").read_text())
    seed = stored["game_params"]["seed"]
    assert seed.bit_length() > 32 and str(seed) in first["game"]
    game = SavedRun.open(out).game
    assert game == load_game("unknown_kuhn_poker", seed=seed)
    # The same command resumes in the same d* (the folder lends its seed), and scores there.
    again = train(dataclasses.replace(config, iterations=10), progress=False)
    assert again["resumed"] and again["game"] == first["game"]
    assert json.loads((out / "config.json").read_text())["game_params"]["seed"] == seed
    assert load_agent(out).build["game_params"]["seed"] == seed


def test_a_run_folder_from_before_drawn_seeds_resumes_in_seed_0s_environment(tmp_path) -> None:
    """Folders written when the default seed was 0 name no seed: they are read with seed 0."""
    from pokerzoo.runs.config import RunConfig
    from pokerzoo.runs.folder import SavedRun
    from pokerzoo.runs.run import train

    out = tmp_path / "run"
    train(RunConfig(agent="cfr+", game="unknown_kuhn_poker", game_params={"seed": 0},
                    iterations=5, out=str(out), tensorboard=False), progress=False)
    path = out / "config.json"
    stored = json.loads(path.read_text())
    stored["game_params"] = {}  # what train.py wrote then
    path.write_text(json.dumps(stored))
    assert SavedRun.open(out).game == load_game("unknown_kuhn_poker", seed=0)
    config = RunConfig(agent="cfr+", game="unknown_kuhn_poker", iterations=10, out=str(out),
                       tensorboard=False)
    again = train(config, progress=False)
    assert again["resumed"] and again["iterations_done"] == 10
    assert again["game"] == repr(load_game("unknown_kuhn_poker", seed=0))
