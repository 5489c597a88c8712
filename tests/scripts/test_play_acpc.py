"""``play.py --acpc HOST:PORT``: the agent plays as an ACPC client, here on pokerzoo's own
dealer on 127.0.0.1; bad addresses and refused connections are one line."""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from types import ModuleType

import pytest

from pokerzoo.evaluation.opponents import AlwaysCallPolicy
from pokerzoo.games import load_game
from pokerzoo.integrations.acpc.client import play_on_dealer
from pokerzoo.integrations.acpc.dealer import Dealer
from pokerzoo.integrations.acpc.gamedef import gamedef_of
from pokerzoo.integrations.acpc.logs import compare, read_client_log, read_dealer_log
from pokerzoo.runs.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]


def _play() -> ModuleType:
    spec = importlib.util.spec_from_file_location("play_script", ROOT / "play.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game_flag", [[], ["--acpc-game", "GAMEDEF"]])
def test_a_built_in_opponent_plays_on_pokerzoos_dealer(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str],
                                                       game_flag: list[str]) -> None:
    game = load_game("no_limit_holdem" if game_flag else "limit_holdem")
    if game_flag:
        (tmp_path / "nl.game").write_text(gamedef_of(game))
        game_flag = ["--acpc-game", str(tmp_path / "nl.game")]
    dealer = Dealer(game, 5, seed=3, acpc_log=tmp_path / "match.log", timeout=60)
    play = _play()
    codes: list[int] = []
    client = threading.Thread(target=lambda: codes.append(play.main(
        ["--opponent", "random", "--seed", "1", "--acpc", f"127.0.0.1:{dealer.ports[0]}",
         "--acpc-log", str(tmp_path / "client.log"), *game_flag])))
    caller = threading.Thread(target=lambda: play_on_dealer(game, AlwaysCallPolicy(),
                                                            dealer.ports[1]))
    client.start()
    caller.start()
    result = dealer.run()
    client.join(60)
    caller.join(60)
    assert codes == [0] and result.match.num_hands == 10
    assert "random on the ACPC dealer at 127.0.0.1" in capsys.readouterr().out
    agreement = compare(read_dealer_log((tmp_path / "match.log").read_text()),
                        read_client_log((tmp_path / "client.log").read_text()))
    assert agreement.ok and agreement.hands == 10


@pytest.mark.parametrize(("address", "message"), [
    ("nohost", "--acpc must be HOST:PORT"),
    ("127.0.0.1:70000", "--acpc must be HOST:PORT"),
    ("127.0.0.1:PORT", "--acpc must be HOST:PORT"),
])
def test_a_bad_address_is_one_line(address: str, message: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    play = _play()
    assert run_cli(play.main, ["--opponent", "random", "--acpc", address]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_a_refused_connection_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    dealer = Dealer(load_game("limit_holdem"), 1)
    port = dealer.ports[0]
    dealer.close()  # nothing listens there now
    play = _play()
    assert run_cli(play.main, ["--opponent", "random", "--acpc", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot reach the ACPC dealer at 127.0.0.1" in err


def test_an_agent_of_another_game_than_the_dealers_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "nl.game").write_text(gamedef_of(load_game("no_limit_holdem")))
    play = _play()
    assert run_cli(play.main, ["--opponent", "random", "--game", "limit_holdem", "--acpc",
                               "127.0.0.1:1", "--acpc-game", str(tmp_path / "nl.game")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not the dealer's" in err
