"""Hold'em spots that start at a decision inside a street (``street_chips``, ``street_bets``,
``to_act``): the same subtree and the same values as the street-start spot below that
decision, the street's bets counted by the raise cap, one-line errors for impossible input."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.public.engine.results import node_result
from pokerzoo.public.engine.solver import PublicSolver
from pokerzoo.public.engine.tree import DECISION, PublicTree
from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree, combo_indices, solve_spot
from pokerzoo.public.spots.ranges import combo_name

BOARD = "Ks7d2c9h4s"
FIELDS = {"board": BOARD, "starting_pot": 12, "effective_stack": 40,
          "oop_range": "AA,KK,77,22,AQs,T9s,86s:0.5", "ip_range": "QQ-99,AK,KQs,65s:0.7",
          "river_sizes": (("50%, a", "100%"), ("75%", "100%, a")), "suit_isomorphism": False}


def _weights_text(weights: np.ndarray) -> str:
    """A range string giving each combo exactly ``weights`` (all digits kept)."""
    return ",".join(f"{combo_name(int(c))}:{float(weights[c])!r}"
                    for c in np.flatnonzero(weights > 0))


def _lines(tree: PublicTree, node: int) -> dict[tuple[str, ...], int]:
    """Each decision below ``node`` (itself included) by its line of labels from ``node``."""
    out, todo = {}, [(node, ())]
    while todo:
        n, line = todo.pop()
        if tree.kind[n] == DECISION:
            out[line] = n
        todo += [(c, (*line, tree.label(c))) for c in tree.children(n)]
    return out


@pytest.fixture(scope="module")
def solved():  # type: ignore[no-untyped-def]
    return solve_spot(HoldemSpot.from_dict(FIELDS), exploitability_pct=None, max_iterations=40)


@pytest.mark.parametrize(("line", "chips", "bets", "actor"), [
    (["check"], (0, 0), 0, 1),
    (["bet 6"], (6, 0), 1, 1),
    (["check", "bet 9"], (0, 9), 1, 0),
    (["bet 6", "raise 30"], (6, 30), 2, 0),
])
def test_a_mid_street_spot_is_the_subtree_with_the_same_values(solved, line, chips, bets,
                                                               actor) -> None:
    full = solved.tree
    node = solved.node(line)
    reach = []
    for p in range(2):
        w = np.zeros(1326)
        w[combo_indices(full, p)] = solved.reach(node, p)
        reach.append(w)
    mid = HoldemSpot.from_dict({**FIELDS, "oop_range": _weights_text(reach[0]),
                                "ip_range": _weights_text(reach[1]), "street_chips": list(chips),
                                "street_bets": bets, "to_act": actor})
    tree = build_spot_tree(mid)
    below, mine = _lines(full, node), _lines(tree, 0)
    assert set(below) == set(mine)  # the same actions with the same chips, node for node
    assert np.allclose(tree.contrib[0], full.contrib[node])
    # Lock every decision of the mid-street spot to the full solve's average strategy there.
    hands = [np.searchsorted(combo_indices(full, p), combo_indices(tree, p)) for p in range(2)]
    locks = {}
    for key, n in mine.items():
        m = below[key]
        locks[n] = solved.solver.strategy(m)[:, hands[int(full.player[m])]]
    here = node_result(PublicSolver(tree, locks=locks), 0)
    there = node_result(solved.solver, node)
    for p in range(2):
        ev = there.ev[p][hands[p]]
        ok = np.isfinite(ev)
        np.testing.assert_allclose(here.ev[p][ok], ev[ok], rtol=1e-9, atol=1e-9)
        assert here.ev_total[p] == pytest.approx(there.ev_total[p], rel=1e-9)


def test_the_defaults_are_the_street_start() -> None:
    plain = build_spot_tree(HoldemSpot.from_dict(FIELDS))
    explicit = build_spot_tree(HoldemSpot.from_dict(
        {**FIELDS, "street_chips": (0, 0), "street_bets": 0, "to_act": 0}))
    assert plain.num_nodes == explicit.num_nodes
    assert all(plain.label(n) == explicit.label(n) for n in range(plain.num_nodes))
    np.testing.assert_array_equal(plain.contrib, explicit.contrib)


def test_the_raise_cap_counts_the_streets_bets() -> None:
    spot = HoldemSpot.from_dict({**FIELDS, "street_chips": (6, 24), "street_bets": 2,
                                 "to_act": 0, "raise_cap": 2})
    tree = build_spot_tree(spot)
    assert [tree.label(c) for c in tree.children(0)] == ["fold", "call"]
    roomy = HoldemSpot.from_dict({**FIELDS, "street_chips": (6, 24), "street_bets": 2,
                                  "to_act": 0, "raise_cap": 3})
    labels = [build_spot_tree(roomy).label(c) for c in build_spot_tree(roomy).children(0)]
    assert labels[:2] == ["fold", "call"] and len(labels) > 2


@pytest.mark.parametrize(("chips", "bets", "actor", "message"), [
    ((6, 6), 1, 0, "equal chips in and a bet made is over"),
    ((0, 0), 1, 1, "equal chips in and a bet made is over"),
    ((6, 0), 1, 0, "the player facing the bet"),
    ((6, 24), 1, 0, "need at least 2 bets"),
    ((0, 9), 0, 0, "need at least 1 bets"),
    ((50, 0), 1, 1, "exceed the effective stack"),
    ((-1, 0), 1, 0, "must be integers >= 0"),
    ((0, 0), 0, 2, "the player to act must be 0"),
])
def test_inconsistent_street_input_is_a_one_line_error(chips, bets, actor, message) -> None:
    with pytest.raises(ConfigError, match=message) as err:
        HoldemSpot.from_dict({**FIELDS, "street_chips": chips, "street_bets": bets,
                              "to_act": actor})
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="street_chips must be two chip counts"):
        HoldemSpot.from_dict({**FIELDS, "street_chips": (1, 2, 3)})
