"""VCFR's Bayesian reward model, its information gain, conjugate gains, terminal encodings."""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from scipy import integrate, stats

from pokerzoo import load_game
from pokerzoo.checkpoint import read_checkpoint, write_checkpoint
from pokerzoo.components.bnn import BayesianRewardModel, BNNConfig
from pokerzoo.components.conjugate_gain import (
    beta_information_gain,
    dirichlet_information_gain,
)
from pokerzoo.components.terminal_features import terminal_features
from pokerzoo.errors import CheckpointError, ConfigError


@pytest.fixture(autouse=True)
def _one_thread():  # type: ignore[no-untyped-def]
    # Tiny networks lose more to thread hand-offs than they gain; restored after each test.
    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(saved)


def _features(n: int = 300, d: int = 4, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, d)).astype(np.float32)


def _trained(config: BNNConfig | None = None, steps: int = 40) -> BayesianRewardModel:
    x = _features(60, 3)
    model = BayesianRewardModel(x, config or BNNConfig(), seed=1)
    model.fit(np.arange(60), np.sign(x[:, 0]), steps=steps)
    return model


# Fitting ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("num_samples", [10, 0])
def test_fit_recovers_a_known_reward_function(num_samples: int) -> None:
    x = _features()
    truth = np.sign(x[:, 0])
    model = BayesianRewardModel(x, BNNConfig(batch_size=300, num_samples=num_samples), seed=0)
    terminals = np.arange(len(x))
    model.fit(terminals, truth, steps=400)
    mean = model.predict_mean()
    assert np.mean(np.sign(mean) == truth) > 0.95
    # Close away from the step (a Bayesian fit of 300 points smooths it, as it should).
    far = np.abs(x[:, 0]) > 0.5
    assert np.mean(np.abs(mean - truth)[far]) < 0.3
    # The model is surest where it has data like the query: predictive sd is finite, positive.
    _, sd = model.predict()
    assert np.all(sd > 0) and np.all(np.isfinite(sd))


def test_fit_is_seeded() -> None:
    def run(seed: int) -> tuple[float, np.ndarray]:
        x = _features(100, 3)
        model = BayesianRewardModel(x, BNNConfig(batch_size=32), seed=seed)
        loss = model.fit(np.arange(100), np.sign(x[:, 1]), steps=20)
        return loss, model.predict_mean()

    a, b, c = run(3), run(3), run(4)
    assert a[0] == b[0] and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[1], c[1])


# Information gain -------------------------------------------------------------------------------


def _reference_one_step(model: BayesianRewardModel, terminal: int, reward: float) -> float:
    """KL after VIME's Newton step, per sample with autograd in float64 (the slow way)."""
    theta = model._theta.detach().double().clone().requires_grad_(True)
    x = torch.tensor(np.asarray(model._x[terminal : terminal + 1]), dtype=torch.float64)
    mu = model._split(theta[0])
    sigma = model._split(F.softplus(theta[1]))
    m1 = x @ mu[0] + mu[1]
    v1 = (x * x) @ sigma[0] ** 2 + sigma[1] ** 2
    # Monte Carlo-free expected loss, written out independently of the module's formulas.
    sd = v1.sqrt()
    normal = torch.distributions.Normal(0.0, 1.0)
    cdf, pdf = normal.cdf(m1 / sd), normal.log_prob(m1 / sd).exp()
    eh, eh2 = m1 * cdf + sd * pdf, (m1**2 + v1) * cdf + m1 * sd * pdf
    mean = eh @ mu[2] + mu[3]
    var = eh2 @ (mu[2] ** 2 + sigma[2] ** 2) - eh**2 @ mu[2] ** 2 + sigma[3] ** 2
    loss = (((reward - mean) ** 2 + var) / (2 * model.config.likelihood_sd**2)).sum()
    (grad,) = torch.autograd.grad(loss, theta)
    old_mu, rho = theta.detach()
    old_sd, slope = F.softplus(rho), torch.sigmoid(rho)
    step = model.config.ig_step
    new_mu = old_mu - step * old_sd**2 * grad[0]
    new_sd = F.softplus(rho - step * grad[1] * old_sd**2 / (2 * slope**2))
    kl = torch.log(old_sd / new_sd) + (new_sd**2 + (new_mu - old_mu) ** 2) / (2 * old_sd**2) - 0.5
    return float(kl.sum())


