"""Unknown-environment games: models, priors, configs, trees and evaluation in a model."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy import stats

from pokerzoo import ConfigError, load_game
from pokerzoo.agents.cfr.full_width import CFRPlus
from pokerzoo.evaluation import expected_values, exploitability, nash_conv
from pokerzoo.evaluation.exact import uniform_policy_array
from pokerzoo.evaluation.unknown import exploitability_in_model, nash_conv_in_model
from pokerzoo.games.unknown.model import EnvironmentModel, base_model
from pokerzoo.games.unknown.priors import PokerPayoffsPrior, PSRLCFRPrior, dirichlet_segments
from pokerzoo.tree import build


def test_same_seed_same_d_star_and_other_seeds_differ() -> None:
    a = load_game("unknown_leduc_holdem", base="leduc4", seed=7)
    b = load_game("unknown_leduc_holdem", base="leduc4", seed=7)
    c = load_game("unknown_leduc_holdem", base="leduc4", seed=8)
    assert a.true_model == b.true_model and a == b
    assert a.true_model != c.true_model and a != c


def test_games_and_models_pickle_and_rebuild_from_params() -> None:
    game = load_game("unknown_kuhn_poker", prior={"name": "psrlcfr", "concentration": 0.5}, seed=3)
    clone = pickle.loads(pickle.dumps(game))
    assert clone == game and clone.true_model == game.true_model
    assert pickle.loads(pickle.dumps(game.true_model)) == game.true_model
    assert load_game(game.name, **game.params()) == game
    leduc = load_game("unknown_leduc_holdem", base={"num_ranks": 4, "raise_sizes": [1, 2]})
    assert leduc.base_game.config.num_ranks == 4 and leduc.base_game.config.raise_sizes == (1, 2)
    assert load_game(leduc.name, **leduc.params()) == leduc


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("unknown_leduc_holdem", {"base": "leduc7"}, "valid bases"),
        ("unknown_leduc_holdem", {"base": {"num_rank": 3}}, "num_rank"),
        ("unknown_leduc_holdem", {"base": 4}, "variant name or a dict"),
        ("unknown_kuhn_poker", {"seed": -1}, "seed"),
        ("unknown_kuhn_poker", {"prior": "flat"}, "valid priors"),
        ("unknown_kuhn_poker", {"prior": {"name": "psrlcfr", "alpha": 1}}, "alpha"),
        ("unknown_kuhn_poker", {"prior": {"name": "psrlcfr", "concentration": 0}}, "concentration"),
        ("unknown_kuhn_poker", {"base": {"num_players": 3}}, "two players"),
        ("unknown_kuhn_poker", {"sed": 1}, "unknown parameter"),
    ],
)
def test_invalid_configs_fail_with_clear_errors(name: str, params: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_game(name, **params)


def test_poker_payoffs_prior_keeps_payoffs_and_serves_more_players() -> None:
    game = load_game("unknown_kuhn_poker", base={"num_players": 3}, prior="poker_payoffs")
    model = game.true_model
    np.testing.assert_array_equal(model.expected_returns, game.structure.base_returns)
    assert not np.allclose(model.chance_probs, game.structure.base_chance_probs)


@pytest.mark.parametrize("base", ["leduc", "leduc4", "leduc5"])
def test_tree_is_the_base_tree_with_the_models_numbers(base: str) -> None:
    game = load_game("unknown_leduc_holdem", base=base, seed=1)
    tree, base_tree = build(game, model=game.true_model), build(game.base_game)
    assert tree.summary() == base_tree.summary()
    assert tree.infoset_keys == base_tree.infoset_keys
    model, structure = game.true_model, game.structure
    for node in np.flatnonzero(tree.player == -1)[:50]:
        history = tuple(tree.history(int(node)))
        children = range(tree.first_child[node], tree.first_child[node] + tree.num_children[node])
        got = [(int(tree.action[c]), float(tree.chance_prob[c])) for c in children]
        assert got == model.chance_outcomes(history)
    for node in np.flatnonzero(tree.player == -4)[:200]:
        t = structure.terminal_index[tuple(tree.history(int(node)))]
        np.testing.assert_allclose(tree.utilities[node], model.expected_returns[t])


@pytest.mark.parametrize(
    ("name", "params"), [("unknown_kuhn_poker", {}), ("unknown_leduc_holdem", {"base": "leduc4"})]
)
def test_trees_of_other_models_equal_a_fresh_walk_of_the_states(name: str, params: dict) -> None:
    from pokerzoo.tree.game_tree import _build_from_states

    game = load_game(name, seed=3, **params)
    rng = np.random.default_rng(4)
    models = [None, game.prior.sample(game.structure, rng), game.prior.sample(game.structure, rng)]
    for model in models:
        tree = build(game, model=model)
        dealing = game.agent_view() if model is None else game.with_model(model)
        walked = _build_from_states(dealing, model, 10**7)
        assert tree.model is model
        if model is None:  # no model: the agent view's belief, the prior mean (never d*)
            assert tree.game == game.agent_view() and tree.game.model_source == "prior mean"
        else:
            assert tree.game.true_model is model
        for name_ in ("parent", "player", "infoset", "action", "chance_prob", "utilities",
                      "first_child", "num_children", "infoset_mask", "infoset_node"):
            np.testing.assert_array_equal(getattr(tree, name_), getattr(walked, name_))
        assert tree.infoset_keys == walked.infoset_keys
    # A resampled d* gives a tree with the new numbers; the old game keeps its own.
    before = build(game, model=game.true_model)
    resampled = game.with_resampled_environment(rng)
    assert not np.array_equal(
        build(resampled, model=resampled.true_model).utilities, before.utilities
    )
    np.testing.assert_array_equal(build(game, model=game.true_model).utilities, before.utilities)


@pytest.mark.parametrize(
    ("name", "base"), [("unknown_kuhn_poker", "kuhn"), ("unknown_leduc_holdem", "leduc")]
)
def test_exploitability_in_the_base_games_own_model_is_the_base_games(name: str, base: str) -> None:
    game = load_game(name, base=base, seed=5)
    own = base_model(game.structure)
    base_tree = build(game.base_game)
    solver = CFRPlus(game.base_game, tree=base_tree)
    solver.iterate(50)
    for policy in (uniform_policy_array(base_tree), solver.average_policy()):
        expected = nash_conv(base_tree, policy)
        assert nash_conv_in_model(game, policy, own) == pytest.approx(expected, abs=1e-12)
        assert exploitability_in_model(game, policy, own) == pytest.approx(expected / 2, abs=1e-12)
    if name == "unknown_kuhn_poker":
        # Kuhn's game value -1/18 holds in its own model.
        value = expected_values(build(game, model=own), solver.average_policy())[0]
        assert value == pytest.approx(-1 / 18, abs=0.01)
    assert exploitability_in_model(game, uniform_policy_array(base_tree)) != pytest.approx(
        exploitability(base_tree, uniform_policy_array(base_tree))
    )


def test_with_model_and_resample_environment() -> None:
    game = load_game("unknown_kuhn_poker", seed=0)
    other = game.prior.sample(game.structure, np.random.default_rng(1))
    believed = game.with_model(other)
    assert believed.true_model is other and game.true_model is not other
    assert build(game, model=other).model is other
    foreign = load_game("unknown_leduc_holdem").true_model
    with pytest.raises(ConfigError, match="describes"):
        game.with_model(foreign)
    state = game.new_initial_state()
    state.apply_action(0)
    before = game.true_model
    resampled = game.with_resampled_environment(np.random.default_rng(2))
    assert resampled.true_model != before and resampled != game
    # The game itself is unchanged, and so is a hand already dealt.
    assert game.true_model is before
    assert state.chance_outcomes() == before.chance_outcomes((0,))
    # Seeded resampling is reproducible.
    again = game.with_resampled_environment(np.random.default_rng(2))
    assert again == resampled and hash(again) == hash(resampled)


def test_states_sample_from_the_model_and_report_expected_returns() -> None:
    game = load_game("unknown_kuhn_poker", seed=2)
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    for a in (0, 2, 1, 1):
        state.apply_action(a)
    t = state.terminal_index()
    model = game.true_model
    assert state.returns() == pytest.approx(model.expected_returns[t].tolist())
    draws = np.array([state.sample_returns(rng)[0] for _ in range(4000)])
    assert set(np.unique(draws)) <= {-1.0, 1.0}
    assert np.mean(draws == -1.0) == pytest.approx(model.reward_probs[t, 0], abs=0.03)
    assert state.information_state_key(0) == game.base_game.new_initial_state().child(0).child(
        2
    ).child(1).child(1).information_state_key(0)


def test_psrlcfr_prior_draws_follow_its_distributions() -> None:
    structure = load_game("unknown_kuhn_poker").structure
    rng = np.random.default_rng(0)
    prior = PSRLCFRPrior()
    draws = [prior.sample(structure, rng) for _ in range(1500)]
    p_loss = np.concatenate([m.reward_probs[:, 0] for m in draws])  # p ~ U[0, 1]
    assert stats.kstest(p_loss, "uniform").pvalue > 1e-3
    first_card = np.array([m.chance_probs[0] for m in draws])  # Dirichlet(1,1,1): Beta(1, 2)
    assert stats.kstest(first_card, stats.beta(1, 2).cdf).pvalue > 1e-3
    mean = prior.mean(structure)
    np.testing.assert_allclose(mean.chance_probs[:3], 1 / 3)
    np.testing.assert_allclose(mean.reward_probs, 0.5)
    # Support and concentration are parameters.
    skewed = PSRLCFRPrior(reward_support=(-2.0, 0.0, 3.0), reward_concentration=0.5)
    model = skewed.sample(structure, rng)
    assert model.reward_values.shape == (structure.num_terminals, 3, 2)
    np.testing.assert_array_equal(model.reward_values[:, :, 1], -model.reward_values[:, :, 0])


def test_tiny_concentrations_still_give_valid_models() -> None:
    structure = load_game("unknown_leduc_holdem", base="leduc").structure
    rng = np.random.default_rng(0)
    probs = dirichlet_segments(np.full(structure.num_slots, 1e-4), structure.outcome_offsets, rng)
    np.testing.assert_allclose(structure.segment_sums(probs), 1.0)
    model = PokerPayoffsPrior(concentration=1e-4).sample(structure, rng)
    assert isinstance(model, EnvironmentModel)


def test_models_validate_their_arrays() -> None:
    structure = load_game("unknown_kuhn_poker").structure
    good = base_model(structure)
    with pytest.raises(ValueError, match="sum to 1"):
        EnvironmentModel(structure, good.chance_probs * 2, good.reward_values, good.reward_probs)
    with pytest.raises(ValueError, match="shape"):
        EnvironmentModel(structure, good.chance_probs[:-1], good.reward_values, good.reward_probs)
    with pytest.raises(ValueError, match="non-negative"):
        bad = good.reward_probs.copy()
        bad[0] = -1.0
        EnvironmentModel(structure, good.chance_probs, good.reward_values, bad)
    assert not good.chance_probs.flags.writeable
