#!/usr/bin/env python
"""Three rule players judged exactly on Leduc: why chips and exploitability disagree.

    python examples/judge_rule_players.py

prints, for each player, its exploitability and its exact chips per hand against the uniform
player and against CFR+ (the table of the judge's documentation).
"""

from __future__ import annotations

from pokerzoo import load_game
from pokerzoo.judge import Decision, judge_game


def first_of(decision: Decision, *kinds: str) -> int:
    """The first legal action of the first kind in ``kinds`` that is legal."""
    for kind in kinds:
        for legal in decision.legal:
            if legal.kind == kind:
                return legal.action
    return decision.legal[0].action


def maniac(decision: Decision, sample: int) -> int:
    """Always bet or raise."""
    return first_of(decision, "raise", "bet", "call", "check")


def calling_station(decision: Decision, sample: int) -> int:
    """Always check or call."""
    return first_of(decision, "call", "check")


def honest(decision: Decision, sample: int) -> int:
    """Raise a king or a pair with the board, call a queen before the board, else check/fold.

    It reads its own card and the board from the decision's state (Leduc's cards are
    ``rank * suits + suit``; ranks J, Q, K are 0, 1, 2).
    """
    state = decision.state
    assert state is not None
    suits = state.game.params()["num_suits"]
    rank = state.private_cards()[decision.player][0] // suits
    board = state.public_state()["public_cards"]
    if rank == 2 or (board and board[0] // suits == rank):
        return first_of(decision, "raise", "bet", "call", "check")
    if rank == 1 and not board:
        return first_of(decision, "call", "check")
    return first_of(decision, "check", "fold")


def main() -> None:
    game = load_game("leduc_holdem")
    print("| player | exploitability | vs uniform | vs CFR+ |")
    print("|---|---|---|---|")
    for player in (maniac, honest, calling_station):
        report = judge_game(game, player, hands=0, progress=False)
        chips = {v.reference: v.exact_chips for v in report.versus}
        print(f"| {player.__name__} | {report.exploitability:.2f} | {chips['uniform']:+.2f} | "
              f"{chips['cfr+']:+.2f} |")


if __name__ == "__main__":
    main()
