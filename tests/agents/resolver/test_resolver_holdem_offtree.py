"""The hold'em resolver inside a street: a line that leaves a re-solve's tree is re-solved from
the next decision (ranges carried through the solved strategies, the off-tree action as its
nearest tree action), continual re-solving at the asked player's decisions, the CFR-D gadget
there, legal play through the AEC env, one-line errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pokerzoo
from pokerzoo.agents.registry import make_agent
from pokerzoo.agents.resolver.holdem import HoldemResolvingPolicy
from pokerzoo.agents.resolver.holdem_gadget import best_response_values, carried_values
from pokerzoo.agents.resolver.holdem_ranges import betting_steps
from pokerzoo.agents.resolver.holdem_tree import SpotSettings, street_spot
from pokerzoo.errors import ConfigError
from pokerzoo.public.spots.holdem_spot import combo_indices, solve_spot
from tests.agents.resolver.env_play import play_seat_through_env
from tests.agents.resolver.test_resolver_holdem import (
    PARAMS,
    RIVER_LINE,
    HandPolicy,
    _blueprint_file,
    _state,
)

CAP_ONE = SpotSettings(turn_raise_cap=1)
"""Turn trees with one bet per street: a raise on the turn is off the tree."""
BET_RAISE = [1, 1, "flop", 1, 1, "turn", 2, 2]
"""Limp, check; check, check; on the turn a half-pot bet and a half-pot raise: the bettor
(out of position) faces the raise, which the turn tree capped at one bet lacks."""


@pytest.fixture(scope="module")
def game() -> pokerzoo.games.base.Game:
    return pokerzoo.load_game("no_limit_holdem", **PARAMS)


def _policy(game, **kw) -> HoldemResolvingPolicy:  # type: ignore[no-untyped-def]
    return HoldemResolvingPolicy(game, HandPolicy(), streets=(2, 3), max_iterations=40,
                                 exploitability_pct=0.5, settings=CAP_ONE, **kw)


def _column(solution, node: int, label: str, role: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    """``[1326]``: the solve's probability of ``label`` at ``node`` per pair of ``role``."""
    tree = solution.tree
    kids = list(tree.children(node))
    child = next(c for c in kids if tree.label(c) == label)
    out = np.zeros(1326)
    out[combo_indices(tree, role)] = solution.solver.strategy(node)[kids.index(child)]
    return out


def test_a_raise_past_the_cap_is_re_solved_from_the_next_decision(game) -> None:
    state = _state(game, BET_RAISE)
    policy = _policy(game)
    probs = policy.action_probabilities(state)
    assert set(probs) == set(state.legal_actions()) and sum(probs.values()) == pytest.approx(1)
    summary = policy.summary()
    assert summary["off_tree"] == 0 and summary["off_tree_resolves"] == 1
    assert policy.stats.origins == ["street", "off tree"]
    # The second spot starts at the out-of-position player's decision facing the raise.
    inner = list(policy._solved.values())[-1].solution
    assert inner.spot.street_chips == (2, 6) and inner.spot.street_bets == 2
    assert inner.spot.to_act == 0
    assert [inner.tree.label(c) for c in inner.tree.children(0)] == ["fold", "call"]
    # Its ranges: the turn's start ranges times the turn solve's bet (out of position) and, for
    # the raise the tree lacks, its nearest action there (a call).
    steps = betting_steps(game, state)
    board = [int(c) for c in state.public_state()["public_cards"]]
    start = policy._start_ranges(steps, 2, board)
    turn_state = next(s for s, _ in steps if s.public_state()["round"] == 2)
    turn = solve_spot(street_spot(game, turn_state, start, CAP_ONE), exploitability_pct=0.5,
                      max_iterations=40)
    bet = turn.node(["bet 2"])
    expected = (start[0] * _column(turn, 0, "bet 2", 0), start[1] * _column(turn, bet, "call", 1))
    at = policy._follow(steps, 2, board, -1, state)
    assert at is not None
    for p in range(2):
        np.testing.assert_allclose(at.ranges[p], expected[p], rtol=1e-12, atol=1e-15)


def test_the_blueprint_fallback_is_kept_as_an_option(game) -> None:
    state = _state(game, BET_RAISE)
    policy = _policy(game, off_tree="blueprint")
    assert policy.action_probabilities(state) == HandPolicy().action_probabilities(state)
    assert policy.summary()["off_tree"] == 1 and policy.stats.origins == ["street"]


