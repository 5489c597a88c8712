""""Add a game", followed for a toy game with no file of pokerzoo edited: a plugin package
declares it in the ``pokerzoo.games`` entry-point group, and the game is then found by
``load_game``, ``pokerzoo.make``, ``pettingzoo.make``, ``gymnasium.make`` and ``train.py --list``,
passes PettingZoo's API test and is solved by CFR+ on its tree.

The plugin lives in a temporary folder (a module and its ``.dist-info`` with
``entry_points.txt``, as ``pip install`` would leave them) put on ``PYTHONPATH``; every check
runs in a fresh interpreter, so the process-wide registries of this test session stay as they
are. The steps are the ones in ``CONTRIBUTING.md`` ("Add a game").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

TOY_GAME = '''
"""High card: two players ante 1 and get one card each from a small deck; the first may check
(showdown for the antes) or bet 1, and the second then calls (showdown for 2 each) or folds."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerzoo.games.base import (
    CHANCE, TERMINAL, Field, Game, GameConfig, GameType, State, TensorLayout, check_int,
)
from pokerzoo.games.registry import register_game

CHECK, BET = 0, 1


@dataclass(frozen=True)
class HighCardConfig(GameConfig):
    """Parameters of high card."""

    num_cards: int = 4
    """Cards in the deck (ranks 0 .. num_cards - 1, all different)."""

    def __post_init__(self) -> None:
        self._set("num_cards", check_int("num_cards", self.num_cards, 2, 52))


class HighCardState(State):
    """A history of high card: the deal, then at most two betting actions."""

    def __init__(self, game: HighCard) -> None:
        self.game = game
        self._cards: list[int] = []
        self._bets: list[int] = []

    def current_player(self) -> int:
        if len(self._cards) < 2:
            return CHANCE
        if not self._bets or self._bets == [BET]:
            return len(self._bets)
        return TERMINAL

    def legal_actions(self, player: int | None = None) -> list[int]:
        who = self.current_player()
        if who == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        return [] if who == TERMINAL else [CHECK, BET]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE:
            return []
        left = [c for c in range(self.game.config.num_cards) if c not in self._cards]
        return [(c, 1.0 / len(left)) for c in left]

    def _apply(self, action: int) -> None:
        (self._cards if self.current_player() == CHANCE else self._bets).append(action)

    def returns(self) -> list[float]:
        if self.current_player() != TERMINAL:
            return [0.0, 0.0]
        if self._bets == [BET, CHECK]:  # the second player folds to the bet
            return [1.0, -1.0]
        stake = 2.0 if self._bets == [BET, BET] else 1.0
        winner = 0 if self._cards[0] > self._cards[1] else 1
        return [stake, -stake] if winner == 0 else [-stake, stake]

    def information_state_key(self, player: int | None = None) -> Hashable:
        p = self._player_or_current(player)
        card = self._cards[p] if p < len(self._cards) else -1
        return (p, card, tuple(self._bets))

    def information_state_tensor(self, player: int | None = None) -> np.ndarray:
        p = self._player_or_current(player)
        layout = self.game.information_state_layout
        tensor = layout.new()
        views = layout.views(tensor)
        views["player"][p] = 1.0
        if p < len(self._cards):
            views["card"][self._cards[p]] = 1.0
        for turn, action in enumerate(self._bets):
            views["betting"][2 * turn + action] = 1.0
        return tensor

    def public_state(self) -> dict[str, Any]:
        contributions = [1, 1]
        for turn, action in enumerate(self._bets):
            contributions[turn] += action
        names = ["check" if a == CHECK else "bet" for a in self._bets]
        return {"pot": sum(contributions), "contributions": contributions,
                "public_cards": [], "betting": [names], "round": 0}

    def private_cards(self) -> list[list[int]]:
        return [[c] for c in self._cards] + [[] for _ in range(2 - len(self._cards))]

    def history(self) -> list[int]:
        return [*self._cards, *self._bets]

    def clone(self) -> HighCardState:
        other = HighCardState(self.game)
        other._cards, other._bets = list(self._cards), list(self._bets)
        return other