@pytest.mark.parametrize("ig_step", [0.01, 0.5, 5.0])
def test_one_step_gain_is_the_closed_form_kl_after_the_update(ig_step: float) -> None:
    model = _trained(BNNConfig(hidden=6, init_sd=0.3, ig_step=ig_step))
    terminals = np.arange(12)
    rewards = np.where(terminals % 3 == 0, 1.0, -1.0)
    got = model.information_gain(terminals, rewards, "one_step")
    want = [_reference_one_step(model, int(t), float(r)) for t, r in zip(terminals, rewards)]
    np.testing.assert_allclose(got, want, rtol=1e-4)


@pytest.mark.parametrize("ig_step", [0.01, 1.0])
def test_second_order_gain_ranks_like_one_step(ig_step: float) -> None:
    model = _trained(BNNConfig(ig_step=ig_step))
    terminals = np.arange(60)
    rewards = np.random.default_rng(2).choice([-1.0, 1.0], 60)
    exact = model.information_gain(terminals, rewards, "one_step")
    approx = model.information_gain(terminals, rewards, "second_order")
    assert stats.spearmanr(exact, approx).statistic > 0.9
    assert np.all(exact > 0) and np.all(approx > 0)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["one_step", "second_order"])
def test_gain_of_a_sample_falls_as_it_is_seen_again(method: str) -> None:
    x = _features(50, 3)
    sample_t, sample_r = np.array([7]), np.array([1.0])
    others, rewards = np.arange(50), np.sign(x[:, 0])
    # Exact ELBO and full batches: each fit converges to its pool's posterior, noise-free.
    config = BNNConfig(batch_size=1000, num_samples=0)
    gains = [BayesianRewardModel(x, config).information_gain(sample_t, sample_r, method)[0]]
    for copies in (1, 5, 25, 125):
        # A data pool holding the sample more and more times.
        model = BayesianRewardModel(x, config)
        pool_t = np.concatenate([others, np.repeat(sample_t, copies)])
        pool_r = np.concatenate([rewards, np.repeat(sample_r, copies)])
        model.fit(pool_t, pool_r, steps=300)
        gains.append(model.information_gain(sample_t, sample_r, method)[0])
    assert all(later < earlier for earlier, later in zip(gains, gains[1:])), gains


def test_information_gain_leaves_the_model_unchanged() -> None:
    a, b = _trained(), _trained()
    before = a.state_dict()
    a.information_gain(np.arange(60), np.ones(60))
    after = a.state_dict()
    assert torch.equal(before["theta"], after["theta"])
    assert torch.equal(before["generator"], after["generator"])
    x_t, x_r = np.arange(60), np.ones(60)
    assert a.fit(x_t, x_r, steps=3) == b.fit(x_t, x_r, steps=3)


def test_gains_are_batched_per_pair() -> None:
    model = _trained()
    terminals = np.array([3, 5, 3, 9])
    rewards = np.array([1.0, -1.0, -1.0, 1.0])
    together = model.information_gain(terminals, rewards)
    alone = [model.information_gain(terminals[i : i + 1], rewards[i : i + 1])[0] for i in range(4)]
    np.testing.assert_allclose(together, alone, rtol=1e-5)
    assert together[0] != together[2]  # the reward matters


# Conjugate gains --------------------------------------------------------------------------------


def _numerical_beta_kl(a1: float, b1: float, a0: float, b0: float) -> float:
    def integrand(p: float) -> float:
        q = stats.beta.pdf(p, a1, b1)
        return q * (stats.beta.logpdf(p, a1, b1) - stats.beta.logpdf(p, a0, b0)) if q > 0 else 0.0

    return float(integrate.quad(integrand, 0.0, 1.0, limit=200)[0])