def test_continual_re_solving_starts_a_solve_at_the_asked_players_decision(game) -> None:
    state = _state(game, [1, 1, "flop", 1, 1, "turn", 2])  # in position faces a bet
    once = _policy(game)
    once.action_probabilities(state)
    assert once.stats.origins == ["street"]
    every = _policy(game, continual=True)
    probs = every.action_probabilities(state)
    assert every.stats.origins == ["street", "decision"]
    assert set(probs) == set(state.legal_actions()) and sum(probs.values()) == pytest.approx(1)
    inner = list(every._solved.values())[-1].solution
    assert inner.spot.street_chips == (2, 0) and inner.spot.to_act == 1


def test_continual_re_solving_carries_the_turns_values_into_the_river_gadget(game) -> None:
    state = _state(game, RIVER_LINE)  # checked through the turn: the river's first decision
    policy = _policy(game, continual=True, gadget="cfr-d")
    probs = policy.action_probabilities(state)
    assert set(probs) == set(state.legal_actions()) and sum(probs.values()) == pytest.approx(1)
    # The turn (the first re-solved street) starts unsafe; the river behind the gadget, with
    # the opponent's values where the turn solve deals this river card.
    assert policy.stats.origins == ["street", "street cfr-d"]
    assert policy.stats.rounds == [2, 3]


def _excess(policy: HoldemResolvingPolicy) -> np.ndarray:
    """Per opponent hand of the off-tree re-solve, in chips: what the raiser's hand gets there
    by a best response beyond its value at its decision in the turn solve (carried over)."""
    first, inner = (s for s in policy._solved.values())
    raiser = first.solution.node(["bet 2"])
    given = carried_values(first.solution, raiser, 1, inner.solution.tree,
                           first.tops[0] / inner.tops[0])
    entering = best_response_values(inner.solution.solver, 0, 1)
    tree = inner.solution.tree
    return (entering - given) / tree.compatible_reach(1, np.asarray(tree.initial_reach[0]))


def test_the_cfr_d_gadget_holds_the_opponent_near_its_carried_values(game) -> None:
    state = _state(game, BET_RAISE)
    safe, unsafe = _policy(game, gadget="cfr-d"), _policy(game)
    for policy in (safe, unsafe):
        policy.action_probabilities(state)
    assert safe.stats.origins == ["street", "off tree cfr-d"]
    # CFR-D bounds each opponent hand's value by its carried value (up to the solve's error);
    # the unsafe re-solve of the same ranges does not.
    over_safe = np.maximum(_excess(safe), 0.0).mean()
    over_unsafe = np.maximum(_excess(unsafe), 0.0).mean()
    assert over_safe < 0.5 * over_unsafe
    pot = float(list(safe._solved.values())[-1].solution.tree.pot[0])  # 12 chips
    assert over_safe < 0.02 * pot


def test_plays_legal_actions_through_the_aec_env_off_the_tree(game, tmp_path: Path) -> None:
    agent = make_agent("resolver", game, blueprint=str(_blueprint_file(game, tmp_path)),
                       iterations=20, exploitability_pct=3.0, turn_raise_cap=1,
                       streets="turn")
    env = pokerzoo.make("no_limit_holdem_v0", **PARAMS)

    def raises_turn_bets(mask: np.ndarray, rng: np.random.Generator, info: dict) -> int:
        # Calls and checks, but raises every turn bet: past the turn trees' cap.
        on_turn = len(info["info_state"][2]) == 4
        return 2 if on_turn and {0, 2} <= set(mask.tolist()) else 1

    play_seat_through_env(env, agent, 24, np.random.default_rng(0), raises_turn_bets)
    stats = agent.policy().summary()
    assert stats["off_tree"] == 0 and stats["off_tree_resolves"] > 0


def test_bad_holdem_settings_are_one_line_errors(game, tmp_path: Path) -> None:
    blueprint = str(_blueprint_file(game, tmp_path))
    for params, message in (({"off_tree": "fold"}, "off_tree must be one of"),
                            ({"holdem_gadget": "max-margin"}, "gadget must be one of"),
                            ({"off_tree": "blueprint", "holdem_continual": True},
                             "need off_tree='resolve'")):
        with pytest.raises(ConfigError, match=message) as err:
            make_agent("resolver", game, blueprint=blueprint, **params)
        assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="continual must be True or False"):
        _policy(game, continual="yes")
