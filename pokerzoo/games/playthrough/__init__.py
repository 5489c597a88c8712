"""Playthroughs, as OpenSpiel keeps them: one fixed-seed walk through each registered game,
written as text (every state's history, whose turn it is, the chance outcomes or the legal
actions by name, each player's information-state key and tensor by field, the public state,
and the returns at the end), so that any change of the rules, the keys or the tensors shows
as a diff.

``python -m pokerzoo.games.playthrough --write`` writes ``tests/playthroughs/<game>.txt`` for
every game pokerzoo ships (``--out DIR`` elsewhere); without ``--write`` it prints the walks.
``tests/games/test_playthroughs.py`` compares each file with a fresh walk.

The walk draws from Python's own ``random.Random(seed)`` (the same numbers on any numpy):
a chance node's outcome by its probabilities, a decision uniformly among the legal actions.

>>> print(playthrough("kuhn_poker").splitlines()[0])
game: kuhn_poker
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.games.registry import game_entry_point, load_game, registered_games

SEED = 0
"""The seed of every walk."""

FOLDER = Path(__file__).resolve().parents[3] / "tests" / "playthroughs"
"""Where ``--write`` puts the files by default: the checkout's ``tests/playthroughs``."""


def _plain(value: Any) -> Any:
    """``value`` with numpy's scalars and arrays as Python's, so its text is numpy's version's
    alike (numpy 2 prints ``np.int64(3)`` where numpy 1 printed ``3``)."""
    if isinstance(value, np.ndarray | np.generic):
        return _plain(value.tolist())
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, float):
        return round(value, 6)
    return value


def _tensor_lines(game: Any, tensor: np.ndarray) -> list[str]:
    """The tensor's nonzero entries field by field (``index=value``), one line per field."""
    lines = []
    for name, view in game.information_state_layout.views(tensor).items():
        flat = np.asarray(view).ravel()
        entries = " ".join(f"{i}={_plain(flat[i])}" for i in np.flatnonzero(flat))
        lines.append(f"    {name}[{flat.size}]: {entries or '-'}")
    return lines


def playthrough(name: str, seed: int = SEED) -> str:
    """The text of one walk through the game ``name``: its default parameters, but ``seed``
    for a game that has a ``seed`` parameter (an unknown environment's draw of its model,
    from the operating system without one)."""
    config_class = load_game(name).config_class
    params = {"seed": seed} if "seed" in {f.name for f in dataclasses.fields(config_class)} else {}
    game = load_game(name, **params)
    rng = random.Random(seed)
    state = game.new_initial_state()
    lines = [f"game: {name}", f"parameters: {params}", f"seed: {seed}",
             f"players: {game.num_players}",
             f"distinct actions: {game.num_distinct_actions}",
             f"max game length: {game.max_game_length}",
             f"information state tensor: {list(game.information_state_shape)}"]
    step = 0
    while True:
        player = state.current_player()
        lines += ["", f"step {step}: history {_plain(state.history())}"]
        lines.append(f"  public state: {_plain(state.public_state())}")
        if state.is_terminal():
            lines.append(f"  terminal; returns {_plain(state.returns())}")
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            probabilities = sorted({round(float(p), 6) for _, p in outcomes})
            action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            lines.append(f"  chance: {len(outcomes)} outcomes, probabilities {probabilities}")
            lines.append(f"  drawn: {action} ({game.action_to_string(action, state)})")
        else:
            lines.append(f"  player {player} to act; private cards "
                         f"{_plain(state.private_cards())}")
            for seat in range(game.num_players):
                lines.append(f"  key[{seat}]: {_plain(state.information_state_key(seat))}")
                lines.append(f"  tensor[{seat}]:")
                lines += _tensor_lines(game, state.information_state_tensor(seat))
            legal = state.legal_actions()
            lines.append("  legal: " + ", ".join(
                f"{a} {game.action_to_string(a, state)}" for a in legal))
            action = rng.choice(legal)
            lines.append(f"  chosen: {action} ({game.action_to_string(action, state)})")
        state.apply_action(action)
        step += 1
    return "\n".join(lines) + "\n"


def own_games() -> list[str]:
    """The games pokerzoo ships (a plugin's games are walked when named)."""
    return [n for n in registered_games() if game_entry_point(n).startswith("pokerzoo.")]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pokerzoo.games.playthrough",
        description="Fixed-seed walks through every registered game, as text.")
    parser.add_argument("--write", action="store_true",
                        help="write <game>.txt into --out instead of printing the walks")
    parser.add_argument("--out", type=Path, default=None,
                        help="the folder --write writes (default: the checkout's "
                             "tests/playthroughs; an installed pokerzoo has none)")
    parser.add_argument("games", nargs="*",
                        help="these games only (default: every game pokerzoo ships)")
    args = parser.parse_args(argv)
    if args.out is None:
        if args.write and not FOLDER.parent.is_dir():
            parser.error(f"no checkout's tests folder at {FOLDER.parent}: give --out DIR")
        args.out = FOLDER
    names = args.games or own_games()
    for name in names:
        text = playthrough(name)
        if args.write:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / f"{name}.txt").write_text(text, encoding="utf-8")
            print(f"wrote {args.out / f'{name}.txt'}")
        else:
            sys.stdout.write(text)
    return 0

