"""The dealer over 127.0.0.1: the same hands as head_to_head, and failing clients."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from pokerzoo.errors import ConfigError, PlayerError
from pokerzoo.evaluation import head_to_head
from pokerzoo.evaluation.aivat import aivat_head_to_head, score_logged_hands
from pokerzoo.evaluation.hand_history import read_text_log
from pokerzoo.evaluation.opponents import AlwaysCallPolicy
from pokerzoo.games import load_game
from pokerzoo.games.base import Game, State
from pokerzoo.integrations.acpc.client import play_on_dealer
from pokerzoo.integrations.acpc.dealer import Dealer
from pokerzoo.integrations.acpc.matchstate import parse_matchstate, replay

from .conftest import Background, HashPolicy


@pytest.mark.parametrize("name", ["limit_holdem", "no_limit_holdem"])
def test_match_over_tcp_equals_head_to_head(name: str, background: Background,
                                            tmp_path: Path) -> None:
    game = load_game(name)
    policies = [HashPolicy(1), HashPolicy(2)]
    dealer = Dealer(game, 12, seed=7, log=tmp_path / "match.txt", flush_seconds=0, timeout=20)
    for policy, port in zip(policies, dealer.ports):
        background.start(lambda policy=policy, port=port: play_on_dealer(game, policy, port))
    result = dealer.run()
    clients = background.join()
    expected = head_to_head(game, policies, 12, seed=7)
    np.testing.assert_array_equal(result.match.mean_chips, expected.mean_chips)
    np.testing.assert_array_equal(result.match.seat_mean_chips, expected.seat_mean_chips)
    assert result.fixed_actions == 0
    assert [c.hands for c in clients] == [24, 24]
    # The hand log replays each hand: the same payoffs, hand by hand.
    hands = list(read_text_log(tmp_path / "match.txt"))
    assert len(hands) == 24
    np.testing.assert_array_equal([h.payoffs for h in hands], result.seat_payoffs)
    lines = (tmp_path / "match.acpc.log").read_text().splitlines()
    assert [line.split(":")[0] for line in lines] == ["STATE"] * 24 + ["SCORE"]
    assert lines[0].split(":")[-1] == "player0|player1"
    assert lines[1].split(":")[-1] == "player1|player0"  # seats swapped: duplicate


def test_always_call_pays_what_head_to_head_pays(background: Background) -> None:
    game = load_game("limit_holdem")
    dealer = Dealer(game, 5, seed=3)
    for port in dealer.ports:
        background.start(lambda port=port: play_on_dealer(game, AlwaysCallPolicy(), port))
    result = dealer.run()
    background.join()
    expected = head_to_head(game, [AlwaysCallPolicy(), AlwaysCallPolicy()], 5, seed=3)
    np.testing.assert_array_equal(result.match.seat_mean_chips, expected.seat_mean_chips)


def _raw_client(game: Game, port: int, tail: Callable[[str], str], answers: int,
                stall: float) -> None:
    """A hand-written client: the version, then ``answers`` calls on its turns, then on its
    next turn ``tail(message)`` (nothing: a stall or a hang-up), then it hangs up."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"VERSION:2.0.0\r\n")
        reader = sock.makefile("r", newline="\n")
        while True:
            line = reader.readline().rstrip("\r\n")
            message = parse_matchstate(line, game)
            state = replay(game, message).state
            if state.is_terminal() or state.current_player() != message.position:
                continue
            if not answers:
                break
            sock.sendall(f"{line}:c\r\n".encode())
            answers -= 1
        sock.sendall(tail(line).encode())
        time.sleep(stall)


TAILS: dict[str, Callable[[str], str]] = {
    "another state": lambda line: "MATCHSTATE:0:0:c:x\r\n",
    "bad action": lambda line: f"{line}:raise\r\n",
    "disconnect": lambda line: "",
    "stall": lambda line: "",
}


