"""Deep CFR and its card/betting network: masking, branch inputs, Kuhn convergence, resume."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from pokerzoo import load_game  # noqa: E402
from pokerzoo.agents.deep.deep_cfr import (  # noqa: E402
    DEEP_CFR_PRESETS,
    DeepCFR,
    DeepCFRConfig,
    regret_matching,
)
from pokerzoo.agents.deep.network import CardBettingNet, is_card_field, split_layout  # noqa: E402
from pokerzoo.errors import ConfigError  # noqa: E402
from pokerzoo.evaluation import exploitability  # noqa: E402


@pytest.fixture(autouse=True)
def one_thread():
    """One torch thread: the tiny networks gain nothing from more on a shared machine (restored
    afterwards, so other test modules keep their setting)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# Small budgets so each test stays well under a minute on a shared CPU.
FAST = {"traversals": 100, "advantage_steps": 100, "policy_steps": 600, "batch_size": 128}


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_holdem", "limit_holdem"])
def test_layout_splits_into_card_and_betting_fields(name: str) -> None:
    layout = load_game(name).information_state_layout
    card, betting = split_layout(layout)
    assert len(card) and len(betting)
    assert sorted(np.concatenate([card, betting]).tolist()) == list(range(layout.size))
    cards = {f.name for f in layout.fields if is_card_field(f.name)}
    expected = {
        "kuhn_poker": {"private_card"},
        "leduc_holdem": {"private_card", "private_rank", "public_card", "public_rank"},
        "limit_holdem": {"hole_cards", "flop", "turn", "river"},
    }[name]
    assert cards == expected


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_holdem"])
def test_each_branch_sees_only_its_fields(name: str) -> None:
    game = load_game(name)
    layout = game.information_state_layout
    net = CardBettingNet(layout, 3, width=16, generator=torch.Generator().manual_seed(0))
    card, betting = split_layout(layout)
    x = torch.rand(5, layout.size, requires_grad=True)
    card_out, betting_out = net.branches(x)
    (grad_card,) = torch.autograd.grad(card_out.sum(), x)
    (grad_betting,) = torch.autograd.grad(betting_out.sum(), x)
    assert torch.all(grad_card[:, betting] == 0) and torch.any(grad_card[:, card] != 0)
    assert torch.all(grad_betting[:, card] == 0) and torch.any(grad_betting[:, betting] != 0)
    # Seven linear layers: four per branch, then the join (5), 6 and the output (7).
    linears = [m for m in net.trunk if isinstance(m, torch.nn.Linear)]
    assert len(linears) == 3 and linears[0].in_features == 32
    assert sum(isinstance(m, torch.nn.Linear) for m in net.card) == 4


def test_outputs_are_masked_to_legal_actions() -> None:
    layout = load_game("leduc_holdem").information_state_layout
    net = CardBettingNet(layout, 3, width=16, generator=torch.Generator().manual_seed(1))
    x = torch.rand(4, layout.size)
    mask = torch.tensor([[1, 1, 1], [0, 1, 1], [1, 1, 0], [0, 1, 0]], dtype=torch.bool)
    logits = net.policy_logits(x, mask)
    assert torch.all(torch.isneginf(logits[~mask])) and torch.all(torch.isfinite(logits[mask]))
    probs = torch.softmax(logits, dim=-1)
    assert torch.all(probs[~mask] == 0) and torch.allclose(probs.sum(-1), torch.ones(4))
    adv = net.advantages(x, mask)
    assert torch.all(adv[~mask] == 0) and torch.equal(adv[mask], net(x)[mask])


def test_varying_the_cards_answers_like_the_full_forward() -> None:
    """``vary_cards`` (the betting branch and fixed cards once) equals ``forward`` on every
    varied tensor, to float32 rounding; the ones may sit in any card field."""
    layout = load_game("limit_holdem").information_state_layout
    net = CardBettingNet(layout, 3, width=32, generator=torch.Generator().manual_seed(4))
    card, _ = split_layout(layout)
    gen = torch.Generator().manual_seed(5)
    x = torch.rand(layout.size, generator=gen)
    ones = torch.as_tensor(card)[torch.randint(len(card), (40, 3), generator=gen)]
    x[ones.reshape(-1)] = 0.0
    full = x.repeat(40, 1)
    for k in range(40):
        full[k, ones[k]] += 1.0  # a repeated entry adds twice, as its column does
    with torch.no_grad():
        torch.testing.assert_close(net.vary_cards(x, ones), net(full), rtol=1e-5, atol=1e-5)


