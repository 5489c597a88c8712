"""The real hand in the dealer's chips (``betting``), the client's translation against
messages captured from ``project_acpc_server``, and the logs' agreement; no server needed."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from pokerzoo.errors import ConfigError
from pokerzoo.games import load_game
from pokerzoo.games.holdem.cards import cards_from_string
from pokerzoo.games.holdem.state import CALL
from pokerzoo.integrations.acpc.betting import AcpcHand, chips_text, rules_of
from pokerzoo.integrations.acpc.client import (
    in_seat_order,
    play_on_dealer,
    real_hand,
    real_token,
)
from pokerzoo.integrations.acpc.logs import compare, read_client_log, read_dealer_log
from pokerzoo.integrations.acpc.matchstate import parse_matchstate, replay

from .conftest import Background

DATA = Path(__file__).parent / "data" / "real_dealer_states.txt"
REVERSE = (1, 0)  # ACPC position 0 is the big blind in the competition's heads-up files
GAMES = {"limit": load_game("limit_holdem", small_blind=5, big_blind=10),
         "nolimit": load_game("no_limit_holdem", small_blind=50, big_blind=100, stacks=20000)}


def _captured() -> list[tuple[str, str]]:
    rows = []
    for line in DATA.read_text().splitlines():
        if line and not line.startswith("#"):
            kind, state = line.split(" ", 1)
            rows.append((kind, state))
    return rows


@pytest.mark.parametrize(("kind", "line"), _captured())
def test_payoffs_agree_with_the_real_dealers_log(kind: str, line: str) -> None:
    game = GAMES[kind]
    _, hand_number, betting, cards, payoffs, _ = line.split(":")
    holes_text, *boards = cards.split("/")
    holes = [cards_from_string(h) for h in holes_text.split("|")]
    hand = AcpcHand(rules_of(game, REVERSE))
    for r, tokens in enumerate(betting.split("/")):
        for token in parse_matchstate(f"MATCHSTATE:0:{hand_number}:{tokens}:"
                                      f"{holes_text}", game).betting[0]:
            assert hand.round == r
            hand.apply(token)
    assert hand.finished
    board = cards_from_string("".join(boards))
    assert "|".join(chips_text(v) for v in hand.payoffs(holes, board)) == payoffs


@pytest.mark.parametrize(("line", "all_in"), [
    ("MATCHSTATE:0:0:r8667r17234r20000:5d5c|", [False, False, True]),
    ("MATCHSTATE:0:0:cr300r13997c/:5d5c|/8dAs8s", [False, False, False, False]),
])
def test_a_raise_the_translation_made_all_in_no_longer_ends_the_round(
        line: str, all_in: list[bool]) -> None:
    # Captured from project_acpc_server, where the client stopped with "the round is over but
    # no '/' and cards follow": pokerzoo's menu is half pot, pot and all-in, and the real
    # raises to 17234 and 13997 (of 20000) were replayed as all-in, so the call or all-in
    # after them ended the translated round (the hand) while the real one went on.
    game = GAMES["nolimit"]
    acpc = parse_matchstate(line, game)
    hand, all_ins = real_hand(rules_of(game, REVERSE), acpc)
    assert all_ins == all_in and hand.current_player() == 0
    state = replay(game, in_seat_order(acpc, REVERSE), all_ins).state
    assert not state.is_chance_node() and state.current_player() == 1  # our turn
    assert real_token(hand, state, CALL) == "c"


def test_our_raises_are_sized_in_the_real_pot() -> None:
    game = GAMES["nolimit"]
    acpc = parse_matchstate("MATCHSTATE:0:0:r8667:5d5c|", game)
    hand, all_ins = real_hand(rules_of(game, REVERSE), acpc)
    state = replay(game, in_seat_order(acpc, REVERSE), all_ins).state
    pot_raise = 3  # pokerzoo's raise of bet_fractions[1] = 1 pot
    # a pot raise facing 8667 over the big blind: 8667 + (8667 + 100 + 8567) = 26001, capped
    assert real_token(hand, state, pot_raise) == "r20000"
    assert real_token(hand, state, state.game.all_in_action) == "r20000"
    acpc = parse_matchstate("MATCHSTATE:1:0::|5d5c", game)
    hand, all_ins = real_hand(rules_of(game, REVERSE), acpc)
    state = replay(game, in_seat_order(acpc, REVERSE), all_ins).state
    assert real_token(hand, state, pot_raise) == "r300"  # the same as pokerzoo's own
    assert real_token(hand, state, 2) == "r200"  # half pot: the minimum raise


def test_the_real_hand_refuses_what_the_dealer_would_not_send() -> None:
    hand = AcpcHand(rules_of(GAMES["nolimit"], REVERSE))
    with pytest.raises(ConfigError, match="outside the raises allowed"):
        hand.apply("r150")
    hand.apply("c")
    with pytest.raises(ConfigError, match="fold with nothing to call"):
        hand.apply("f")


def test_logs_that_disagree_are_named() -> None:
    dealer = read_dealer_log("STATE:3:f:AhAd|2c3d:5|-5:a|b\nSCORE:5|-5:a|b\n")
    client = read_client_log("MATCHSTATE:1:3:f:|2c3d:5\n")
    agreement = compare(dealer, client)
    assert not agreement.ok
    assert agreement.first_disagreement == ("hand 3 pays position 1 -5 in the dealer's log, "
                                            "5 here")
    with pytest.raises(ConfigError, match="log line 1"):
        read_dealer_log("HELLO\n")


def _dealer_of(messages: list[str], listener: socket.socket) -> list[str]:
    """Send the messages, read a reply after those that end with '?' (stripped)."""
    sock, _ = listener.accept()
    with sock:
        reader = sock.makefile("r", newline="\n")
        replies = [reader.readline().rstrip("\r\n")]
        for message in messages:
            sock.sendall(f"{message.rstrip('?')}\r\n".encode())
            if message.endswith("?"):
                replies.append(reader.readline().rstrip("\r\n"))
    return replies


def test_the_client_plays_the_captured_hand_and_logs_its_chips(
        background: Background, tmp_path: Path) -> None:
    messages = ["MATCHSTATE:0:0::5d5c|", "MATCHSTATE:0:0:r8667:5d5c|?",
                "MATCHSTATE:0:0:r8667r17234:5d5c|", "MATCHSTATE:0:0:r8667r17234r20000:5d5c|?",
                "MATCHSTATE:0:0:r8667r17234r20000c///:5d5c|9hQd/8dAs8s/2c/3h"]
    log = tmp_path / "client.log"
    with socket.create_server(("127.0.0.1", 0)) as listener:
        background.start(lambda: _dealer_of(messages, listener))
        seen = play_on_dealer(GAMES["nolimit"], lambda state: {CALL: 1.0},
                              listener.getsockname()[1], seats=REVERSE, timeout=10, log=log)
        replies, = background.join()
    assert replies[1:] == [f"{messages[1][:-1]}:c", f"{messages[3][:-1]}:c"]
    assert (seen.hands, seen.fallbacks, seen.chips) == (1, 0, 20000.0)
    dealer = read_dealer_log("STATE:0:r8667r17234r20000c///:5d5c|9hQd/8dAs8s/2c/3h:"
                             "20000|-20000:pz|ex\n")
    assert compare(dealer, read_client_log(log.read_text())).ok