@pytest.mark.parametrize(
    ("alpha", "beta", "outcome"), [(1, 1, 1), (1, 1, 0), (2.5, 7, 1), (30, 4, 0)]
)
def test_beta_gain_is_the_kl_of_one_more_observation(
    alpha: float, beta: float, outcome: int
) -> None:
    got = beta_information_gain(np.array([alpha]), np.array([beta]), np.array([outcome]))[0]
    a1, b1 = (alpha + 1, beta) if outcome else (alpha, beta + 1)
    assert got == pytest.approx(_numerical_beta_kl(a1, b1, alpha, beta), rel=1e-6)


def test_beta_gain_falls_with_counts_and_its_expectation_is_the_mutual_information() -> None:
    counts = np.array([1.0, 2.0, 5.0, 20.0, 100.0])
    expected = beta_information_gain(counts, counts)
    assert np.all(np.diff(expected) < 0) and np.all(expected > 0)
    alpha, beta = np.array([3.0, 1.0]), np.array([1.0, 4.0])
    win = beta_information_gain(alpha, beta, np.array([True, True]))
    lose = beta_information_gain(alpha, beta, np.array([False, False]))
    p = alpha / (alpha + beta)
    np.testing.assert_allclose(beta_information_gain(alpha, beta), p * win + (1 - p) * lose)
    # The mutual information of a Bernoulli draw and its Beta-distributed parameter, directly:
    # H(predictive) - E_p[H(Bernoulli(p))], E_p[p ln p] from the Beta integrals.
    def entropy(q: np.ndarray) -> np.ndarray:
        return -(q * np.log(q) + (1 - q) * np.log(1 - q))

    def expected_entropy(a: float, b: float) -> float:
        return integrate.quad(lambda q: stats.beta.pdf(q, a, b) * entropy(q), 0, 1)[0]

    mi = [entropy(pi) - expected_entropy(a, b) for pi, a, b in zip(p, alpha, beta)]
    np.testing.assert_allclose(beta_information_gain(alpha, beta), mi, rtol=1e-6)


def test_dirichlet_gain_generalises_beta() -> None:
    alpha, beta = np.array([2.0, 0.5]), np.array([3.0, 9.0])
    params = np.stack([alpha, beta], axis=1)
    np.testing.assert_allclose(
        dirichlet_information_gain(params, np.array([0, 1])),
        beta_information_gain(alpha, beta, np.array([1, 0])),
    )
    three = dirichlet_information_gain(np.array([[1.0, 2.0, 3.0]]), np.array([2]))[0]
    # a0 = 6, a_k = 3: ln 6 - ln 3 + psi(4) - psi(7) = ln 2 - (1/4 + 1/5 + 1/6).
    assert three == pytest.approx(math.log(2) - (1 / 4 + 1 / 5 + 1 / 6))


def test_conjugate_gains_refuse_bad_input() -> None:
    with pytest.raises(ConfigError, match="> 0"):
        beta_information_gain(np.array([0.0]), np.array([1.0]))
    with pytest.raises(ConfigError, match="0/1"):
        beta_information_gain(np.array([1.0]), np.array([1.0]), np.array([2]))
    with pytest.raises(ConfigError, match="0..2"):
        dirichlet_information_gain(np.ones((1, 3)), np.array([3]))


# Checkpoints, config, validation ----------------------------------------------------------------


def test_state_dict_round_trip_resumes_identically(tmp_path) -> None:  # type: ignore[no-untyped-def]
    x = _features(80, 3)
    terminals, rewards = np.arange(80), np.sign(x[:, 2])
    config = BNNConfig(batch_size=16)
    first = BayesianRewardModel(x, config, seed=5)
    first.fit(terminals, rewards, steps=7)
    write_checkpoint(tmp_path / "bnn.pzc", agent_name="bnn", state=first.state_dict())
    _, state = read_checkpoint(tmp_path / "bnn.pzc", agent_name="bnn")
    resumed = BayesianRewardModel(x, config, seed=99)
    resumed.load_state_dict(state)
    assert first.fit(terminals, rewards, steps=5) == resumed.fit(terminals, rewards, steps=5)
    assert np.array_equal(first.predict_mean(), resumed.predict_mean())
    assert torch.equal(first.state_dict()["adam_v"], resumed.state_dict()["adam_v"])


