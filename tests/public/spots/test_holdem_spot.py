"""Hold'em spots: validation, the public tree, and its values against our hold'em State rules."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pokerzoo.errors import ConfigError, TreeTooLargeError
from pokerzoo.games.holdem.cards import card_to_string, cards_from_string
from pokerzoo.games.holdem.game import NoLimitHoldem
from pokerzoo.public.engine.holdem_terminal import holdem_terminal_kernel
from pokerzoo.public.engine.solver import PublicSolver
from pokerzoo.public.engine.tree import CHANCE, DECISION, FOLD, SHOWDOWN, PublicTree
from pokerzoo.public.spots.holdem_spot import (
    HoldemSpot,
    SpotSolution,
    build_spot_tree,
    solve_spot,
    spot_equity,
)

OOP = "AA,KK,QQ,AKs,T9s,87s:0.5"
IP = "JJ-99,AQs,KQo:0.5,65s"
CONFIGS = Path(__file__).resolve().parents[3] / "configs" / "spots"


def _random_strategy(tree: PublicTree, seed: int) -> dict[int, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for n in np.flatnonzero(tree.kind == DECISION).tolist():
        s = rng.random((int(tree.num_children[n]), tree.num_hands(int(tree.player[n])))) + 0.05
        out[n] = s / s.sum(axis=0)
    return out


def _cfv(tree: PublicTree, strat: dict[int, np.ndarray], node: int, p: int,
         opp_reach: np.ndarray) -> np.ndarray:
    """Counterfactual values of ``p``'s hands by a plain recursion over the public tree."""
    kind = tree.kind[node]
    if kind in (FOLD, SHOWDOWN):
        assert tree.terminals is not None
        return tree.terminals.values(tree, node, p, opp_reach)
    kids = tree.children(node)
    if kind == CHANCE:
        total = np.zeros(tree.num_hands(p))
        for c in kids:
            card = int(tree.chance_card[c])
            reach = np.where(tree.hands_holding(1 - p, card), 0.0, opp_reach)
            v = _cfv(tree, strat, c, p, reach) * tree.chance_weight[c]
            total += np.where(tree.hands_holding(p, card), 0.0, v)
        return total
    s = strat[node]
    if tree.player[node] == p:
        return sum(s[a] * _cfv(tree, strat, c, p, opp_reach) for a, c in enumerate(kids))
    return sum(_cfv(tree, strat, c, p, opp_reach * s[a]) for a, c in enumerate(kids))


def _river_state(game: NoLimitHoldem, hole: list[list[int]], board: list[int]):  # type: ignore[no-untyped-def]
    """Seat 0 (button) and seat 1 check every street down to the river; our player 0 (out of
    position) is seat 1."""
    state = game.new_initial_state()
    for c in hole[1] + hole[0]:  # seat 0's cards first: our player 1
        state.apply_action(c)
    for street, cards in enumerate((board[:3], board[3:4], board[4:5])):
        if street == 0:
            state.apply_action(1)  # the button completes the (equal) blind
            state.apply_action(1)
        for c in cards:
            state.apply_action(c)
        if street < 2:
            state.apply_action(1)
            state.apply_action(1)
    return state


def _game_action(state, label: str) -> int:  # type: ignore[no-untyped-def]
    if label == "fold":
        return 0
    if label in ("check", "call"):
        return 1
    amount = int(label.split()[1])
    for a in state.legal_actions():
        if a >= 2 and state.raise_to_amount(a) == amount:
            return int(a)
    raise AssertionError(f"no game action bets {amount}: {state.legal_actions()}")


def _walk(tree: PublicTree, strat: dict[int, np.ndarray], node: int, state,  # type: ignore[no-untyped-def]
          hands: tuple[int, int]) -> np.ndarray:
    """Expected returns of (our player 0, our player 1) below ``node`` for one hand pair."""
    if tree.kind[node] in (FOLD, SHOWDOWN):
        assert state.is_terminal()
        r = state.returns()
        return np.array([r[1], r[0]])  # our player 0 is seat 1
    s = strat[node]
    hand = hands[int(tree.player[node])]
    total = np.zeros(2)
    for a, c in enumerate(tree.children(node)):
        nxt = state.clone()
        nxt.apply_action(_game_action(nxt, tree.label(c)))
        total += s[a, hand] * _walk(tree, strat, c, nxt, hands)
    return total


