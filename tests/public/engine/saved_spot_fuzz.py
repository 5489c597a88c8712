"""Run by ``test_saved_spot_tampering.py`` in its own process: random corruptions of a saved
spot's arrays, each written and loaded, so that a crash of compiled code shows as the process
dying (a negative return code) instead of taking the test run down.

Usage: ``python saved_spot_fuzz.py SAVED_SPOT WORK_FOLDER CASES SEED``; prints one JSON line
``{"refused": n, "equal": n, "generic_loaded": n, "bad": [descriptions]}``.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from pokerzoo.checkpoint import read_checkpoint, write_checkpoint
from pokerzoo.errors import PokerzooError
from pokerzoo.public.engine.results import CHECKPOINT_NAME, load_solver
from pokerzoo.public.spots.holdem_spot import SpotSolution

STORAGE_CORRUPTIONS = ("nan", "inf", "negative", "dtype", "shape", "remove")
TREE_CORRUPTIONS = ("value", "huge", "negative", "nan", "dtype", "shape", "remove")


def _arrays(state: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of every array in the tree, terminals and storage of a saved state."""
    out: list[tuple[Any, ...]] = []
    items = state.items() if isinstance(state, dict) else enumerate(state)
    for key, value in items:
        if isinstance(value, np.ndarray):
            out.append((*prefix, key))
        elif isinstance(value, (dict, list)) and key != "config":
            out.extend(_arrays(value, (*prefix, key)))
    return out


def _corrupt(array: np.ndarray, how: str, rng: np.random.Generator) -> np.ndarray | None:
    if how == "remove":
        return None
    if how == "dtype":
        return array.astype(rng.choice(["float64", "int8", "U3", "complex128", "bool"]))
    if how == "shape":
        flat = array.reshape(-1)
        return flat[:-1].copy() if flat.size and rng.random() < 0.5 else np.append(flat, flat[:1])
    out = array.copy()
    if out.size == 0:
        return np.zeros(3, dtype=array.dtype)
    index = tuple(int(rng.integers(0, s)) for s in out.shape)
    if how == "value":
        out[index] = rng.integers(-3, 60)
    elif how == "huge":
        out[index] = np.iinfo(out.dtype).max if out.dtype.kind in "iu" else 1e300
    elif how == "negative":
        out[index] = -1 - rng.integers(0, 5) if out.dtype.kind != "u" else 0
    elif how == "nan":
        out[index] = np.nan if out.dtype.kind == "f" else -(10**6) % (np.iinfo(out.dtype).max + 1)
    elif how == "inf":
        out[index] = np.inf if out.dtype.kind == "f" else 10**4
    return out


def _same_solver(loaded: Any, original: Any) -> bool:
    keys = ("regrets", "sums", "regrets16", "sums16", "rscale", "sscale")
    tree_a, tree_b = loaded.tree.state_dict(), original.tree.state_dict()
    same_tree = all(
        np.array_equal(tree_a[k], tree_b[k]) for k in tree_b if isinstance(tree_b[k], np.ndarray)
    )
    return same_tree and all(np.array_equal(getattr(loaded, k), getattr(original, k))
                             for k in keys) and loaded.iterations == original.iterations


def main() -> None:
    saved, work, cases, seed = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(
        sys.argv[4])
    rng = np.random.default_rng(seed)
    _, state = read_checkpoint(saved, agent_name=CHECKPOINT_NAME)
    original = load_solver(saved)
    paths = _arrays({k: state[k] for k in ("tree", "terminals", "storage")})
    counts = {"refused": 0, "equal": 0, "generic_loaded": 0}
    bad: list[str] = []
    for case in range(cases):
        path = paths[case % len(paths)]
        storage = path[0] == "storage"
        how = str(rng.choice(STORAGE_CORRUPTIONS if storage else TREE_CORRUPTIONS))
        if how == "negative" and path[-1] in ("regrets", "regrets16"):
            how = "nan"  # a negative regret is a value a solve may store
        generic = case % 4 == 3  # the spot's definition dropped: the structural checks alone
        tampered = copy.deepcopy(state)
        if generic:
            tampered["terminals"]["state"]["spot"] = None
        holder = tampered
        for key in path[:-1]:
            holder = holder[key]
        corrupted = _corrupt(np.asarray(holder[path[-1]]), how, rng)
        if corrupted is None:
            if isinstance(holder, list):
                holder.pop(path[-1])
            else:
                del holder[path[-1]]
        else:
            holder[path[-1]] = corrupted
        target = work / f"case{case}.ckpt"
        write_checkpoint(target, agent_name=CHECKPOINT_NAME, state=tampered)
        what = f"{'generic ' if generic else ''}{'/'.join(map(str, path))} {how}"
        try:
            solver = load_solver(target) if generic else SpotSolution.load(target).solver
        except PokerzooError:
            counts["refused"] += 1
            continue
        except Exception as exc:  # anything but a pokerzoo error is a finding
            bad.append(f"{what}: {type(exc).__name__}: {exc}")
            continue
        finally:
            target.unlink()
        # Loaded: exercise the compiled writes and the evaluation too.
        equal = _same_solver(solver, original)
        try:
            solver.iterate(2)
            solver.exploitability_pct()
        except Exception as exc:
            bad.append(f"{what}: after loading, {type(exc).__name__}: {exc}")
            continue
        if equal:
            counts["equal"] += 1
        elif generic:
            counts["generic_loaded"] += 1  # consistent but different values: not detectable
        else:
            bad.append(f"{what}: loaded with values that differ from the saved spot's")
    print(json.dumps({**counts, "bad": bad}))


if __name__ == "__main__":
    main()
