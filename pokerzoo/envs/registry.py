"""The env table behind ``pokerzoo.make``, PettingZoo's and Gymnasium's registries.

``ENVS`` is the one list of named envs: each row gives the env name, the module with
``env(**kw)`` and ``raw_env(**kw)``, the game it plays, its PettingZoo AEC id and (for envs with
a single-agent version) its Gymnasium id. ``make``, ``registered_envs`` and
``pokerzoo.envs.registration`` all read it. Modules are named by strings, so listing envs or
rejecting an unknown name imports none of them.

Every registered game (``pokerzoo.games.registry``, plugins included) has a row, derived from
its name and what its class declares (``game_type.env_version``, ``single_agent_env``) by
``game_env_spec``: ``<name>_v<N>``, ``pokerzoo/<name>-v<N>`` and ``pokerzoo/<CamelName>-v<N>``.
The row's module is ``pokerzoo.envs.<name>_v<N>`` where pokerzoo has one (an env page with its
own docstring), else ``pokerzoo.envs.game_env``, called with ``game=<name>``. Games registered
after this module was imported join the table (and PettingZoo's and Gymnasium's registries)
as they register. The rows written below are the envs that are not a game's own: drop-ins for
other libraries' envs.

>>> env_spec("leduc_holdem_v0").gym_id
'pokerzoo/LeducHoldem-v0'
>>> game_env_spec(games.game_class("kuhn_poker")).aec_id
'pokerzoo/kuhn_poker-v0'
>>> env = make("kuhn_poker_v0")
>>> env.reset(seed=0)
>>> env.agent_selection
'player_0'
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import warnings
from dataclasses import dataclass
from typing import Any

from pokerzoo import entry_points
from pokerzoo.errors import ConfigError
from pokerzoo.games import registry as games
from pokerzoo.games.base import Game


@dataclass(frozen=True)
class EnvSpec:
    """One row of the env table (nothing in it is imported until the env is built)."""

    name: str
    """The name ``make`` takes, e.g. ``"leduc_holdem_v0"``."""
    module: str
    """Module with ``env(**kw)`` and ``raw_env(**kw)``."""
    game: str
    """The ``load_game`` name of the game it plays."""
    aec_id: str | None = None
    """PettingZoo id: ``pettingzoo.make("aec", aec_id)``."""
    gym_id: str | None = None
    """Gymnasium id of the single-agent version (``SingleAgentEnv``), if it has one."""
    kwargs: tuple[tuple[str, Any], ...] = ()
    """Keywords the entry points are always called with (``(("game", name),)`` for the rows
    that build their env through ``pokerzoo.envs.game_env``)."""

    @property
    def entry_point(self) -> str:
        """``"module:env"``: what PettingZoo's registry builds."""
        return f"{self.module}:env"

    @property
    def raw_entry_point(self) -> str:
        """``"module:raw_env"``: the env whose illegal actions raise."""
        return f"{self.module}:raw_env"


_TABLE = (
    # Drop-ins for PettingZoo's classic leduc_holdem_v4, texas_holdem_v4 and
    # texas_holdem_no_limit_v6 (RLCard's games).
    EnvSpec(
        "classic_leduc_holdem_v4", "pokerzoo.integrations.pettingzoo_classic.leduc_holdem_v4",
        "leduc_holdem", "pokerzoo/classic_leduc_holdem-v4",
    ),
    EnvSpec(
        "classic_texas_holdem_v4", "pokerzoo.integrations.pettingzoo_classic.texas_holdem_v4",
        "limit_holdem", "pokerzoo/classic_texas_holdem-v4",
    ),
    EnvSpec(
        "classic_texas_holdem_no_limit_v6",
        "pokerzoo.integrations.pettingzoo_classic.texas_holdem_no_limit_v6", "no_limit_holdem",
        "pokerzoo/classic_texas_holdem_no_limit-v6",
    ),
)

ENVS: dict[str, EnvSpec] = {spec.name: spec for spec in _TABLE}
"""Env name -> ``EnvSpec``: the rows above, one derived row per registered game, and the rows
``register_env`` adds for envs defined outside pokerzoo."""

GAME_ENV_MODULE = "pokerzoo.envs.game_env"
"""What derived rows build their env with (``env(game=name, **kw)``)."""


