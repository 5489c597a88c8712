"""Text (and image) rendering of a poker table, kept apart from the rules and the env.

Only the documented ``State.public_state()`` keys and ``private_cards()`` are used, so every
game renders the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pokerzoo.games.base import Game, State


def render_text(
    game: Game,
    state: State,
    viewer: int | None,
    agents: Sequence[str] | None = None,
    paid: Sequence[float] | None = None,
) -> str:
    """A readable table: the cards ``viewer`` may see, pot, stacks and the betting so far.

    ``viewer`` is the seat whose private cards are shown (``None``: nobody's); at the end of
    the hand every card is shown, as at a showdown, with ``paid`` (what each seat received;
    default ``state.returns()``). Passing ``paid`` says the hand is over, also when it ended
    before a terminal state (an env ending it on a penalized illegal action).
    """
    n = game.num_players
    agents = list(agents) if agents is not None else [f"player_{i}" for i in range(n)]
    pub = state.public_state()
    over = state.is_terminal() or paid is not None
    to_act = state.current_player()
    private = state.private_cards()
    returns = (list(paid) if paid is not None else state.returns()) if over else None
    stacks = pub.get("stacks")
    folded = pub.get("folded", [False] * n)
    lines = [f"{game.name}  round {pub['round']}  pot {pub['pot']}"]
    board = " ".join(game.card_to_string(c) for c in pub["public_cards"]) or "-"
    lines.append(f"board: {board}")
    header = ["seat", "cards", "put in"] + (["stack"] if stacks is not None else []) + ["status"]
    rows = [header]
    for p in range(n):
        if over or p == viewer:
            cards = " ".join(game.card_to_string(c) for c in private[p]) or "-"
        else:
            cards = " ".join("??" for _ in private[p]) or "-"
        if returns is not None:
            status = f"{returns[p]:+g}"
        elif folded[p]:
            status = "folded"
        elif p == to_act:
            status = "to act"
        else:
            status = ""
        row = [agents[p], cards, str(pub["contributions"][p])]
        if stacks is not None:
            row.append(str(stacks[p]))
        rows.append(row + [status])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    for r, actions in enumerate(pub["betting"]):
        lines.append(f"betting round {r}: {' '.join(actions) if actions else '-'}")
    return "\n".join(lines)


def text_to_rgb(text: str, width: int = 480, height: int = 240) -> np.ndarray:
    """Draw ``text`` in a monospace font on a white ``[height, width, 3]`` uint8 frame."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    dpi = 100
    fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    fig.text(0.01, 0.98, text, family="monospace", fontsize=8, va="top", ha="left")
    canvas.draw()
    frame = np.asarray(canvas.buffer_rgba())[..., :3]
    return np.ascontiguousarray(frame, dtype=np.uint8)
