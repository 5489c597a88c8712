"""The torch backend computes what the numba sweep computes: the same regrets, strategy sums,
root values and exploitability on Kuhn, Leduc and hold'em river, turn and flop spots, and a
request it cannot serve is refused in one line before anything is built."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from pokerzoo.errors import ConfigError  # noqa: E402
from pokerzoo.games import load_game  # noqa: E402
from pokerzoo.public.engine.backend import NUMBA_SUPPORT, check_support  # noqa: E402
from pokerzoo.public.engine.results import node_result  # noqa: E402
from pokerzoo.public.engine.small_games import public_game_tree  # noqa: E402
from pokerzoo.public.engine.solver import PublicSolver, SolverConfig, discounts  # noqa: E402
from pokerzoo.public.engine.sweep_kernel import MODE_CFR  # noqa: E402
from pokerzoo.public.engine.torch_backend import (  # noqa: E402
    TORCH_SUPPORT,
    TorchBackend,
    player_storage,
)
from pokerzoo.public.engine.tree import CHANCE, DECISION  # noqa: E402
from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
RELATIVE = 1e-6
OOP = "AA,KK,QQ,AK,KQs,JTs,T9s,22"
IP = "QQ,JJ,AQ,KJs,QTs,33,98s"


def _spots() -> dict[str, HoldemSpot]:
    """A river, a turn and a flop spot with narrow ranges and few sizes (seconds to solve;
    suit isomorphism on the turn and flop, whose all-ins deal the later cards without
    betting)."""
    return {
        "river": HoldemSpot("QsJh2h7c3d", 100, 150, OOP, IP, river_sizes=("70%, a", "a")),
        "turn": HoldemSpot("QsJs2h7h", 100, 150, OOP, IP, turn_sizes=("55%", ""),
                           river_sizes=("70%", "")),
        "flop": HoldemSpot("QsJh2h", 100, 60, "AA,KK,AK,JTs,22", "QQ,AQ,KJs,98s",
                           flop_sizes=("a", ""), turn_sizes=("a", ""), river_sizes=("a", "")),
    }


@pytest.fixture(scope="module")
def trees():
    out = {name: build_spot_tree(spot) for name, spot in _spots().items()}
    out["kuhn"] = public_game_tree(load_game("kuhn_poker")).tree
    out["leduc"] = public_game_tree(load_game("leduc_holdem")).tree
    return out


def _close(got: np.ndarray, want: np.ndarray) -> None:
    """Equal to ``RELATIVE`` of the largest magnitude (float32 storage rounds both)."""
    scale = max(float(np.abs(want).max(initial=0.0)), 1e-30)
    assert float(np.abs(np.asarray(got, np.float64) - want).max(initial=0.0)) <= RELATIVE * scale


def _same_values(ours: PublicSolver, theirs: PublicSolver) -> None:
    pot = ours.tree.starting_pot
    assert theirs.game_value()[0] == pytest.approx(ours.game_value()[0], rel=RELATIVE,
                                                   abs=1e-9 * pot)
    for got, want in zip(theirs.best_response_values(), ours.best_response_values()):
        assert got == pytest.approx(want, rel=RELATIVE, abs=1e-9 * pot)
    assert theirs.exploitability() == pytest.approx(ours.exploitability(), rel=RELATIVE,
                                                    abs=1e-9 * pot)


def test_spots_cover_chance_isomorphism_and_runouts(trees):
    flop = trees["flop"]
    assert int(trees["turn"].iso_count.sum()) > 0 and int(flop.iso_count.sum()) > 0
    chance = flop.kind == CHANCE
    assert bool(np.any(chance[1:] & chance[flop.parent[1:]]))  # turn then river, no betting
    assert bool(np.any(trees["leduc"].kind == CHANCE))


@pytest.mark.parametrize("name,algorithm", [
    ("kuhn", "cfr+"), ("kuhn", "dcfr"), ("leduc", "cfr+"), ("leduc", "postflop"),
])
def test_iterations_equal_numbas(trees, name, algorithm):
    ours = PublicSolver(trees[name], algorithm=algorithm, threads=1)
    theirs = PublicSolver(trees[name], algorithm=algorithm, backend="torch")
    ours.iterate(5)
    theirs.iterate(5)
    assert theirs.iterations == 5
    _close(theirs.regrets, ours.regrets)
    _close(theirs.sums, ours.sums)
    _same_values(ours, theirs)
    node = int(np.flatnonzero(trees[name].kind == DECISION)[-1])
    for average in (True, False):
        _close(theirs.strategy(node, average), ours.strategy(node, average))


@pytest.mark.parametrize("name,algorithm", [
    ("river", "cfr+"), ("river", "postflop"), ("turn", "cfr+"), ("turn", "postflop"),
    ("flop", "cfr+"), ("flop", "dcfr"),
])
def test_passes_equal_numbas(trees, name, algorithm):
    """From numba's state after a few iterations, each player's pass updates its regrets
    and sums as numba's does, and the values are numba's.

    Passes, not free-running iterations: where a hand's actions are worth the same (or its
    opponent's reach is 0) its regrets are rounding noise in both engines, which regret
    matching turns into different strategies, equally right, so free runs part by more than
    rounding. Each pass here starts from numba's exact state."""
    tree = trees[name]
    ours = PublicSolver(tree, algorithm=algorithm, threads=1)
    ours.iterate(3)
    before = ours.regrets.copy(), ours.sums.copy()
    ours.iterate(1)
    step = discounts(ours.config, ours.iterations)
    backend = TorchBackend(tree, ours.config)
    regrets, sums = backend.regrets(), backend.sums()  # views of its storage on the CPU
    regrets[...], sums[...] = before
    for player in (0, 1):
        entries = player_storage(tree, player)
        if player == 1:  # player 1's pass sees player 0's regrets after its pass
            regrets[~entries], sums[~entries] = ours.regrets[~entries], ours.sums[~entries]
        backend.run(MODE_CFR, player, step)
        _close(regrets[entries], ours.regrets[entries])
        _close(sums[entries], ours.sums[entries])
    theirs = PublicSolver(tree, algorithm=algorithm, backend="torch")
    theirs.regrets[...], theirs.sums[...] = ours.regrets, ours.sums
    _same_values(ours, theirs)