def test_load_state_dict_refuses_other_models() -> None:
    model = BayesianRewardModel(_features(20, 3))
    state = model.state_dict()
    with pytest.raises(CheckpointError, match="lacks"):
        model.load_state_dict({k: v for k, v in state.items() if k != "theta"})
    with pytest.raises(CheckpointError, match="shape"):
        model.load_state_dict({**state, "adam_m": torch.zeros(2, 3)})
    with pytest.raises(CheckpointError, match="other terminal features"):
        BayesianRewardModel(_features(20, 4)).load_state_dict(state)
    with pytest.raises(CheckpointError, match="checkpoint made with"):
        BayesianRewardModel(_features(20, 3), BNNConfig(hidden=8)).load_state_dict(state)


@pytest.mark.parametrize(
    ("field", "value"),
    [("hidden", 0), ("batch_size", 1.5), ("num_samples", -1), ("prior_sd", -0.5),
     ("likelihood_sd", float("nan")), ("ig_step", 0), ("learning_rate", True),
     ("information_gain", "exact")],
)
def test_bad_config_is_refused(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=field):
        BNNConfig(**{field: value})  # type: ignore[arg-type]


def test_bad_samples_are_refused() -> None:
    model = BayesianRewardModel(_features(10, 2))
    with pytest.raises(ConfigError, match=r"0\.\.9"):
        model.fit(np.array([10]), np.array([1.0]))
    with pytest.raises(ConfigError, match="shape"):
        model.information_gain(np.array([1, 2]), np.array([1.0]))
    with pytest.raises(ConfigError, match="integer"):
        model.predict_mean(np.array([0.5]))
    with pytest.raises(ConfigError, match="method"):
        model.information_gain(np.array([1]), np.array([1.0]), method="exact")
    with pytest.raises(ConfigError, match="steps"):
        model.fit(np.array([1]), np.array([1.0]), steps=0)
    with pytest.raises(ConfigError, match="features"):
        BayesianRewardModel(np.ones(5))


# Terminal encodings -----------------------------------------------------------------------------


def test_terminal_features_of_an_unknown_game() -> None:
    structure = load_game("unknown_kuhn_poker").structure
    pca = terminal_features(structure)
    assert pca.shape == (structure.num_terminals, 6)
    np.testing.assert_allclose(pca.mean(0), 0, atol=1e-5)
    np.testing.assert_allclose(pca.std(0), 1, atol=1e-4)
    assert terminal_features(structure) is pca  # cached
    assert not pca.flags.writeable
    rich = terminal_features(structure, "info_state")
    # Both players' views plus the history tell every terminal apart.
    assert len(np.unique(rich, axis=0)) == structure.num_terminals
    assert terminal_features(structure, "pca6", dims=3).shape == (structure.num_terminals, 3)
    with pytest.raises(ConfigError, match="pca6"):
        terminal_features(structure, "onehot")
    with pytest.raises(ConfigError, match="dims"):
        terminal_features(structure, "pca6", dims=10_000)


def test_speed_is_printed() -> None:
    """Not asserted (shared machines): fit(1 step) at batch 1,000 and gains of 10,000 terminals."""
    x = _features(10_000, 6)
    model = BayesianRewardModel(x, dataclasses.replace(BNNConfig(), batch_size=1000), seed=0)
    rng = np.random.default_rng(0)
    terminals, rewards = rng.integers(0, 10_000, 20_000), rng.choice([-1.0, 1.0], 20_000)
    model.fit(terminals, rewards)
    start = time.perf_counter()
    for _ in range(20):
        model.fit(terminals, rewards)
    fit_ms = (time.perf_counter() - start) / 20 * 1e3
    every = np.arange(10_000)
    times = {}
    for method in ("one_step", "second_order"):
        model.information_gain(every, rewards[:10_000], method)
        start = time.perf_counter()
        for _ in range(5):
            model.information_gain(every, rewards[:10_000], method)
        times[method] = (time.perf_counter() - start) / 5 * 1e3
    print(f"fit(steps=1, batch 1000): {fit_ms:.1f} ms; information_gain over 10,000: "
          f"one_step {times['one_step']:.1f} ms, second_order {times['second_order']:.1f} ms")
