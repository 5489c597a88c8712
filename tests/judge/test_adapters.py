"""Outside players through their adapters: a callable, a program on stdin/stdout, an OpenSpiel
policy and an RLCard agent, each asked every information state and judged with known values;
and bad input, one line each."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import exploitability as os_exploitability

from pokerzoo import load_game
from pokerzoo.errors import ConfigError, PlayerError
from pokerzoo.evaluation import nash_conv
from pokerzoo.games.leduc import LEDUC_VARIANTS
from pokerzoo.judge import programs
from pokerzoo.judge.adapters import ADAPTER_SPECS
from pokerzoo.judge.callables import CallablePlayer, load_callable
from pokerzoo.judge.decision import describe
from pokerzoo.judge.foreign_players import OpenSpielPlayer, RLCardPlayer, openspiel_twin
from pokerzoo.judge.programs import ProgramPlayer, command_args, read_program_line
from pokerzoo.judge.protocol import ask
from pokerzoo.tree import TabularPolicy, build

BOTS = Path(__file__).resolve().parent / "bots"
KUHN = build(load_game("kuhn_poker"))
J, Q, K = 0, 1, 2

# Kuhn's alpha = 0 equilibrium by information state (player, card, history): [pass, bet].
EQUILIBRIUM = {
    (0, J, ()): [1, 0], (0, Q, ()): [1, 0], (0, K, ()): [1, 0],
    (0, J, (0, 1)): [1, 0], (0, Q, (0, 1)): [2 / 3, 1 / 3], (0, K, (0, 1)): [0, 1],
    (1, J, (0,)): [2 / 3, 1 / 3], (1, Q, (0,)): [1, 0], (1, K, (0,)): [0, 1],
    (1, J, (1,)): [1, 0], (1, Q, (1,)): [2 / 3, 1 / 3], (1, K, (1,)): [0, 1],
}


def judged_table(tree, player, sample=0, fallback="check-fold"):
    """The player's answers at every information state of ``tree``, as a TabularPolicy."""
    probs = np.zeros(tree.infoset_mask.shape)
    for infoset in range(tree.num_infosets):
        reply = ask(player, describe(tree.infoset_state(infoset)), sample, fallback=fallback)
        for action, p in reply.probs.items():
            probs[infoset, action] = p
    return TabularPolicy(tree.infoset_keys, probs, tree.infoset_mask, tree.game.name,
                         tree.game.params())


def table_of(tree, rows):
    return TabularPolicy.from_tree(tree, np.array([rows[k] for k in tree.infoset_keys], float))


def kuhn_decision(cards=(K, J), history=()):
    state = load_game("kuhn_poker").new_initial_state()
    for action in (*cards, *history):
        state.apply_action(action)
    return describe(state)


def one_line(error: pytest.ExceptionInfo) -> str:
    text = str(error.value)
    assert "\n" not in text and "Traceback" not in text
    return text


# A Python callable ------------------------------------------------------------------------


def test_a_callable_from_a_file_is_judged_at_kuhns_equilibrium():
    player = load_callable(f"{BOTS / 'kuhn_callables.py'}:equilibrium")
    table = judged_table(KUHN, player)
    np.testing.assert_allclose(table.probs, table_of(KUHN, EQUILIBRIUM).probs, rtol=0,
                               atol=1e-15)
    assert nash_conv(KUHN, table) == pytest.approx(0.0, abs=1e-12)


def test_a_callable_from_a_module_on_the_path_gets_the_sample(monkeypatch):
    monkeypatch.syspath_prepend(str(BOTS))
    player = ADAPTER_SPECS["callable"]("kuhn_callables:by_sample")
    assert isinstance(player, CallablePlayer) and player.takes_sample
    even, odd = (judged_table(KUHN, player, sample) for sample in (0, 5))
    # Kuhn's two actions are legal everywhere: pass (0) on even samples, bet (1) on odd ones.
    assert even.probs.tolist() == [[1.0, 0.0]] * KUHN.num_infosets
    assert odd.probs.tolist() == [[0.0, 1.0]] * KUHN.num_infosets


def test_a_callable_of_one_parameter_is_not_given_the_sample():
    player = CallablePlayer(lambda decision: "bet 1")
    assert not player.takes_sample
    assert ask(player, kuhn_decision(), sample=3).probs == {1: 1.0}


def test_a_callable_that_raises_is_one_player_error():
    player = load_callable(f"{BOTS / 'kuhn_callables.py'}:raises")
    with pytest.raises(PlayerError) as error:
        ask(player, kuhn_decision())
    assert one_line(error) == "the player raised at (0, 2, ()): KeyError: 'no such card'"


