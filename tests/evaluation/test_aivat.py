"""AIVAT: unbiased whatever the value function (checked exactly over whole trees), intervals
that cover the exact value, and far less variance than raw matches on Kuhn and Leduc."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.agents.registry import make_agent
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation import head_to_head
from pokerzoo.evaluation.aivat import (
    ProfileValues,
    TreeValues,
    aivat_head_to_head,
    correction_terms,
    exact_match_values,
    known_probabilities,
    profile_array,
    score_hand,
    tree_values,
)
from pokerzoo.evaluation.exact import reach_probabilities
from pokerzoo.games import load_game
from pokerzoo.policy import UniformRandomPolicy
from pokerzoo.tree import build
from pokerzoo.tree.tabular_policy import TabularPolicy

CHANCE, TERMINAL = -1, -4


@pytest.fixture(scope="module")
def kuhn():
    game = load_game("kuhn_poker")
    return game, build(game)


@pytest.fixture(scope="module")
def leduc():
    game = load_game("leduc_holdem")
    return game, build(game)


def _cfr_plus(game, iterations):
    agent = make_agent("cfr+", game)
    agent.iterate(iterations)
    return agent.policy()


class _NoisyValues(TreeValues):
    """A deliberately poor value function: a fixed random table over the tree's nodes."""


def _noisy_values(tree, seed=0):
    rng = np.random.default_rng(seed)
    table = rng.normal(scale=3.0, size=(tree.num_nodes, tree.num_players))
    return _NoisyValues(tree, table)


def _expected_score(game, tree, seat_policies, value, known):
    """E[AIVAT score] over every terminal history, weighted by its probability under the
    profile: an exact check of unbiasedness (no sampling)."""
    probs = profile_array(tree, seat_policies)
    reach = reach_probabilities(tree, probs).prod(axis=1)
    total = np.zeros(tree.num_players)
    for node in np.flatnonzero(tree.player == TERMINAL):
        history = tree.history(int(node))
        pols = [p if k else None for p, k in zip(seat_policies, known)]
        score = score_hand(game, history, value, known_probabilities(game, history, pols))
        total += reach[node] * score.corrected
    return total


@pytest.mark.parametrize("known", [(True, True), (True, False), (False, True), (False, False)])
def test_kuhn_expected_score_is_the_exact_value_whatever_the_value_function(kuhn, known):
    game, tree = kuhn
    profile = [_cfr_plus(game, 20), UniformRandomPolicy()]
    exact = tree_values(tree, profile).node_values[0]
    for seed in range(3):
        got = _expected_score(game, tree, profile, _noisy_values(tree, seed), known)
        np.testing.assert_allclose(got, exact, atol=1e-12)


def test_exact_profile_values_give_every_hand_the_exact_value(kuhn):
    game, tree = kuhn
    profile = [_cfr_plus(game, 20), UniformRandomPolicy()]
    values = tree_values(tree, profile)
    exact = values.node_values[0]
    for node in np.flatnonzero(tree.player == TERMINAL):
        history = tree.history(int(node))
        score = score_hand(game, history, values, known_probabilities(game, history, profile))
        np.testing.assert_allclose(score.corrected, exact, atol=1e-12)


def test_leduc_terms_have_zero_mean_at_every_chance_node(leduc):
    game, tree = leduc
    values = _noisy_values(tree, 1)
    chance_nodes = np.flatnonzero(tree.player == CHANCE)
    assert len(chance_nodes) > 100
    worst = 0.0
    for node in chance_nodes:
        state = tree.state(int(node))
        actions, terms, probs = correction_terms(state, dict(state.chance_outcomes()), values)
        # The game's chance probabilities are the tree's.
        first = int(tree.first_child[node])
        kids = range(first, first + int(tree.num_children[node]))
        assert dict(zip(actions, probs)) == pytest.approx(
            {int(tree.action[k]): float(tree.chance_prob[k]) for k in kids}, abs=1e-15)
        worst = max(worst, float(np.abs(probs @ terms).max()))
    assert worst < 1e-12


