"""Local best response: known answers, range bookkeeping, and exploitability lower bounds of
always-call and uniform random policies."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pokerzoo.evaluation.lbr import (
    COMBOS,
    LBRSpec,
    LocalBestResponse,
    lbr_deals,
    local_best_response,
    showdown_outcomes,
    showdown_score,
)
from pokerzoo.games import load_game
from pokerzoo.games.holdem.cards import cards_from_string, evaluate_7
from pokerzoo.policy import UniformRandomPolicy, as_state_policy


def always_call(state):
    return {1: 1.0}


def fold_to_any_bet(state):
    return {0: 1.0} if 0 in state.legal_actions() else {1: 1.0}


def test_folding_policy_loses_the_blinds_every_hand() -> None:
    """LBR sees a 100% fold probability, so it bets and wins 100 as the button (small blind)
    and 50 as the big blind (the button folds at once): 75 chips = 750 mbb per hand."""
    for name in ("no_limit_holdem", "limit_holdem"):
        r = local_best_response(load_game(name), fold_to_any_bet, 5, seed=0, wp_samples=2)
        assert r.seat_mean_chips == (100.0, 50.0)
        assert r.mbb_per_game == pytest.approx(750.0) and r.mbb_per_game_ci == 0.0


def test_range_update_keeps_only_consistent_hands() -> None:
    game = load_game("no_limit_holdem")

    def raise_with_an_ace(state):
        hole = state.private_cards()[state.current_player()]
        return {2: 1.0} if any(c >= 48 for c in hole) else {1: 1.0}

    lbr = LocalBestResponse(game, raise_with_an_ace, rng=np.random.default_rng(0))
    state = game.new_initial_state()
    for c in cards_from_string("AsKd2c3d"):  # seat 0 (the policy) holds an ace
        state.apply_action(c)
    weights = lbr.initial_range()
    for c in cards_from_string("2c3d"):  # LBR is seat 1
        lbr.remove_card(weights, c)
    lbr.observe_opponent(state, 0, 2, weights)
    kept = COMBOS[weights > 0]
    assert len(kept) > 0 and all((a >= 48) or (b >= 48) for a, b in kept)
    assert not any(c in (0, 5) for c in kept.ravel())  # LBR's cards are out of the range
    assert weights.sum() == pytest.approx(1.0)


def test_win_probability_on_the_river() -> None:
    game = load_game("limit_holdem")
    lbr = LocalBestResponse(game, always_call, rng=np.random.default_rng(0))
    for holes, board, expected in (
        ("2c3dAhAd", "AsKsQsJsTs", 0.5),  # the board plays for everyone
        ("2c3dAsKs", "QsJsTs4h5h", 1.0),  # seat 1 holds the royal flush
    ):
        state = game.new_initial_state()
        for c in cards_from_string(holes):
            state.apply_action(c)
        state.apply_action(1)
        state.apply_action(1)
        for c in cards_from_string(board):
            state.apply_action(c)
            if state.current_player() >= 0:
                state.apply_action(1)
                state.apply_action(1)
        weights = lbr.initial_range()
        for c in state.private_cards()[1] + state.public_state()["public_cards"]:
            lbr.remove_card(weights, c)
        assert lbr.win_probability(state, 1, weights) == pytest.approx(expected)


@pytest.mark.slow
def test_always_call_is_very_exploitable() -> None:
    nl = local_best_response(load_game("no_limit_holdem"), always_call, 60, seed=1)
    assert nl.mbb_per_game - nl.mbb_per_game_ci > 2000  # over 2 big blinds a hand
    fl = local_best_response(load_game("limit_holdem"), always_call, 40, seed=2)
    assert fl.mbb_per_game - fl.mbb_per_game_ci > 500
    assert "mbb/g" in nl.summary()


def test_uniform_random_loses_to_lbr() -> None:
    r = local_best_response(load_game("limit_holdem"), UniformRandomPolicy(), 40, seed=6)
    assert r.mbb_per_game - r.mbb_per_game_ci > 1000
    assert r.num_hands == 80 and r.bb_per_100 == pytest.approx(r.mbb_per_game / 10)


@pytest.mark.slow
def test_uniform_random_loses_to_lbr_no_limit() -> None:
    game = load_game("no_limit_holdem", stacks=2000)  # 20 big blinds: less variance per hand
    r = local_best_response(game, UniformRandomPolicy(), 800, seed=3, wp_samples=12)
    assert r.mbb_per_game - r.mbb_per_game_ci > 0


def test_errors() -> None:
    with pytest.raises(ValueError, match="heads-up"):
        LocalBestResponse(load_game("no_limit_holdem", num_players=3), always_call)
    with pytest.raises(ValueError, match="bet_actions"):
        LocalBestResponse(load_game("limit_holdem"), always_call, bet_actions=[3])
    with pytest.raises(ValueError, match="num_deals"):
        local_best_response(load_game("limit_holdem"), always_call, 0)


def suited_or_paired_raises(state):
    """A card-dependent rule: raise with a pair or suited cards, fold to a bet with
    neither, else check/call."""
    hole = state.private_cards()[state.current_player()]
    legal = state.legal_actions()
    strong = hole[0] // 4 == hole[1] // 4 or hole[0] % 4 == hole[1] % 4
    if strong and 2 in legal:
        return {2: 1.0}
    if not strong and 0 in legal and state.amount_to_call() > 0:
        return {0: 1.0}
    return {1: 1.0}


class RangeRule:
    """``suited_or_paired_raises`` answering for whole ranges too (``RangePolicy``), so the
    batched path is checked against the per-pair one on a card-dependent policy."""

    def action_probabilities(self, state):
        return suited_or_paired_raises(state)

    def range_table(self, state, player):
        probe = state.clone()
        table = np.zeros((len(COMBOS), state.game.num_distinct_actions))
        for k, (a, b) in enumerate(COMBOS):
            probe.replace_private_cards(player, [int(a), int(b)])
            for action, p in suited_or_paired_raises(probe).items():
                table[k, action] = p
        return table


@pytest.mark.parametrize("name", ["limit_holdem", "no_limit_holdem"])
@pytest.mark.parametrize("policy", [UniformRandomPolicy(), suited_or_paired_raises, RangeRule()],
                         ids=["uniform", "rule", "range-rule"])
def test_batched_lbr_wins_what_the_per_pair_reference_wins(name, policy) -> None:
    """Same seed, same settings: the batched and compiled LBR and the original per-pair one
    make the same decisions, so every deal's winnings are equal to the chip."""
    game = load_game(name)
    spec = LBRSpec(game, as_state_policy(policy), tuple(range(2, game.num_distinct_actions)),
                   6, entropy=11)
    fast = lbr_deals(spec, (0, 4))
    slow = lbr_deals(dataclasses.replace(spec, reference=True), (0, 4))
    np.testing.assert_array_equal(fast, slow)
    assert np.any(fast != 0)


