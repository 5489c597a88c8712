"""pokerzoo against the University of Alberta's ACPC server: matches on its real dealer and
with its example player, each pokerzoo client's log checked against the dealer's, hand by hand.

    python bench/acpc_interop.py --server DIR [--hands 1000] [--run RUN ...]
        [--out bench/results/acpc_interop.md]

DIR is a built ``project_acpc_server`` (``dealer``, ``example_player``, the ``*.game`` files),
built outside the repository; a ``SOURCE`` file there, if any, says where it came from
(``--server-source`` overrides it). ``--run`` adds, per run folder of a hold'em game, a match
of its agent against the example player on the real dealer, with the gamedef pokerzoo writes
for the run's game.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # this checkout's pokerzoo

from common import code_version, library_versions, table

from pokerzoo.games import load_game
from pokerzoo.integrations.acpc.betting import chips_text
from pokerzoo.integrations.acpc.gamedef import gamedef_of
from pokerzoo.integrations.acpc.interop import (
    EXAMPLE,
    MatchReport,
    pokerzoo_dealer_match,
    real_dealer_match,
    server_programs,
)
from pokerzoo.runs.acpc import run_player
from pokerzoo.runs.load import load_agent

GAMEDEFS = ("holdem.limit.2p.reverse_blinds.game", "holdem.nolimit.2p.reverse_blinds.game")
THREE_HANDED = ("holdem.limit.3p.game", "holdem.nolimit.3p.game")
PAIRINGS = (("pokerzoo:random", EXAMPLE), (EXAMPLE, "pokerzoo:random"),
            ("pokerzoo:always-call", EXAMPLE), ("pokerzoo:random", "pokerzoo:always-call"))


def _row(report: MatchReport, players: str, game: str | None = None) -> list[object]:
    score = ", ".join(f"{name} {'+' if value > 0 else ''}{chips_text(value)}"
                      for name, value in report.score.items())
    agreed = ", ".join(f"{a.agreed}/{a.hands}" for a in report.agreements.values())
    clients = report.clients.values()
    return [report.dealer, game or report.game, players, report.hands, score, agreed,
            sum(c.translated for c in clients), sum(c.fallbacks for c in clients),
            report.dealer_fixes, report.seconds]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--server", required=True, help="a built project_acpc_server folder")
    p.add_argument("--server-source", default=None)
    p.add_argument("--hands", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--run", nargs="*", default=[], help="run folders to play too")
    p.add_argument("--out", default="bench/results/acpc_interop.md")
    args = p.parse_args()
    server = Path(args.server)
    server_programs(server)
    source = args.server_source
    if source is None:
        source = ((server / "SOURCE").read_text().strip() if (server / "SOURCE").is_file()
                  else "unknown")
    digest = hashlib.sha256((server / "dealer.c").read_bytes()).hexdigest()[:12]
    started = time.perf_counter()
    rows = []
    reports = []
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        for gamedef in GAMEDEFS:
            for i, players in enumerate(PAIRINGS):
                report = real_dealer_match(server, gamedef, args.hands, players,
                                           Path(tmp) / f"{gamedef}-{i}", seed=args.seed)
                reports.append(report)
                rows.append(_row(report, " vs ".join(players)))
        for gamedef in THREE_HANDED:
            players3 = ("pokerzoo:random", "pokerzoo:always-call", EXAMPLE)
            report = real_dealer_match(server, gamedef, args.hands, players3,
                                       Path(tmp) / gamedef, seed=args.seed)
            reports.append(report)
            rows.append(_row(report, " vs ".join(players3)))
        for run in args.run:
            agent = load_agent(run)
            build = agent.build or {}
            game = load_game(build["game"], **(build.get("game_params") or {}))
            run_gamedef = Path(tmp) / f"{Path(run).name}.game"
            run_gamedef.write_text(gamedef_of(game) + "\n")
            label = Path(run).name
            summary = Path(run) / "summary.json"
            if summary.is_file():
                done = json.loads(summary.read_text())
                notes.append(f"Run `{label}`: {done.get('agent')} on {done.get('game')}, "
                             f"{done.get('iterations_done')} {done.get('units')} of training "
                             "(it is there to play a run folder through the real dealer, not "
                             "for its strength).")
            report = real_dealer_match(server, run_gamedef, args.hands,
                                       [(label, run_player(run, game)), EXAMPLE],
                                       Path(tmp) / label, seed=args.seed)
            reports.append(report)
            rows.append(_row(report, f"run {label} ({agent.name}) vs {EXAMPLE}",
                             f"{build['game']} (pokerzoo's gamedef)"))
        for game_name in ("limit_holdem", "no_limit_holdem"):
            report = pokerzoo_dealer_match(server, game_name, args.hands // 2, "random",
                                           Path(tmp) / game_name, seed=args.seed)
            reports.append(report)
            rows.append(_row(report, f"{EXAMPLE} vs pokerzoo:random"))
    ok = all(report.ok for report in reports)
    gcc = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True,
                         check=False).stdout.strip() or "unknown"
    command = f"python bench/acpc_interop.py --server DIR --hands {args.hands}"
    if args.run:
        command += " --run " + " ".join(Path(run).name for run in args.run)
    lines = [
        "# pokerzoo and the ACPC server (project_acpc_server): interoperation", "",
        f"`{command}` ({time.perf_counter() - started:.0f} s). Code {code_version(Path('.'))}; "
        f"{library_versions()}; {platform.machine()}, 2 cores.", "",
        f"Server: {source}; dealer.c sha256 {digest}, built with its Makefile (gcc {gcc}) "
        "outside the repository.", "",
        "Each row is one match. The real dealer (`dealer match GAMEDEF HANDS SEED p0 p1`) "
        "swaps the seats every hand; pokerzoo's dealer plays duplicate deals (each deal once "
        "per seat order) on the gamedef pokerzoo writes (`--print-gamedef`). *agreed*: hands "
        "of each pokerzoo client's log (`client --log`) with the same betting and the same "
        "chips as the dealer's log (`STATE` lines); *translated*: opponent raises off "
        "pokerzoo's no-limit menu, replayed at the nearest size; *fallbacks*: our turns the "
        "translated hand could not follow (checked/called); *dealer fixes*: actions the "
        "dealer changed to valid ones (the real dealer's `WARNING` lines; the example player "
        "raises off pokerzoo's menu on pokerzoo's dealer). Scores are chips over the match "
        "(limit blinds 5/10, no-limit 50/100 with 20000 stacks on the ACPC files; pokerzoo's "
        "games 50/100 with 10000). The example player seeds its generator from the clock, so "
        "the rows with it differ from one run of this script to the next; the rows of two "
        "pokerzoo clients repeat.", "",
        table(["dealer", "game", "players", "hands", "score", "agreed", "translated",
               "fallbacks", "dealer fixes", "seconds"], rows),
        "", *[note + "\n" for note in notes],
        "Every client log agrees with the dealer's log in every hand."
        if ok else "Some client logs disagree with the dealer's log: see the agreed column.",
    ]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