def test_leduc_expected_score_is_exact_over_the_whole_tree(leduc):
    game, tree = leduc
    profile = [_cfr_plus(game, 50), UniformRandomPolicy()]
    exact = tree_values(tree, profile).node_values[0]
    got = _expected_score(game, tree, profile, _noisy_values(tree, 2), (True, False))
    np.testing.assert_allclose(got, exact, atol=1e-10)


def test_raw_results_are_head_to_heads(leduc):
    game, tree = leduc
    pols = [_cfr_plus(game, 30), UniformRandomPolicy()]
    result = aivat_head_to_head(game, pols, 60, ProfileValues(tree), seed=5)
    match = head_to_head(game, pols, 60, seed=5)
    np.testing.assert_allclose(result.raw_mean, match.mean_chips, rtol=0, atol=1e-12)
    assert result.num_hands == match.num_hands == 120


def _coverage(game, tree, pols, value, known, deals=150, seeds=20):
    exact = exact_match_values(tree, pols)
    covered, raw_var, aivat_var = 0, [], []
    for seed in range(seeds):
        r = aivat_head_to_head(game, pols, deals, value, known=known, seed=seed,
                               exact_value=exact)
        covered += abs(r.aivat_mean[0] - exact[0]) <= r.aivat_ci95[0]
        raw_var.append(r.per_deal_raw[:, 0].var(ddof=1))
        aivat_var.append(r.per_deal_aivat[:, 0].var(ddof=1))
    return covered, float(np.mean(raw_var) / np.mean(aivat_var)), r


@pytest.mark.parametrize("game_name", ["kuhn_poker", "leduc_holdem"])
def test_cfr_plus_against_uniform_covers_the_exact_value(game_name, kuhn, leduc):
    game, tree = kuhn if game_name == "kuhn_poker" else leduc
    cfr = _cfr_plus(game, 100)
    pols = [cfr, UniformRandomPolicy()]
    # The value function is the first agent's own estimate (its self-play values), not the
    # profile being played: what a blueprint's values would be.
    value = tree_values(tree, [cfr, cfr])
    covered, ratio, last = _coverage(game, tree, pols, value, None)
    assert covered >= 16, covered  # about 19 of 20 expected; 16 or fewer has p < 2%
    assert ratio >= 3.0, ratio
    js = last.to_json()
    assert set(js) >= {"raw_mean", "raw_ci95", "aivat_mean", "aivat_ci95", "variance_ratio",
                       "exact_value"}


def test_an_outside_player_only_chance_and_the_known_side_corrected(leduc):
    game, tree = leduc
    cfr = _cfr_plus(game, 100)
    outsider = _cfr_plus(game, 5)  # scored as unknown: its decisions are not corrected
    pols = [cfr, outsider]
    value = tree_values(tree, [cfr, cfr])
    covered, ratio, _ = _coverage(game, tree, pols, value, (True, False))
    assert covered >= 16, covered
    assert ratio > 1.5, ratio


@pytest.mark.slow
def test_nfsp_against_cfr_plus_covers_the_exact_value(kuhn):
    game, tree = kuhn
    nfsp = make_agent("nfsp", game, seed=0)
    nfsp.iterate(300)
    nfsp_table = TabularPolicy.from_tree(tree, profile_array(tree, [nfsp.policy()] * 2))
    cfr = _cfr_plus(game, 100)
    pols = [nfsp_table, cfr]
    covered, ratio, _ = _coverage(game, tree, pols, tree_values(tree, [cfr, cfr]), None)
    assert covered >= 16, covered
    assert ratio >= 3.0, ratio


def test_zero_variance_with_every_player_known_and_exact_values(kuhn):
    game, tree = kuhn
    pols = [_cfr_plus(game, 100), UniformRandomPolicy()]
    r = aivat_head_to_head(game, pols, 40, ProfileValues(tree), seed=1,
                           exact_value=exact_match_values(tree, pols))
    np.testing.assert_allclose(r.aivat_mean, r.exact_value, atol=1e-12)
    assert r.to_json()["variance_ratio"] is None  # infinite: printed as null


