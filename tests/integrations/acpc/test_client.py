"""The client on a dealer of ACPC's own seat order (reverse blinds), played by hand."""

from __future__ import annotations

import socket

import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.games import load_game
from pokerzoo.games.base import State
from pokerzoo.games.holdem.cards import string_to_card
from pokerzoo.games.holdem.state import CALL
from pokerzoo.integrations.acpc.client import play_on_dealer

from .conftest import Background

# ACPC position 0 is the big blind: the small blind (position 1) acts first before the flop,
# position 0 first after it.
SCRIPT = [
    ("MATCHSTATE:0:0::AhKh|", None),
    ("MATCHSTATE:0:0:r:AhKh|", "c"),
    ("MATCHSTATE:0:0:rc/:AhKh|/2c3c4c", "c"),
    ("MATCHSTATE:0:0:rc/c:AhKh|/2c3c4c", None),
]


class RecordingCaller:
    """Calls, and records the seat and hole cards of each state it is asked about."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, list[int]]] = []

    def action_probabilities(self, state: State) -> dict[int, float]:
        seat = state.current_player()
        self.seen.append((seat, list(state.private_cards()[seat])))
        return {CALL: 1.0}


def _scripted_dealer(listener: socket.socket) -> list[str]:
    """Send ``SCRIPT``'s messages, read a reply where one is due, then hang up."""
    sock, _ = listener.accept()
    with sock:
        reader = sock.makefile("r", newline="\n")
        replies = [reader.readline().rstrip("\r\n")]
        for message, answer in SCRIPT:
            sock.sendall(f"{message}\r\n".encode())
            if answer is not None:
                replies.append(reader.readline().rstrip("\r\n"))
    return replies


def test_reverse_blinds_client_plays_the_big_blind(background: Background) -> None:
    game = load_game("limit_holdem", small_blind=5, big_blind=10)
    policy = RecordingCaller()
    with socket.create_server(("127.0.0.1", 0)) as listener:
        background.start(lambda: _scripted_dealer(listener))
        seen = play_on_dealer(game, policy, listener.getsockname()[1], seats=(1, 0), timeout=10)
        replies, = background.join()
    assert replies == ["VERSION:2.0.0"] + [f"{m}:{a}" for m, a in SCRIPT if a is not None]
    assert (seen.hands, seen.actions) == (0, 2)
    hole = [string_to_card("Ah"), string_to_card("Kh")]
    assert policy.seen == [(1, hole), (1, hole)]  # pokerzoo's big blind: seat 1


def test_seats_must_be_a_permutation() -> None:
    with pytest.raises(ConfigError, match="seats must name each of the 2"):
        play_on_dealer(load_game("limit_holdem"), RecordingCaller(), 1, seats=(0, 0))
