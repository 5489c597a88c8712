"""The size of a spot's tree, counted from its sizes before anything is built."""

from __future__ import annotations

import warnings

import pytest

import pokerzoo.public.spots.holdem_spot as holdem_spot
from pokerzoo.errors import ConfigError, PokerzooWarning, TreeTooLargeError
from pokerzoo.public.spots.holdem_spot import (
    DEFAULT_MAX_NODES,
    HoldemSpot,
    build_spot_tree,
    count_spot_nodes,
)
from tests.public.spots.test_holdem_spot import CONFIGS as SPOTS
from tests.public.spots.test_holdem_spot import IP, OOP

FIFTY = ",".join(f"{i}%" for i in range(1, 51))


@pytest.mark.parametrize("spot", [
    HoldemSpot("QsJh2h8c3d", 100, 150, OOP, IP, river_sizes=("50%, a", "a")),
    HoldemSpot("QsJh2h8c", 180, 910, OOP, IP, turn_sizes=("55%", "45%"),
               river_sizes=("70%", "45%"), turn_donk="33%"),
    HoldemSpot("QsJh2h8c", 100, 300, OOP, IP, turn_sizes=("50%", "a"),
               river_sizes=("75%", "a"), suit_isomorphism=False),
    HoldemSpot("QsJh2h", 100, 60, OOP, IP, flop_sizes=("a", ""), raise_cap=1),
    HoldemSpot("QsJh2h8c", 180, 910, OOP, IP, turn_sizes=("55%", "45%"),
               street_chips=(0, 99), street_bets=1),
])
def test_count_equals_the_built_tree(spot: HoldemSpot) -> None:
    assert count_spot_nodes(spot) == build_spot_tree(spot).num_nodes


def test_benchmark_spot_is_accepted() -> None:
    # 511,606 nodes, what build_spot_tree lays out for it (counted in about 10 ms)
    spot = HoldemSpot.from_toml(SPOTS / "pio_3betpotfast.toml")
    assert count_spot_nodes(spot, DEFAULT_MAX_NODES) == 511_606


def test_fifty_sizes_per_street_refused_before_building(
        monkeypatch: pytest.MonkeyPatch) -> None:
    spot = HoldemSpot.from_toml(SPOTS / "pio_3betpotfast.toml")
    wide = HoldemSpot(spot.board, 180, 910, spot.oop_range, spot.ip_range,
                      flop_sizes=(FIFTY, FIFTY), turn_sizes=(FIFTY, FIFTY),
                      river_sizes=(FIFTY, FIFTY))

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the tree builder was called")

    monkeypatch.setattr(holdem_spot, "PublicTreeBuilder", never)
    with pytest.raises(TreeTooLargeError) as err:
        build_spot_tree(wide)
    message = str(err.value)
    assert "\n" not in message
    assert "more than 5,000,000 nodes (max_nodes; at least " in message
    assert err.value.estimated_nodes is not None
    assert err.value.estimated_nodes > DEFAULT_MAX_NODES


def test_small_limit_refused_with_the_count() -> None:
    spot = HoldemSpot("QsJh2h8c3d", 100, 150, OOP, IP, river_sizes=("50%, a", "a"))
    exact = count_spot_nodes(spot)
    assert count_spot_nodes(spot, exact) == exact
    with pytest.raises(TreeTooLargeError, match=f"more than {exact - 1:,} nodes"):
        build_spot_tree(spot, max_nodes=exact - 1)


@pytest.mark.parametrize("bad", [0, -5, 2.5, "many", True])
def test_bad_max_nodes(bad: object) -> None:
    spot = HoldemSpot("QsJh2h8c3d", 100, 150, OOP, IP)
    with pytest.raises(ConfigError, match="max_nodes must be an integer >= 1 or None"):
        count_spot_nodes(spot, bad)  # type: ignore[arg-type]


def test_ranges_with_no_compatible_pair_refused() -> None:
    with pytest.raises(ConfigError) as err:
        HoldemSpot("QsJh2h8c3d", 100, 100, "AcAd", "AcKd,AdKc")
    assert str(err.value) == (
        "oop_range 'AcAd' and ip_range 'AcKd,AdKc' share a card in every pair of hands on "
        "board 'QsJh2h8c3d'; each range needs a hand that the other does not block")
    assert HoldemSpot("QsJh2h8c3d", 100, 100, "AcAd", "AcKd,AhKc").board == "QsJh2h8c3d"


@pytest.mark.parametrize(("budget", "message"), [
    ({"check_every": 0}, "check_every must be an integer >= 1"),
    ({"check_every": -3}, "check_every must be an integer >= 1"),
    ({"max_seconds": 0.0}, "max_seconds must be a number > 0 or None"),
    ({"max_seconds": -1}, "max_seconds must be a number > 0 or None"),
    ({"max_iterations": -1}, "max_iterations must be an int >= 0"),
])
def test_budgets_that_never_end_refused(monkeypatch: pytest.MonkeyPatch,
                                        budget: dict[str, float],
                                        message: str) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the tree was built")

    monkeypatch.setattr(holdem_spot, "build_spot_tree", never)
    spot = HoldemSpot("QsJh2h8c3d", 100, 100, OOP, IP)
    with pytest.raises(ConfigError, match=message):
        holdem_spot.solve_spot(spot, **budget)  # type: ignore[arg-type]


def _all_in_river(stack: int) -> HoldemSpot:
    return HoldemSpot("QsJh2h8c3d", 100, stack, OOP, IP, river_sizes=("a", ""))


def test_deep_stack_toy_converges_below_the_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spot = _all_in_river(10**4)  # 100 pots
    solved = holdem_spot.solve_spot(spot, exploitability_pct=0.1, max_iterations=2000)
    assert solved.exploitability_pct <= 0.1


def test_deep_stack_warns_then_refuses() -> None:
    with pytest.warns(PokerzooWarning) as record:
        _all_in_river(10**6)  # 10^4 pots: 0.35% of the pot after 20,000 iterations
    assert len(record) == 1
    assert str(record[0].message) == (
        "effective_stack / starting_pot is 1e+04, more than 1e+03: the solve converges "
        "slowly that deep (its error grows with stack / pot); check its exploitability")
    with pytest.raises(ConfigError) as err:
        _all_in_river(10**9)  # 10^7 pots: stalls at 12% of the pot
    assert str(err.value) == (
        "effective_stack / starting_pot is 1e+07, more than 1e+05: the solve cannot converge "
        "that deep (its error grows with stack / pot); use a stack of at most 1e+05 pots")
