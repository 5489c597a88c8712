"""``render_mode="human"``: the env draws itself after ``reset`` and after every action."""

from __future__ import annotations

import numpy as np
import pytest

from pokerzoo.envs import make

FRAME = "board:"  # one line of every table render_text draws


def play(env, seed: int) -> int:
    """Random legal play of one hand; returns the number of actions (None steps excluded)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    actions = 0
    for _agent in env.agent_iter():
        _, _, terminated, truncated, info = env.last(observe=False)
        action = None if terminated or truncated else int(rng.choice(info["legal_actions"]))
        actions += action is not None
        env.step(action)
    return actions


@pytest.mark.parametrize("name", ["kuhn_poker_v0", "leduc_holdem_v0", "no_limit_holdem_v0"])
def test_human_mode_draws_after_reset_and_each_action(name: str, capsys) -> None:
    env = make(name, render_mode="human")
    env.reset(seed=3)
    first = capsys.readouterr().out
    assert first.count(FRAME) == 1 and "pot" in first and "player_0" in first
    actions = play(env, seed=3)
    out = capsys.readouterr().out
    # one frame per reset and per action; the None steps of finished agents draw nothing
    assert out.count(FRAME) == 1 + actions
    assert env.render() is None  # render() prints the table once more and returns nothing
    assert capsys.readouterr().out.count(FRAME) == 1


def test_human_mode_last_frame_shows_the_result(capsys) -> None:
    env = make("leduc_holdem_v0", render_mode="human")
    env.reset(seed=0)
    env.step(0 if 0 in env.infos[env.agent_selection]["legal_actions"] else 1)
    while env.agents and not env.terminations[env.agent_selection]:
        env.step(1)
    last = capsys.readouterr().out.split("leduc_holdem  round")[-1]
    # at the end every card is shown (no "??") with what each seat was paid
    assert "??" not in last and ("+" in last or "-" in last)


@pytest.mark.parametrize("mode", [None, "ansi"])
def test_other_modes_print_nothing_while_playing(mode, capsys) -> None:
    env = make("leduc_holdem_v0", render_mode=mode)
    play(env, seed=1)
    assert capsys.readouterr().out == ""
    if mode == "ansi":
        assert FRAME in env.render()


def test_a_penalized_illegal_action_is_drawn(capsys) -> None:
    env = make("leduc_holdem_v0", render_mode="human")  # env(): illegal actions end the hand
    env.reset(seed=0)
    capsys.readouterr()
    assert 0 not in env.infos["player_0"]["legal_actions"]  # no fold when checking is free
    env.step(0)
    out = capsys.readouterr().out
    assert out.count(FRAME) == 1 and "-1" in out  # the offender's penalty, as paid