def test_xavier_uniform_initialisation_is_reproducible() -> None:
    layout = load_game("kuhn_poker").information_state_layout
    a = CardBettingNet(layout, 2, 64, torch.Generator().manual_seed(3))
    b = CardBettingNet(layout, 2, 64, torch.Generator().manual_seed(3))
    for (name, pa), pb in zip(a.named_parameters(), b.parameters(), strict=True):
        assert torch.equal(pa, pb)
        if name.endswith("weight"):
            bound = (6 / (pa.shape[0] + pa.shape[1])) ** 0.5
            assert pa.abs().max() <= bound
        else:
            assert torch.all(pa == 0)


def test_regret_matching_takes_the_argmax_when_nothing_is_positive() -> None:
    mask = np.array([[True, True, True], [True, True, False], [False, True, True]])
    adv = np.array([[1.0, 3.0, -1.0], [-2.0, -0.5, 9.0], [5.0, -3.0, -1.0]])
    rows = regret_matching(adv, mask)
    np.testing.assert_allclose(rows, [[0.25, 0.75, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


def test_config_checks_and_presets() -> None:
    with pytest.raises(ConfigError, match="traversals must be >= 1"):
        DeepCFRConfig(traversals=0)
    with pytest.raises(ConfigError, match="unknown parameter"):
        DeepCFRConfig.from_params(travesals=5)
    leduc = DEEP_CFR_PRESETS["openspiel-leduc"]
    assert (leduc.traversals, leduc.advantage_steps, leduc.policy_steps, leduc.batch_size) == (
        1_500, 750, 5_000, 2_048)
    assert leduc.advantage_memory == leduc.strategy_memory == 1_000_000
    assert (leduc.learning_rate, leduc.grad_clip) == (1e-3, 1.0)
    with pytest.raises(ConfigError, match="whole number"):
        DeepCFR(load_game("kuhn_poker"), device="cpu", **FAST).iterate(1.5)  # type: ignore[arg-type]


@pytest.mark.slow
def test_deep_cfr_solves_kuhn() -> None:
    torch.manual_seed(0)
    agent = DeepCFR(load_game("kuhn_poker"), seed=0, device="cpu", **FAST)
    before = exploitability(agent.tree, agent.policy())
    agent.iterate(25)
    after = exploitability(agent.tree, agent.policy())
    assert before > 0.4 and after < 0.05


@pytest.mark.slow
def test_resume_equals_an_uninterrupted_run(tmp_path) -> None:
    params = {**FAST, "traversals": 20, "advantage_steps": 20, "policy_steps": 50}
    game = load_game("kuhn_poker")
    straight = DeepCFR(game, seed=4, device="cpu", **params)
    straight.iterate(4)
    first = DeepCFR(game, seed=4, device="cpu", **params)
    first.iterate(2)
    snapshot = first.state_dict()
    first.save(tmp_path / "deep.ckpt")
    # Taking a state dict changes nothing.
    np.testing.assert_array_equal(first.state_dict()["sigma"], snapshot["sigma"])
    resumed = DeepCFR(game, seed=99, device="cpu", **params)
    resumed.load(tmp_path / "deep.ckpt")
    resumed.iterate(2)
    assert resumed.iteration == straight.iteration == 4
    for a, b in zip(straight.advantage_nets, resumed.advantage_nets, strict=True):
        for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
            assert torch.equal(pa, pb)
    np.testing.assert_array_equal(straight.current_policy().probs, resumed.current_policy().probs)
    assert exploitability(straight.tree, straight.policy()) == exploitability(
        resumed.tree, resumed.policy())
