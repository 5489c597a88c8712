"""Hand histories: PHH files of hold'em hands load back in PokerKit and pay what was played;
plain-text logs of Kuhn and Leduc hands read back equal to what was played."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
from pokerkit import HandHistory

from pokerzoo.errors import ConfigError
from pokerzoo.evaluation.hand_history import (
    HandRecorder,
    read_text_log,
    record_pairings,
    recording,
)
from pokerzoo.evaluation.head_to_head import head_to_head, play_hand
from pokerzoo.games import load_game
from pokerzoo.games.holdem.cards import card_to_string
from pokerzoo.games.holdem.pokerkit_bridge import pokerkit_index
from pokerzoo.policy import UniformRandomPolicy


class Collect:
    """Wraps a recorder and keeps every finished state it is given (clones), so tests can
    compare the file with what was played."""

    def __init__(self, recorder: HandRecorder) -> None:
        self.recorder = recorder
        self.played: list[tuple[list[int], list[float], list[str]]] = []
        self.states = []

    def record(self, state, names) -> None:
        self.played.append((state.history(), state.returns(), list(names)))
        self.states.append(state.clone())
        self.recorder.record(state, names)


def phh_payoffs(hh: HandHistory) -> list[int]:
    """Replay a loaded hand in PokerKit to its end; its payoffs in PokerKit's player order."""
    final = list(hh)[-1]
    assert not final.status
    return [int(x) for x in final.payoffs]


def play_recorded(game, hands: int, path: Path, seed: int = 0) -> Collect:
    rng = np.random.default_rng(seed)
    names = [f"bot {s}" for s in range(game.num_players)]
    with HandRecorder(game, path) as recorder:
        collect = Collect(recorder)
        pols = [UniformRandomPolicy()] * game.num_players
        for _ in range(hands):
            play_hand(game, pols, rng, recorder=collect, names=names)  # type: ignore[arg-type]
    return collect


def check_phh_file(game, path: Path, collect: Collect) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PokerKit warns about odd fields or dubious actions
        with path.open("rb") as fp:
            loaded = list(HandHistory.load_all(fp))
    assert len(loaded) == len(collect.played)
    n = game.num_players
    for k, (hh, (history, returns, names)) in enumerate(zip(loaded, collect.played)):
        assert hh.variant == ("FT" if game.is_limit else "NT")
        assert hh.hand == k + 1
        theirs = phh_payoffs(hh)
        ours = [theirs[pokerkit_index(game, s)] for s in range(n)]
        assert ours == [int(r) for r in returns], (k, history)
        assert [hh.players[pokerkit_index(game, s)] for s in range(n)] == names
        assert [hh.seats[pokerkit_index(game, s)] for s in range(n)] == list(range(1, n + 1))
        finishing = [hh.finishing_stacks[pokerkit_index(game, s)] for s in range(n)]
        assert finishing == [st + int(r) for st, r in zip(game.starting_stacks, returns)]
        assert hh.user_defined_fields["_pokerzoo_game"] == repr(game)
        state = collect.states[k]
        dealt = [a for a in hh.actions if a.startswith("d dh")]
        for s in range(n):
            cards = "".join(card_to_string(c) for c in state.private_cards()[s])
            assert f"d dh p{pokerkit_index(game, s) + 1} {cards}" in dealt


def test_phh_of_100_three_player_no_limit_hands_loads_back_in_pokerkit(tmp_path: Path) -> None:
    """The issue's check: 100 hands of 3-player no-limit (antes too, so every pot is
    contested) written to a .phhs file load back in PokerKit and pay the same per hand."""
    game = load_game("no_limit_holdem", num_players=3, ante=10)
    path = tmp_path / "hands.phhs"
    collect = play_recorded(game, 100, path, seed=3)
    check_phh_file(game, path, collect)
    # Folds, showdowns and all-ins all occur in 100 random hands.
    actions = [line for line in path.read_text().splitlines() if line.startswith("actions")]
    assert any(" f'" in a for a in actions) and any(" sm " in a for a in actions)


