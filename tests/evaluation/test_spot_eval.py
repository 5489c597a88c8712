"""evaluate.py --spot's engine (pokerzoo.evaluation.spot_eval): an agent's EV loss at a river
spot."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.spot_eval import evaluate_at_spot, find_line
from pokerzoo.games import load_game
from pokerzoo.games.base import State
from pokerzoo.policy import UniformRandomPolicy
from pokerzoo.public.engine.solver import PublicSolver
from pokerzoo.public.engine.tree import DECISION
from pokerzoo.public.spots.holdem_spot import HoldemSpot, build_spot_tree, spot_seats

# no_limit_holdem: blinds 50/100, stacks 10,000, half-pot and pot sizes and all-in. A limped
# pot checked to the river holds 200 chips with 9,900 behind.
SPOT = HoldemSpot(board="QsJh2h7c3d", starting_pot=200, effective_stack=9900,
                  oop_range="AA,QQ,JJ,AQs,KQs,T9s,65s", ip_range="KK,AQ,QJs,T9s,87s,54s",
                  river_sizes=("50%,100%,a", "a"), suit_isomorphism=False)


@pytest.fixture(scope="module")
def game():
    return load_game("no_limit_holdem")


@pytest.fixture(scope="module")
def equilibrium():
    solver = PublicSolver(build_spot_tree(SPOT))
    solver.solve(3000, target_pct=0.05)
    return solver


class EquilibriumPolicy:
    """The solver's average strategy as a policy of the game: the state's betting since the
    spot's root picks the node (children matched by chips put in), its hole cards the hand."""

    def __init__(self, solver: PublicSolver, game, root_len: int) -> None:
        self.solver, self.game, self.root_len = solver, game, root_len

    def action_probabilities(self, state: State) -> dict[int, float]:
        tree = self.solver.tree
        seats = spot_seats(self.game)
        player = seats.index(state.current_player())
        history = state.history()
        replay = self.game.new_initial_state()
        for a in history[:self.root_len]:
            replay.apply_action(a)
        node = 0
        for a in history[self.root_len:]:
            before = sum(replay.public_state()["contributions"])
            replay.apply_action(a)
            put = sum(replay.public_state()["contributions"]) - before
            p = int(tree.player[node])
            node = next(c for c in tree.children(node)
                        if (a == 0) == (tree.label(c) == "fold")
                        and round(float(tree.contrib[c, p] - tree.contrib[node, p])) == put)
        cards = sorted(state.private_cards()[state.current_player()])
        hand = int(np.flatnonzero(
            (tree.hands[player][:, 0] == min(cards)) & (tree.hands[player][:, 1] == max(cards))
            | (tree.hands[player][:, 1] == min(cards)) & (tree.hands[player][:, 0] == max(cards))
        )[0])
        strat = self.solver.strategy(node)[:, hand]
        out: dict[int, float] = {}
        for i, child in enumerate(tree.children(node)):
            label = tree.label(child)
            for a in state.legal_actions():
                c = state.clone()
                before = sum(c.public_state()["contributions"])
                c.apply_action(a)
                put = sum(c.public_state()["contributions"]) - before
                want = round(float(tree.contrib[child, player] - tree.contrib[node, player]))
                if (a == 0) == (label == "fold") and put == want:
                    out[a] = out.get(a, 0.0) + float(strat[i])
                    break
        return out


def test_line_reaches_the_spot(game):
    assert find_line(game, SPOT) == [1, 1, 1, 1, 1, 1]  # limp, check, then checks
    with pytest.raises(ConfigError, match="no betting line"):
        find_line(game, HoldemSpot(board="QsJh2h7c3d", starting_pot=150, effective_stack=9925,
                                   oop_range="AA", ip_range="KK"))


@pytest.mark.parametrize("player", [0, 1])
def test_equilibrium_agent_loses_nothing(game, equilibrium, player):
    root_len = 4 + 6 + 5  # hole cards, the line, the board
    policy = EquilibriumPolicy(equilibrium, game, root_len)
    r = evaluate_at_spot(game, policy, SPOT, player, equilibrium=equilibrium)
    expl = equilibrium.exploitability()
    assert -1e-6 <= r.ev_loss_chips <= 2 * expl + 1e-6
    assert r.off_tree_mass < 1e-9


@pytest.mark.parametrize("player", [0, 1])
def test_uniform_agent_loss_is_the_engine_best_response(game, equilibrium, player):
    r = evaluate_at_spot(game, UniformRandomPolicy(), SPOT, player, equilibrium=equilibrium)
    tree = equilibrium.tree
    # By hand: uniform over each node's spot actions (the game offers each one; its raise
    # sizes the spot lacks are dropped and the rest renormalized), the opponent free.
    locks = {int(n): np.full((int(tree.num_children[n]), tree.num_hands(player)),
                             1.0 / int(tree.num_children[n]))
             for n in np.flatnonzero((tree.kind == DECISION) & (tree.player == player))}
    br = PublicSolver(tree, locks=locks).best_response_values()[1 - player]
    expected = equilibrium.game_value()[player] + br
    assert r.ev_loss_chips == pytest.approx(expected, abs=1e-9)
    assert r.ev_loss_chips > 50.0
    assert r.ev_loss_pct_pot == pytest.approx(100 * expected / 200, abs=1e-9)
    assert 0.0 < r.off_tree_mass < 1.0  # facing a bet, the half-pot and pot raises are off