def test_batched_lbr_against_a_network_wins_what_the_reference_wins() -> None:
    """A network policy: range tables from ``vary_cards``, kept for the hand, in the batched
    path; one query per pair (through the policy's own table cache) in the reference."""
    torch = pytest.importorskip("torch")
    from pokerzoo.agents.deep.network import CardBettingNet
    from pokerzoo.agents.deep.state_policy import NetworkStatePolicy

    game = load_game("no_limit_holdem", stacks=2000)
    net = CardBettingNet(game.information_state_layout, game.num_distinct_actions, 16,
                         torch.Generator().manual_seed(2))
    spec = LBRSpec(game, NetworkStatePolicy(game, [net, net]),
                   tuple(range(2, game.num_distinct_actions)), 4, entropy=3)
    fast = lbr_deals(spec, (0, 3))
    slow = lbr_deals(dataclasses.replace(spec, reference=True), (0, 3))
    np.testing.assert_array_equal(fast, slow)
    assert np.any(fast != 0)


def test_compiled_showdowns_agree_with_the_evaluator() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        cards = rng.permutation(52)
        hole, boards = cards[:2], np.stack([rng.permutation(cards[2:])[:5] for _ in range(4)])
        pairs = np.array([p for p in COMBOS if not set(p) & set(hole)])
        active = np.array([k for k, p in enumerate(COMBOS) if not set(p) & set(hole)])
        fast = showdown_outcomes(hole.astype(np.int64), boards.astype(np.int64), pairs)
        for b, board in enumerate(boards):
            blocked = np.isin(pairs, board).any(axis=1)
            slow = LocalBestResponse._outcomes_loop([int(c) for c in hole],
                                                    [int(c) for c in board], active)
            np.testing.assert_array_equal(fast[b][~blocked], slow[~blocked])


def flush_heavy_boards(rng: np.random.Generator, hole: np.ndarray, n: int) -> np.ndarray:
    """``n`` five-card boards avoiding ``hole``, most with three to five cards of one suit
    (where the compiled kernel must look at the pairs' suits)."""
    boards = []
    while len(boards) < n:
        suit, suited = int(rng.integers(4)), int(rng.integers(2, 6))
        same = [c for c in range(suit, 52, 4) if c not in hole]
        other = [c for c in range(52) if c not in hole and c % 4 != suit]
        board = list(rng.choice(same, size=suited, replace=False)) + list(
            rng.choice(other, size=5 - suited, replace=False))
        boards.append(board)
    return np.array(boards, dtype=np.int64)