@pytest.mark.parametrize("stacks", [None, (700, 2400)])
def test_phh_of_heads_up_limit_hands_loads_back_in_pokerkit(tmp_path: Path, stacks) -> None:
    """Heads-up seats are swapped in PokerKit (the big blind is its first player): the file's
    players, seats, stacks and payoffs follow; short unequal stacks give all-ins in limit."""
    game = load_game("limit_holdem", num_players=2, stacks=stacks)
    path = tmp_path / "limit.phhs"
    collect = play_recorded(game, 60, path, seed=5)
    check_phh_file(game, path, collect)
    # PokerKit converts the hands to the ACPC protocol (heads-up FT/NT only).
    with path.open("rb") as fp:
        first = next(HandHistory.load_all(fp))
    messages = [m for _, m in first.to_acpc_protocol(0)]
    assert messages and all(m.startswith("MATCHSTATE:0:1:") for m in messages)


def test_head_to_head_records_every_hand_with_the_policies_names(tmp_path: Path) -> None:
    """A duplicate match records each hand of each rotation, the names following the seats;
    the per-policy winnings of the file equal the match's."""
    game = load_game("no_limit_holdem", num_players=3)
    path = tmp_path / "match.phhs"
    pols = [UniformRandomPolicy()] * 3
    with HandRecorder(game, path) as recorder:
        result = head_to_head(game, pols, 10, seed=1, recorder=recorder, names=["a", "b", "c"])
    with path.open("rb") as fp:
        loaded = list(HandHistory.load_all(fp))
    assert len(loaded) == result.num_hands == 30
    won = {"a": 0, "b": 0, "c": 0}
    for hh in loaded:
        for name, chips in zip(hh.players, phh_payoffs(hh)):
            won[name] += chips
    means = [won[name] / result.num_hands for name in "abc"]
    np.testing.assert_allclose(means, result.mean_chips)
    # Rotations: in the first deal "a" sits in seats 1, 2, 3 (PHH numbering) in turn.
    seats_of_a = [hh.seats[hh.players.index("a")] for hh in loaded[:3]]
    assert seats_of_a == [1, 2, 3]


def test_recording_block_reaches_matches_that_do_not_pass_a_recorder(tmp_path: Path) -> None:
    """``recording`` makes every match inside record, e.g. ``versus_random`` (no recorder
    argument); names default to the policies' class names, numbered when they repeat."""
    from pokerzoo.evaluation.matches import versus_random

    game = load_game("kuhn_poker")
    path = tmp_path / "kuhn.log"
    with HandRecorder(game, path) as recorder, recording(recorder):
        versus_random(game, UniformRandomPolicy(), 40, seed=2)
    hands = read_text_log(path)
    assert len(hands) == 40
    assert hands[0].names == ["UniformRandomPolicy 0", "UniformRandomPolicy 1"]
    # Outside the block nothing records.
    head_to_head(game, [UniformRandomPolicy()] * 2, 5, seed=0)
    assert recorder.num_hands == 40


@pytest.mark.parametrize(
    "name, params",
    [
        ("kuhn_poker", {}),
        ("kuhn_poker", {"num_players": 3}),
        ("leduc_holdem", {}),
        ("leduc_holdem", {"num_players": 3, "blinds": (1, 2, 0), "ante": 0}),
    ],
)
def test_text_log_round_trip(tmp_path: Path, name: str, params: dict) -> None:
    """Every hand reads back as played: seats, names, private cards, board, the actions of
    each round by name and seat, payoffs, and a history that replays to those payoffs."""
    game = load_game(name, **params)
    path = tmp_path / "hands.txt"
    collect = play_recorded(game, 200, path, seed=11)
    hands = read_text_log(path)
    assert len(hands) == 200
    for k, (hand, state) in enumerate(zip(hands, collect.states)):
        assert hand.number == k + 1
        assert hand.game == repr(game)
        assert hand.names == [f"bot {s}" for s in range(game.num_players)]
        assert hand.payoffs == state.returns()
        assert hand.history == state.history()
        assert hand.private_cards == [
            [game.card_to_string(c) for c in cards] for cards in state.private_cards()
        ]
        assert hand.board == [game.card_to_string(c) for c in state.public_state()["public_cards"]]
        # The rounds, rebuilt by replaying the history: seats and action names in order.
        replay = game.new_initial_state()
        decisions = []
        for a in hand.history:
            if not replay.is_chance_node():
                decisions.append((replay.current_player(), replay.action_to_string(a)))
            replay.apply_action(a)
        assert [d for r in hand.rounds for d in r] == decisions
        assert replay.returns() == hand.payoffs
        if name == "leduc_holdem" and hand.board:
            assert len(hand.rounds) == 2
        if name == "kuhn_poker":
            assert len(hand.rounds) == 1