def test_float32_arithmetic_is_close(trees):
    tree = trees["river"]
    ours = PublicSolver(tree, algorithm="cfr+", threads=1)
    theirs = TorchBackend(tree, ours.config, dtype=torch.float32)
    ours.iterate(1)
    for player in (0, 1):
        theirs.run(MODE_CFR, player, discounts(ours.config, 1))
    scale = float(np.abs(ours.regrets).max())
    assert float(np.abs(theirs.regrets() - ours.regrets).max()) <= 1e-4 * scale


def test_player_storage_splits_the_storage(trees):
    for name in ("leduc", "turn"):
        tree = trees[name]
        mine, theirs = player_storage(tree, 0), player_storage(tree, 1)
        assert not np.any(mine & theirs) and np.all(mine | theirs)
        node = int(np.flatnonzero((tree.kind == DECISION) & (tree.player == 1))[0])
        assert np.all(tree.block(theirs, node)) and not np.any(tree.block(mine, node))


def test_load_storage_sets_the_state_and_refuses_a_wrong_shape(trees):
    tree = trees["kuhn"]
    backend = TorchBackend(tree, SolverConfig())
    values = np.arange(tree.storage_size, dtype=np.float32)
    backend.load_storage(values, 2 * values)
    assert np.array_equal(backend.regrets(), values)
    assert np.array_equal(backend.sums(), 2 * values)
    with pytest.raises(ConfigError, match="flat array of"):
        backend.load_storage(values[:-1], values)


def test_node_results_equal_numbas(trees):
    tree = trees["leduc"]
    ours = PublicSolver(tree, algorithm="dcfr")
    theirs = PublicSolver(tree, algorithm="dcfr", backend="torch")
    ours.iterate(20)
    theirs.iterate(20)
    node = int(np.flatnonzero((tree.kind == DECISION) & (tree.player == 1))[3])
    want, got = node_result(ours, node), node_result(theirs, node)
    for p in (0, 1):
        _close(got.reach[p], want.reach[p])
        np.testing.assert_allclose(got.ev[p], want.ev[p], rtol=RELATIVE, atol=1e-9)
    _close(got.strategy, want.strategy)
    np.testing.assert_allclose(got.action_ev, want.action_ev, rtol=RELATIVE, atol=1e-9)