@pytest.mark.parametrize("how, message", [
    ("another state", "does not repeat the state it answers"),
    ("bad action", "reply action 'raise' is not f, c, r or r<N>"),
    ("disconnect", "closed the connection"),
    ("stall", "sent no full line within 0.5 s"),
])
def test_a_failing_client_ends_the_match_and_keeps_the_hands(
        how: str, message: str, background: Background, tmp_path: Path) -> None:
    game = load_game("limit_holdem")
    log = tmp_path / "match.log"
    dealer = Dealer(game, 50, seed=1, log=log, timeout=0.5, flush_seconds=1000)
    # Player 1 calls its first few turns (whole hands end: player 0 always calls too), then
    # misbehaves.
    background.start(lambda: play_on_dealer(game, AlwaysCallPolicy(), dealer.ports[0]))
    background.start(lambda: _raw_client(game, dealer.ports[1], TAILS[how], answers=5,
                                         stall=2.0 if how == "stall" else 0.0))
    with pytest.raises(PlayerError) as caught:
        dealer.run()
    text = str(caught.value)
    assert "\n" not in text and message in text and "player1 (player 1, port" in text
    background.join()
    hands = list(read_text_log(log))
    finished = dealer.hands_played
    assert f"finished before ({finished}) are in the logs" in text
    assert len(hands) == finished >= 1
    state_lines = [line for line in (tmp_path / "match.acpc.log").read_text().splitlines()
                   if line.startswith("STATE:")]
    assert len(state_lines) == finished


def test_bad_dealer_arguments_are_one_line() -> None:
    game = load_game("limit_holdem")
    with pytest.raises(ConfigError, match="ports must be 2 port numbers"):
        Dealer(game, 1, ports=[0])
    with pytest.raises(ConfigError, match="timeout must be seconds"):
        Dealer(game, 1, timeout=0)
    with pytest.raises(ConfigError, match="not 'kuhn_poker'"):
        Dealer(load_game("kuhn_poker"), 1)
    with pytest.raises(ConfigError, match="a player's name"):
        Dealer(game, 1, names=["a|b", "c"])


class SplitPotValues:
    """A cheap fixed value function for AIVAT: each player still in gets an equal share of the
    pot, shifted by how high its hole cards rank against the others'."""

    def values(self, states: Sequence[State]) -> np.ndarray:
        out = np.zeros((len(states), 2))
        for k, state in enumerate(states):
            if state.is_terminal():
                out[k] = state.returns()
                continue
            public = state.public_state()
            spent = np.asarray(public["contributions"], dtype=float)
            live = ~np.asarray(public["folded"])
            share = np.where(live, spent.sum() / live.sum(), 0.0) - spent
            ranks = np.array([sum(c // 4 for c in cards)
                              for cards in state.private_cards()], dtype=float)
            out[k] = share + ranks - ranks.mean()
        return out


def test_aivat_scores_the_dealer_log_as_the_in_process_match(background: Background,
                                                             tmp_path: Path) -> None:
    """The hand log is what AIVAT reads: scored by name, the dealer's match gives the same
    raw and AIVAT means as ``aivat_head_to_head`` on the same deals (player 1 an outside
    player: only chance and player 0's decisions corrected)."""
    game = load_game("limit_holdem")
    policies = [HashPolicy(3), HashPolicy(4)]
    dealer = Dealer(game, 10, seed=11, names=["known", "outside"], log=tmp_path / "m.txt")
    for policy, port in zip(policies, dealer.ports):
        background.start(lambda policy=policy, port=port: play_on_dealer(game, policy, port))
    result = dealer.run()
    background.join()
    logged = score_logged_hands(game, list(read_text_log(tmp_path / "m.txt")),
                                SplitPotValues(), {"known": policies[0]})
    expected = aivat_head_to_head(game, policies, 10, SplitPotValues(), known=[True, False],
                                  seed=11)
    assert logged.names == ("known", "outside") and logged.num_hands == 20
    np.testing.assert_allclose(logged.raw_mean, result.match.mean_chips, atol=1e-9)
    np.testing.assert_allclose(logged.raw_mean, expected.raw_mean, atol=1e-9)
    np.testing.assert_allclose(logged.aivat_mean, expected.aivat_mean, atol=1e-9)
    assert not np.allclose(logged.per_hand_aivat, logged.per_hand_raw)  # it did correct