def _brute(tree: PublicTree, strat: dict[int, np.ndarray], game: NoLimitHoldem,
           board: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Each player's counterfactual values, hand pair by hand pair, from ``State.returns``."""
    out = [np.zeros(tree.num_hands(0)), np.zeros(tree.num_hands(1))]
    for i, h0 in enumerate(tree.hands[0].tolist()):
        for j, h1 in enumerate(tree.hands[1].tolist()):
            if len({*h0, *h1, *board}) != 9:
                continue
            u = _walk(tree, strat, 0, _river_state(game, [h0, h1], board), (i, j))
            out[0][i] += tree.initial_reach[1][j] * u[0]
            out[1][j] += tree.initial_reach[0][i] * u[1]
    return out[0], out[1]


def test_river_spot_equals_state_rules() -> None:
    board = "QsJh2h8c3d"
    spot = HoldemSpot(board, starting_pot=100, effective_stack=150, oop_range=OOP, ip_range=IP,
                      river_sizes=("50%", "100%"))
    tree = build_spot_tree(spot)
    assert tree.summary()["decision"] >= 4
    game = NoLimitHoldem(small_blind=50, big_blind=50, stacks=200, bet_fractions=(0.5, 1.0))
    strat = _random_strategy(tree, 0)
    brute = _brute(tree, strat, game, cards_from_string(board))
    for p in range(2):
        ours = _cfv(tree, strat, 0, p, np.array(tree.initial_reach[1 - p]))
        np.testing.assert_allclose(ours, brute[p], rtol=0, atol=1e-6)


def test_turn_value_is_average_of_rivers() -> None:
    turn = HoldemSpot("QsJh2h8c", starting_pot=100, effective_stack=0, oop_range=OOP,
                      ip_range=IP)
    tree = build_spot_tree(turn)
    assert tree.summary()["chance"] == 1
    strat = _random_strategy(tree, 1)
    v_turn = _cfv(tree, strat, 0, 0, np.array(tree.initial_reach[1]))
    combos = {tuple(h): k for k, h in enumerate(tree.hands[0].tolist())}
    avg = np.zeros(tree.num_hands(0))
    for c in range(52):
        if c in cards_from_string("QsJh2h8c"):
            continue
        river = HoldemSpot("QsJh2h8c" + card_to_string(c), 100, 0, OOP, IP)
        rt = build_spot_tree(river)
        v = _cfv(rt, _random_strategy(rt, 2), 0, 0, np.array(rt.initial_reach[1]))
        for k, h in enumerate(rt.hands[0].tolist()):
            avg[combos[tuple(h)]] += v[k] / 44.0
    np.testing.assert_allclose(v_turn, avg, rtol=0, atol=1e-9)


def test_compiled_kernel_equals_values() -> None:
    spot = HoldemSpot("QsJh2h8c", 100, 300, OOP, IP, turn_sizes=("50%", "a"),
                      river_sizes=("75%", "a"))
    tree = build_spot_tree(spot)
    assert tree.terminals is not None
    kernel, data = tree.terminals.compiled()  # type: ignore[attr-defined]
    rng = np.random.default_rng(3)
    for n in np.flatnonzero(tree.kind >= FOLD)[::7].tolist():
        for p in range(2):
            reach = rng.random(tree.num_hands(1 - p))
            out = np.empty(tree.num_hands(p))
            kernel(n, p, reach, out, data)
            want = tree.terminals.values(tree, n, p, reach)
            np.testing.assert_allclose(out, want, rtol=0, atol=1e-9)
    _ = holdem_terminal_kernel


def test_tree_layout() -> None:
    spot = HoldemSpot("QsJh2h8c", 180, 910, OOP, IP, turn_sizes=("55%", "45%"),
                      river_sizes=("70%", "45%"))
    tree = build_spot_tree(spot)
    assert tree.contrib[0].tolist() == [90.0, 90.0] and tree.pot[0] == 180.0
    chance = np.flatnonzero(tree.kind == CHANCE)
    kids = [c for n in chance.tolist() for c in tree.children(n)]
    # every card off the board is a child (48), each of probability 1/44 given both hands
    assert np.allclose(tree.chance_weight[kids], 1 / 44) and len(kids) == 48 * len(chance)
    assert tree.labels[tree.action_label[1]] == "check"
    with pytest.raises(TreeTooLargeError):
        build_spot_tree(spot, max_nodes=100)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"board": "QsJh"}, "3, 4 or 5"), ({"board": "QsQsJh"}, "3, 4 or 5"),
     ({"board": "QsJhXx"}, "not a card"), ({"effective_stack": -1}, ">= 0"),
     ({"starting_pot": 0}, "> 0"), ({"oop_range": ""}, "oop_range"),
     ({"ip_range": "QsJd"}, "overlaps the board"), ({"flop_sizes": ("52", "45%")}, "flop_sizes"),
     ({"turn_sizes": 5}, "turn_sizes"), ({"raise_cap": 0}, "raise_cap")],
)
def test_bad_spots(kwargs: dict[str, object], match: str) -> None:
    base: dict[str, object] = dict(board="QsJh2h", starting_pot=180, effective_stack=910,
                                   oop_range=OOP, ip_range=IP)
    base.update(kwargs)
    with pytest.raises(ConfigError, match=match) as err:
        HoldemSpot(**base)  # type: ignore[arg-type]
    assert "\n" not in str(err.value)