@pytest.mark.parametrize(("spec", "message"), [
    ("kuhn", "malformed spec 'kuhn'; expected module:function (a dotted module on the path) "
             "or path/to/bot.py:function"),
    ("mod:", "malformed spec 'mod:'; expected module:function"),
    ("no_such_module_for_the_judge:f", "cannot import module 'no_such_module_for_the_judge': "
                                       "no module named 'no_such_module_for_the_judge'"),
    ("missing/bot.py:f", "cannot import 'missing/bot.py': no such file"),
    (f"{BOTS / 'kuhn_callables.py'}:nothing", "has no attribute 'nothing'; its public names: "
                                              "Decision, NOT_A_FUNCTION, annotations, by_sample"),
    (f"{BOTS / 'kuhn_callables.py'}:NOT_A_FUNCTION", "is not callable (an object of type int)"),
])
def test_bad_callable_specs_are_one_config_error(spec, message):
    with pytest.raises(ConfigError) as error:
        load_callable(spec)
    assert message in one_line(error)


def test_a_module_that_fails_to_import_is_one_config_error(tmp_path):
    broken = tmp_path / "broken_bot.py"
    broken.write_text("import json\nraise RuntimeError('no weights here')\n")
    with pytest.raises(ConfigError) as error:
        load_callable(f"{broken}:play")
    assert one_line(error) == (f"importing {str(broken)!r} failed: RuntimeError: "
                               "no weights here")
    with pytest.raises(ConfigError, match="a callable player needs a function"):
        CallablePlayer(3)


# A program on stdin/stdout --------------------------------------------------------------


def bot(*args: str) -> list[str]:
    return [sys.executable, str(BOTS / args[0]), *args[1:]]


@pytest.fixture(scope="module")
def documented_bot(tmp_path_factory) -> list[str]:
    """The bot of ten lines in ``pokerzoo.judge.programs``' docstring, written to a file: the
    command that runs it."""
    documented = programs.__doc__.split("A bot of ten lines in Python::\n\n")[1]
    code = "\n".join(line[4:] for line in documented.split("\n\nJudge it")[0].splitlines())
    assert sum(1 for line in code.splitlines() if line.strip()) == 10
    path = tmp_path_factory.mktemp("bots") / "bot.py"
    path.write_text(code + "\n")
    return [sys.executable, str(path)]


def test_the_documented_program_is_judged_on_kuhn_with_its_known_table(documented_bot):
    # Bet or call with K, check with J and Q, and fold or call a bet half and half.
    rows = {}
    for player, card, history in EQUILIBRIUM:
        facing = history in ((0, 1), (1,))
        rows[player, card, history] = [0, 1] if card == K else \
            [0.5, 0.5] if facing else [1, 0]
    expected = table_of(KUHN, rows)
    with ProgramPlayer(documented_bot) as player:
        table = judged_table(KUHN, player)
    assert table.probs.tolist() == expected.probs.tolist()
    value = nash_conv(KUHN, table)
    game = pyspiel.load_game("kuhn_poker")
    openspiel_table = os_policy.TabularPolicy(game)
    for state_key, row in zip(openspiel_table.state_lookup,
                              openspiel_table.action_probability_array, strict=True):
        history = tuple("pb".index(c) for c in state_key[1:])  # OpenSpiel's "1pb": Q, pass, bet
        row[:] = rows[len(history) % 2, int(state_key[0]), history]
    assert value == pytest.approx(os_exploitability.nash_conv(game, openspiel_table), abs=1e-12)
    assert value == pytest.approx(nash_conv(KUHN, expected), abs=0)


def test_program_lines_and_command_lines_are_read():
    assert read_program_line(" bet 1 ") == "bet 1"
    assert read_program_line('{"1": 0.25, "check": 0.75}') == {1: 0.25, "check": 0.75}
    assert read_program_line('{"action": "0"}') == 0
    assert command_args('"python bot.py --seed 3"') == ["python", "bot.py", "--seed", "3"]
    assert command_args("python 'my bot.py'") == ["python", "my bot.py"]


def test_an_illegal_answer_is_re_asked_with_the_error_then_falls_back():
    with ProgramPlayer(bot("misbehaving.py", "illegal")) as player:
        reply = ask(player, kuhn_decision(), fallback="check-fold")
    assert (reply.probs, reply.illegal, reply.fallback) == ({0: 1.0}, 2, True)
    with ProgramPlayer(bot("misbehaving.py", "second-try")) as player:
        reply = ask(player, kuhn_decision(), fallback="uniform")
    # The re-ask carried "error", so the bot's second answer was the first legal action.
    assert (reply.probs, reply.illegal, reply.fallback) == ({0: 1.0}, 1, False)