@register_game
class HighCard(Game):
    """High card, two players (a toy game of the contributor guide)."""

    name = "high_card"
    config_class = HighCardConfig
    config: HighCardConfig
    game_type = GameType(min_players=2, max_players=2)

    def __init__(self, config: HighCardConfig | None = None, **params: Any) -> None:
        super().__init__(config, **params)
        self._layout = TensorLayout([
            Field("player", 2, "one-hot: the observing player's seat"),
            Field("card", self.config.num_cards, "one-hot: the observer's card"),
            Field("betting", 4, "per betting turn, one-hot check / bet"),
        ])

    @property
    def num_players(self) -> int:
        return 2

    @property
    def num_distinct_actions(self) -> int:
        return 2

    @property
    def max_game_length(self) -> int:
        return 4

    @property
    def information_state_layout(self) -> TensorLayout:
        return self._layout

    def new_initial_state(self) -> HighCardState:
        return HighCardState(self)

    def action_to_string(self, action: int, state: State | None = None) -> str:
        if state is not None and state.is_chance_node():
            return f"deal card {action}"
        return "check" if action == CHECK else "bet"
'''

METADATA = "Metadata-Version: 2.1\nName: toy-games\nVersion: 0.1\n"
ENTRY_POINTS = "[pokerzoo.games]\nhigh_card = toy_games:HighCard\n"


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the toy plugin as an installed distribution would."""
    folder = tmp_path_factory.mktemp("plugin")
    (folder / "toy_games.py").write_text(TOY_GAME, encoding="utf-8")
    info = folder / "toy_games-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(METADATA, encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return folder


def run(plugin: Path, *args: str, code: str | None = None) -> str:
    """Run ``python -c code`` (or ``python args``) with the plugin on ``PYTHONPATH``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(plugin), env.get("PYTHONPATH")]))
    command = [sys.executable, *(["-c", textwrap.dedent(code)] if code else args)]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_plugin_game_is_registered_everywhere(plugin: Path) -> None:
    out = run(plugin, code="""
        import json
        import gymnasium, pettingzoo, pokerzoo
        from pokerzoo.envs.registry import registered_envs
        from pokerzoo.games.registry import registered_games
        game = pokerzoo.load_game("high_card", num_cards=5)
        aec = pokerzoo.make("high_card_v0")
        pz = pettingzoo.make("aec", "pokerzoo/high_card-v0")
        gym = gymnasium.make("pokerzoo/HighCard-v0")
        obs, info = gym.reset(seed=0)
        batch, _ = gymnasium.make_vec("pokerzoo/HighCard-v0", num_envs=3).reset(seed=0)
        print(json.dumps({
            "games": registered_games(), "envs": registered_envs(),
            "game": repr(game), "make": aec.game.name, "pettingzoo": pz.game.name,
            "gymnasium": list(obs.shape), "vector": list(batch.shape),
            "unversioned": pokerzoo.make("high_card").game.name,
        }))
    """)
    found = json.loads(out)
    assert "high_card" in found["games"] and "high_card_v0" in found["envs"]
    assert found["game"] == "high_card(num_cards=5)"
    assert found["make"] == found["pettingzoo"] == found["unversioned"] == "high_card"
    assert found["gymnasium"] == [2 + 4 + 4]  # the tensor: seat, card, betting
    assert found["vector"] == [3, 10]


def test_train_py_lists_the_plugin_game(plugin: Path) -> None:
    out = run(plugin, str(ROOT / "train.py"), "--list")
    games = out.split("games:", 1)[1].split()
    assert "high_card" in games


def test_importing_the_plugin_first_registers_it_too(plugin: Path) -> None:
    # The plugin imports pokerzoo while it is itself being imported: its @register_game then
    # adds its env and ids (pokerzoo's own scan left the half-imported module alone).
    out = run(plugin, code="""
        import toy_games
        import gymnasium, pettingzoo
        print(gymnasium.make("pokerzoo/HighCard-v0").reset(seed=1)[0].shape,
              pettingzoo.make("aec", "pokerzoo/high_card-v0").game.name)
    """)
    assert out.split() == ["(10,)", "high_card"]


def test_the_plugin_env_passes_pettingzoo_api_test(plugin: Path) -> None:
    out = run(plugin, code="""
        from pettingzoo.test import api_test
        import pokerzoo
        api_test(pokerzoo.make("high_card_v0"), num_cycles=200)
        api_test(pokerzoo.make("high_card_v0", num_cards=3), num_cycles=50)
        print("passed")
    """)
    assert out.split()[-1] == "passed"


@pytest.mark.slow
def test_cfr_plus_solves_the_plugin_game(plugin: Path) -> None:
    out = run(plugin, code="""
        from pokerzoo import load_game
        from pokerzoo.agents.cfr.full_width import CFRPlus
        from pokerzoo.evaluation.exact import exploitability
        from pokerzoo.tree import build
        game = load_game("high_card")
        solver = CFRPlus(game)
        solver.iterate(2000)
        print(exploitability(build(game), solver.average_policy()))
    """)
    assert float(out) < 1e-4
