"""Which leaf values a depth-limited solve takes from a per-pass source (``leaf_rule``):
CFR-D's current values, their iteration mean handed on, ReBeL's CFR-AVG."""

from __future__ import annotations

import numpy as np
import pytest

import pokerzoo
from pokerzoo.agents.resolver.agent import Resolver
from pokerzoo.agents.resolver.leaves import CompiledOracleLeaves, HandOffLeaves
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.exact import nash_conv
from pokerzoo.public.subgames.depth_limit import DepthLimitedSolver
from pokerzoo.public.subgames.leaf_values import OracleLeaves
from pokerzoo.public.subgames.resolve import ResolveConfig
from pokerzoo.public.subgames.subgame import public_subgame
from tests.public.subgames.test_depth_limit import _trunk_loss as trunk_loss


@pytest.fixture(scope="module")
def leduc() -> pokerzoo.games.base.Game:
    return pokerzoo.load_game("leduc_holdem")


def _trunk_loss(game: pokerzoo.games.base.Game, solver: DepthLimitedSolver,
                iterations: int = 500) -> float:
    """Both players' losses in the whole game from playing the trunk's average strategy,
    the rest solved by DCFR (``tests.public.subgames.test_depth_limit``'s measure)."""
    return trunk_loss(game, solver, iterations, algorithm="dcfr")


class _Linear:
    """Leaf values of a fixed continuation: one payoff matrix per leaf (linear in reaches)."""

    def __init__(self, matrices: np.ndarray) -> None:
        self.matrices = matrices

    def values(self, subgame, leaves, reach0, reach1):
        m = self.matrices[leaves]
        return (np.einsum("lij,lj->li", m, reach1), -np.einsum("lij,li->lj", m, reach0))


def test_cfr_avg_converges_with_per_pass_oracle_leaves(leduc) -> None:
    sub = public_subgame(leduc, [], [np.ones(6), np.ones(6)], depth="round")
    losses = []
    solver = DepthLimitedSolver(sub, CompiledOracleLeaves(leduc, 60), algorithm="dcfr",
                                leaf_rule="cfr-avg")
    for iterations in (100, 300):
        solver.iterate(iterations - solver.iterations)
        losses.append(_trunk_loss(leduc, solver))
    # Measured: 0.057 at 100 iterations, 0.031 at 300 (plain CFR-D, leaf_rule="current":
    # 0.036, 0.013; see bench/results/resolving_notes.md): the trunk's loss falls with the
    # iterations, though not below CFR-D's on Leduc.
    assert losses[1] < 0.8 * losses[0]
    assert losses[1] < 0.05


def test_cfr_avg_hands_the_value_at_the_average_and_linear_sources_agree(leduc) -> None:
    sub = public_subgame(leduc, [], [np.ones(6), np.ones(6)], depth="round")
    rng = np.random.default_rng(0)
    source = _Linear(rng.normal(size=(sub.num_leaves, 6, 6)))
    solvers = {rule: DepthLimitedSolver(sub, source, algorithm="dcfr", leaf_rule=rule)
               for rule in ("current", "mean", "cfr-avg")}
    for solver in solvers.values():
        solver.iterate(300)
    avg = solvers["cfr-avg"]
    # The weighted mean of the values CFR-AVG handed player 1 (per unit of player 0's
    # compatible reach) is the value at the belief state of the averages it last saw
    # (player 0's average is complete after its pass of the last iteration).
    reach0, reach1 = avg.leaf_reaches(True)
    value = source.values(sub, avg._all_leaves, reach0, reach1)[1]
    mass = avg._compatible(1, reach0)
    np.testing.assert_allclose(avg.mean_leaf_values(1) * mass, value, atol=1e-9)
    # With values linear in the reaches every rule solves the same game.
    for solver in solvers.values():
        assert solver.exploitability() < 0.02
    values = [s.game_value()[0] for s in solvers.values()]
    assert max(values) - min(values) < 0.02


def test_mean_hands_on_values_of_the_average(leduc) -> None:
    sub = public_subgame(leduc, [], [np.ones(6), np.ones(6)], depth="round")
    solver = DepthLimitedSolver(sub, CompiledOracleLeaves(leduc, 50), algorithm="dcfr",
                                leaf_rule="mean")
    assert solver.mean_leaf_values(0) is None
    solver.iterate(20)
    for p in (0, 1):
        mean = solver.mean_leaf_values(p)
        assert mean is not None and mean.shape == (sub.num_leaves, 6)
        # Measuring passes take the mean (not a new solve at the average's reaches).
        reach0, reach1 = solver.leaf_reaches(True)
        np.testing.assert_array_equal(solver.leaf_values("best_response", p, reach0, reach1),
                                      mean)


def test_learned_style_agent_rules_and_the_hand_off_diagnostic(leduc) -> None:
    oracle = CompiledOracleLeaves(leduc, 60)
    mixed = HandOffLeaves(oracle, CompiledOracleLeaves(leduc, 60))
    sub = public_subgame(leduc, [], [np.ones(6), np.ones(6)], depth="round")
    plain = DepthLimitedSolver(sub, oracle, algorithm="dcfr")
    handed = DepthLimitedSolver(sub, mixed, algorithm="dcfr")
    plain.iterate(10)
    handed.iterate(10)
    # Same sources on both sides: the hand-off diagnostic changes nothing.
    np.testing.assert_allclose(handed.strategy(0), plain.strategy(0), atol=1e-12)
    agent = Resolver(leduc, depth="round", leaves="oracle", oracle_mode="per-pass",
                     leaf_iterations=30, iterations=30, leaf_rule="mean")
    assert nash_conv(agent.tree, agent) < 1.0


def test_bad_leaf_rules_are_one_line_errors(leduc) -> None:
    sub = public_subgame(leduc, [], [np.ones(6), np.ones(6)], depth="round")
    with pytest.raises(ConfigError, match="leaf_rule must be one of"):
        DepthLimitedSolver(sub, OracleLeaves(leduc), leaf_rule="average")
    with pytest.raises(ConfigError, match="leaf_rule must be one of"):
        Resolver(leduc, leaf_rule="avg")
    with pytest.raises(ConfigError, match="leaf_rule must be one of"):
        ResolveConfig(leaf_rule="last")

    class _GameOnly:
        def leaf_values(self, subgame, leaves, reach0, reach1, mode, traverser, scalars):
            return np.zeros((len(leaves), 6))

    with pytest.raises(ConfigError, match="has none"):
        DepthLimitedSolver(sub, _GameOnly(), leaf_rule="mean")
    with pytest.raises(ConfigError, match="must offer values"):
        HandOffLeaves(_GameOnly(), OracleLeaves(leduc))
