"""Register the env table's ids with PettingZoo's and Gymnasium's registries.

``register_all()`` (called when ``pokerzoo`` is imported) adds, for every row of
``pokerzoo.envs.registry.ENVS``:

* its AEC env to PettingZoo's registry when it exists (``pettingzoo.register``, PettingZoo
  1.27+): ``pettingzoo.make("aec", "pokerzoo/leduc_holdem-v0")``;
* its single-agent version, where the row has a Gymnasium id, to Gymnasium's:
  ``gymnasium.make("pokerzoo/LeducHoldem-v0", opponent=..., seat=...)``, also reachable as
  ``"pokerzoo:pokerzoo/LeducHoldem-v0"``.

Entry points are strings, so registering imports no env module (the table's rows for games
come from the game registry, which imports the games' modules, not their envs). A game
registered later (a plugin imported after pokerzoo) joins both registries as it registers.
``GYM_IDS`` and ``AEC_IDS`` are live read-only views of the table (rows added by
``register_env`` appear in them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import gymnasium

from pokerzoo.envs.registry import ENVS, EnvSpec

SINGLE_AGENT_ENTRY_POINT = "pokerzoo.wrappers.single_agent:make_single_agent_env"
"""What Gymnasium builds for every Gymnasium id (with ``env=<the AEC env's name>``)."""
VECTOR_ENTRY_POINT = "pokerzoo.envs.gym_vector:make_vector_env"
"""What ``gymnasium.make_vec`` builds for every Gymnasium id: ``PokerVectorEnv``."""


def gym_ids() -> dict[str, str]:
    """Gymnasium id -> name of the AEC env ``SingleAgentEnv`` plays, from the table."""
    return {spec.gym_id: spec.name for spec in ENVS.values() if spec.gym_id is not None}


def aec_ids() -> dict[str, str]:
    """PettingZoo id -> entry point of the AEC env, from the table."""
    return {spec.aec_id: spec.entry_point for spec in ENVS.values() if spec.aec_id is not None}


class _TableView(Mapping[str, str]):
    """A read-only mapping recomputed from the table on every access."""

    def __init__(self, read: Callable[[], dict[str, str]]) -> None:
        self._read = read

    def __getitem__(self, key: str) -> str:
        return self._read()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())

    def __repr__(self) -> str:
        return repr(self._read())


GYM_IDS: Mapping[str, str] = _TableView(gym_ids)
"""Gymnasium id -> env name (a live view of the table)."""
AEC_IDS: Mapping[str, str] = _TableView(aec_ids)
"""PettingZoo id -> AEC entry point (a live view of the table)."""

_done = False


def register_all() -> None:
    """Register every id in the table (idempotent; PettingZoo ids are skipped on PettingZoo
    releases without a registry)."""
    global _done
    if _done:
        return
    _done = True
    for spec in ENVS.values():
        _register(spec)


def register_spec(spec: EnvSpec) -> None:
    """Register one row added after ``register_all`` ran (before, ``register_all`` will)."""
    if _done:
        _register(spec)


def _register(spec: EnvSpec) -> None:
    if spec.gym_id is not None and spec.gym_id not in gymnasium.registry:
        gymnasium.register(
            id=spec.gym_id,
            entry_point=SINGLE_AGENT_ENTRY_POINT,
            vector_entry_point=VECTOR_ENTRY_POINT,
            kwargs={"env": spec.name},
        )
    if spec.aec_id is not None:
        _register_aec(spec.aec_id, spec.entry_point, dict(spec.kwargs))


def _register_aec(pz_id: str, entry_point: str, kwargs: dict[str, Any]) -> None:
    try:
        from pettingzoo import aec_registry
        from pettingzoo import register as pz_register
    except ImportError:  # PettingZoo before 1.27 has no registry to join
        return
    if pz_id not in aec_registry:
        pz_register("aec", pz_id, entry_point, kwargs=kwargs)