def test_text_log_of_holdem_and_of_an_unknown_game(tmp_path: Path) -> None:
    """The text log takes any game: hold'em (a .txt path) and an unknown-environment Kuhn,
    whose hidden model is not in the log, so reading it back needs the game."""
    for game in (load_game("no_limit_holdem", num_players=2),
                 load_game("unknown_kuhn_poker")):
        path = tmp_path / f"{game.name}.txt"
        collect = play_recorded(game, 20, path, seed=4)
        if game.game_type.hidden_model:
            with pytest.raises(ConfigError, match=r"pass the game: read_text_log\(path, game"):
                read_text_log(path)
        hands = read_text_log(path, game=game)
        assert [h.payoffs for h in hands] == [s.returns() for s in collect.states]
        assert [h.history for h in hands] == [s.history() for s in collect.states]


def test_record_pairings_plays_every_pairing(tmp_path: Path) -> None:
    game = load_game("leduc_holdem")
    path = tmp_path / "pairings.txt"
    pols = {"x": UniformRandomPolicy(), "y": UniformRandomPolicy(), "z": UniformRandomPolicy()}
    with HandRecorder(game, path) as recorder:
        record_pairings(game, pols, 10, recorder, seed=0)
    hands = read_text_log(path)
    assert len(hands) == 30  # three pairings, five deals of two hands each
    assert {tuple(sorted(h.names)) for h in hands} == {("x", "y"), ("x", "z"), ("y", "z")}


def test_file_appears_only_at_close_and_keeps_hands_on_error(tmp_path: Path) -> None:
    game = load_game("kuhn_poker")
    path = tmp_path / "k.txt"
    rng = np.random.default_rng(0)
    with pytest.raises(KeyboardInterrupt):
        with HandRecorder(game, path) as recorder:
            play_hand(game, [UniformRandomPolicy()] * 2, rng, recorder=recorder)
            assert not path.exists()
            raise KeyboardInterrupt
    assert len(read_text_log(path)) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["k.txt"]  # no temporary file left
    assert recorder.close() == path  # closing again does nothing
    with pytest.raises(ConfigError, match="closed"):
        play_hand(game, [UniformRandomPolicy()] * 2, rng, recorder=recorder)


def test_errors_say_what_is_allowed(tmp_path: Path) -> None:
    kuhn = load_game("kuhn_poker")
    with pytest.raises(ConfigError, match="plain-text log"):
        HandRecorder(kuhn, tmp_path / "kuhn.phhs")
    with pytest.raises(ConfigError, match="does not exist"):
        HandRecorder(kuhn, tmp_path / "missing" / "k.txt")
    with pytest.raises(ConfigError, match="raise_cap <= 4"):
        HandRecorder(load_game("limit_holdem", raise_cap=5), tmp_path / "l.phhs")
    recorder = HandRecorder(None, tmp_path / "k.txt")
    state = kuhn.new_initial_state()
    with pytest.raises(ConfigError, match="finished hand"):
        recorder.record(state, ["a", "b"])
    for a in (0, 1, 0, 0):
        state.apply_action(a)
    with pytest.raises(ConfigError, match="2 names"):
        recorder.record(state, ["a"])
    with pytest.raises(ConfigError, match="one non-blank line"):
        recorder.record(state, ["a", "b\nc"])
    holdem = load_game("no_limit_holdem")
    one = HandRecorder(holdem, tmp_path / "one.phh")
    rng = np.random.default_rng(0)
    play_hand(holdem, [UniformRandomPolicy()] * 2, rng, recorder=one)
    with pytest.raises(ConfigError, match=r"\.phhs"):
        play_hand(holdem, [UniformRandomPolicy()] * 2, rng, recorder=one)
    one.close()
    with (tmp_path / "one.phh").open("rb") as fp:
        assert phh_payoffs(HandHistory.load(fp))  # a single-hand .phh PokerKit loads