@pytest.mark.parametrize(("mode", "what"), [
    ("exit", "exited (exit code 3) without answering; its last stderr line: "
             "'giving up: no model file'"),
    ("garbage", "printed a line that is not UTF-8 (b'\\xff\\xfe call')"),
    ("empty", "printed an empty line"),
    ("hang", "gave no answer within 0.5 s and was stopped; its last stderr line: "
             "'thinking...'"),
])
def test_a_failing_program_is_one_player_error(mode, what):
    command = bot("misbehaving.py", mode)
    with ProgramPlayer(command, timeout=0.5) as player:
        with pytest.raises(PlayerError) as error:
            ask(player, kuhn_decision())
    name = " ".join(command)
    assert one_line(error) == f"program {name!r}, asked decision (0, 2, ()), {what}"


def test_a_program_printing_two_lines_for_one_decision_is_stopped():
    command = bot("misbehaving.py", "twice")
    with ProgramPlayer(command) as player:
        assert ask(player, kuhn_decision()).probs == {0: 1.0}
        with pytest.raises(PlayerError) as error:
            ask(player, kuhn_decision(history=(0,)))
    assert one_line(error) == (f"program {' '.join(command)!r}, asked decision (1, 0, (0,)), "
                               "had printed more than one line for the decision before "
                               "(b'check\\n') and was stopped")


def test_a_program_that_stopped_is_not_asked_again_and_close_kills_it(documented_bot):
    player = ProgramPlayer(bot("misbehaving.py", "hang"), timeout=0.5)
    process = player.process
    with pytest.raises(PlayerError):
        player.decide(kuhn_decision(), 0)
    assert process.poll() is not None  # killed at the timeout
    with pytest.raises(PlayerError, match="it cannot answer decision"):
        player.decide(kuhn_decision(), 0)
    quiet = ProgramPlayer(documented_bot)
    process = quiet.process
    assert quiet.decide(kuhn_decision(), 0) == "bet 1"
    del quiet
    gc.collect()
    assert process.poll() is not None  # garbage collection killed it
    with ProgramPlayer(documented_bot) as closed:
        pass
    with pytest.raises(PlayerError) as error:
        closed.decide(kuhn_decision(), 0)
    assert one_line(error).endswith("was closed; it cannot answer decision (0, 2, ())")


@pytest.mark.parametrize(("command", "options", "message"), [
    ("", {}, "the program's command is empty"),
    ("python 'bot.py", {}, "cannot split the command \"python 'bot.py\": No closing quotation"),
    ("no-such-program-for-the-judge", {}, "cannot start program "
                                          "'no-such-program-for-the-judge': No such file"),
    (sys.executable, {"timeout": 0}, "timeout must be a positive number of seconds, got 0"),
    (sys.executable, {"cwd": "/no/such/dir"}, "in '/no/such/dir': No such file"),
])
def test_bad_programs_are_one_config_error(command, options, message):
    with pytest.raises(ConfigError) as error:
        ADAPTER_SPECS["cmd"](command, **options)
    assert message in one_line(error)


# An OpenSpiel policy ---------------------------------------------------------------------


def test_the_openspiel_twins_and_games_without_one():
    assert openspiel_twin(load_game("leduc_holdem", num_players=3, num_ranks=4)) == \
        "leduc_poker(players=3)"
    for game in (load_game("leduc_holdem", **LEDUC_VARIANTS["rlcard"]),
                 load_game("leduc_holdem", num_players=3)):
        with pytest.raises(ConfigError) as error:
            openspiel_twin(game)
        assert "has no OpenSpiel twin; OpenSpiel policies are judged on kuhn_poker" in \
            one_line(error)