def test_bad_pass_arguments_are_refused(trees):
    backend = TorchBackend(trees["kuhn"], SolverConfig())
    step = discounts(SolverConfig(), 1)
    for mode, player, record in ((7, 0, -1), (MODE_CFR, 2, -1), (MODE_CFR, 0, 10**6)):
        with pytest.raises(ConfigError, match="a pass takes|record must be"):
            backend.run(mode, player, step, record)
    with pytest.raises(ConfigError, match="dtype must be"):
        TorchBackend(trees["kuhn"], SolverConfig(), dtype=torch.int64)


def test_solve_and_results_through_the_torch_backend(trees):
    tree = trees["kuhn"]
    solver = PublicSolver(tree, algorithm="cfr+", backend="torch")
    pct = solver.solve(max_iterations=400, target_pct=0.5, check_every=20)
    assert pct <= 0.5 and solver.iterations < 400
    assert solver.game_value()[0] == pytest.approx(-1 / 18, abs=5e-3)


@pytest.mark.parametrize("request_, refused", [
    ({"storage": "compressed"}, "storage 'compressed'"),
    ({"threads": 2}, "threads=2"),
    ({"device": "cuda:7"}, "cuda:7"),
])
def test_unsupported_requests_are_refused(trees, request_, refused):
    if "device" in request_ and torch.cuda.device_count() > 7:
        pytest.skip("this machine has that device")
    with pytest.raises(ConfigError, match=refused) as error:
        PublicSolver(trees["river"], backend="torch", **request_)
    assert "\n" not in str(error.value)


def test_locks_are_refused_on_torch(trees):
    tree = trees["kuhn"]
    node = int(np.flatnonzero(tree.kind == DECISION)[0])
    lock = np.full((int(tree.num_children[node]), tree.num_hands(int(tree.player[node]))),
                   1.0 / int(tree.num_children[node]))
    with pytest.raises(ConfigError, match="node locks; use backend='numba'"):
        PublicSolver(tree, locks={node: lock}, backend="torch")
    PublicSolver(tree, locks={node: lock})  # the numba sweep serves them


def test_an_algorithm_a_backend_does_not_run_is_refused(trees):
    # A schedule outside a backend's declared algorithms (predictive CFR+ on torch, say) is
    # refused by the declaration, whatever the schedule module knows.
    narrow = dataclasses.replace(TORCH_SUPPORT, algorithms=("cfr+",))
    with pytest.raises(ConfigError, match="algorithm 'dcfr'"):
        check_support(narrow, SolverConfig(algorithm="dcfr"), trees["kuhn"], {})
    check_support(narrow, SolverConfig(algorithm="cfr+"), trees["kuhn"], {})
    assert set(NUMBA_SUPPORT.algorithms) >= set(TORCH_SUPPORT.algorithms)


def test_bad_backend_and_device_names_are_refused(trees):
    with pytest.raises(ConfigError, match="backend must be one of"):
        SolverConfig(backend="jax")
    with pytest.raises(ConfigError, match="device must be 'cpu', 'cuda' or 'cuda:N'"):
        SolverConfig(backend="torch", device="gpu")
    with pytest.raises(ConfigError, match="numba backend does not support device 'cuda'"):
        PublicSolver(trees["kuhn"], device="cuda")


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA device is here")
def test_missing_cuda_is_one_line(trees):
    with pytest.raises(ConfigError, match="no CUDA device") as error:
        PublicSolver(trees["kuhn"], backend="torch", device="cuda")
    assert "\n" not in str(error.value)


def test_terminals_it_does_not_evaluate_are_refused(trees):
    class OtherTerminals:
        def compiled(self, tree):
            return None, ()

    tree = dataclasses.replace(trees["kuhn"], terminals=OtherTerminals())
    with pytest.raises(ConfigError, match="OtherTerminals terminals"):
        PublicSolver(tree, backend="torch")