def test_a_spot_over_the_query_budget_is_refused_before_solving(game):
    with pytest.raises(ConfigError, match="asks the policy .* over max_queries=10"):
        evaluate_at_spot(game, UniformRandomPolicy(), SPOT, 0, max_queries=10)


def test_spot_with_a_size_the_game_lacks_is_refused(game):
    spot = HoldemSpot(board="QsJh2h7c3d", starting_pot=200, effective_stack=9900,
                      oop_range="AA,QQ", ip_range="KK,T9s", river_sizes="33%")
    with pytest.raises(ConfigError, match="'bet 66'.*puts in 66 chips"):
        evaluate_at_spot(game, UniformRandomPolicy(), spot, 0, max_iterations=10)



RIVER = ('board = "QsJh2h7c3d"\nstarting_pot = 200\neffective_stack = 9900\n'
         'oop_range = "AA,T9s"\nip_range = "KK,87s"\nriver_sizes = ["50%,100%,a", "a"]\n')


@pytest.fixture(scope="module")
def deep_cfr_run(tmp_path_factory):
    """A one-iteration Deep CFR run on no_limit_holdem and a small river spot file."""
    import warnings

    from pokerzoo.runs.config import RunConfig
    from pokerzoo.runs.run import train

    root = tmp_path_factory.mktemp("spot_run")
    out = root / "run"
    tiny = {"traversals": 4, "advantage_steps": 2, "policy_steps": 2, "batch_size": 8}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        train(RunConfig(agent="deep-cfr", game="no_limit_holdem", iterations=1, out=str(out),
                        agent_params=tiny, eval_hands=2, eval_lbr_deals=0, tensorboard=False),
              progress=False)
    spot = root / "river.toml"
    spot.write_text(RIVER)
    return out, spot


def test_evaluate_script_scores_a_deep_cfr_run_at_a_spot(deep_cfr_run, capsys):
    import json

    import evaluate

    out, spot = deep_cfr_run
    assert evaluate.main([str(out), "--spot", str(spot), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    loss = report["run"]["spot_ev_loss_chips"]
    assert set(loss) == {"oop", "ip"}
    assert all(v >= -1e-6 for v in loss.values())
    pct = report["run"]["spot_ev_loss_pct_pot"]
    assert pct["oop"] == pytest.approx(100 * loss["oop"] / 200)


def test_evaluate_script_at_the_runs_own_ranges(deep_cfr_run, capsys):
    import json

    import evaluate

    out, spot = deep_cfr_run
    # A loose solve keeps the test short: the own ranges hold 1,081 combos each.
    assert evaluate.main([str(out), "--spot", str(spot), "--spot-ranges", "own",
                          "--spot-player", "ip", "--spot-exploitability", "5", "--json"]) == 0
    own = json.loads(capsys.readouterr().out)["run"]
    assert set(own["spot_ev_loss_chips"]) == {"ip"}
    assert own["details"]["ip"]["spot_ranges"] == "own"
    assert own["details"]["ip"]["spot_equilibrium_exploitability_pct"] <= 5

def test_own_ranges_of_a_uniform_policy_are_every_combo_alike(game):
    from pokerzoo.evaluation.spot_eval import own_ranges

    own = own_ranges(game, UniformRandomPolicy(), SPOT)
    for p in (0, 1):
        w = own.weights(p)
        assert np.count_nonzero(w) == 1081  # every combo off the board, alike: 52-5 choose 2
        assert np.allclose(w[w > 0], 1.0)


def test_own_ranges_follow_the_policy_on_the_line(game):
    from pokerzoo.evaluation.spot_eval import own_ranges

    class LimpsPairsOnly:
        """The small blind limps pocket pairs only (half the time with 22), else folds."""

        def action_probabilities(self, state):
            legal = state.legal_actions()
            hole = state.private_cards()[state.current_player()]
            if state.public_state()["round"] == 0 and state.current_player() == 0 \
                    and 0 in legal:
                ranks = {c // 4 for c in hole}
                if len(ranks) == 1:
                    return {1: 0.5, 0: 0.5} if ranks == {0} else {1: 1.0}
                return {0: 1.0}
            return {1: 1.0}

    own = own_ranges(game, LimpsPairsOnly(), SPOT)
    seat0_player = spot_seats(game).index(0)
    w = own.weights(seat0_player)
    # 8 ranks off the board (6 combos each), 5 with one card on it (3 each)
    assert np.count_nonzero(w) == 8 * 6 + 5 * 3
    assert sorted(set(np.round(w[w > 0], 6))) == [0.5, 1.0]
    assert np.count_nonzero(own.weights(1 - seat0_player)) == 1081


def test_evaluate_script_scores_one_decision(deep_cfr_run, capsys):
    import json

    import evaluate

    out, spot = deep_cfr_run
    assert evaluate.main([str(out), "--spot", str(spot), "--spot-decision", "bet 100",
                          "--spot-hands", "KsKd", "--spot-exploitability", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    run = report["run"]
    assert report["decision"] == ["bet 100"] and run["spot_player"] == "ip"
    # facing the bet the spot has fold, call and all-in; the game's raises go to all-in
    assert run["spot_actions"] == ["fold", "call", "allin 9900"]
    low, high = run["spot_ev_loss_bounds_chips"]
    # The loss can sit on a bound (a solve converged there); allow the sums' rounding.
    slack = 1e-9 * max(abs(low), abs(high), 1.0)
    assert low - slack <= run["spot_ev_loss_chips"] <= high + slack
    assert sum(run["spot_hands"]["KsKd"]["agent"].values()) == pytest.approx(100.0)