@pytest.mark.parametrize(("name", "params", "iterations"), [
    ("kuhn_poker", {}, 50),
    ("kuhn_poker", {"num_players": 3}, 10),
    ("leduc_holdem", {}, 3),
])
def test_openspiels_cfr_is_judged_with_openspiels_nash_conv(name, params, iterations):
    tree = build(load_game(name, **params))
    game = pyspiel.load_game(openspiel_twin(tree.game))
    solver = cfr.CFRSolver(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    table = judged_table(tree, OpenSpielPlayer(average))
    expected = os_exploitability.nash_conv(game, average)
    assert expected > 0.01  # not yet at equilibrium: the numbers say something
    assert nash_conv(tree, table) == pytest.approx(expected, abs=1e-12)


def test_an_openspiel_factory_spec_taking_the_game_is_judged_uniform():
    player = ADAPTER_SPECS["openspiel"](f"{BOTS / 'foreign_bots.py'}:uniform")
    table = judged_table(KUHN, player)
    assert table.probs.tolist() == TabularPolicy.uniform(KUHN).probs.tolist()
    assert nash_conv(KUHN, table) == nash_conv(KUHN, TabularPolicy.uniform(KUHN))


def test_an_openspiel_factory_of_no_arguments_plays_its_own_game_only():
    player = ADAPTER_SPECS["openspiel"](f"{BOTS / 'foreign_bots.py'}:kuhn_uniform")
    table = judged_table(KUHN, player)
    assert table.probs.tolist() == TabularPolicy.uniform(KUHN).probs.tolist()
    with pytest.raises(ConfigError) as error:
        player.check_game(load_game("kuhn_poker", num_players=3))
    assert one_line(error) == ("this OpenSpiel policy plays kuhn_poker(); the decision is of "
                               "kuhn_poker(players=3)")


def test_bad_openspiel_players_are_one_line():
    with pytest.raises(ConfigError) as error:
        ADAPTER_SPECS["openspiel"]("uniform")
    assert one_line(error) == ("malformed spec 'openspiel:uniform'; expected "
                               "openspiel:module:object or openspiel:path/to/file.py:object")
    with pytest.raises(ConfigError, match="needs an open_spiel.python.policy.Policy"):
        OpenSpielPlayer(42)
    bad_factory = ADAPTER_SPECS["openspiel"](f"{BOTS / 'foreign_bots.py'}:not_a_policy")
    with pytest.raises(ConfigError, match="returned an object of type int, not a policy"):
        bad_factory.check_game(KUHN.game)
    player = OpenSpielPlayer(os_policy.UniformRandomPolicy(pyspiel.load_game("kuhn_poker")))
    rlcard_leduc = load_game("leduc_holdem", **LEDUC_VARIANTS["rlcard"])
    state = rlcard_leduc.new_initial_state()
    state.apply_action(0)
    state.apply_action(3)
    with pytest.raises(PlayerError) as error:
        ask(player, describe(state))
    assert one_line(error).startswith("the player raised at (0, 0, -1, (), ()): ConfigError: "
                                      "leduc_holdem(num_players=2, ")
    assert "has no OpenSpiel twin; OpenSpiel policies are judged on kuhn_poker" in \
        str(error.value)
    with pytest.raises(ConfigError, match="plays kuhn_poker"):
        player.check_game(load_game("leduc_holdem"))


# An RLCard agent -------------------------------------------------------------------------

RLCARD_LEDUC = build(load_game("leduc_holdem", **LEDUC_VARIANTS["rlcard"]))


def test_rlcards_random_agent_is_judged_uniform():
    player = ADAPTER_SPECS["rlcard"](f"{BOTS / 'foreign_bots.py'}:random_agent")
    table = judged_table(RLCARD_LEDUC, player)
    uniform = TabularPolicy.uniform(RLCARD_LEDUC)
    np.testing.assert_allclose(table.probs, uniform.probs, rtol=0, atol=1e-15)
    assert nash_conv(RLCARD_LEDUC, table) == pytest.approx(nash_conv(RLCARD_LEDUC, uniform),
                                                           abs=1e-12)


def test_rlcards_rule_agent_gives_its_deterministic_table():
    player = ADAPTER_SPECS["rlcard"]("leduc-holdem-rule-v1")
    table = judged_table(RLCARD_LEDUC, player)
    # Its rule: raise whenever it may, else call, else check.
    rows = np.zeros(RLCARD_LEDUC.infoset_mask.shape)
    for infoset in range(RLCARD_LEDUC.num_infosets):
        legal = describe(RLCARD_LEDUC.infoset_state(infoset)).legal
        kinds = {a.kind: a.action for a in legal}
        choice = next(kinds[k] for k in ("raise", "bet", "call", "check") if k in kinds)
        rows[infoset, choice] = 1.0
    assert table.probs.tolist() == rows.tolist()
    assert nash_conv(RLCARD_LEDUC, table) == nash_conv(RLCARD_LEDUC, table_of(
        RLCARD_LEDUC, dict(zip(RLCARD_LEDUC.infoset_keys, rows, strict=True))))


def test_rlcard_has_no_kuhn_and_bad_rlcard_specs_are_one_line():
    player = RLCardPlayer("leduc-holdem-rule-v1")
    with pytest.raises(ConfigError) as error:
        player.check_game(KUHN.game)
    assert one_line(error).startswith("RLCard has no Kuhn poker, so leduc-holdem-rule-v1 "
                                      "cannot be judged on it")
    with pytest.raises(PlayerError, match="RLCard has no Kuhn poker"):
        ask(player, kuhn_decision())
    with pytest.raises(ConfigError) as error:
        ADAPTER_SPECS["rlcard"]("kuhn-cfr")
    assert one_line(error).startswith("unknown RLCard model 'kuhn-cfr'; give one of "
                                      "leduc-holdem-cfr, leduc-holdem-rule-v1")
    with pytest.raises(ConfigError, match="an RLCard agent has use_raw and eval_step"):
        ADAPTER_SPECS["rlcard"](f"{BOTS / 'foreign_bots.py'}:not_a_policy")
    with pytest.raises(ConfigError, match="names a factory that failed with no arguments: "
                                          "TypeError"):
        ADAPTER_SPECS["rlcard"]("rlcard.agents:RandomAgent")
