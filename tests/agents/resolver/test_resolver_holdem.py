"""The resolver on heads-up no-limit hold'em (pokerzoo.agents.resolver.holdem*): ranges from a
blueprint's reach, river play equal to the range solver's, legal play through the AEC env,
one-line errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import pokerzoo
from pokerzoo.agents.deep.network import CardBettingNet
from pokerzoo.agents.deep.state_policy import NetworkStatePolicy
from pokerzoo.agents.registry import make_agent
from pokerzoo.agents.resolver.holdem import HoldemResolvingPolicy, parse_streets
from pokerzoo.agents.resolver.holdem_ranges import pair_probabilities
from pokerzoo.agents.resolver.holdem_tree import SpotSettings, street_spot
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import State
from pokerzoo.public.spots.holdem_spot import combo_indices, solve_spot
from pokerzoo.public.spots.ranges import COMBO_CARDS, COMBO_INDEX
from tests.agents.resolver.env_play import play_seat_through_env

PARAMS = {"small_blind": 1, "big_blind": 2, "stacks": 40, "bet_fractions": (0.5, 1.0)}
"""A shallow game: its turn and river spots solve in a fraction of a second."""
RIVER_LINE = [1, 1, "flop", 1, 1, "turn", 1, 1, "river"]
"""Limp, check; check, check; check, check; then the river's first decision."""