def test_toml(tmp_path: Path) -> None:
    spot = HoldemSpot.from_toml(CONFIGS / "pio_3betpotfast.toml")
    assert spot.board == "QsJh2h" and spot.starting_pot == 180 and spot.effective_stack == 910
    assert spot.flop_sizes == (("52%", "45%"), ("52%", "45%"))
    bad = tmp_path / "bad.toml"
    bad.write_text('board = "QsJh2h"\nstarting_pot = 180\n')
    with pytest.raises(ConfigError, match="lacks"):
        HoldemSpot.from_toml(bad)
    bad.write_text("board = [")
    with pytest.raises(ConfigError, match="TOML"):
        HoldemSpot.from_toml(bad)


def test_solve_river_spot_save_load_and_chart(tmp_path: Path) -> None:
    spot = HoldemSpot("QsJh2h8c3d", 100, 150, OOP, IP, river_sizes=("50%, a", "a"))
    solution = solve_spot(spot, exploitability_pct=0.5, max_iterations=500)
    assert solution.exploitability_pct <= 0.5
    ev = solution.root_ev()
    assert sum(ev) == pytest.approx(100.0)
    eq = solution.root_equity()
    assert sum(eq) == pytest.approx(1.0) and 0 < eq[0] < 1
    freqs = solution.action_frequencies(0)
    assert set(freqs) == {"check", "bet 50", "allin 150"}
    assert sum(freqs.values()) == pytest.approx(1.0)
    result = solution.result(0)
    assert result.ev_total[0] + 50.0 == pytest.approx(ev[0])
    assert result.equity is not None and np.nanmax(result.equity[0]) <= 1.0
    grids = solution.class_strategy(["check"])
    assert set(grids) == {"check", "bet 50", "allin 150"}
    assert solution.chart(tmp_path / "root.png").stat().st_size > 1000
    solution.save(tmp_path / "river.ckpt")
    loaded = SpotSolution.load(tmp_path / "river.ckpt")
    assert loaded.spot == spot
    assert np.array_equal(loaded.strategy(0)[1], solution.strategy(0)[1])
    assert loaded.root_ev() == solution.root_ev()
    with pytest.raises(ConfigError):
        solution.node(["raise 9999"])


