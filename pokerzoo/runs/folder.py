"""A run folder: what ``train.py`` writes and ``evaluate.py``/``play.py`` read.

A run folder holds ``config.json`` (what was trained), ``metrics.csv`` and ``tensorboard/``
(curves), ``checkpoint.pzc`` (to resume; see ``pokerzoo.checkpoint``), ``policy.npz`` (tabular
agents' average policy) and ``summary.json`` (final numbers). Every file is read as data (JSON,
arrays, tensors with ``weights_only``), so a run folder from anywhere cannot run code.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pokerzoo.agents.base import Agent
from pokerzoo.atomic import write_atomically
from pokerzoo.checkpoint import find_run_checkpoint
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.games.registry import game_class, load_game
from pokerzoo.games.unknown.game import FORMER_DEFAULT_SEED
from pokerzoo.games.unknown.priors import Prior
from pokerzoo.tree.tabular_policy import TabularPolicy


@dataclass
class SavedRun:
    """A run folder as ``train.py`` left it."""

    folder: Path
    config: dict[str, Any]
    game: Game

    @property
    def label(self) -> str:
        return self.folder.name

    @classmethod
    def open(cls, folder: str | Path) -> SavedRun:
        """Read ``config.json``; clear errors for a missing or corrupt folder."""
        folder = Path(folder)
        if not folder.is_dir():
            raise FileNotFoundError(f"run folder {folder} does not exist")
        config = read_run_config(folder)
        try:
            game = load_game(config["game"], **config.get("game_params", {}))
        except ConfigError as exc:
            raise ConfigError(f"{folder / 'config.json'} names a game that cannot be built: "
                              f"{exc}") from exc
        return cls(folder, config, game)

    def tabular_policy(self) -> TabularPolicy | None:
        path = self.folder / "policy.npz"
        return TabularPolicy.load(path) if path.exists() else None


MAX_CONFIG_BYTES = 1 << 20
"""A run's ``config.json`` is a few hundred bytes; a larger one is not read."""


def read_run_config(folder: str | Path) -> dict[str, Any]:
    """A run folder's ``config.json`` as a dict, checked for what the scripts read: one line
    (``ConfigError``) naming what is wrong with a damaged or foreign file.

    Raises:
        FileNotFoundError: the folder has no ``config.json``.
        ConfigError: the file is not UTF-8 JSON holding a table with ``agent`` and ``game``
            names, ``agent_params``/``game_params`` tables and an integer ``seed``.

    An unknown-environment game's ``game_params`` naming no seed (a folder written before such
    games drew their seed) are read with ``seed`` 0, the default their d* was drawn with.
    """
    path = Path(folder) / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"{folder} is not a run folder (no config.json)")
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path} is corrupt: {path.stat().st_size:,} bytes, where a run's "
                          f"config is a few hundred (at most {MAX_CONFIG_BYTES:,} are read)")
    try:
        config = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is corrupt: not UTF-8 text ({exc.reason} at byte "
                          f"{exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path} is corrupt: not JSON ({exc})") from exc
    except RecursionError as exc:
        raise ConfigError(f"{path} is corrupt: nested too deeply to be a run config") from exc
    if not isinstance(config, dict):
        raise ConfigError(f"{path} is corrupt: it holds a JSON {type(config).__name__}, "
                          "where a run config is a JSON object")
    for key in ("agent", "game"):
        if not isinstance(config.get(key), str):
            raise ConfigError(f"{path} is corrupt: {key!r} must be a name (a string), got "
                              f"{config.get(key)!r:.60}")
    for key in ("agent_params", "game_params"):
        if not isinstance(config.get(key, {}), dict):
            raise ConfigError(f"{path} is corrupt: {key!r} must be a JSON object of parameters, "
                              f"got {config.get(key)!r:.60}")
    seed = config.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ConfigError(f"{path} is corrupt: 'seed' must be an integer >= 0, got {seed!r:.60}")
    if "seed" not in config.get("game_params", {}) and _draws_a_seed(config["game"]):
        # Written before unknown games drew their seed (runs record it since): trained in the
        # d* of the default seed of then.
        config["game_params"] = {**config.get("game_params", {}), "seed": FORMER_DEFAULT_SEED}
    return config


