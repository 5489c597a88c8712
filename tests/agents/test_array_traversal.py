"""Array traversals of hold'em (``array_traversal``) sample what the state traversals sample.

With an opponent whose pure strategy ignores the cards, the betting trees walked are fixed,
so both versions must visit the same multiset of card-free tensors and masks, node for node.
With a card-dependent strategy the samples must agree in distribution: root values, the
regrets at the traverser's first decision per class of hole cards, and the correlation of the
action values there (which dealing the children one shared board would raise from about 0.1
to about 0.8). Every sampled tensor and mask replays through ``State``: the history written in
the tensor, applied to a state, gives that very tensor and mask.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from pokerzoo import load_game  # noqa: E402
from pokerzoo.agents.deep import array_traversal  # noqa: E402
from pokerzoo.agents.deep.array_traversal import (  # noqa: E402
    arrays_play,
    external_sampling_arrays,
    traversal_function,
)
from pokerzoo.agents.deep.deep_cfr import make_preset  # noqa: E402
from pokerzoo.agents.deep.state_deep_cfr import StateDeepCFR  # noqa: E402
from pokerzoo.agents.deep.state_gxfp import StateDeepGXFP  # noqa: E402
from pokerzoo.agents.deep.state_traversal import (  # noqa: E402
    TraversalSamples,
    external_sampling_states,
)
from pokerzoo.components.networks import torch_threads  # noqa: E402
from pokerzoo.errors import ConfigError, InvalidPolicyError  # noqa: E402

SMALL = [  # stacks deep enough for betting on the turn, or the river in limit
    ("no_limit_holdem", {"stacks": (1_000, 1_000)}),
    ("limit_holdem", {}),
    ("no_limit_holdem", {"num_players": 3, "stacks": (600, 1_000, 800), "bet_fractions": (1.0,)}),
    # Uneven stacks for all-ins and side pots, antes and odd blinds.
    ("no_limit_holdem", {"num_players": 6, "stacks": (500, 1_500, 900, 2_000, 250, 3_300),
                         "bet_fractions": (0.5,)}),
    ("limit_holdem", {"num_players": 5, "small_blind": 1, "big_blind": 2, "ante": 1,
                      "stacks": (13, 40, 25, 9, 60)}),
]
CARDS = ("hole_cards", "flop", "turn", "river")


@pytest.fixture(autouse=True)
def one_thread():
    with torch_threads(1):
        yield


def _linear_strategy(game, seed=5):
    """A fixed strategy that reads the whole tensor, cards included."""
    w = np.random.default_rng(seed).normal(
        size=(game.information_state_layout.size, game.num_distinct_actions)) * 0.5
    return lambda player, x, mask: mask * np.exp(x @ w)


def _middle_legal(player, x, mask):
    """A pure strategy of the mask alone: the middle legal action (the upper one of two)."""
    out = np.zeros(mask.shape)
    legal = np.cumsum(mask, axis=1)
    target = legal[:, -1] // 2 + 1
    out[np.arange(len(mask)), np.argmax(legal >= target[:, None], axis=1)] = 1.0
    return out


def _card_free(game, x):
    y = np.array(x, copy=True)
    for name in CARDS:
        y[:, game.layout_offsets[name] : game.layout_offsets[name] + 52] = 0.0
    return y


def _multiset(game, x, mask):
    return Counter(a.tobytes() + b.tobytes() for a, b in zip(_card_free(game, x), mask))


@pytest.mark.parametrize(("name", "params"), SMALL)
def test_fixed_betting_visits_the_same_nodes_as_states(name, params):
    game = load_game(name, **params)
    n = game.num_players
    for player in range(n):

        def strategy(seat, x, mask, player=player):  # the traverser's own is uniform
            return mask * 1.0 if seat == player else _middle_legal(seat, x, mask)

        a = external_sampling_arrays(game, strategy, player, 24, np.random.default_rng(player),
                                     frontier=10)
        s = external_sampling_states(game, strategy, player, 24, np.random.default_rng(9))
        assert a.nodes == s.nodes and len(a.tensors) == len(s.tensors) >= 24
        assert _multiset(game, a.tensors, a.masks) == _multiset(game, s.tensors, s.masks)
        assert (_multiset(game, a.strategy_tensors, a.strategy_masks)
                == _multiset(game, s.strategy_tensors, s.strategy_masks))
        np.testing.assert_allclose(a.sigma, np.where(a.masks, a.sigma, 0.0))
        np.testing.assert_allclose(a.sigma.sum(axis=1), 1.0)
        np.testing.assert_allclose((a.regrets * a.sigma).sum(axis=1), 0.0, atol=1e-9)


def _replay(game, seat, x):
    """The state whose history the tensor ``x`` of ``seat`` writes (None when a round filled
    its slots, so that an action may have been overwritten)."""
    off, n, A = game.layout_offsets, game.num_players, game.num_distinct_actions
    slots = game.history_slots
    cards = {name: np.flatnonzero(x[off[name] : off[name] + 52]).tolist() for name in CARDS}
    board = cards["flop"] + cards["turn"] + cards["river"]
    betting = x[off["betting"] : off["betting"] + 4 * slots * (n + A + 1)]
    betting = betting.reshape(4, slots, n + A + 1)
    if betting[:, -1, :n].any():
        return None
    used = set(cards["hole_cards"]) | set(board)
    filler = iter(c for c in range(52) if c not in used)
    state = game.new_initial_state()
    for q in range(n):
        for card in cards["hole_cards"] if q == seat else (next(filler), next(filler)):
            state.apply_action(int(card))
    dealt = iter(board)
    for r, j in zip(*np.nonzero(betting[:, :, :n].any(axis=2))):
        while state.is_chance_node():
            state.apply_action(int(next(dealt)))
        assert state.current_player() == int(np.argmax(betting[r, j, :n]))
        state.apply_action(int(np.argmax(betting[r, j, n : n + A])))
    while state.is_chance_node():
        state.apply_action(int(next(dealt)))
    return state


@pytest.mark.parametrize(("name", "params"), SMALL)
def test_sampled_tensors_and_masks_replay_through_states(name, params):
    game = load_game(name, **params)
    n = game.num_players
    player = n - 1
    s = external_sampling_arrays(game, _linear_strategy(game), player, 60,
                                 np.random.default_rng(4), frontier=16)
    rows = [(player, x, m) for x, m in zip(s.tensors, s.masks)]
    rows += [((player + 1) % n, x, m) for x, m in zip(s.strategy_tensors, s.strategy_masks)]
    replayed = 0
    for k in np.random.default_rng(0).permutation(len(rows))[:150]:
        seat, x, mask = rows[k]
        state = _replay(game, seat, x)
        if state is None:
            continue
        assert state.current_player() == seat
        np.testing.assert_array_equal(state.information_state_tensor(seat), x)
        np.testing.assert_array_equal(state.legal_actions_mask().astype(bool), mask)
        replayed += 1
    assert replayed > 100


def _first_decision_stats(game, s):
    """Per traversal: the regrets at the traverser's first decision (seat 0 in heads-up opens
    the betting: no action in its tensor) split by hole-card class (pair, suited, other)."""
    off = game.layout_offsets
    first = ~s.tensors[:, off["betting"] :].any(axis=1)
    assert first.sum() == s.num_traversals
    hole = np.argsort(-s.tensors[first, off["hole_cards"] : off["hole_cards"] + 52], axis=1)
    hole = hole[:, :2]
    pair = hole[:, 0] // 4 == hole[:, 1] // 4
    suited = hole[:, 0] % 4 == hole[:, 1] % 4
    cls = np.where(pair, 0, np.where(suited, 1, 2))
    regrets = s.regrets[first]
    out = np.zeros((s.num_traversals, 3, regrets.shape[1]))
    out[np.arange(s.num_traversals), cls] = regrets
    return out.reshape(s.num_traversals, -1), s.values[first]


def _z(a, b):
    var = a.var(axis=0) / len(a) + b.var(axis=0) / len(b)
    ok = var > 0
    return (a.mean(axis=0) - b.mean(axis=0))[ok] / np.sqrt(var[ok])


@pytest.mark.slow
def test_samples_match_states_in_distribution():
    game = load_game("no_limit_holdem", stacks=(300, 300))
    strategy = _linear_strategy(game)
    n = 3_000
    a = external_sampling_arrays(game, strategy, 0, n, np.random.default_rng(1))
    s = external_sampling_states(game, strategy, 0, n, np.random.default_rng(2))
    assert a.num_traversals == s.num_traversals == n
    assert abs(_z(a.root_values[:, None], s.root_values[:, None])[0]) < 4.5
    (ra, qa), (rs, qs) = _first_decision_stats(game, a), _first_decision_stats(game, s)
    z = _z(ra, rs)
    assert len(z) >= 9 and np.max(np.abs(z)) < 4.5
    # Action values of one decision: independent boards below each action keep them nearly
    # uncorrelated (about 0.1, through the hole cards); a shared board would make it 0.8.
    legal = a.masks[0] & (qa.std(axis=0) > 0)
    ca = np.corrcoef(qa[:, legal].T)[np.triu_indices(legal.sum(), 1)]
    cs = np.corrcoef(qs[:, legal].T)[np.triu_indices(legal.sum(), 1)]
    assert len(ca) >= 3 and np.max(np.abs(ca - cs)) < 0.12 and np.max(ca) < 0.3


def test_empty_runs_and_bad_input():
    game = load_game("no_limit_holdem")
    uniform = lambda player, x, mask: mask * 1.0  # noqa: E731
    empty = external_sampling_arrays(game, uniform, 1, 0, np.random.default_rng(0))
    assert isinstance(empty, TraversalSamples) and empty.num_traversals == 0 == empty.nodes
    assert empty.tensors.shape == (0, game.information_state_layout.size)
    with pytest.raises(InvalidPolicyError, match="seat 1"):
        external_sampling_arrays(game, lambda p, x, m: m * (p == 0), 0, 3,
                                 np.random.default_rng(0))
    for kwargs, field in (({"frontier": 0}, "frontier"), ({"player": 2}, "player"),
                          ({"num_traversals": -1}, "num_traversals")):
        args = {"player": 0, "num_traversals": 2, **kwargs}
        with pytest.raises(ConfigError, match=field):
            external_sampling_arrays(game, uniform, args.pop("player"), args.pop("num_traversals"),
                                     np.random.default_rng(0), **args)
    kuhn = load_game("kuhn_poker")
    assert arrays_play(game) and not arrays_play(kuhn)
    with pytest.raises(ConfigError, match="hold'em"):
        external_sampling_arrays(kuhn, uniform, 0, 2, np.random.default_rng(0))
    with pytest.raises(ConfigError, match="traversal_backend"):
        traversal_function(game, "gpu")
    with pytest.raises(ConfigError, match="traversal_backend='arrays'"):
        StateDeepCFR(kuhn, traversal_backend="arrays")
    with pytest.raises(ConfigError, match="traversal_backend"):
        StateDeepGXFP(game, traversal_backend="tree")


def test_deep_agents_traverse_holdem_as_arrays_by_default(tmp_path, monkeypatch):
    game = load_game("no_limit_holdem", num_players=3, stacks=(2_000, 2_000, 2_000))
    chunks = []
    chunk = array_traversal._traverse_chunk
    monkeypatch.setattr(array_traversal, "_traverse_chunk",
                        lambda *args: chunks.append(1) or chunk(*args))
    assert traversal_function(game, "auto") is external_sampling_arrays
    assert traversal_function(game, "states") is external_sampling_states
    assert traversal_function(load_game("leduc_holdem"), "auto") is external_sampling_states
    small = {"traversals": 8, "batch_size": 8, "strategy_memory": 500, "width": 16,
             "device": "cpu"}
    cfr = make_preset("deep-cfr", game, seed=0, advantage_steps=2, policy_steps=2,
                      advantage_memory=500, **small)
    assert isinstance(cfr, StateDeepCFR) and cfr.config.traversal_backend == "auto"
    assert cfr.traversal.walk is external_sampling_arrays  # chosen once, when built
    cfr.iterate(1)
    assert cfr.nodes_touched > 3 * 8 and all(len(m) for m in cfr.advantage_memories)
    assert len(chunks) == 3  # one chunk of 8 traversals per player
    cfr.save(tmp_path / "cfr.ckpt")
    states = StateDeepCFR(game, seed=0, advantage_steps=2, policy_steps=2,
                          advantage_memory=500, traversal_backend="states", **small)
    states.load(tmp_path / "cfr.ckpt")  # the backend is not part of a checkpoint's identity
    assert states.iteration == 1
    states.iterate(1)
    assert len(chunks) == 3 and states.nodes_touched > 3 * 8
    gxfp = StateDeepGXFP(game, seed=0, utility_steps=2, strategy_steps=2, **small)
    gxfp.iterate(1)
    assert gxfp.nodes_touched > 3 * 8 and len(gxfp.strategy_memory) and len(chunks) == 6