def test_root_equity_of_the_benchmark_ranges() -> None:
    """PioSOLVER's 3betpotFAST ranges on QsJh2h: OOP's equity is 55.347% (postflop-solver)."""
    spot = HoldemSpot.from_toml(CONFIGS / "pio_3betpotfast.toml")
    flat = HoldemSpot(spot.board, 180, 0, spot.oop_range, spot.ip_range)  # one line: all-in
    eq = spot_equity(build_spot_tree(flat))[1]
    assert eq[0] == pytest.approx(0.55347, abs=1e-5) and eq[1] == pytest.approx(0.44653, abs=1e-5)


def test_solve_py_spot_form(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from pokerzoo.runs.solve import main

    spot = tmp_path / "river.toml"
    spot.write_text(
        'board = "QsJh2h8c3d"\nstarting_pot = 100\neffective_stack = 150\n'
        f'oop_range = "{OOP}"\nip_range = "{IP}"\nriver_sizes = ["50%", "a"]\n'
    )
    out = tmp_path / "out.json"
    assert main([str(spot), "--exploitability", "0.5", "--json", str(out), "--quiet",
                 "--chart", str(tmp_path / "charts"), "--line", "check"]) == 0
    report = json.loads(out.read_text())
    for key in ("root_ev", "root_equity"):
        assert len(report[key]) == 2
    assert report["exploitability_pct_pot"] <= 0.5 and report["iterations"] > 0
    assert (tmp_path / "charts" / "check.png").exists()
    assert report["charts"] == [str(tmp_path / "charts" / n) for n in ("root.png", "check.png")]
    assert "EV OOP" in capsys.readouterr().out
    with pytest.raises(ConfigError, match="no action"):
        main([str(spot), "--line", "raise 5", "--quiet", "--iterations", "1"])
    with pytest.raises(ConfigError, match="need a spot"):
        main(["--game", "kuhn_poker", "--chart", str(tmp_path)])
    from pokerzoo.runs.solve import build_parser, solver_params

    params = solver_params(build_parser().parse_args([str(spot), "--restart-limit", "16"]))
    assert params["restart_limit"] == 16 and params["algorithm"] == "postflop"


def test_suit_isomorphism_gives_the_full_trees_values() -> None:
    """On QsJh2h with suit-symmetric ranges, clubs and diamonds are interchangeable: the
    isomorphic tree is smaller and gives the full tree's values and best responses (exactly
    while float rounding keeps the full tree's strategies symmetric: the first iterations)."""
    kw: dict[str, object] = dict(
        board="QsJh2h", starting_pot=100, effective_stack=100, oop_range="AA,AK,T9s",
        ip_range="JJ,AQs,65s", flop_sizes=("50%", "a"), turn_sizes=("a", ""),
        river_sizes=("a", ""))
    full = PublicSolver(build_spot_tree(HoldemSpot(**kw, suit_isomorphism=False)))  # type: ignore[arg-type]
    iso = PublicSolver(build_spot_tree(HoldemSpot(**kw)))  # type: ignore[arg-type]
    assert iso.tree.num_nodes < 0.7 * full.tree.num_nodes
    chance = int(np.flatnonzero(iso.tree.kind == CHANCE)[0])
    assert len(iso.tree.children(chance)) == 49 - 13  # each diamond stands in for its club
    for solver in (full, iso):
        solver.iterate(2)
    assert iso.game_value()[0] == pytest.approx(full.game_value()[0], abs=1e-9)
    np.testing.assert_allclose(iso.best_response_values(), full.best_response_values(),
                               rtol=0, atol=1e-9)
    np.testing.assert_allclose(iso.strategy(0), full.strategy(0), rtol=0, atol=1e-12)
    asymmetric = HoldemSpot(**{**kw, "oop_range": "AA,AcKc"})  # type: ignore[arg-type]
    tree = build_spot_tree(asymmetric)
    chance = int(np.flatnonzero(tree.kind == CHANCE)[0])
    assert len(tree.children(chance)) == 49  # AcKc breaks the clubs/diamonds symmetry
