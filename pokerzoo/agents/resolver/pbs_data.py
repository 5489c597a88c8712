"""Datasets of solved public belief states on disk: resumable chunks of ``.npz`` files.

``generate_dataset(folder, game, states)`` draws and solves PBSs (``pokerzoo.agents.resolver.
pbs``) in chunks of ``chunk`` states; chunk ``k`` is drawn from the generator seeded with
``(seed, k)`` and written atomically as ``pbs_<k>.npz`` (numpy arrays only, read with
``allow_pickle=False``) with its game, leaves, solver iterations and sources recorded. Chunks
already in the folder are kept, so an interrupted generation resumes where it stopped, and the
data never depends on how many ``workers`` solved it. ``load_dataset`` reads the chunks back
and refuses another game's (or another setting's) files with a one-line ``ConfigError``.

Sources per state: DeepStack's random states with probability ``1 - policy_share``, else
ReBeL's states reached by play, from one of the given ``reaches`` (``LeafStates.policy_reach``
of each policy) picked uniformly.
"""

from __future__ import annotations

import io
import json
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from pokerzoo.agents.resolver.pbs import LeafStates, StateBatch, game_record
from pokerzoo.atomic import write_atomically
from pokerzoo.errors import ConfigError
from pokerzoo.games.base import Game
from pokerzoo.games.registry import load_game

_PREFIX = "pbs_"

Reach = tuple[np.ndarray, np.ndarray]


def draw_chunk(states: LeafStates, size: int, seed: int, index: int,
               reaches: Sequence[Reach] = (), policy_share: float = 0.5,
               noise: float = 0.5) -> StateBatch:
    """Chunk ``index``: ``size`` PBSs drawn with the generator seeded ``(seed, index)``, solved."""
    rng = np.random.default_rng([seed, index])
    share = policy_share if reaches else 0.0
    from_play = rng.random(size) < share
    source = rng.integers(0, max(len(reaches), 1), size=size)
    nodes, r0, r1 = states.random_states(size, rng)
    for k, reach in enumerate(reaches):
        pick = np.flatnonzero(from_play & (source == k))
        if pick.size:
            nodes[pick], r0[pick], r1[pick] = states.policy_states(pick.size, rng, reach, noise)
    return states.solve_states(nodes, r0, r1)


def _settings(states: LeafStates, leaves: str, seed: int, chunk: int, policy_share: float,
              noise: float, reaches: Sequence[Reach]) -> dict[str, Any]:
    return {**game_record(states.game), "leaves": leaves, "iterations": states.iterations,
            "seed": seed, "chunk": chunk, "policy_share": policy_share, "noise": noise,
            "sources": len(reaches)}


def _write_chunk(path: Path, batch: StateBatch, settings: dict[str, Any]) -> None:
    buffer = io.BytesIO()
    arrays = {f: getattr(batch, f) for f in StateBatch.FIELDS}
    np.savez(buffer, settings=np.array(json.dumps(settings, sort_keys=True)), **arrays)
    write_atomically(path, buffer.getvalue(), what="dataset chunk")


def _worker(job: tuple[dict[str, Any], int, Sequence[Reach], Path]) -> int:
    settings, index, reaches, path = job
    game = load_game(settings["game"], **settings["game_params"])
    states = LeafStates(game, settings["leaves"], settings["iterations"])
    batch = draw_chunk(states, settings["chunk"], settings["seed"], index, reaches,
                       settings["policy_share"], settings["noise"])
    _write_chunk(path, batch, settings)
    return index


def generate_dataset(
    folder: str | os.PathLike, game: Game, states: int, *, chunk: int = 1000,
    seed: int = 0, leaves: str = "round_end", iterations: int = 300,
    reaches: Sequence[Reach] = (), policy_share: float = 0.5, noise: float = 0.5,
    workers: int = 1, progress: bool = True,
) -> StateBatch:
    """Solve ``states`` PBSs of ``game`` into ``folder`` (rounded up to whole chunks),
    resuming from the chunks already there; returns them all (``load_dataset``)."""
    for name, value in (("states", states), ("chunk", chunk), ("workers", workers)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"{name} must be an int >= 1, not {value!r}")
    if not 0.0 <= policy_share <= 1.0:
        raise ConfigError(f"policy_share must be in [0, 1], not {policy_share!r}")
    leaf_states = LeafStates(game, leaves, iterations)
    settings = _settings(leaf_states, leaves, seed, chunk, policy_share, noise, reaches)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    count = -(-states // chunk)
    todo = [k for k in range(count) if not _chunk_path(folder, k).exists()]
    for k in range(count):
        if k not in todo:
            _check(_chunk_path(folder, k), settings)
    bar = tqdm(total=count * chunk, initial=(count - len(todo)) * chunk, unit="PBS",
               desc="solving public belief states", disable=not progress)
    jobs = [(settings, k, tuple(reaches), _chunk_path(folder, k)) for k in todo]
    if workers == 1:
        for job in jobs:
            _write_chunk(job[3], draw_chunk(leaf_states, chunk, seed, job[1], reaches,
                                            policy_share, noise), settings)
            bar.update(chunk)
    else:
        # Spawned, not forked: the parent may hold a CUDA context (the trainer's network).
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            for _ in pool.map(_worker, jobs):
                bar.update(chunk)
    bar.close()
    return load_dataset(folder, game, chunks=count, expect=settings)


def _chunk_path(folder: Path, index: int) -> Path:
    return folder / f"{_PREFIX}{index:05d}.npz"


def _read(path: Path) -> tuple[dict[str, Any], StateBatch]:
    try:
        with np.load(path, allow_pickle=False) as data:
            settings = json.loads(str(data["settings"]))
            batch = StateBatch(*(np.array(data[f]) for f in StateBatch.FIELDS))
    except (OSError, KeyError, ValueError) as exc:
        raise ConfigError(f"{path} is not a readable PBS chunk ({type(exc).__name__}); "
                          "delete it and generate again") from exc
    return settings, batch


def _check(path: Path, expect: dict[str, Any],
           read: tuple[dict[str, Any], StateBatch] | None = None) -> StateBatch:
    settings, batch = _read(path) if read is None else read
    if settings != expect:
        diff = sorted(k for k in set(settings) | set(expect)
                      if settings.get(k) != expect.get(k))
        was = [settings.get(k) for k in diff]
        now = [expect.get(k) for k in diff]
        raise ConfigError(f"{path} was generated with other settings ({', '.join(diff)}: "
                          f"{was}, here {now}); use another folder")
    return batch


def load_dataset(folder: str | os.PathLike, game: Game, chunks: int | None = None,
                 expect: dict[str, Any] | None = None) -> StateBatch:
    """The PBS chunks in ``folder`` (all, or the first ``chunks``) for ``game``."""
    folder = Path(folder)
    paths = sorted(folder.glob(f"{_PREFIX}*.npz"))
    if chunks is not None:
        paths = paths[:chunks]
    if not paths:
        raise ConfigError(f"{folder} holds no PBS chunks ({_PREFIX}*.npz)")
    batches = []
    record = game_record(game)
    for path in paths:
        settings, batch = read = _read(path)
        mine = {k: settings.get(k) for k in record}
        if mine != record:
            raise ConfigError(f"{path} holds states of {mine['game']} {mine['game_params']}, "
                              f"not {record['game']} {record['game_params']}")
        if expect is not None:
            batch = _check(path, expect, read)
        batches.append(batch)
    return StateBatch.concatenate(batches)
