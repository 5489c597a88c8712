"""Tournaments of saved runs for ``evaluate.py``: entrants from run folders, the heatmap PNG."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pokerzoo.errors import ConfigError, TreeTooLargeError
from pokerzoo.evaluation.opponents import make_opponent
from pokerzoo.evaluation.tournament import Entrant, Tournament
from pokerzoo.evaluation.unknown import evaluation_tree
from pokerzoo.games.base import Game
from pokerzoo.runs.config import MAX_TREE_NODES
from pokerzoo.runs.folder import SavedRun
from pokerzoo.runs.load import load_agent
from pokerzoo.tree.game_tree import GameTree

RESERVED_NAMES = ("tournament",)
"""Keys ``evaluate.py --json`` uses next to the run labels."""


def run_policy(run: SavedRun) -> object:
    """What a run plays: its ``policy.npz`` (tabular agents), else its agent restored by
    ``load_agent`` (its ``policy()`` plays), built as ``train.py`` built it."""
    table = run.tabular_policy()
    if table is not None:
        return table
    return load_agent(run.folder)


def run_labels(runs: Sequence[SavedRun]) -> list[str]:
    """Unique labels: the folder name, with parent folders added where two runs (or a run and
    a reserved key) would share one."""
    labels = [r.label for r in runs]
    depth = 1
    while True:
        clash = {lab for lab in labels if labels.count(lab) > 1 or lab in RESERVED_NAMES}
        if not clash:
            return labels
        depth += 1
        new = []
        for run, lab in zip(runs, labels):
            if lab in clash:
                parts = run.folder.resolve().parts
                if depth > len(parts):
                    raise ConfigError(f"run {run.folder} is given more than once")
                lab = "/".join(parts[-depth:])
            new.append(lab)
        labels = new


def run_entrants(runs: Sequence[SavedRun]) -> list[Entrant]:
    """One entrant per run, named by ``run_labels``."""
    return [
        Entrant(label, run_policy(run), "run",
                {"agent": run.config.get("agent"), "folder": str(run.folder)})
        for label, run in zip(run_labels(runs), runs)
    ]


def builtin_entrants(names: Sequence[str], game: Game, taken: Sequence[str] = ()) -> list[Entrant]:
    """Built-in opponents (``pokerzoo.evaluation.opponents``) as entrants; a name a run
    already uses gets a ``builtin:`` prefix."""
    return [
        Entrant(f"builtin:{n}" if n in taken else n, make_opponent(n, game), "builtin")
        for n in names
    ]


def tree_if_fits(game: Game) -> GameTree | None:
    """The tree evaluators score ``game`` on (d*'s for unknown games), or ``None`` where it
    has more histories than ``pokerzoo.runs.run.MAX_TREE_NODES`` (hold'em)."""
    try:
        return evaluation_tree(game, max_nodes=MAX_TREE_NODES)
    except TreeTooLargeError:
        return None


def plot_tournament(tournament: Tournament, path: str | Path) -> Path:
    """Draw the tournament table as a heatmap PNG: rows' winnings against columns (mbb/g) on a
    diverging colour scale centred at 0, each cell annotated with its value (and 95% CI)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    t = tournament
    n = t.size
    if n == 0:
        raise ConfigError("an empty tournament has no heatmap")
    order = t.ranking()
    mean = t.mean_mbb[np.ix_(order, order)]
    ci = t.ci_mbb[np.ix_(order, order)]
    names = [t.names[i] for i in order]
    exact = t.method == "exact"
    side = max(4.0, 0.9 * n + 2.5)
    fig, ax = plt.subplots(figsize=(side + 1.5, side))
    vmax = float(np.abs(mean).max()) or 1.0
    image = ax.imshow(mean, cmap="RdBu", norm=TwoSlopeNorm(0.0, -vmax, vmax))
    size = 9 if n <= 8 else 7 if n <= 14 else 5
    for i in range(n):
        for j in range(n):
            if i == j:
                text = "-"
            elif exact:
                text = f"{mean[i, j]:+.0f}"
            else:
                text = f"{mean[i, j]:+.0f}\n\u00b1{ci[i, j]:.0f}"
            dark = abs(mean[i, j]) > 0.6 * vmax
            ax.text(j, i, text, ha="center", va="center", fontsize=size,
                    color="white" if dark else "black")
    ax.set_xticks(range(n), labels=names, rotation=40, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(n), labels=names)
    ax.set_xlabel("column (opponent)")
    ax.set_ylabel("row (player)")
    how = "exact" if exact else f"{t.hands_per_pairing} hands per pairing, 95% CI"
    ax.set_title(f"{t.game.split('(')[0]}: row's winnings vs column, mbb/g ({how})", fontsize=10)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="mbb/g (row vs column)")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