def test_read_text_log_names_the_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("hand: 1\ngame: kuhn_poker()\nseat 0: a K\n")
    with pytest.raises(ConfigError, match="line 3"):
        read_text_log(path)
    path.write_text(json.dumps({"not": "a log"}))
    with pytest.raises(ConfigError, match="line 1"):
        read_text_log(path)


@pytest.mark.slow
def test_evaluate_script_writes_the_hand_history(tmp_path: Path) -> None:
    """``evaluate.py --hand-history``: on Kuhn the tournament is exact (no hands dealt), so
    ``--hands`` hands of each pairing are played for the log, named after the runs and the
    built-in opponents; the scores printed are those without the flag."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]

    def run(*args: str) -> subprocess.CompletedProcess:
        result = subprocess.run([sys.executable, *args], cwd=root, capture_output=True,
                                text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        return result

    for agent in ("cfr", "cfr+"):
        run("train.py", "--agent", agent, "--game", "kuhn_poker", "--iterations", "30",
            "--out", str(tmp_path / agent), "--no-progress")
    runs = [str(tmp_path / "cfr"), str(tmp_path / "cfr+")]
    plain = run("evaluate.py", *runs, "--hands", "20")
    log = tmp_path / "hands.txt"
    recorded = run("evaluate.py", *runs, "--hands", "20", "--hand-history", str(log))
    assert recorded.stdout == plain.stdout
    assert f"60 hands written to {log}" in recorded.stderr
    hands = read_text_log(log)
    assert len(hands) == 60  # three pairings (two runs and random), ten deals of two hands
    assert {tuple(sorted(h.names)) for h in hands} == {
        ("cfr", "cfr+"), ("cfr", "random"), ("cfr+", "random")
    }
    assert all(sum(h.payoffs) == 0 for h in hands)
    bad = subprocess.run([sys.executable, "evaluate.py", *runs, "--hand-history",
                          str(tmp_path / "kuhn.phhs")], cwd=root, capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode != 0 and "plain-text log" in bad.stderr
    assert not (tmp_path / "kuhn.phhs").exists()


# Paths that are not regular files ------------------------------------------------------------


def _link(tmp_path: Path) -> Path:
    (tmp_path / "real.txt").write_text("kept")
    (tmp_path / "hands.txt").symlink_to(tmp_path / "real.txt")
    return tmp_path / "hands.txt"


def _pipe(tmp_path: Path) -> Path:
    os.mkfifo(tmp_path / "hands.txt")
    return tmp_path / "hands.txt"


def _dir(tmp_path: Path) -> Path:
    (tmp_path / "hands.txt").mkdir()
    return tmp_path / "hands.txt"


@pytest.mark.parametrize(("make", "kind"), [(_link, "symbolic link"), (_pipe, "named pipe"),
                                            (_dir, "folder")])
def test_a_path_that_is_not_a_regular_file_is_refused_and_left_alone(tmp_path, make, kind):
    path = make(tmp_path)
    before = os.lstat(path)
    with pytest.raises(ConfigError, match=f"hand history .*it is a {kind}"):
        HandRecorder(load_game("kuhn_poker"), path)
    after = os.lstat(path)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert sorted(p.name for p in tmp_path.iterdir()) in (["hands.txt"],
                                                          ["hands.txt", "real.txt"])
    if kind == "symbolic link":
        assert (tmp_path / "real.txt").read_text() == "kept"


def test_a_link_put_at_the_path_while_playing_is_not_replaced(tmp_path: Path) -> None:
    game = load_game("kuhn_poker")
    path = tmp_path / "hands.txt"
    recorder = HandRecorder(game, path)
    play_hand(game, [UniformRandomPolicy()] * 2, np.random.default_rng(0), recorder=recorder)
    (tmp_path / "real.txt").write_text("kept")
    path.symlink_to(tmp_path / "real.txt")
    with pytest.raises(ConfigError, match="symbolic link"):
        recorder.close()
    assert path.is_symlink() and (tmp_path / "real.txt").read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hands.txt", "real.txt"]


def test_a_regular_file_is_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "hands.txt"
    path.write_text("old contents\n")
    game = load_game("kuhn_poker")
    play_recorded(game, 3, path)
    assert len(read_text_log(path)) == 3


# A hand PokerKit refuses (TDA's cumulative all-in reopening) ---------------------------------

# Six seats, three short stacks. Everyone limps; on the flop seat 0 bets 300 (half the pot),
# seats 1, 2 and 3 go all-in for 450, 650 and 750 (raises of 150, 200 and 100, none a full
# raise of 300), seat 4 calls, seat 5 folds. The raises since seat 0 acted add up to 450, a
# full raise, so the TDA rule (ours) lets seat 0 raise again; PokerKit counted 150 + 200 as a
# reopening already and sees only the 100 since, so it refuses seat 0's raise to 2725.
REOPENING_STACKS = (10_000, 550, 750, 850, 10_000, 10_000)
REOPENING_HISTORY = ([*range(12)] + [1] * 6 + [12, 13, 14] + [2, 4, 4, 4, 1, 0]
                     + [2, 1, 15, 1, 1, 16, 1, 1])


def reopening_hand():
    game = load_game("no_limit_holdem", num_players=6, stacks=REOPENING_STACKS)
    state = game.new_initial_state()
    for a in REOPENING_HISTORY[:27]:
        state.apply_action(a)
    assert state.current_player() == 0 and state.raise_to_amount(2) == 2725
    assert 2 in state.legal_actions()  # the raise TDA's rule allows
    for a in REOPENING_HISTORY[27:]:
        state.apply_action(a)
    assert state.is_terminal()
    return game, state


def test_a_hand_pokerkit_refuses_is_named_or_left_out_and_counted(tmp_path: Path) -> None:
    from pokerzoo.games.holdem.pokerkit_bridge import PokerkitMismatch

    game, hand = reopening_hand()
    strict = HandRecorder(game, tmp_path / "strict.phhs")
    with pytest.raises(PokerkitMismatch, match=r"cannot write hand 1: .*PokerKit refuses seat "
                                               r"0's raise to 2725 .*TDA rule"):
        strict.record(hand)
    assert strict.num_hands == 0

    path = tmp_path / "hands.phhs"
    rng = np.random.default_rng(3)
    with HandRecorder(game, path, skip_unwritable=True) as recorder:
        play_hand(game, [UniformRandomPolicy()] * 6, rng, recorder=recorder)
        recorder.record(hand)
        play_hand(game, [UniformRandomPolicy()] * 6, rng, recorder=recorder)
    assert recorder.num_hands == 2 and len(recorder.skipped) == 1
    summary = recorder.summary()
    assert summary.startswith(f"2 hands written to {path}; 1 hand left out that PHH cannot "
                              "hold (the first: hand 2: ")
    assert "\n" not in summary
    with path.open("rb") as fp:
        loaded = list(HandHistory.load_all(fp))
    assert [hh.hand for hh in loaded] == [1, 3]  # the left-out hand keeps its number
    # The plain-text log holds it, and reads it back by replaying it.
    with HandRecorder(game, tmp_path / "hands.txt") as text:
        text.record(hand)
    assert read_text_log(tmp_path / "hands.txt")[0].history == REOPENING_HISTORY


# Player names --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a\x0cb", "a\u2028b", "a\u2029b", "a\x85b", "a\tb", "a\x00b",
                                  "a\x1cb", "a\ud800b", "a\rb", " "])
def test_names_that_would_break_the_file_are_refused(tmp_path: Path, name: str) -> None:
    for suffix in (".txt", ".phhs"):
        recorder = HandRecorder(None, tmp_path / f"h{suffix}")
        game = load_game("no_limit_holdem")
        with pytest.raises(ConfigError, match="one non-blank line of printable text"):
            play_hand(game, [UniformRandomPolicy()] * 2, np.random.default_rng(0),
                      recorder=recorder, names=[name, "bob"])
        assert recorder.num_hands == 0


def test_unusual_printable_names_read_back_in_both_formats(tmp_path: Path) -> None:
    names = ['Zoë "the rock" \\o/', "ペンギン 🐧 [x], y: z"]
    game = load_game("no_limit_holdem")
    with HandRecorder(game, tmp_path / "h.phhs") as phh, \
            HandRecorder(game, tmp_path / "h.txt") as text:
        collect = Collect(phh)
        play_hand(game, [UniformRandomPolicy()] * 2, np.random.default_rng(0),
                  recorder=collect, names=names)  # type: ignore[arg-type]
        text.record(collect.states[0], names)
    with (tmp_path / "h.phhs").open("rb") as fp:
        hh = list(HandHistory.load_all(fp))[0]
    assert [hh.players[pokerkit_index(game, s)] for s in range(2)] == names
    assert read_text_log(tmp_path / "h.txt")[0].names == names


# Reading a text log: every problem one line --------------------------------------------------


def kuhn_log(tmp_path: Path) -> Path:
    game = load_game("kuhn_poker")
    path = tmp_path / "k.txt"
    with HandRecorder(game, path) as recorder:
        state = game.new_initial_state()
        for a in (2, 0, 1, 1):
            state.apply_action(a)
        recorder.record(state, ["alice", "bob"])
    return path


@pytest.mark.parametrize(("old", "new", "message"), [
    ("payoffs: +2.0 -2.0", "payoffs: +2.0 -1.0", r"sum to 1; kuhn_poker is zero-sum"),
    ("payoffs: +2.0 -2.0", "payoffs: -2.0 +2.0", r"its payoffs \[-2.0, 2.0\] are not what"),
    ("payoffs: +2.0 -2.0", "payoffs: nan -2.0", r"not all finite"),
    ("history: 2 0 1 1", "history: 2 0 1 7", r"does not replay: illegal action 7"),
    ("history: 2 0 1 1", "history: 2 0 1", r"ends before the hand is over"),
    ("history: 2 0 1 1", "history: 2 0 1 1 1", r"goes on after the hand ended"),
    ("seat 0: alice [K]", "seat 0: alice [Q]", r"its private cards \[\['Q'\], \['J'\]\] are"),
    ("round 1: 0 bet, 1 bet", "round 1: 0 bet, 1 pass", r"its rounds .* are not what"),
    ("kuhn_poker(num_players=2)", "kuhn_poker(num_players=3)", r"3 players"),
    ("kuhn_poker(num_players=2)", "no_such_game()", r"cannot rebuild its game"),
    ("kuhn_poker(num_players=2)", "__import__('os').system('true')", r"is not name\(param"),
    ("kuhn_poker(num_players=2)", "kuhn_poker(num_players=2" + ")" * 50, r"is not name"),
])
def test_a_log_that_does_not_replay_is_refused_naming_the_hand(tmp_path, old, new, message):
    path = kuhn_log(tmp_path)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    with pytest.raises(ConfigError, match=message) as info:
        read_text_log(path)
    assert "hand starting at line 3" in str(info.value) and "\n" not in str(info.value)


def test_binary_and_special_files_are_one_line_errors(tmp_path: Path) -> None:
    path = tmp_path / "binary.txt"
    path.write_bytes(b"hand: 1\n\xff\xfe\x00junk")
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(byte 0xff at offset 8\)"):
        read_text_log(path)
    os.mkfifo(tmp_path / "pipe.txt")
    with pytest.raises(ConfigError, match="not a regular file"):
        read_text_log(tmp_path / "pipe.txt")  # would block forever if opened
    with pytest.raises(ConfigError, match="not a regular file"):
        read_text_log(tmp_path)
    with pytest.raises(ConfigError, match="No such file"):
        read_text_log(tmp_path / "missing.txt")
    with pytest.raises(ConfigError, match="file path"):
        read_text_log(b"k.txt")  # type: ignore[arg-type]
    game = load_game("leduc_holdem")
    with pytest.raises(ConfigError, match=r"played in kuhn_poker\(num_players=2\), not in the "
                                          r"game given"):
        read_text_log(kuhn_log(tmp_path), game=game)
