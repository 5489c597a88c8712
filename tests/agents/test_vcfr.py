"""VCFR and its relatives (ModelBasedAgent presets) and PSRLCFR on unknown-environment games."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.agents.registry import AGENTS, make_agent
from pokerzoo.agents.unknown_env.model_based import (
    MODEL_BASED_PRESETS,
    ModelBasedAgent,
    ModelBasedConfig,
    make_preset,
)
from pokerzoo.agents.unknown_env.payoffs import ModelPayoffs
from pokerzoo.agents.unknown_env.psrlcfr import PSRLCFR
from pokerzoo.errors import ConfigError, HiddenModelError
from pokerzoo.evaluation.exact import expected_values, uniform_policy_array
from pokerzoo.evaluation.unknown import nash_conv_in_true_model, true_model_tree
from pokerzoo.games.unknown.game import UnknownPokerGame, UnknownState
from pokerzoo.tree import build
from pokerzoo.tree.episodes import environment_hands
from pokerzoo.tree.sequence_form import sequence_form

UNKNOWN_AGENTS = sorted(name for name, spec in AGENTS.items() if spec.unknown_only)


@pytest.fixture(scope="module")
def kuhn() -> UnknownPokerGame:
    return load_game("unknown_kuhn_poker", seed=3)


# --- ModelPayoffs: a model's numbers without compiling its tree -----------------------------


def test_model_payoffs_match_the_compiled_tree_of_any_model() -> None:
    game = load_game("unknown_leduc_holdem", seed=0)
    view = game.agent_view()
    tree = build(view)
    payoffs = ModelPayoffs(tree)
    model = view.prior.sample(view.structure, np.random.default_rng(5))
    other = build(view.with_model(model))
    coef, reach = payoffs.coefficients(model.chance_probs, model.expected_returns)
    np.testing.assert_allclose(coef, sequence_form(other).payoff_coef, atol=1e-12)
    chance, utilities = payoffs.node_numbers(model.chance_probs, model.expected_returns)
    np.testing.assert_allclose(chance, other.chance_prob)
    np.testing.assert_allclose(utilities, other.utilities)
    assert reach.shape == (coef.shape[1],) and np.all(reach > 0)


def test_the_sampler_plays_hands_from_the_true_model() -> None:
    game = load_game("unknown_kuhn_poker", seed=1)
    view = game.interaction_view()
    tree = build(view)
    uniform = uniform_policy_array(tree)
    batch = view.sampler.play(
        tree, uniform, 40_000, np.random.default_rng(0), hands=environment_hands
    )
    assert view.sampler.counter.episodes == 40_000
    exact = expected_values(true_model_tree(game), uniform)[0]
    standard_error = batch.rewards[:, 0].std() / np.sqrt(len(batch))
    assert abs(batch.rewards[:, 0].mean() - exact) < 4 * standard_error


# --- Accounting and the hidden model ---------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", UNKNOWN_AGENTS)
def test_every_agent_consumes_exactly_the_budget(name: str, kuhn: UnknownPokerGame) -> None:
    agent = make_agent(name, kuhn, seed=0)
    for chunk in (3, 0, 8, 1):
        agent.iterate(chunk)
    assert agent.episodes == 12
    assert agent.view.sampler.counter.episodes == 12  # type: ignore[attr-defined]
    assert agent.posterior.num_episodes == 12  # type: ignore[attr-defined]


def test_no_agent_reads_the_true_model(monkeypatch: pytest.MonkeyPatch) -> None:
    game = load_game("unknown_kuhn_poker", seed=2)
    environment_game = UnknownPokerGame

    def forbidden(self: object) -> None:
        raise AssertionError("an agent read the true model d*")

    real_outcomes, real_returns = UnknownState.chance_outcomes, UnknownState.returns

    def guarded(method):  # the true game's own states may not be asked either
        def wrapper(self: UnknownState):
            if type(self.game) is environment_game:
                raise AssertionError("an agent asked the true game's states")
            return method(self)
        return wrapper

    monkeypatch.setattr(UnknownPokerGame, "true_model", property(forbidden))
    monkeypatch.setattr(UnknownState, "chance_outcomes", guarded(real_outcomes))
    monkeypatch.setattr(UnknownState, "returns", guarded(real_returns))
    for name in UNKNOWN_AGENTS:
        agent = make_agent(name, game, seed=0)
        agent.iterate(30)
        agent.policy()
        with pytest.raises(HiddenModelError):
            _ = agent.view.true_model  # type: ignore[attr-defined]


# --- Learning ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", ["vcfr", "vdcfr", "vfsp", "psrlcfr", "random-interaction"])
def test_agents_learn_unknown_kuhn(name: str) -> None:
    game = load_game("unknown_kuhn_poker", seed=4)
    uniform = nash_conv_in_true_model(game, uniform_policy_array(true_model_tree(game)))
    # The BNN's exact expected likelihood (num_samples=0) halves a round's cost for the test.
    params = {"bnn": {"num_samples": 0}} if name in MODEL_BASED_PRESETS and name[0] == "v" else {}
    agent = make_agent(name, game, seed=4, **params)
    agent.iterate(2_000)
    assert nash_conv_in_true_model(game, agent.policy()) < 0.3 * uniform


def test_information_gain_falls_where_hands_are_played() -> None:
    game = load_game("unknown_kuhn_poker", seed=0)
    agent = make_preset("vcfr", game, seed=0, information_gain="beta")
    agent.iterate(2)
    before = agent.gain.copy()
    agent.iterate(2_000)
    seen = agent.posterior.reward_counts.sum(axis=1)
    often = seen >= np.quantile(seen, 0.5)
    assert agent.gain[often].mean() < before[often].mean()


def test_resume_mid_round_equals_an_uninterrupted_run() -> None:
    game = load_game("unknown_kuhn_poker", seed=1)
    whole = make_preset("vcfr", game, seed=7)
    whole.iterate(41)
    first = make_preset("vcfr", game, seed=7)
    first.iterate(17)  # ends inside a round
    resumed = make_preset("vcfr", game, seed=7)
    resumed.load_state_dict(first.state_dict())
    resumed.iterate(24)
    np.testing.assert_array_equal(whole.policy().probs, resumed.policy().probs)
    np.testing.assert_array_equal(whole.gain, resumed.gain)


def test_psrlcfr_resumes_through_a_checkpoint_file(tmp_path) -> None:
    game = load_game("unknown_kuhn_poker", seed=1)
    whole = PSRLCFR(game, seed=3)
    whole.iterate(60)
    first = PSRLCFR(game, seed=3)
    first.iterate(25)
    first.save(tmp_path / "psrlcfr.pzc")
    resumed = PSRLCFR(game, seed=3)
    resumed.load(tmp_path / "psrlcfr.pzc")
    resumed.iterate(35)
    np.testing.assert_array_equal(whole.policy().probs, resumed.policy().probs)


def test_pruning_skips_only_unlikely_lines() -> None:
    game = load_game("unknown_kuhn_poker", seed=0)
    kept = make_preset("naive-cfr", game, seed=0, prune_reach=0.0)
    pruned = make_preset("naive-cfr", game, seed=0)  # 1e-5: Kuhn's lines are far likelier
    severe = make_preset("naive-cfr", game, seed=0, prune_reach=0.2)
    for agent in (kept, pruned, severe):
        agent.iterate(400)
    np.testing.assert_allclose(kept.policy().probs, pruned.policy().probs, atol=1e-9)
    assert not np.allclose(kept.policy().probs, severe.policy().probs)


# --- Bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize("params, field", [
    ({"eta": -0.1}, "eta"), ({"solver": "cfr++"}, "solver"),
    ({"information_gain": "entropy"}, "information_gain"), ({"low_gain_period": 0},
                                                             "low_gain_period"),
    ({"environment": "true"}, "environment"),
])
def test_bad_parameters_name_the_field(params: dict, field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        ModelBasedConfig(**params)


def test_a_known_game_is_refused_with_a_pointer() -> None:
    with pytest.raises(ConfigError, match="unknown-environment games"):
        make_agent("vcfr", load_game("kuhn_poker"))
    with pytest.raises(ConfigError, match="unknown-environment games"):
        PSRLCFR(load_game("leduc_holdem"))


def test_a_plain_view_cannot_play() -> None:
    with pytest.raises(HiddenModelError, match="interaction_view"):
        ModelBasedAgent(load_game("unknown_kuhn_poker").agent_view())


def test_presets_are_the_papers_variants() -> None:
    assert set(MODEL_BASED_PRESETS) <= set(AGENTS)
    assert make_preset("vdcfr", load_game("unknown_kuhn_poker")).config.solver == "dcfr"
    naive = make_preset("naive-cfr", load_game("unknown_kuhn_poker")).config
    assert naive.information_gain == "none" and naive.environment == "mean"


def test_a_plain_output_solver_sees_the_same_models_without_the_bonus() -> None:
    game = load_game("unknown_kuhn_poker", seed=0)
    unbiased = make_preset("vcfr", game, seed=1, information_gain="beta", eta=0.0,
                           output="plain")
    unbiased.iterate(300)
    assert unbiased.output_solver is not None
    np.testing.assert_allclose(unbiased.output_solver.strategy_sum,  # type: ignore[union-attr]
                               unbiased.solver.strategy_sum)  # type: ignore[union-attr]
    biased = make_preset("vcfr", game, seed=1, information_gain="beta", eta=0.5,
                         output="plain")
    biased.iterate(300)
    assert not np.allclose(biased.policy().probs, biased.normalised(biased.solver.strategy_sum))
