"""play.py: hands against a run or a built-in opponent, driven through a pseudo-terminal, and
the PlaySession behind it driven through StringIO."""

from __future__ import annotations

import io
import math
import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from pokerzoo import load_game
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import State
from pokerzoo.runs.play import (
    ActionMenu,
    PlaySession,
    Score,
    built_in_opponent,
    load_opponent,
)

ROOT = Path(__file__).resolve().parents[2]
PROMPT = b"your action> "


# Driving play.py through a pseudo-terminal ---------------------------------------------------


def drive(args: list[str], answers: Iterable[str], interrupt_at: int | None = None
          ) -> tuple[int, str]:
    """Run ``play.py args`` on a pty; answer each prompt with the next of ``answers`` (Ctrl-D
    once they run out), or send SIGINT at prompt number ``interrupt_at``. Returns the exit code
    and everything the terminal showed (echoed input included)."""
    master, slave = pty.openpty()
    # A job started in the background of a non-interactive shell inherits SIGINT ignored, and
    # Python then never raises KeyboardInterrupt: give the child the default disposition.
    proc = subprocess.Popen(
        [sys.executable, "play.py", *args], cwd=ROOT, stdin=slave, stdout=slave, stderr=slave,
        close_fds=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    os.close(slave)
    pending: Iterator[str] = iter(answers)
    output = b""
    answered = 0
    # A hang guard, not a timing check: under a loaded parallel suite the child's first import
    # (and a cold compile cache) can take minutes, so the guard is generous.
    give_up = time.monotonic() + 900
    try:
        while True:
            if time.monotonic() > give_up:
                raise AssertionError(f"play.py stopped answering:\n{output.decode()}")
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed its side of the pty
                break
            if not chunk:
                break
            output += chunk
            while output.count(PROMPT) > answered:
                answered += 1
                if interrupt_at is not None and answered == interrupt_at:
                    proc.send_signal(signal.SIGINT)
                    continue
                line = next(pending, None)
                os.write(master, b"\x04" if line is None else line.encode() + b"\n")
        code = proc.wait(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return code, output.decode(errors="replace").replace("\r\n", "\n")


def typos_then(action: str) -> Iterator[str]:
    """A typo, an empty line, a number that is no legal action, then ``action`` forever."""
    yield from ("xyzzy", "", "7")
    while True:
        yield action


@pytest.fixture(scope="module")
def kuhn_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("play") / "cfr_kuhn"
    result = subprocess.run(
        [sys.executable, "train.py", "--agent", "cfr+", "--game", "kuhn_poker", "--iterations",
         "100", "--out", str(out), "--no-progress", "--no-tensorboard"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return out


def assert_clean_session(text: str, hands: int) -> None:
    assert "Traceback" not in text
    assert f"hands played: {hands}" in text
    assert "final score: you " in text and "bb/100" in text and "95% CI" in text
    assert text.count("\nshowdown: ") >= 2 * hands  # every seat's cards, every hand


@pytest.mark.slow
def test_three_hands_against_a_kuhn_run_with_typos(kuhn_run):
    code, text = drive([str(kuhn_run), "--hands", "3", "--seed", "1"], typos_then("c"))
    assert code == 0
    assert_clean_session(text, 3)
    assert "unknown action 'xyzzy'; legal actions: [0] pass/" in text
    assert "7 is not a legal action here; legal actions: [0] pass/" in text
    assert "you are seat 0" in text and "you are seat 1" in text  # seats alternate
    for n in (1, 2, 3):
        assert f"hand {n}: you " in text
    assert "cfr_kuhn: " in text  # the agent's moves are shown by name


def test_three_hands_against_leduc_always_call_end_with_eof():
    answers = ["raise", "RAISE", "nonsense", "c", "r", "c", "call", "c", "c", "c", "c", "c", "c",
               "c", "c", "c"]
    code, text = drive(["--opponent", "always-call", "--game", "leduc_holdem", "--hands", "3"],
                       answers)
    assert code == 0
    assert_clean_session(text, 3)
    assert "unknown action 'nonsense'" in text
    assert "board: " in text and "pot " in text
    assert "always-call: call" in text


def test_end_of_input_and_ctrl_c_print_the_final_score(kuhn_run):
    code, text = drive([str(kuhn_run)], ["c"])  # one answer, then Ctrl-D
    assert code == 0 and "Traceback" not in text, text
    assert "final score: you " in text and "hands played: " in text, text

    code, text = drive(["--opponent", "random", "--game", "kuhn_poker"], [], interrupt_at=1)
    assert code == 0 and "Traceback" not in text, text
    assert "final score: you +0 chips over 0 hands" in text and "hands played: 0" in text, text


def test_bad_command_lines_are_one_line_errors(kuhn_run):
    for args in ([], [str(kuhn_run), "--game", "leduc_holdem"], ["--opponent", "nobody"]):
        result = subprocess.run([sys.executable, "play.py", *args], cwd=ROOT, capture_output=True,
                                text=True, stdin=subprocess.DEVNULL, timeout=120)
        assert result.returncode == 2, args
        assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr


# PlaySession through StringIO ----------------------------------------------------------------


def at_first_turn(game_name: str, *after: int, **params) -> object:
    game = load_game(game_name, **params)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        state.apply_action(state.sample_chance_outcome(rng))
    for action in after:
        state.apply_action(action)
        while state.is_chance_node():
            state.apply_action(state.sample_chance_outcome(rng))
    return state


def test_kuhn_actions_by_name_poker_word_prefix_and_number():
    menu = ActionMenu.of(at_first_turn("kuhn_poker"))
    assert menu.listing() == "[0] pass/check  [1] bet"
    for text, action in [("pass", 0), ("check", 0), ("C", 0), ("  Bet ", 1), ("b", 1), ("1", 1)]:
        assert menu.parse(text) == (action, ""), text
    facing = ActionMenu.of(at_first_turn("kuhn_poker", 1))  # the first seat bet
    assert facing.listing() == "[0] pass/fold  [1] bet/call"
    assert facing.parse("fold") == (0, "") and facing.parse("c") == (1, "")


def test_leduc_and_holdem_menus_hint_instead_of_guessing():
    leduc = ActionMenu.of(at_first_turn("leduc_holdem"))
    assert leduc.legal == [1, 2]
    assert leduc.parse("c") == (1, "") and leduc.parse("r") == (2, "")
    action, hint = leduc.parse("0")  # fold is not legal with nothing to call
    assert action is None and hint.startswith("0 is not a legal action here; legal actions:")
    action, hint = leduc.parse("flop")
    assert action is None and "unknown action 'flop'" in hint and "[2] raise" in hint

    holdem = ActionMenu.of(at_first_turn("no_limit_holdem"))
    assert holdem.parse("r 0.5") == (2, "") and holdem.parse("raise 1") == (3, "")
    assert holdem.parse("all") == (4, "") and holdem.parse("ALLIN") == (4, "")
    assert holdem.parse("f") == (0, "") and holdem.parse("call") == (1, "")
    action, hint = holdem.parse("r")
    assert action is None and "could be bet/raise 0.5 pot, bet/raise 1 pot" in hint


def test_score_mean_ci_and_bb_per_100():
    score = Score(chip_unit=100.0, results=[150.0, -100.0, 50.0, 0.0])
    mean = 25.0
    half = 1.959963984540054 * np.std([150, -100, 50, 0], ddof=1) / 2
    assert score.mean == mean and score.ci95 == pytest.approx(half)
    assert score.bb_per_100 == pytest.approx(25.0)
    assert score.bb_per_100_ci95 == pytest.approx(half)
    assert f"95% CI +-{half:.1f}" in score.summary() and "over 4 hands" in score.summary()
    one = Score(chip_unit=1.0, results=[2.0])
    assert math.isinf(one.ci95) and "95% CI needs 2 hands" in one.summary()
    assert Score(1.0).mean == 0.0


class ListRecorder:
    def __init__(self) -> None:
        self.hands: list[tuple[State, list[str]]] = []

    def record(self, state: State, names: Sequence[str] | None = None) -> None:
        assert state.is_terminal() and names is not None
        self.hands.append((state, list(names)))


def session(game_name: str, lines: list[str], hands: int | None, seed: int = 0,
            **params: object) -> tuple[PlaySession, str, ListRecorder]:
    game = load_game(game_name, **params)
    out = io.StringIO()
    recorder = ListRecorder()
    play = PlaySession(game, built_in_opponent("always-call", game), io.StringIO(
        "".join(line + "\n" for line in lines)), out, seed=seed, hands=hands, recorder=recorder)
    play.run()
    return play, out.getvalue(), recorder


def test_session_scores_rotates_seats_and_records_hands():
    play, text, recorder = session("kuhn_poker", ["huh", "", "c"] + ["c"] * 20, hands=4)
    assert [h.human_seat for h in play.finished] == [0, 1, 0, 1]
    assert [names for _, names in recorder.hands] == [
        ["you", "always-call"], ["always-call", "you"], ["you", "always-call"],
        ["always-call", "you"],
    ]
    assert [state for state, _ in recorder.hands] == [h.state for h in play.finished]
    assert play.score.results == [h.payoffs[h.human_seat] for h in play.finished]
    for hand in play.finished:
        assert sum(hand.payoffs) == 0 and hand.state.is_terminal()
        assert hand.history == hand.state.history()
        assert all(name == hand.game.action_to_string(a) for _, a, name in hand.actions)
    assert text.count("unknown action 'huh'") == 1
    assert "hands played: 4" in text and "Traceback" not in text


def test_session_with_three_players_seats_every_player_and_is_reproducible():
    lines = ["c"] * 60
    first, text, _ = session("leduc_holdem", lines, hands=3, seed=5, num_players=3)
    assert [h.human_seat for h in first.finished] == [0, 1, 2]
    assert "always-call#1" in text and "always-call#2" in text
    _, again, _ = session("leduc_holdem", lines, hands=3, seed=5, num_players=3)
    assert again == text


def test_quit_and_end_of_input_stop_mid_hand_without_scoring_it():
    play, text, recorder = session("leduc_holdem", ["help", "quit"], hands=None)
    assert play.score.hands == 0 and recorder.hands == [] and play.finished == []
    assert "legal actions: [1] call/check  [2] raise/bet; type a name" in text
    assert text.endswith("hands played: 0\n")
    play, text, _ = session("kuhn_poker", ["c"] * 3, hands=None)
    assert "final score" in text and play.score.hands >= 1


def test_load_opponent_needs_exactly_one_source(tmp_path):
    with pytest.raises(ConfigError, match="exactly one"):
        load_opponent()
    with pytest.raises(ConfigError, match="exactly one"):
        load_opponent(run=tmp_path, opponent="random")
    with pytest.raises(ConfigError, match="built-in opponents are"):
        load_opponent(opponent="nobody")
    game, opponent = load_opponent(opponent="random", game="kuhn_poker",
                                   game_params={"num_players": 3})
    assert game.num_players == 3 and opponent.label == "random"


# Hand histories ------------------------------------------------------------------------------


def test_hand_history_of_a_terminal_session_reads_back(kuhn_run, tmp_path):
    from pokerzoo.evaluation.hand_history import read_text_log

    path = tmp_path / "hands.txt"
    code, text = drive([str(kuhn_run), "--hands", "3", "--hand-history", str(path)],
                       typos_then("b"))
    assert code == 0 and "Traceback" not in text
    assert f"3 hands written to {path}" in text
    logged = read_text_log(path)
    assert [hand.number for hand in logged] == [1, 2, 3]
    assert [hand.names for hand in logged] == [
        ["you", "cfr_kuhn"], ["cfr_kuhn", "you"], ["you", "cfr_kuhn"]
    ]
    for hand in logged:  # each hand's result line is the one the log keeps
        you = hand.payoffs[hand.names.index("you")]
        assert f"hand {hand.number}: you " + (
            "broke even" if you == 0 else f"{'won' if you > 0 else 'lost'} {abs(you):g} chip"
        ) in text


def test_holdem_session_writes_phh_that_pokerkit_replays_with_the_same_payoffs(tmp_path):
    import pokerkit

    from pokerzoo.evaluation.hand_history import HandRecorder

    game = load_game("no_limit_holdem")
    path = tmp_path / "hands.phhs"
    lines = ["r 0.5", "c", "c", "raise 1", "c", "all", "c"] * 20
    with HandRecorder(game, path) as recorder:
        play = PlaySession(game, built_in_opponent("always-call", game),
                           io.StringIO("".join(f"{line}\n" for line in lines)), io.StringIO(),
                           seed=3, hands=4, recorder=recorder)
        play.run()
    with path.open("rb") as fh:
        histories = list(pokerkit.HandHistory.load_all(fh))
    assert len(histories) == len(play.finished) == 4
    for history, hand in zip(histories, play.finished, strict=True):
        final = list(history)[-1]
        assert dict(zip(history.players, final.payoffs, strict=True)) == dict(
            zip(hand.seat_labels, hand.payoffs, strict=True)
        )
