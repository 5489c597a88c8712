"""The one 13 x 13 hand-class chart style of ``evaluate.py --strategy-chart`` and
``solve.py --chart``, and the file names of charts drawn at a betting line.

``draw_class_chart`` draws one panel per action (probability 0 white to 1 dark blue; classes
the player does not hold left grey), every cell labelled with its hand class, rank axes
(aces top-left; suited above the diagonal, offsuit below), each panel titled with the
action's frequency, a colour bar and a caption. The PNG is written through
``pokerzoo.atomic.write_figure``, so a link at the path is refused, never followed.

``line_file_name`` names a line's chart after its action labels: ``root.png`` at the root,
``check_bet_94.png`` after ``check, bet 94``.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pokerzoo.atomic import check_target, write_figure
from pokerzoo.games.holdem.cards import RANKS
from pokerzoo.public.spots.ranges import CLASS_NAMES

RANK_AXIS = RANKS[::-1]
"""Ranks along the rows and columns, top / left first (``"AKQJT98765432"``)."""
CAPTION = "suited above the diagonal, offsuit below"
MAX_NAME_CHARS = 120
"""Longest file stem ``line_file_name`` writes out in full (file systems allow 255 bytes);
a longer line keeps its first labels and a hash of the whole line."""


def line_file_name(labels: Sequence[str], suffix: str = ".png") -> str:
    """A safe, readable file name for the chart at a line of action labels: ``[]`` ->
    ``root.png``; ``["check", "bet 94"]`` -> ``check_bet_94.png``; ``["Kh", "allin"]`` ->
    ``Kh_allin.png``. Anything but letters, digits, ``.``, ``+`` and ``-`` becomes ``_``;
    a name too long for a file system is cut and ends in a hash of the whole line, so two
    lines never share a name by being cut."""
    parts = [re.sub(r"[^A-Za-z0-9.+-]+", "_", str(label)).strip("_.") for label in labels]
    stem = "_".join(p for p in parts if p) or "root"
    if len(stem) > MAX_NAME_CHARS:
        digest = hashlib.sha1(",".join(labels).encode("utf-8")).hexdigest()[:10]
        stem = f"{stem[:MAX_NAME_CHARS - 11].rstrip('_.')}_{digest}"
    return stem + suffix


def draw_class_chart(
    panels: Sequence[tuple[str, np.ndarray]], path: str | os.PathLike[str], title: str,
    note: str = "", what: str = "strategy chart", *, vmax: float = 1.0,
    label: str = "probability", cell_text: Sequence[np.ndarray] | None = None,
    caption: str = CAPTION,
) -> Path:
    """Draw one 13 x 13 panel per ``(panel title, matrix)`` (probabilities in 0..1, NaN where
    the player holds no hand of the class) to a PNG at ``path`` with ``title`` and a caption
    (``caption``, then ``note``). Returns the path written. Other scales: values in
    ``0..vmax`` named ``label``; ``cell_text`` (one ``[13, 13]`` array of strings per panel)
    is written under each class name.

    Raises:
        ConfigError: ``path`` is a link, a folder or anything but a new path or a regular
            file, or its folder is missing (checked before anything is drawn).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    check_target(path, what)
    k = max(len(panels), 1)
    fig, axes = plt.subplots(1, k, figsize=(3.6 * k + 0.8, 4.3), squeeze=False,
                             constrained_layout=True)
    cmap = matplotlib.colormaps["Blues"].with_extremes(bad="#dddddd")
    names = np.array(CLASS_NAMES).reshape(13, 13)
    image = None
    for k_panel, (ax, (panel_title, matrix)) in enumerate(zip(axes[0], panels)):
        grid = np.asarray(matrix, dtype=np.float64)
        image = ax.imshow(np.ma.masked_invalid(grid), vmin=0.0, vmax=vmax, cmap=cmap,
                          interpolation="nearest")
        extra = None if cell_text is None else np.asarray(cell_text[k_panel])
        for i, j in zip(*np.indices((13, 13)).reshape(2, -1)):
            dark = bool(np.isfinite(grid[i, j]) and grid[i, j] > 0.6 * vmax)
            text = names[i, j] if extra is None else f"{names[i, j]}\n{extra[i, j]}"
            ax.text(j, i, text, ha="center", va="center",
                    fontsize=4.6 if extra is None else 3.6, color="white" if dark else "black")
        ax.set_title(panel_title, fontsize=9)
        ax.set_xticks(np.arange(13), list(RANK_AXIS), fontsize=6)
        ax.set_yticks(np.arange(13), list(RANK_AXIS), fontsize=6)
        ax.tick_params(length=0)
    caption = caption + (f"; {note}" if note else "")
    fig.suptitle(f"{title}\n{caption}", fontsize=9)
    if image is not None:
        fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8, label=label)
    try:
        return write_figure(fig, path, what=what, dpi=160)
    finally:
        plt.close(fig)


__all__ = ["CAPTION", "RANK_AXIS", "draw_class_chart", "line_file_name"]