def brute_force_score(hole, boards, weights) -> tuple[float, float]:
    """``showdown_score`` by one evaluator call per pair and board."""
    score = total = 0.0
    mine_of = [evaluate_7(*hole, *board) for board in boards]
    for (a, b), w in zip(COMBOS.tolist(), weights, strict=True):
        for board, mine in zip(boards.tolist(), mine_of, strict=True):
            if {a, b} & (set(board) | set(hole)):
                continue
            theirs = evaluate_7(a, b, *board)  # phevaluator's rank: smaller is stronger
            total += w
            score += w * (1.0 if theirs > mine else 0.5 if theirs == mine else 0.0)
    return score, total


def test_showdown_score_equals_the_per_pair_evaluator_on_random_ranges_and_boards() -> None:
    rng = np.random.default_rng(5)
    for trial in range(6):
        hole = rng.choice(52, size=2, replace=False)
        boards = flush_heavy_boards(rng, hole, 4) if trial % 2 else np.stack(
            [rng.choice(np.setdiff1d(np.arange(52), hole), size=5, replace=False)
             for _ in range(4)])
        weights = rng.random(len(COMBOS)) * (rng.random(len(COMBOS)) < 0.7)
        got = showdown_score(hole.astype(np.int64), boards.astype(np.int64), COMBOS, weights)
        want = brute_force_score([int(c) for c in hole], boards, weights)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_compiled_showdowns_agree_with_the_evaluator_on_flush_boards() -> None:
    rng = np.random.default_rng(8)
    for _ in range(10):
        hole = rng.choice(52, size=2, replace=False)
        boards = flush_heavy_boards(rng, hole, 6)
        live = [k for k, p in enumerate(COMBOS) if not set(p) & set(hole)]
        fast = showdown_outcomes(hole.astype(np.int64), boards, COMBOS[live])
        for b, board in enumerate(boards.tolist()):
            blocked = np.isin(COMBOS[live], board).any(axis=1)
            slow = LocalBestResponse._outcomes_loop([int(c) for c in hole], board,
                                                    np.array(live))
            np.testing.assert_array_equal(fast[b][~blocked], slow[~blocked])


def test_drawing_positions_reads_the_stream_as_drawing_cards() -> None:
    """The batched path draws board completions as positions in the live cards; the
    reference draws the cards: the same cards, so both sample the same boards."""
    rest = np.array([c for c in range(52) if c not in (3, 17, 40)])
    a, b = np.random.default_rng(9), np.random.default_rng(9)
    for need in (0, 1, 2, 5, 1, 2):
        np.testing.assert_array_equal(a.choice(rest, size=need, replace=False),
                                      rest[b.choice(len(rest), size=need, replace=False)])
    assert a.random() == b.random()


def test_lbr_with_aivat_covers_the_exact_value_of_a_folding_policy():
    from pokerzoo.evaluation.holdem_values import CheckDownValues

    game = load_game("limit_holdem")
    result = local_best_response(game, fold_to_any_bet, 30, seed=1, wp_samples=4,
                                 aivat=CheckDownValues(game, samples=200))
    # The exact LBR value (see above): 75 chips every deal. AIVAT's corrections at the deals
    # have mean zero, so its estimate covers it (with a variance the raw one does not have:
    # the value function does not know the policy folds everything).
    assert result.mean_chips == 75.0 and result.ci_chips == 0.0
    assert result.aivat_mean_chips is not None and result.aivat_ci_chips is not None
    assert abs(result.aivat_mean_chips - 75.0) <= result.aivat_ci_chips


def test_lbr_with_aivat_keeps_the_raw_result_and_cuts_the_variance():
    from pokerzoo.evaluation.holdem_values import CheckDownValues

    game = load_game("limit_holdem")
    plain = local_best_response(game, UniformRandomPolicy(), 40, seed=2, wp_samples=4)
    scored = local_best_response(game, UniformRandomPolicy(), 40, seed=2, wp_samples=4,
                                 aivat=CheckDownValues(game, samples=200))
    assert scored.mean_chips == plain.mean_chips  # the same hands
    assert scored.aivat_mean_chips is not None and scored.aivat_ci_chips is not None
    assert abs(scored.aivat_mean_chips - scored.mean_chips) <= (
        scored.aivat_ci_chips + scored.ci_chips)
    assert scored.variance_ratio is not None and scored.variance_ratio > 1.5
