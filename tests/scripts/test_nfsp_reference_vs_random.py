"""bench/nfsp_reference_vs_random.py: the fixed policies that set the scale of winnings against
Random on no-limit hold'em."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import nfsp_reference_vs_random as reference  # noqa: E402

from pokerzoo import load_game  # noqa: E402
from pokerzoo.games.holdem.cards import string_to_card  # noqa: E402


def cards(text: str) -> list[int]:
    return [string_to_card(text[i : i + 2]) for i in range(0, len(text), 2)]


def test_strong_hands_are_88_or_better_and_two_broadway_cards_with_an_ace_or_king() -> None:
    assert all(reference.is_strong(cards(h)) for h in ("AsAh", "8c8d", "AhKd", "KsJc", "AdJd"))
    assert not any(reference.is_strong(cards(h)) for h in ("7c7d", "QsJh", "AhTd", "7h2c"))


def _preflop(players: int) -> object:
    state = load_game("no_limit_holdem", num_players=players).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


def test_the_shover_goes_all_in_with_aces_and_folds_seven_deuce_facing_the_blind() -> None:
    state = _preflop(2)
    seat = state.current_player()
    state.replace_private_cards(seat, cards("AsAh"))
    assert reference.shove_strong(state) == {state.legal_actions()[-1]: 1.0}
    state.replace_private_cards(seat, cards("7h2c"))
    assert state.amount_to_call() > 0
    assert reference.shove_strong(state) == {reference.FOLD: 1.0}
    assert reference.calling_station(state) == {reference.CHECK_CALL: 1.0}


def test_a_tiny_run_writes_the_table_and_its_record(tmp_path: Path) -> None:
    out = tmp_path / "reference.md"
    reference.main(["--players", "2", "--hands", "40", "--out", str(out)])
    record = json.loads(out.with_suffix(".json").read_text())
    assert [(r["players"], r["policy"]) for r in record["rows"]] == [
        (2, "calling station"),
        (2, "shove strong"),
    ]
    assert all(r["hands"] == 40 for r in record["rows"])
    assert "| 2 | shove strong | 40 |" in out.read_text()
