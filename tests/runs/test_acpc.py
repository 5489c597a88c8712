"""``python -m pokerzoo.runs.acpc``: a run folder or checkpoint plays on the ACPC dealer; one
that cannot is refused in one line."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from pokerzoo.agents.registry import make_agent
from pokerzoo.evaluation.hand_history import read_text_log
from pokerzoo.evaluation.opponents import AlwaysCallPolicy
from pokerzoo.games import load_game
from pokerzoo.integrations.acpc.client import play_on_dealer
from pokerzoo.integrations.acpc.dealer import Dealer
from pokerzoo.runs.acpc import main


def test_a_missing_run_folder_is_one_line(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["client", "--port", "1", "--opponent", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no checkpoint or run folder at" in err


def test_an_agent_of_another_game_is_refused(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    agent = make_agent("cfr+", load_game("leduc_holdem"), seed=0)
    agent.iterate(1)
    agent.save(tmp_path / "leduc.pzc")
    assert main(["client", "--port", "1", "--opponent", str(tmp_path / "leduc.pzc")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not the dealer's" in err and "leduc" in err


def test_a_checkpoint_plays_a_match(tmp_path: Path) -> None:
    game = load_game("limit_holdem")
    agent = make_agent("nfsp", game, seed=0, num_envs=4, min_buffer_size=64, batch_size=32)
    agent.iterate(10)
    agent.save(tmp_path / "nfsp.pzc")
    dealer = Dealer(game, 3, seed=2, log=tmp_path / "match.txt", timeout=60)
    codes: list[int] = []
    run_folder = threading.Thread(target=lambda: codes.append(main(
        ["client", "--port", str(dealer.ports[0]), "--opponent", str(tmp_path / "nfsp.pzc")])))
    caller = threading.Thread(target=lambda: play_on_dealer(game, AlwaysCallPolicy(),
                                                            dealer.ports[1]))
    run_folder.start()
    caller.start()
    result = dealer.run()
    run_folder.join(60)
    caller.join(60)
    assert codes == [0] and result.match.num_hands == 6
    assert len(list(read_text_log(tmp_path / "match.txt"))) == 6