def test_bad_input_is_one_line(kuhn):
    game, tree = kuhn
    values = tree_values(tree, [UniformRandomPolicy()] * 2)
    with pytest.raises(ConfigError, match="one entry per step"):
        score_hand(game, [0, 1, 1], values, [None])
    with pytest.raises(ConfigError, match="does not finish"):
        score_hand(game, [0, 1], values, [None, None])
    with pytest.raises(ConfigError, match="known must say"):
        aivat_head_to_head(game, [UniformRandomPolicy()] * 2, 4, values, known=(True,))

    class Wrong:
        def values(self, states):
            return np.zeros((len(states), 3))

    with pytest.raises(ConfigError, match="finite"):
        score_hand(game, [0, 1, 1, 1], Wrong(), [None] * 4)
    with pytest.raises(ConfigError, match="ValueFunction"):
        aivat_head_to_head(game, [UniformRandomPolicy()] * 2, 4, "exact")  # type: ignore


def test_a_text_log_is_scored_by_name_with_the_outsider_uncorrected(leduc, tmp_path):
    from pokerzoo.evaluation import HandRecorder, recording
    from pokerzoo.evaluation.aivat import score_logged_hands
    from pokerzoo.evaluation.text_log import read_text_log

    game, tree = leduc
    cfr, outsider = _cfr_plus(game, 100), _cfr_plus(game, 5)
    path = tmp_path / "hands.txt"
    with HandRecorder(game, path) as recorder, recording(recorder):
        match = head_to_head(game, [cfr, outsider], 300, seed=3, names=["hero", "bot"])
    hands = read_text_log(path, game)
    assert len(hands) == 600
    value = tree_values(tree, [cfr, cfr])
    scored = score_logged_hands(game, hands, value, {"hero": cfr})
    # Raw means are the match's; the AIVAT score covers the exact value with less variance.
    np.testing.assert_allclose(scored.raw_mean, match.mean_chips, atol=1e-12)
    exact = exact_match_values(tree, [cfr, outsider])
    js = scored.to_json()["players"]
    assert abs(js["hero"]["aivat_mean"] - exact[0]) <= js["hero"]["aivat_ci95"]
    assert js["hero"]["variance_ratio"] > 1.5
    # Every hand corrected the same way as a live AIVAT match with the outsider unknown.
    live = aivat_head_to_head(game, [cfr, outsider], 300, value, known=(True, False), seed=3)
    np.testing.assert_allclose(scored.aivat_mean, live.aivat_mean, atol=1e-9)
    with pytest.raises(ConfigError, match="play no logged hand"):
        score_logged_hands(game, hands, value, {"villain": cfr})


def test_a_sampled_tournament_gets_an_aivat_table_on_the_same_hands():
    from pokerzoo.evaluation import run_tournament
    from pokerzoo.evaluation.opponents import make_opponent
    from pokerzoo.evaluation.tournament import Entrant

    game = load_game("limit_holdem")
    entrants = [Entrant(n, make_opponent(n, game), "builtin") for n in ("random", "always-call")]
    entrants.append(Entrant("uniform", UniformRandomPolicy(), "policy"))

    class Stacks:
        """A crude value function: each player's chips so far, as if the hand ended now."""

        def values(self, states):
            out = []
            for s in states:
                if s.is_terminal():
                    out.append(s.returns())
                else:
                    paid = np.array(s.public_state()["contributions"], dtype=float)
                    out.append(paid[::-1] * 0.5 - paid * 0.5)
            return np.array(out)

    plain = run_tournament(game, entrants, num_deals=30, seed=4)
    scored = run_tournament(game, entrants, num_deals=30, seed=4, aivat=Stacks())
    np.testing.assert_allclose(scored.mean_mbb, plain.mean_mbb)  # the same hands
    assert scored.aivat_mbb is not None and scored.variance_ratio is not None
    np.testing.assert_allclose(scored.aivat_mbb, -scored.aivat_mbb.T, atol=1e-9)
    assert "AIVAT-corrected, same hands" in scored.format()
    assert set(scored.to_dict()) >= {"aivat_mbb", "aivat_ci95_mbb", "variance_ratio"}
    with pytest.raises(ConfigError, match="exact tables need none"):
        run_tournament(load_game("kuhn_poker"), entrants[:2], tree=build(load_game("kuhn_poker")),
                       aivat=Stacks())
