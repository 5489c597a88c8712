"""Tournaments of saved runs for ``evaluate.py``: entrants from run folders, the heatmap PNG,
and the report of ``train.py --env`` runs (``foreign_report``: built-in AEC opponents and a
tournament on the env)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from pokerzoo.atomic import check_target, write_figure
from pokerzoo.errors import ConfigError, TreeTooLargeError
from pokerzoo.evaluation.aec_matches import aec_game, aec_versus
from pokerzoo.evaluation.aec_opponents import make_aec_opponent
from pokerzoo.evaluation.opponents import make_opponent
from pokerzoo.evaluation.tournament import Entrant, Tournament, run_tournament
from pokerzoo.evaluation.unknown import evaluation_tree
from pokerzoo.games.base import Game
from pokerzoo.runs.config import MAX_TREE_NODES
from pokerzoo.runs.folder import SavedRun, read_run_config
from pokerzoo.runs.foreign import is_env_spec
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


def is_foreign_folder(folder: str | Path) -> bool:
    """Whether ``folder`` is a ``train.py --env`` run (its ``game`` is ``MODULE:FACTORY``);
    ``False`` for a missing or unreadable folder (opening it as a run says what is wrong)."""
    try:
        return is_env_spec(str(read_run_config(folder)["game"]))
    except (ConfigError, OSError):
        return False


def open_foreign_run(folder: str | Path) -> SavedRun:
    """A ``train.py --env`` run folder as a ``SavedRun`` whose ``game`` is ``None`` (its env
    is built from ``config["game"]`` when played)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"run folder {folder} does not exist")
    return SavedRun(folder, read_run_config(folder), cast(Any, None))


def foreign_report(
    runs: Sequence[SavedRun], opponents: Sequence[str], hands: int, seed: int = 0
) -> tuple[dict[str, dict[str, Any]], Tournament | None]:
    """``train.py --env`` runs of one env, each restored by ``load_agent``, against the
    built-in AEC opponents ``opponents`` (duplicate seeds, every seat) and, on a two-player
    env, a tournament of the runs and those opponents (``hands`` per pairing).

    Returns:
        Per run label: its agent, env and ``vs`` (opponent -> mean reward per hand and its
        95% half-width); and the tournament (``None`` with more than two players or a
        field of one).

    Raises:
        ConfigError: runs of different envs.
    """
    envs = sorted({str(r.config["game"]) for r in runs})
    if len(envs) != 1:
        raise ConfigError(f"the runs trained on different envs {envs}: evaluate one env's "
                          "runs together")
    table = aec_game(envs[0])
    entrants = run_entrants(runs)
    labels = [e.name for e in entrants]
    builtins = [Entrant(f"builtin:{n}" if n in labels else n, make_aec_opponent(n), "builtin")
                for n in opponents]
    results: dict[str, dict[str, Any]] = {
        e.name: {"agent": e.info.get("agent"), "env": envs[0], "vs": {}} for e in entrants
    }
    tournament = None
    field = entrants + builtins
    if table.num_players == 2 and len(field) > 1:
        tournament = run_tournament(table, field, num_deals=max(2, hands // 2), seed=seed)
        for i, e in enumerate(entrants):
            results[e.name]["vs"] = {
                other: {"per_hand": float(tournament.mean_mbb[i, j]) / 1000.0,
                        "ci95": float(tournament.ci_mbb[i, j]) / 1000.0}
                for j, other in enumerate(tournament.names) if j != i
            }
    else:
        for e in entrants:
            for name, b in zip(opponents, builtins):
                r = aec_versus(table, e.policy, name, hands, seed)
                results[e.name]["vs"][b.name] = {"per_hand": r["per_hand"],
                                                 "ci95": r["per_hand_ci95"]}
    return results, tournament


def format_foreign_report(results: dict[str, dict[str, Any]]) -> str:
    """One line per run and opponent: mean reward per hand with its 95% half-width."""
    lines = []
    for label, r in results.items():
        lines.append(f"{label} ({r['agent']}) on {r['env']}: mean reward per hand, all seats")
        for other, v in r["vs"].items():
            lines.append(f"  vs {other}: {v['per_hand']:+.3f} +- {v['ci95']:.3f}")
    return "\n".join(lines)


def tree_if_fits(game: Game) -> GameTree | None:
    """The tree evaluators score ``game`` on (d*'s for unknown games), or ``None`` where it
    has more histories than ``pokerzoo.runs.run.MAX_TREE_NODES`` (hold'em)."""
    try:
        return evaluation_tree(game, max_nodes=MAX_TREE_NODES)
    except TreeTooLargeError:
        return None


def plot_tournament(tournament: Tournament, path: str | Path) -> Path:
    """Draw the tournament table as a heatmap PNG: rows' winnings against columns (mbb/g) on a
    diverging colour scale centred at 0, each cell annotated with its value (and 95% CI);
    written atomically: a link or anything but a regular file at ``path`` is a ConfigError
    (checked before drawing), its target unchanged."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    t = tournament
    n = t.size
    if n == 0:
        raise ConfigError("an empty tournament has no heatmap")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    check_target(path, "heatmap")
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
    try:
        return write_figure(fig, path, what="heatmap", dpi=120)
    finally:
        plt.close(fig)
