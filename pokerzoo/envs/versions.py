"""Env versions: the declared history of every env and the fingerprint that pins each version.

The rule (as PettingZoo's): an env's version number moves whenever what it gives a learner
changes — rewards, dynamics (legal actions, who acts, how hands end, what a seed deals) or
observations (layout, encoding, bounds). ``fingerprint(name)`` hashes exactly those: the
agents, the action count, the observation spaces (shapes, dtypes, bounds), the declared
information-state layout, and every agent's observation, mask and reward along a few seeded
hands of random legal play. ``tests/envs/test_env_versions.py`` pins one fingerprint per
env name; when a change moves a fingerprint, register a new ``_vN`` name, add its line to
``HISTORY`` and pin the new fingerprint (the old version's pin stays for as long as it is
offered). A change that moves no fingerprint (speed, messages, rendering) keeps the version;
only an env not yet released is re-pinned in place.

>>> history("leduc_holdem_v0")[0][0]
'v0'
>>> len(fingerprint("kuhn_poker_v0", hands=2))
64
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
from gymnasium import spaces

from pokerzoo.errors import ConfigError

HISTORY: dict[str, dict[int, str]] = {
    "kuhn_poker": {
        0: "Initial release: Kuhn poker for 2-10 players (OpenSpiel's ``kuhn_poker``).",
    },
    "leduc_holdem": {
        0: "Initial release: the Leduc hold'em family (OpenSpiel's ``leduc_poker`` by "
        "default; ranks, suits, antes, raise sizes, caps, blinds and RLCard's rules as "
        "parameters).",
    },
    "limit_holdem": {
        0: "Initial release: limit Texas hold'em, 2-6 players.",
    },
    "no_limit_holdem": {
        0: "Initial release: no-limit Texas hold'em, 2-6 players, pot-fraction bets, "
        "minimum raises and side pots.",
    },
    "unknown_kuhn_poker": {
        0: "Initial release: Kuhn poker with a hidden chance and reward model drawn from a "
        "prior (PSRLCFR's and VCFR's setting).",
    },
    "unknown_leduc_holdem": {
        0: "Initial release: Leduc hold'em with a hidden chance and reward model drawn from a "
        "prior (PSRLCFR's and VCFR's setting).",
    },
    "classic_leduc_holdem": {
        4: "Initial release, numbered as the PettingZoo env it replaces "
        "(``pettingzoo.classic.leduc_holdem_v4``).",
    },
    "classic_texas_holdem": {
        4: "Initial release, numbered as the PettingZoo env it replaces "
        "(``pettingzoo.classic.texas_holdem_v4``).",
    },
    "classic_texas_holdem_no_limit": {
        6: "Initial release, numbered as the PettingZoo env it replaces "
        "(``pettingzoo.classic.texas_holdem_no_limit_v6``).",
    },
}
"""Unversioned env name -> {version: what changed}; every registered ``<name>_vN`` needs its
line here (the docs generator refuses an env without one)."""


def split_name(name: str) -> tuple[str, int]:
    """``"leduc_holdem_v0"`` -> ``("leduc_holdem", 0)``.

    Raises:
        ConfigError: a name without a ``_vN`` suffix.
    """
    base, sep, version = name.rpartition("_v")
    if not sep or not version.isdigit():
        raise ConfigError(f"env name {name!r} has no _vN version suffix")
    return base, int(version)


def history(name: str) -> list[tuple[str, str]]:
    """``[("vN", what changed), ...]`` of env ``name``'s versions up to its own, newest first.

    Raises:
        ConfigError: if ``HISTORY`` has no line for this version (add one when the version
            moves).
    """
    base, version = split_name(name)
    lines = HISTORY.get(base, {})
    if version not in lines:
        raise ConfigError(
            f"HISTORY in pokerzoo/envs/versions.py has no line for {name!r}; add what v{version} "
            "changed"
        )
    return [(f"v{v}", lines[v]) for v in sorted(lines, reverse=True) if v <= version]


def fingerprint(name: str, hands: int = 20, seed: int = 0) -> str:
    """SHA-256 (hex) of what env ``name`` gives a learner (see the module docstring): its
    spaces and layout, then every agent's observation, mask and reward along ``hands`` hands of
    random legal play, hand ``k`` dealt by ``reset(seed=seed + k)``. A hidden-model env is
    built with game seed 0: without one it draws a new d* from the OS each time, and its
    version is about how it plays a d*, not which one it drew."""
    from pokerzoo.envs.registry import make

    env = make(name)
    kind = getattr(getattr(env.unwrapped, "game", None), "game_type", None)
    if kind is not None and kind.hidden_model:
        env.close()
        env = make(name, seed=0)
    digest = hashlib.sha256()
    digest.update(json.dumps(_describe(env), sort_keys=True).encode())
    rng = np.random.default_rng(seed)
    for hand in range(hands):
        env.reset(seed=seed + hand)
        for agent in env.agent_iter():
            _, reward, terminated, truncated, _ = env.last()
            digest.update(f"{agent}:{float(reward)!r}:{terminated}:{truncated}".encode())
            for other in env.possible_agents:
                if other in env.agents:
                    obs = env.observe(other)
                    digest.update(np.ascontiguousarray(obs["observation"]).tobytes())
                    digest.update(np.ascontiguousarray(obs["action_mask"]).tobytes())
            if terminated or truncated:
                env.step(None)
            else:
                mask = np.asarray(env.observe(agent)["action_mask"])
                env.step(int(rng.choice(np.flatnonzero(mask))))
    env.close()
    return digest.hexdigest()


def _describe(env: Any) -> dict[str, Any]:
    agent = env.possible_agents[0]
    described: dict[str, Any] = {
        "agents": list(env.possible_agents),
        "actions": int(env.action_space(agent).n),
        "observation": _space(env.observation_space(agent)),
    }
    layout = getattr(getattr(env.unwrapped, "game", None), "information_state_layout", None)
    if layout is not None:
        described["layout"] = [
            [f.name, f.size, f.low, list(np.atleast_1d(f.high).tolist())] for f in layout.fields
        ]
    return described


def _space(space: Any) -> Any:
    if isinstance(space, spaces.Dict):
        return {key: _space(sub) for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Box):
        return {
            "shape": list(space.shape), "dtype": str(space.dtype),
            "low": np.asarray(space.low, np.float64).tolist(),
            "high": np.asarray(space.high, np.float64).tolist(),
        }
    return repr(space)
