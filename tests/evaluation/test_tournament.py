"""Tournaments: one antisymmetric table of every pairing, exact on trees, sampled otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.exact import exploitability, tabularize
from pokerzoo.evaluation.opponents import (
    OPPONENTS,
    AlwaysCallPolicy,
    make_opponent,
    opponent_names,
    parse_opponents,
    register_opponent,
)
from pokerzoo.evaluation.tournament import Entrant, run_tournament
from pokerzoo.evaluation.unknown import evaluation_tree
from pokerzoo.policy import UniformRandomPolicy
from pokerzoo.runs.config import RunConfig
from pokerzoo.runs.folder import SavedRun
from pokerzoo.runs.run import train
from pokerzoo.runs.tournament import (
    builtin_entrants,
    plot_tournament,
    run_entrants,
    run_labels,
    tree_if_fits,
)

KUHN_RUNS = {"cfr+": 200, "xfp": 100, "mccfr-es": 1000}


@pytest.fixture(scope="module")
def kuhn_runs(tmp_path_factory) -> list[SavedRun]:
    """Three tiny trained Kuhn runs (cfr+ near equilibrium, xfp and mccfr-es less so)."""
    root = tmp_path_factory.mktemp("runs")
    runs = []
    for agent, iterations in KUHN_RUNS.items():
        out = root / agent
        train(RunConfig(agent=agent, game="kuhn_poker", iterations=iterations, out=str(out),
                        tensorboard=False), progress=False)
        runs.append(SavedRun.open(out))
    return runs


@pytest.fixture(scope="module")
def kuhn_field(kuhn_runs) -> list[Entrant]:
    game = kuhn_runs[0].game
    entrants = run_entrants(kuhn_runs)
    return entrants + builtin_entrants(["random", "always-call"], game, [e.name for e in entrants])


def check_table(t, exact: bool) -> None:
    n = t.size
    assert t.mean_mbb.shape == t.ci_mbb.shape == (n, n)
    assert np.all(np.diag(t.mean_mbb) == 0) and np.all(np.diag(t.ci_mbb) == 0)
    np.testing.assert_allclose(t.mean_mbb, -t.mean_mbb.T, atol=1e-9)
    np.testing.assert_array_equal(t.ci_mbb, t.ci_mbb.T)
    assert t.max_asymmetry < 1e-9
    off = ~np.eye(n, dtype=bool)
    if exact:
        assert np.all(t.ci_mbb == 0) and t.hands_per_pairing == 0
    else:
        assert np.all(t.ci_mbb[off] > 0) and t.hands_per_pairing > 0


def test_three_runs_and_two_builtins_exact_on_kuhn(kuhn_runs, kuhn_field):
    game = kuhn_runs[0].game
    tree = tree_if_fits(game)
    t = run_tournament(game, kuhn_field, tree=tree)
    assert t.names == ("cfr+", "xfp", "mccfr-es", "random", "always-call")
    assert t.kinds == ("run", "run", "run", "builtin", "builtin")
    assert t.method == "exact"
    check_table(t, exact=True)
    # The near-equilibrium run loses (almost) nothing to anyone, and beats both built-ins.
    cfr = t.names.index("cfr+")
    assert t.mean_mbb[cfr].min() >= -1.0
    assert t.mean_mbb[cfr, 3] > 100 and t.mean_mbb[cfr, 4] > 100
    # Scores: the exact exploitability of each entrant, in mbb/g.
    for entrant, score in zip(kuhn_field, t.scores):
        assert score.method == "exact" and score.ci_mbb == 0
        expected = 1000 * exploitability(tree, tabularize(tree, entrant.policy)) / game.chip_unit
        assert score.exploitability_mbb == pytest.approx(expected)
    assert t.scores[cfr].exploitability_mbb < t.scores[3].exploitability_mbb
    # The table text: one row per entrant, best against the field first.
    text = t.format()
    rows = text.splitlines()[2:]
    assert len(rows) == 5 and not any(line.strip().startswith("vs ") for line in rows)
    assert rows[-1].split()[1] == t.names[int(np.argmin(t.field_mean_mbb))]
    assert "exact" in text and "mbb/g" in text
    data = json.loads(json.dumps(t.to_dict()))
    assert data["names"] == list(t.names) and data["method"] == "exact"
    assert data["entrants"]["cfr+"]["vs"]["random"]["mbb"] == pytest.approx(t.mean_mbb[cfr, 3])
    assert data["entrants"]["random"]["kind"] == "builtin"
    assert data["entrants"]["xfp"]["agent"] == "xfp"


@pytest.mark.slow
def test_sampled_kuhn_agrees_with_exact_within_its_ci(kuhn_runs, kuhn_field):
    game = kuhn_runs[0].game
    exact = run_tournament(game, kuhn_field, tree=tree_if_fits(game))
    t = run_tournament(game, kuhn_field, num_deals=3000, seed=1)
    assert t.method == "sampled" and t.hands_per_pairing == 6000
    check_table(t, exact=False)
    # Exactly antisymmetric: both cells come from the same hands of one duplicate match.
    assert np.array_equal(t.mean_mbb, -t.mean_mbb.T)
    assert np.all(np.abs(t.mean_mbb - exact.mean_mbb) <= 2 * t.ci_mbb + 1e-9)
    cfr = t.names.index("cfr+")
    assert np.all(t.mean_mbb[cfr] >= -t.ci_mbb[cfr])
    # The same seed gives the same table.
    again = run_tournament(game, kuhn_field, num_deals=3000, seed=1)
    assert np.array_equal(again.mean_mbb, t.mean_mbb)
    assert "95% CI" in t.format() and "+-" in t.format()


def test_leduc_exact_tournament_with_a_network_free_and_a_trained_run(tmp_path):
    out = tmp_path / "cfr+_leduc"
    train(RunConfig(agent="cfr+", game="leduc_holdem", iterations=100, out=str(out),
                    tensorboard=False), progress=False)
    run = SavedRun.open(out)
    game = run.game
    field = run_entrants([run]) + builtin_entrants(opponent_names(), game)
    t = run_tournament(game, field, tree=evaluation_tree(game))
    check_table(t, exact=True)
    assert t.mean_mbb[0, 1:].min() > 0  # the solver beats random and always-call
    assert t.scores[0].exploitability_mbb < min(s.exploitability_mbb for s in t.scores[1:])


def test_holdem_tournament_is_sampled_and_scored_by_lbr():
    game = load_game("limit_holdem")
    assert tree_if_fits(game) is None
    field = builtin_entrants(["random", "always-call"], game)
    t = run_tournament(game, field, num_deals=20, seed=0, lbr_deals=2,
                       lbr_options={"wp_samples": 4})
    check_table(t, exact=False)
    assert t.hands_per_pairing == 40
    assert all(s.method == "lbr" and s.hands == 4 for s in t.scores)
    assert "(LBR)" in t.format()
    assert t.to_dict()["entrants"]["random"]["score"]["method"] == "lbr"
    # Without LBR deals there is no score, and the table still stands.
    t0 = run_tournament(game, field, num_deals=5, seed=0)
    assert t0.scores == (None, None) and t0.to_dict()["entrants"]["random"]["score"] is None


def test_heatmap_png_is_written(kuhn_runs, kuhn_field, tmp_path):
    game = kuhn_runs[0].game
    for tree, name in ((tree_if_fits(game), "exact.png"), (None, "sampled.png")):
        t = run_tournament(game, kuhn_field, tree=tree, num_deals=50, seed=0)
        path = plot_tournament(t, tmp_path / "sub" / name)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert path.stat().st_size > 10_000


@pytest.mark.parametrize(
    ("game_name", "history", "call"),
    [
        ("kuhn_poker", [0, 1], 0),        # nothing to call: check (pass)
        ("kuhn_poker", [0, 1, 1], 1),     # facing a bet: call (bet)
        ("leduc_holdem", [0, 1, 2], 1),
        ("limit_holdem", list(range(4)), 1),
    ],
)
def test_always_call_checks_or_calls(game_name, history, call):
    game = load_game(game_name)
    state = game.new_initial_state()
    for a in history:
        state.apply_action(a)
    assert make_opponent("always-call", game).action_probabilities(state) == {call: 1.0}


def test_opponent_table_and_its_hook():
    assert {"random", "always-call"} <= set(opponent_names())
    assert parse_opponents("random, always-call") == ["random", "always-call"]
    assert parse_opponents("none") == [] and parse_opponents(None) == []
    with pytest.raises(ConfigError, match="built-in opponents are"):
        parse_opponents("random,rule-v9")
    with pytest.raises(ConfigError, match="more than once"):
        parse_opponents("random,random")
    with pytest.raises(ConfigError, match="built-in opponents are"):
        make_opponent("nobody", load_game("kuhn_poker"))
    with pytest.raises(ConfigError, match="already registered"):
        register_opponent("random", lambda game: UniformRandomPolicy(), "again")
    with pytest.raises(ConfigError, match="without commas"):
        register_opponent("a,b", lambda game: UniformRandomPolicy(), "bad name")
    register_opponent("caller-test", lambda game: AlwaysCallPolicy(), "a registered rule agent")
    try:
        game = load_game("kuhn_poker")
        (entrant,) = builtin_entrants(parse_opponents("caller-test"), game)
        assert isinstance(entrant.policy, AlwaysCallPolicy) and entrant.kind == "builtin"
    finally:
        del OPPONENTS["caller-test"]


def test_bad_fields_are_refused():
    kuhn = load_game("kuhn_poker")
    field = builtin_entrants(["random"], kuhn)
    with pytest.raises(ConfigError, match="unique"):
        run_tournament(kuhn, field + field)
    with pytest.raises(ConfigError, match="two players"):
        run_tournament(load_game("kuhn_poker", num_players=3), field)
    with pytest.raises(ConfigError, match="at least 2"):
        run_tournament(kuhn, field, num_deals=1)
    with pytest.raises(ConfigError, match="the tree is of"):
        run_tournament(kuhn, field, tree=evaluation_tree(load_game("leduc_holdem")))
    with pytest.raises(ConfigError, match="Entrant"):
        run_tournament(kuhn, [UniformRandomPolicy()])
    with pytest.raises(ConfigError, match="kind"):
        Entrant("x", UniformRandomPolicy(), kind="robot")


def test_run_labels_are_unique(tmp_path: Path, kuhn_runs):
    a, b = kuhn_runs[0], kuhn_runs[1]
    twin = SavedRun(tmp_path / "other" / a.label, a.config, a.game)
    labels = run_labels([a, twin, b])
    assert len(set(labels)) == 3 and labels[2] == b.label
    assert labels[1].endswith("other/" + a.label)
    named = SavedRun(tmp_path / "tournament", a.config, a.game)
    assert run_labels([named])[0].endswith("/tournament")
