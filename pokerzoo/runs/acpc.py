"""``python -m pokerzoo.runs.acpc dealer|client ...``: the ACPC command line
(``pokerzoo.integrations.acpc.cli``) where a client's ``--opponent`` may also be a run folder."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from pokerzoo.errors import ConfigError
from pokerzoo.games import load_game
from pokerzoo.games.base import Game
from pokerzoo.integrations.acpc.cli import main as acpc_main
from pokerzoo.runs.load import load_agent


def _run_folder(path: str, game: Game) -> Any:
    """The agent of the run folder (or checkpoint) ``path``, refused unless it plays ``game``."""
    try:
        agent = load_agent(path)
    except FileNotFoundError as exc:
        raise ConfigError(f"--opponent {path!r}: {exc}") from None
    build = agent.build or {}
    if build.get("game") is not None:
        trained = load_game(build["game"], **(build.get("game_params") or {}))
        if trained != game:
            raise ConfigError(f"--opponent {path!r} plays {trained!r}, not the dealer's "
                              f"{game!r}")
    return agent


def main(argv: Sequence[str] | None = None) -> int:
    return acpc_main(argv, load_player=_run_folder)


if __name__ == "__main__":
    sys.exit(main())
