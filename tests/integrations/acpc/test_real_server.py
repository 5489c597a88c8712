"""pokerzoo against the University of Alberta's ACPC server (``project_acpc_server``, built
from source outside the repository): set ``POKERZOO_ACPC_SERVER`` to the folder holding its
built ``dealer`` and ``example_player`` (and its ``*.game`` files); skipped otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pokerzoo.integrations.acpc.interop import (
    EXAMPLE,
    pokerzoo_dealer_match,
    real_dealer_match,
)

SERVER = os.environ.get("POKERZOO_ACPC_SERVER") or ""
pytestmark = pytest.mark.skipif(
    not SERVER or not (Path(SERVER) / "dealer").is_file()
    or not (Path(SERVER) / EXAMPLE).is_file(),
    reason="POKERZOO_ACPC_SERVER does not name a folder with project_acpc_server's built "
           "dealer and example_player")
HANDS = 200
GAMEDEFS = ["holdem.limit.2p.reverse_blinds.game", "holdem.nolimit.2p.reverse_blinds.game"]


@pytest.mark.parametrize("gamedef", GAMEDEFS)
@pytest.mark.parametrize("players", [("pokerzoo:random", EXAMPLE), (EXAMPLE, "pokerzoo:random"),
                                     ("pokerzoo:random", "pokerzoo:always-call")])
def test_the_real_dealer_hosts_pokerzoo(gamedef: str, players: tuple[str, str],
                                        tmp_path: Path) -> None:
    report = real_dealer_match(SERVER, gamedef, HANDS, players, tmp_path, timeout=60)
    assert report.hands == HANDS
    assert sum(report.score.values()) == pytest.approx(0.0)
    for name, agreement in report.agreements.items():
        assert agreement.ok, f"{name}: {agreement.first_disagreement}"
        assert report.score[name] == pytest.approx(report.clients[name].chips)
        assert report.clients[name].fallbacks == 0
    assert report.dealer_fixes == 0  # every action we sent was valid as sent


@pytest.mark.parametrize("gamedef", ["holdem.limit.3p.game", "holdem.nolimit.3p.game"])
def test_three_handed_on_the_real_dealer(gamedef: str, tmp_path: Path) -> None:
    players = ("pokerzoo:random", "pokerzoo:always-call", EXAMPLE)
    report = real_dealer_match(SERVER, gamedef, HANDS, players, tmp_path, timeout=60)
    assert report.hands == HANDS and report.dealer_fixes == 0
    for name, agreement in report.agreements.items():  # side pots, split chips included
        assert agreement.ok, f"{name}: {agreement.first_disagreement}"
        assert report.score[name] == pytest.approx(report.clients[name].chips)


@pytest.mark.parametrize("game", ["limit_holdem", "no_limit_holdem"])
def test_pokerzoos_dealer_hosts_the_example_player(game: str, tmp_path: Path) -> None:
    report = pokerzoo_dealer_match(SERVER, game, HANDS // 2, "random", tmp_path, timeout=60)
    assert report.hands == HANDS
    assert all(a.ok for a in report.agreements.values()), report.agreements
    assert sum(report.score.values()) == pytest.approx(0.0)
