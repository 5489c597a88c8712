"""Matches between pokerzoo and the University of Alberta's ACPC server (``project_acpc_server``:
its ``dealer`` and ``example_player``, built from source in a folder of their own), used by
``tests/integrations/acpc/test_real_server.py`` and ``bench/acpc_interop.py``.

* ``real_dealer_match``: the real ``dealer`` hosts pokerzoo clients (threads here) and/or the
  real ``example_player``; each pokerzoo client's log is checked against the dealer's log.
* ``pokerzoo_dealer_match``: pokerzoo's dealer hosts the real ``example_player`` and a
  pokerzoo client, on a gamedef pokerzoo wrote (the example player reads it).
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pokerzoo.errors import ConfigError, PlayerError
from pokerzoo.evaluation.opponents import make_opponent
from pokerzoo.games import load_game
from pokerzoo.integrations.acpc.client import ClientResult, play_on_dealer
from pokerzoo.integrations.acpc.dealer import Dealer
from pokerzoo.integrations.acpc.gamedef import game_of_gamedef, gamedef_of, seats_of_gamedef
from pokerzoo.integrations.acpc.logs import (
    Agreement,
    compare,
    read_client_log,
    read_dealer_log,
)

EXAMPLE = "example_player"
"""A player name meaning the real server's ``example_player``."""


@dataclass(frozen=True)
class MatchReport:
    """What a match came to."""

    dealer: str
    game: str
    hands: int
    """Hands in the dealer's log."""
    score: dict[str, float]
    """Each player's chips, by name, from the dealer's log."""
    agreements: dict[str, Agreement]
    """Each pokerzoo client's log checked against the dealer's log, by name."""
    clients: dict[str, ClientResult]
    seconds: float
    dealer_fixes: int = 0
    """Actions the dealer changed to valid ones (the real dealer's ``WARNING`` lines;
    pokerzoo's ``fixed_actions``)."""

    @property
    def ok(self) -> bool:
        return (self.hands > 0 and bool(self.agreements)
                and all(a.ok for a in self.agreements.values()))


def server_programs(server: str | Path) -> tuple[Path, Path]:
    """The ``dealer`` and ``example_player`` of a built ``project_acpc_server`` folder."""
    folder = Path(server)
    programs = folder / "dealer", folder / EXAMPLE
    for program in programs:
        if not program.is_file():
            raise ConfigError(f"{folder} has no built {program.name} (run make there)")
    return programs


class _Clients:
    """pokerzoo clients on threads; ``join`` returns their results or raises their error."""

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []
        self.results: dict[str, Any] = {}

    def start(self, name: str, **kwargs: Any) -> None:
        def target() -> None:
            try:
                self.results[name] = play_on_dealer(**kwargs)
            except BaseException as exc:  # re-raised by join
                self.results[name] = exc

        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        self.threads.append(thread)

    def join(self, timeout: float) -> dict[str, ClientResult]:
        deadline = time.monotonic() + timeout
        for thread in self.threads:
            thread.join(max(deadline - time.monotonic(), 0.0))
            if thread.is_alive():
                raise PlayerError("a pokerzoo client did not finish in time")
        for result in self.results.values():
            if isinstance(result, BaseException):
                raise result
        return dict(self.results)


