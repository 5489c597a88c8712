"""bench/reproduce_nfsp.py --paper: the paper's optimiser, duplicate matches, resumable records."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import nfsp_paper as paper  # noqa: E402
import nfsp_paper_report as paper_report  # noqa: E402

from pokerzoo.evaluation.exact import expected_values  # noqa: E402
from pokerzoo.tree import TabularPolicy  # noqa: E402


@pytest.fixture(scope="module")
def game():
    return paper.paper_game()


@pytest.mark.parametrize("preset", paper.PRESETS)
def test_paper_agents_use_sgd_at_the_papers_rates(game, preset: str) -> None:
    agent = paper.paper_agent(preset, game, seed=0)
    for learner in agent.learners:
        assert type(learner.q_opt) is torch.optim.SGD
        assert type(learner.avg_opt) is torch.optim.SGD
        assert learner.q_opt.param_groups[0]["lr"] == 0.1
        assert learner.avg_opt.param_groups[0]["lr"] == 0.005
    assert (agent.config.prioritized is None) == (preset == "nfsp")


def test_duplicate_match_deals_the_same_cards_and_matches_the_exact_value(game) -> None:
    agent = paper.paper_agent("nfsp", game, seed=0)
    tree = agent.tree
    uniform = TabularPolicy.uniform(tree).aligned_to(tree)
    # A raising-heavy policy beats uniform random; its sampled value must agree with the exact.
    weights = np.where(tree.infoset_mask, [0.05, 0.35, 0.6], 0.0)
    probs = weights / weights.sum(axis=1, keepdims=True)
    mean, ci = paper.duplicate_match(tree, probs, uniform, 20_000, np.random.default_rng(0))
    seat0 = (tree.infoset_player == 0)[:, None]
    exact = 0.5 * (expected_values(tree, np.where(seat0, probs, uniform))[0]
                   + expected_values(tree, np.where(seat0, uniform, probs))[1])
    assert abs(mean - exact) < max(ci, 1e-9) * 1.5
    # Same chance draws in both seatings: the same cards whatever the players do.
    chance_u = np.random.default_rng(1).random((200, int(tree.depth.max()) + 1))
    cards = []
    for a_seat in (0, 1):
        mixed = np.where(seat0 == (a_seat == 0), probs, uniform)
        rng = np.random.default_rng(a_seat)
        leaves = paper._walk(tree, paper._edges(tree, mixed), chance_u, rng)
        cards.append([_private_cards(tree, leaf) for leaf in leaves])
    assert cards[0] == cards[1]


def _private_cards(tree, leaf: int) -> tuple[int, ...]:
    """The chance actions before the first decision (the private cards)."""
    path, node = [], leaf
    while node > 0:
        path.append(node)
        node = int(tree.parent[node])
    out = []
    for node in reversed(path):
        if tree.player[tree.parent[node]] >= 0:
            break
        out.append(int(tree.action[node]))
    return tuple(out)


def test_a_tiny_run_writes_a_resumable_seed_record(game, tmp_path: Path) -> None:
    tree = paper.paper_agent("nfsp", game, seed=0).tree
    uniform = TabularPolicy.uniform(tree)
    opponents = {name: uniform for name in paper.OPPONENTS}
    protocol = paper.Protocol(hands=400, eval_every=200, curve_deals=100, final_hands=200,
                              num_envs=8)
    record = paper.run_seed("nfsp-plt", 3, protocol, opponents, tmp_path)
    path = paper.seed_path(tmp_path, "nfsp-plt", 3)
    assert json.loads(path.read_text()) == json.loads(json.dumps(record))
    assert record["optimizer"] == {"rl": "SGD", "rl_lr": 0.1, "sl": "SGD", "sl_lr": 0.005}
    # A mark may be passed by less than one batch of hands played at once.
    first, second = (p["hands"] for p in record["curve"])
    assert 200 <= first < 208 and 400 <= second < 408
    assert set(record["final"]) == {"random", *paper.OPPONENTS}
    assert record["final"]["random"]["hands"] == 200
    # Present file: skipped, the same record comes back without training.
    path.write_text(json.dumps({**record, "marker": 1}))
    assert paper.run_seed("nfsp-plt", 3, protocol, opponents, tmp_path)["marker"] == 1


def test_report_gives_differences_and_verdicts() -> None:
    def rec(preset: str, seed: int, chips: float, nc: float) -> dict:
        match = {"chips": chips, "bb": chips / 2, "ci_chips": 0.0, "ci_bb": 0.0,
                 "exact_chips": chips, "hands": 2}
        return {"preset": preset, "seed": seed, "game": "g", "big_blind_chips": 2.0,
                "protocol": paper.Protocol().__dict__, "hands": 50_000,
                "optimizer": {"rl": "SGD", "rl_lr": 0.1, "sl": "SGD", "sl_lr": 0.005},
                "nash_conv": nc, "nash_conv_uniform": 5.0, "seconds": 1.0,
                "curve": [{"hands": 1000 * (i + 1), "nash_conv": nc, "random": match}
                          for i in range(10)],
                "final": {"random": match, "nfsp-uct": match, "deep-cfr": match}}
    records = [rec("nfsp", s, 1.0 + 0.01 * s, 4.0) for s in range(4)]
    records += [rec("nfsp-per", s, 1.0 + 0.01 * s, 4.0 + 0.01 * s) for s in range(4)]
    records += [rec("nfsp-plt", s, 1.5 + 0.01 * s, 3.0 + 0.01 * s) for s in range(4)]
    text, rows = paper_report.report(records, "cmd", "note")
    assert "| nfsp-plt - nfsp-per | chips/hand vs Random | +0.500 ± 0.022" in text
    assert "reproduced" in text and "not distinguishable from 0" in text
    assert rows and rows[0].startswith("| NFSP-PLT beats NFSP-PER")
    assert paper_report.verdict(-1.0, 0.5, 1) == "opposite sign"


def test_a_tiny_hunl_run_writes_its_record_once(tmp_path: Path) -> None:
    record = paper.run_hunl_seed("nfsp-per", 0, hands=40, final_hands=20, out=tmp_path)
    path = tmp_path / "hunl" / "nfsp-per_seed0.json"
    assert json.loads(path.read_text())["bb_per_hand"] == record["bb_per_hand"]
    assert record["final_hands"] == 20 and record["hands"] >= 40
    path.write_text(json.dumps({**record, "marker": 1}))
    assert paper.run_hunl_seed("nfsp-per", 0, 40, 20, tmp_path)["marker"] == 1