def _draws_a_seed(game: str) -> bool:
    """Whether the game ``game`` draws its seed when given none (unknown-environment games)."""
    try:
        return game_class(game).game_type.is_environment
    except ConfigError:
        return False  # an unknown name: SavedRun.open and the run report it


def prepare_folder(out: Path, config: Any, agent: Agent) -> bool:
    """Write ``config.json`` (``config``: a ``RunConfig``); resume from the folder's checkpoint
    when the config matches.

    Raises:
        CheckpointError: if the checkpoint cannot be loaded (damaged, an old pickle
            checkpoint, another agent's); the run does not silently start over.
    """
    out.mkdir(parents=True, exist_ok=True)
    stored = out / "config.json"
    # Fields one level deep (not dataclasses.asdict, which would flatten a prior object into
    # a dict make_prior cannot read back): to_json writes each value as it reads back.
    fields = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    identity = {k: v for k, v in fields.items() if k in IDENTITY}
    if stored.exists():
        try:
            previous = read_run_config(out)
        except ConfigError as exc:
            raise ConfigError(f"{exc}; remove it or pick another --out") from exc
        previous_identity = {k: v for k, v in previous.items() if k in IDENTITY}
        if previous_identity != json.loads(json.dumps(identity, default=to_json)):
            raise ConfigError(
                f"{out} holds a different run ({previous_identity}); pick another --out or "
                "delete the folder"
            )
        # A run killed while writing leaves its half-written temporary files (the files they
        # were to replace are intact, since writes end with a rename); they are ours to remove.
        for stale in [*out.glob("tmp*.tmp"), *out.glob(".*.tmp")]:
            if stale.is_file() and not stale.is_symlink():
                stale.unlink(missing_ok=True)
        checkpoint = find_run_checkpoint(out)
        if checkpoint is not None:
            agent.load(checkpoint)
            return True
    write_json(stored, fields)
    return False


IDENTITY = ("agent", "game", "game_params", "agent_params", "seed")


def pin_drawn_seed(out: Path, config: Any, game: Game) -> tuple[Any, Game]:
    """``config`` (a ``RunConfig``) and ``game`` with the seed an unknown-environment game drew
    recorded in ``game_params``: built without one, the game drew its d* from 128 bits of the
    operating system, and ``config.json`` must hold them for the folder, ``evaluate.py`` and
    ``play.py`` to rebuild the same d*. A folder already holding this run without a seed lends
    it its recorded seed (and the game is rebuilt with it), so the same command resumes in the
    same environment. Any other config and game come back as they are."""
    if not game.game_type.is_environment or "seed" in config.game_params:
        return config, game
    params = dict(config.game_params)
    seed = game.params()["seed"]
    try:
        previous = read_run_config(out) if (out / "config.json").is_file() else {}
    except ConfigError:
        previous = {}  # prepare_folder reports a damaged config.json
    held = dict(previous.get("game_params", {}))
    held_seed = held.pop("seed", None)
    same_run = previous.get("game") == config.game and held == json.loads(
        json.dumps(params, default=to_json)
    )
    pinned = dataclasses.replace(config, game_params={**params, "seed": seed})
    if same_run and held_seed is not None and held_seed != seed:
        pinned = dataclasses.replace(config, game_params={**params, "seed": held_seed})
        game = load_game(config.game, **pinned.game_params)
    return pinned, game


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` atomically; it is serialised before the file is opened, so a value
    JSON cannot hold never leaves a half-written file."""
    text = json.dumps(data, indent=2, default=to_json)
    # Only a new path or a regular file is replaced: a link or a device put in a run folder
    # is refused, never overwritten.
    write_atomically(path, text, what=path.name)


def to_json(value: Any) -> Any:
    """JSON for the values a config or summary may hold beyond JSON's own: priors as the
    spec ``make_prior`` reads, other dataclasses (nested agent configs) as their fields, numpy
    scalars and arrays as numbers and lists, anything else as its ``repr`` (what was used,
    readable, never code)."""
    if isinstance(value, Prior):  # as make_prior reads it back
        return value.spec()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    tolist = getattr(value, "tolist", None)  # numpy scalars and arrays
    if callable(tolist):
        return tolist()
    return repr(value)
