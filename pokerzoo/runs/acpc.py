"""``python -m pokerzoo.runs.acpc dealer|client ...``: the ACPC command line
(``pokerzoo.integrations.acpc.cli``) where a client's ``--opponent`` may also be a run folder."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from pokerzoo.games.base import Game
from pokerzoo.integrations.acpc.cli import main as acpc_main
from pokerzoo.runs.load import load_agent


def _run_folder(path: str, game: Game) -> Any:
    return load_agent(path)


def main(argv: Sequence[str] | None = None) -> int:
    return acpc_main(argv, load_player=_run_folder)


if __name__ == "__main__":
    sys.exit(main())