class HandPolicy:
    """A blueprint whose probabilities depend on the hole cards: calls more with high cards."""

    def action_probabilities(self, state: State) -> dict[int, float]:
        hole = state.private_cards()[state.current_player()]
        strength = (hole[0] // 4 + hole[1] // 4) / 24.0
        w = {a: 1.0 + 3.0 * strength if a == 1 else 0.3 if a == 0 else 1.2 - strength
             for a in state.legal_actions()}
        total = sum(w.values())
        return {a: v / total for a, v in w.items()}


@pytest.fixture(scope="module")
def game() -> pokerzoo.games.base.Game:
    return pokerzoo.load_game("no_limit_holdem", **PARAMS)


def _state(game, line, cards=(0, 5, 10, 15, 20, 25, 30, 35, 40)) -> State:
    """The hand dealt ``cards`` (holes of seat 0, seat 1, then the board), ``line`` played
    (street names mark where the board cards come)."""
    state = game.new_initial_state()
    deck = iter(cards)
    for _ in range(4):
        state.apply_action(next(deck))
    for step in line:
        if step == "flop":
            for _ in range(3):
                state.apply_action(next(deck))
        elif step in ("turn", "river"):
            state.apply_action(next(deck))
        else:
            state.apply_action(step)
    return state


def _direct_ranges(game, policy, state: State) -> list[np.ndarray]:
    """Per seat, each combo's product of the policy's probabilities of the seat's actions,
    one replay per combo (the definition, no batching)."""
    board = set(state.public_state()["public_cards"])
    history = state.history()
    out = []
    for seat in (0, 1):
        w = np.zeros(len(COMBO_CARDS))
        for combo, cards in enumerate(COMBO_CARDS):
            if board & {int(cards[0]), int(cards[1])}:
                continue
            replay, reach = game.new_initial_state(), 1.0
            for action in history:
                if not replay.is_chance_node() and replay.current_player() == seat:
                    probe = replay.clone()
                    probe.replace_private_cards(seat, [int(c) for c in cards])
                    reach *= policy.action_probabilities(probe)[action]
                replay.apply_action(action)
            w[combo] = reach
        out.append(w)
    return out


def test_ranges_are_the_blueprints_reach_per_combo(game) -> None:
    state = _state(game, RIVER_LINE)
    policy = HoldemResolvingPolicy(game, HandPolicy(), streets=(3,))
    from pokerzoo.agents.resolver.holdem_ranges import betting_steps

    board = [int(c) for c in state.public_state()["public_cards"]]
    ranges = policy._start_ranges(betting_steps(game, state), 3, board)
    direct = _direct_ranges(game, HandPolicy(), state)
    for role, seat in enumerate(policy.roles):
        np.testing.assert_allclose(ranges[role], direct[seat], rtol=1e-12, atol=0)
        assert ranges[role][COMBO_INDEX[board[0], board[1]]] == 0.0


def test_a_network_blueprint_answers_every_pair_in_one_batch(game) -> None:
    torch.manual_seed(0)
    net = CardBettingNet(game.information_state_layout, game.num_distinct_actions, 16)
    blueprint = NetworkStatePolicy(game, [net, net])
    state = _state(game, [1, 1, "flop", 1])
    batched = pair_probabilities(game, blueprint, state)
    seat = state.current_player()
    for combo in (0, 77, 500, 1325):
        cards = [int(c) for c in COMBO_CARDS[combo]]
        if set(cards) & set(state.public_state()["public_cards"]):
            assert not batched[combo].any()
            continue
        probe = state.clone()
        probe.replace_private_cards(seat, cards)
        one = NetworkStatePolicy(game, [net, net]).action_probabilities(probe)
        for a, p in one.items():
            assert batched[combo, a] == pytest.approx(p, abs=1e-6)


def test_on_the_river_it_plays_the_range_solvers_strategy(game) -> None:
    state = _state(game, RIVER_LINE)
    policy = HoldemResolvingPolicy(game, HandPolicy(), streets=(3,), max_iterations=60)
    seat = state.current_player()
    probs = policy.action_probabilities(state)
    assert policy.summary()["resolves"] == 1
    direct = _direct_ranges(game, HandPolicy(), state)
    ranges = [direct[s] for s in policy.roles]
    spot = street_spot(game, state, (ranges[0], ranges[1]), SpotSettings())
    solution = solve_spot(spot, exploitability_pct=1.0, max_iterations=60)
    labels, strategy = solution.strategy(0)
    role = policy.roles.index(seat)
    hand = list(combo_indices(solution.tree, role)).index(
        COMBO_INDEX[tuple(state.private_cards()[seat])])
    by_label = dict(zip(labels, strategy[:, hand], strict=True))
    chips = {"check": 1, "bet 2": 2, "bet 4": 3, "allin 38": 4}  # half pot, pot, all-in
    assert set(labels) <= set(chips)
    expected: dict[int, float] = {}
    for label, p in by_label.items():
        expected[chips[label]] = expected.get(chips[label], 0.0) + p
    assert set(probs) == set(state.legal_actions())
    for a, p in expected.items():
        assert probs[a] == pytest.approx(p, abs=1e-9)
    # Another hand at the same public state reuses the solve.
    other = state.clone()
    free = [c for c in range(52) if c not in state.history()][:2]
    other.replace_private_cards(seat, free)
    policy.action_probabilities(other)
    assert policy.summary()["resolves"] == 1


def _blueprint_file(game, tmp_path: Path) -> Path:
    agent = make_agent("deep-cfr", game, seed=0, device="cpu", width=8, traversals=2)
    path = tmp_path / "blueprint.pzc"
    agent.save(path)
    return path


def test_plays_legal_actions_through_the_aec_env(game, tmp_path: Path) -> None:
    agent = make_agent("resolver", game, blueprint=str(_blueprint_file(game, tmp_path)),
                       iterations=20, exploitability_pct=3.0)
    env = pokerzoo.make("no_limit_holdem_v0", **PARAMS)

    def mostly_calls(mask: np.ndarray, rng: np.random.Generator, info: dict) -> int:
        return 1 if 1 in mask and rng.random() < 0.8 else int(rng.choice(mask))

    play_seat_through_env(env, agent, 8, np.random.default_rng(0), mostly_calls)
    assert agent.resolves > 0


def test_bad_configurations_are_one_line_errors(game, tmp_path: Path) -> None:
    blueprint = str(_blueprint_file(game, tmp_path))
    with pytest.raises(ConfigError, match="needs blueprint"):
        make_agent("resolver", game)
    with pytest.raises(ConfigError, match="blueprint is for heads-up no-limit"):
        make_agent("resolver", pokerzoo.load_game("kuhn_poker"), blueprint=blueprint)
    deeper = pokerzoo.load_game("no_limit_holdem", **{**PARAMS, "stacks": 60})
    with pytest.raises(ConfigError, match="same game"):
        make_agent("resolver", deeper, blueprint=blueprint)
    with pytest.raises(ConfigError, match="limit hold'em is not supported"):
        make_agent("resolver", pokerzoo.load_game("limit_holdem"), blueprint=blueprint)
    with pytest.raises(ConfigError, match="no such run folder"):
        make_agent("resolver", game, blueprint=str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match="streets must name"):
        make_agent("resolver", game, blueprint=blueprint, streets="flop")
    with pytest.raises(ConfigError, match="turn_raise_cap"):
        make_agent("resolver", game, blueprint=blueprint, turn_raise_cap=0)
    assert parse_streets("river, turn") == (2, 3)


class NeverChecksTheTurn(HandPolicy):
    """HandPolicy, except that it never checks on the turn."""

    def action_probabilities(self, state: State) -> dict[int, float]:
        probs = super().action_probabilities(state)
        if state.public_state()["round"] == 2 and state.amount_to_call() == 0:
            probs[1] = 0.0
            total = sum(probs.values())
            probs = {a: p / total for a, p in probs.items()}
        return probs


def test_a_line_the_blueprint_never_plays_is_left_to_the_blueprint(game) -> None:
    state = _state(game, RIVER_LINE)  # both checked the turn: no hand of the blueprint does
    blueprint = NeverChecksTheTurn()
    policy = HoldemResolvingPolicy(game, blueprint, streets=(3,), max_iterations=20)
    assert policy.action_probabilities(state) == blueprint.action_probabilities(state)
    assert policy.summary()["empty_ranges"] == 1
    assert policy.summary()["resolves"] == 0
