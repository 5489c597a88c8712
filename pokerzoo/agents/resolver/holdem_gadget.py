"""A hold'em re-solve inside a street behind the CFR-D gadget.

Where the hold'em resolver re-solves from a decision inside a street, the previous solve of
that street is at hand, and with it the opponent's counterfactual values at the point of the
line: at its own decision before an action the previous tree lacks (Libratus's nested
subgame solving takes the values of the opponent's best action in the abstraction there:
Brown and Sandholm 2017, "Safe and nested subgame solving for imperfect-information games"),
or at the re-solving player's decision when it re-solves at every decision (DeepStack's
continual re-solving). ``gadget_solve`` solves the new spot with the CFR-D gadget
(``pokerzoo.public.subgames.resolve.ResolvingSolver``: per hand, the opponent either takes those
values or enters; Burch, Johanson and Bowling 2014), so the re-solve is no more exploitable
there than the previous solve, up to both solves' errors and the ranges' floor.

Units: counterfactual values are weighted by the other player's reach. Each spot scales its
ranges to a largest weight of 1 (``holdem_tree.range_text``), so values read in the previous
tree are rescaled by the ratio of the two scales of the re-solving player's range.
"""

from __future__ import annotations

import numpy as np

from pokerzoo.errors import ConfigError
from pokerzoo.public.spots.holdem_spot import (
    HoldemSpot,
    SpotSolution,
    build_spot_tree,
    combo_indices,
    solve_until,
)
from pokerzoo.public.subgames.resolve import ResolvingSolver, node_beliefs
from pokerzoo.public.subgames.subgame import tree_subgame


def best_response_values(solver: object, node: int, player: int) -> np.ndarray:
    """``player``'s best-response counterfactual values at ``node`` of a solved spot, against
    the other's average strategy (a gadget solve's opponent entering with its gadget reach)."""
    if isinstance(solver, ResolvingSolver):
        return solver.best_response_cfv(player, int(node))
    return np.array(node_beliefs(solver, int(node))[f"br_cfv{player}"])  # type: ignore[arg-type]


def carried_values(previous: SpotSolution, node: int, opponent: int, spot_tree: object,
                   scale: float) -> np.ndarray:
    """The opponent's values at ``node`` of ``previous``, per opponent hand of the new
    spot's tree (matched by pair), times ``scale`` (the re-solving player's range scale)."""
    values = best_response_values(previous.solver, node, opponent)
    where = np.full(1326, -1, dtype=np.int64)
    where[combo_indices(previous.tree, opponent)] = np.arange(values.size)
    mine = where[combo_indices(spot_tree, opponent)]  # type: ignore[arg-type]
    # Every pair off the board is in both trees (the ranges' floor); a pair missing from the
    # previous tree gets its best value there, which lets it take the gadget's exit.
    out = np.where(mine >= 0, values[np.maximum(mine, 0)], float(values.max(initial=0.0)))
    return out * scale


def gadget_solve(spot: HoldemSpot, resolver: int, previous: SpotSolution, node: int,
                 scale: float, exploitability_pct: float, max_iterations: int,
                 max_seconds: float | None, check_every: int = 10) -> SpotSolution:
    """Solve ``spot`` for spot player ``resolver`` behind the CFR-D gadget, the opponent's
    alternative being its values at ``node`` of ``previous`` (see the module docstring);
    stops as ``solve_spot`` does."""
    if resolver not in (0, 1):
        raise ConfigError(f"the re-solving player must be 0 or 1, got {resolver!r}")
    tree = build_spot_tree(spot)
    values = carried_values(previous, node, 1 - resolver, tree, scale)
    solver = ResolvingSolver(tree_subgame(tree), resolver, values, None, "cfrd")
    return solve_until(SpotSolution(spot, tree, solver), exploitability_pct, max_iterations,
                       max_seconds, check_every)


__all__ = ["best_response_values", "carried_values", "gadget_solve"]