def camel_name(name: str) -> str:
    """``"no_limit_holdem"`` -> ``"NoLimitHoldem"``: the name part of Gymnasium ids."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def game_env_spec(game: Game | type[Game]) -> EnvSpec:
    """The row derived from a game (or game class): env ``<name>_v<N>``, PettingZoo id
    ``pokerzoo/<name>-v<N>`` and, where it declares a single-agent version, Gymnasium id
    ``pokerzoo/<CamelName>-v<N>`` (``N`` is its ``game_type.env_version``); built by the env
    module ``pokerzoo.envs.<name>_v<N>`` if pokerzoo has one (found without importing it),
    else by ``pokerzoo.envs.game_env`` with ``game=<name>``."""
    name, kind = game.name, game.game_type
    version = kind.env_version
    env_name = f"{name}_v{version}"
    gym_id = f"pokerzoo/{camel_name(name)}-v{version}" if kind.single_agent_env else None
    aec_id = f"pokerzoo/{name}-v{version}"
    own = f"{__package__}.{env_name}"
    if importlib.util.find_spec(own) is not None:
        return EnvSpec(env_name, own, name, aec_id, gym_id)
    return EnvSpec(env_name, GAME_ENV_MODULE, name, aec_id, gym_id, (("game", name),))


def _add_game(cls: type[Game]) -> None:
    """Give a registered game its derived row, unless it has one already."""
    spec = game_env_spec(cls)
    known = ENVS.get(spec.name)
    if known is not None and known.game == spec.game:
        return
    clashes = sorted(
        other.name for other in ENVS.values()
        if other.name == spec.name or _shared_id(other, spec)
    )
    if clashes:
        warnings.warn(
            f"the game {cls.name!r} gets no env: its env {spec.name!r} or ids {spec.aec_id!r}, "
            f"{spec.gym_id!r} are those of {clashes}; declare another game_type.env_version or "
            "rename the game",
            games.GamePluginWarning, stacklevel=2,
        )
        return
    ENVS[spec.name] = spec
    # Once registration has run, a late game joins PettingZoo's and Gymnasium's registries
    # now; before, register_all reads the row from the table.
    registration = sys.modules.get("pokerzoo.envs.registration")
    if registration is not None:
        registration.register_spec(spec)


def _add_games() -> None:
    for cls in games.game_classes().values():
        _add_game(cls)
    games.on_register(_add_game)


def register_env(
    name: str, module: str, game: str, *, aec_id: str | None = None, gym_id: str | None = None
) -> EnvSpec:
    """Add a row to the env table: ``make(name)`` builds ``module.env(**kw)`` for ``game``.

    Its ids join PettingZoo's and Gymnasium's registries too (now, if pokerzoo's own ids are
    already registered). Re-adding the same row is a no-op; reusing a name or id for a
    different env raises ``ConfigError``.
    """
    spec = EnvSpec(name, module, game, aec_id, gym_id)
    entry_points.split(spec.entry_point)
    clashes = sorted(
        other.name for other in ENVS.values()
        if other != spec and (other.name == name or _shared_id(other, spec))
    )
    if clashes:
        raise ConfigError(
            f"env {name!r} (ids {aec_id!r}, {gym_id!r}) reuses the name or an id of {clashes}; "
            f"names and ids in use are {_ids_in_use()}"
        )
    ENVS[name] = spec
    from pokerzoo.envs import registration  # registration imports this module

    registration.register_spec(spec)
    return spec


def _shared_id(a: EnvSpec, b: EnvSpec) -> bool:
    return bool({a.aec_id, a.gym_id} & {b.aec_id, b.gym_id} - {None})


def _ids_in_use() -> list[str]:
    return sorted(i for spec in ENVS.values() for i in (spec.name, spec.aec_id, spec.gym_id) if i)


def registered_envs() -> list[str]:
    """Names accepted by ``make``, from the table (imports no env module)."""
    return sorted(ENVS)


_VERSIONED = re.compile(r"(?P<base>.+)_v(?P<version>[0-9]+)")


def latest_versions() -> dict[str, str]:
    """Unversioned name -> the newest versioned env of that name, from the table: ``make``
    accepts ``"leduc_holdem"`` for ``"leduc_holdem_v0"`` as PettingZoo's registry resolves
    ``"classic/leduc_holdem"`` (Gymnasium resolves ``"pokerzoo/LeducHoldem"`` the same way).

    >>> latest_versions()["kuhn_poker"]
    'kuhn_poker_v0'
    """
    newest: dict[str, tuple[int, str]] = {}
    for name in ENVS:
        match = _VERSIONED.fullmatch(name)
        if match:
            base, version = match["base"], int(match["version"])
            if base not in newest or version > newest[base][0]:
                newest[base] = (version, name)
    return {base: name for base, (_, name) in newest.items()}


def env_spec(name: str) -> EnvSpec:
    """The table row of env ``name`` (or, for a name without ``_vN``, of its latest version);
    ``ConfigError`` naming the closest and the available names otherwise (imports no env
    module)."""
    try:
        return ENVS[name]
    except (KeyError, TypeError):  # TypeError: an unhashable name
        pass
    latest = latest_versions()
    if isinstance(name, str) and name in latest:
        return ENVS[latest[name]]
    error = entry_points.unknown_name("env", name, ENVS, listed_as="available")
    raise ConfigError(f"{error}; without _vN, {sorted(latest)} name their latest versions")


def env_module(name: str) -> Any:
    """The module of the named env (with ``env`` and ``raw_env``)."""
    return importlib.import_module(env_spec(name).module)


def make(name: str, *, raw: bool = False, **kwargs: Any) -> Any:
    """Create a named AEC env, e.g. ``make("leduc_holdem_v0", num_ranks=5)``.

    Args:
        name: a name from ``registered_envs()``, or one without its ``_vN`` suffix for the
            latest version (``make("leduc_holdem")``).
        raw: build ``raw_env`` (illegal actions raise) instead of ``env``.
        **kwargs: game parameters and env options (``render_mode``, ``illegal_reward``, ...).

    Raises:
        ConfigError: for an unknown name (listing the available envs) or unknown parameters
            (listing the game's parameters and the env options).
    """
    spec = env_spec(name)
    build = entry_points.load(spec.raw_entry_point if raw else spec.entry_point)
    return build(**dict(spec.kwargs), **kwargs)


_add_games()