def _example(program: Path, gamedef: Path, port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([str(program), str(gamedef), "127.0.0.1", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


Player = str | tuple[str, Any]
"""``example_player``, ``pokerzoo:<built-in opponent>``, or ``(label, policy)``: any policy,
agent or callable ``play_on_dealer`` takes."""


def _label(player: Player) -> str:
    text = player[0] if isinstance(player, tuple) else player.removeprefix("pokerzoo:")
    return text.replace("_", "-").replace(":", "-").replace("|", "-")


def _policy(player: Player, game: Any) -> Any:
    if isinstance(player, tuple):
        return player[1]
    return make_opponent(player.removeprefix("pokerzoo:"), game)


def real_dealer_match(server: str | Path, gamedef_name: str | Path, hands: int,
                      players: Sequence[Player], workdir: str | Path, *, seed: int = 0,
                      timeout: float = 120.0) -> MatchReport:
    """The real ``dealer`` playing ``hands`` hands of the gamedef ``gamedef_name`` (a file of
    the server's folder, or any path) between ``players`` (see ``Player``)."""
    dealer_program, example_program = server_programs(server)
    gamedef = Path(server) / gamedef_name
    text = gamedef.read_text(encoding="utf-8")
    game, seats = game_of_gamedef(text), seats_of_gamedef(text)
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    names = [f"p{i}_{_label(p)}" for i, p in enumerate(players)]
    start = time.monotonic()
    dealer = subprocess.Popen(
        [str(dealer_program), "match", str(gamedef), str(hands), str(seed), *names,
         "-p", ",".join("0" for _ in names)],
        cwd=work, stdout=subprocess.PIPE, stderr=(work / "dealer.err").open("wb"))
    assert dealer.stdout is not None
    ports = [int(p) for p in dealer.stdout.readline().split()]
    if len(ports) != len(names):
        dealer.kill()
        raise PlayerError("the ACPC dealer did not print its ports")
    clients = _Clients()
    examples = []
    try:
        for i, (spec, name, port) in enumerate(zip(players, names, ports, strict=True)):
            if spec == EXAMPLE:
                examples.append(_example(example_program, gamedef, port))
            else:
                clients.start(name, game=game, policy=_policy(spec, game), port=port,
                              seed=seed + i, seats=seats, timeout=timeout,
                              log=work / f"{name}.client.log")
            time.sleep(0.05)  # the dealer accepts its seats in order
        results = clients.join(timeout)
        dealer.wait(timeout)
    finally:
        for process in [dealer, *examples]:
            if process.poll() is None:
                process.kill()
            process.wait()
    if dealer.returncode:
        raise PlayerError(f"the ACPC dealer exited with status {dealer.returncode}")
    log = read_dealer_log((work / "match.log").read_text(encoding="utf-8"))
    agreements = {name: compare(log, read_client_log(
        (work / f"{name}.client.log").read_text(encoding="utf-8"))) for name in results}
    warnings = (work / "dealer.err").read_text(errors="replace").count("WARNING")
    return MatchReport("project_acpc_server dealer", gamedef.name, len(log.hands),
                       log.score or {}, agreements, results, time.monotonic() - start,
                       warnings)


def pokerzoo_dealer_match(server: str | Path, game_name: str, hands: int, opponent: str,
                          workdir: str | Path, *, seed: int = 0,
                          timeout: float = 120.0) -> MatchReport:
    """pokerzoo's dealer playing ``hands`` deals (duplicate: two hands each) of ``game_name``
    between the real ``example_player`` and pokerzoo's ``opponent``."""
    _, example_program = server_programs(server)
    game = load_game(game_name)
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    gamedef = work / f"{game_name}.game"
    gamedef.write_text(gamedef_of(game) + "\n", encoding="utf-8")
    name = f"p1_{opponent.replace('_', '-')}"
    start = time.monotonic()
    dealer = Dealer(game, hands, seed=seed, names=["p0_example", name],
                    acpc_log=work / "match.log", timeout=timeout)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = dealer.run()
        except BaseException as exc:  # re-raised below
            outcome["result"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    example = _example(example_program, gamedef, dealer.ports[0])
    clients = _Clients()
    try:
        time.sleep(0.05)
        clients.start(name, game=game, policy=_policy(opponent, game), port=dealer.ports[1],
                      seed=seed, timeout=timeout, log=work / f"{name}.client.log")
        results = clients.join(timeout)
        thread.join(timeout)
    finally:
        if example.poll() is None:
            example.kill()
        example.wait()
    if isinstance(outcome.get("result"), BaseException):
        raise outcome["result"]
    log = read_dealer_log((work / "match.log").read_text(encoding="utf-8"))
    agreement = compare(log, read_client_log(
        (work / f"{name}.client.log").read_text(encoding="utf-8")))
    return MatchReport("pokerzoo dealer", game_name, len(log.hands), log.score or {},
                       {name: agreement}, results, time.monotonic() - start,
                       outcome["result"].fixed_actions)
