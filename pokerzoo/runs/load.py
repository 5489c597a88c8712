"""A saved agent rebuilds itself: ``load_agent(path)`` for a checkpoint or a run folder.

Like Stable-Baselines3's ``PPO.load``: the checkpoint's header records how the agent was built
(agent and its parameters, seed, game and its parameters, and the view of the game the agent
was given; for a ``train.py --env`` run, the env factory ``"MODULE:FACTORY"`` as ``env`` in
place of the game), so loading needs nothing but the path. It is the one way the scripts and
evaluators restore an agent. Loading runs no code (see ``pokerzoo.checkpoint``).

>>> import tempfile, pathlib
>>> from pokerzoo.agents.registry import make_agent
>>> from pokerzoo.games.registry import load_game
>>> agent = make_agent("cfr+", load_game("kuhn_poker"), seed=0)
>>> agent.iterate(10)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "cfr.pzc"
>>> agent.save(path)
>>> again = load_agent(path)
>>> again.name, again.iteration
('cfr+', 10)
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, cast

from pokerzoo.agents.base import Agent
from pokerzoo.agents.registry import agent_spec, make_agent, make_env_agent
from pokerzoo.checkpoint import CHECKPOINT_FILE, find_run_checkpoint, plain_data, read_header
from pokerzoo.errors import CheckpointError, ConfigError
from pokerzoo.games.base import Game
from pokerzoo.games.registry import load_game
from pokerzoo.runs.config import SAMPLING_UNITS
from pokerzoo.runs.folder import read_run_config
from pokerzoo.runs.foreign import is_env_spec
from pokerzoo.torch_arithmetic import use_portable_arithmetic

GAME_VIEWS = ("full", "agent", "interactive")
"""What an agent is given of its game: the game itself (``full``; also an unknown game's
oracle), an unknown-environment game's ``agent_view()`` (``agent``: the prior, no d*) or its
``interaction_view()`` (``interactive``: it plays d*, counted, without seeing it)."""

_BUILD_FIELDS = ("agent", "agent_params", "seed", "game", "game_params", "game_view")
_ENV_BUILD_FIELDS = ("agent", "agent_params", "seed", "env")
"""A build record on a foreign AEC env (``pokerzoo.runs.foreign``) names the env factory."""


def game_view_name(agent: str, agent_params: dict[str, Any], game: Game) -> str:
    """The view of ``game`` that ``train.py`` hands agent ``agent``: the game itself unless
    its model is hidden; then the oracle's full game, or a view without d* (an interaction
    view for learners that learn by playing)."""
    if not game.game_type.hidden_model or agent_spec(agent).wants_oracle(agent_params):
        return "full"
    return "interactive" if agent_spec(agent).units in SAMPLING_UNITS else "agent"


def game_view(game: Game, view: str) -> Game:
    """``game`` as an agent is given it under ``view`` (one of ``GAME_VIEWS``)."""
    if view not in GAME_VIEWS:
        raise ConfigError(f"game view must be one of {GAME_VIEWS}, got {view!r}")
    if view == "full":
        return game
    if not game.game_type.hidden_model:
        raise ConfigError(f"{game!r} has no hidden model, so no {view!r} view")
    hidden = cast(Any, game)  # a hidden-model game (game_type says so) has both views
    return hidden.interaction_view() if view == "interactive" else hidden.agent_view()


def build_agent(build: dict[str, Any]) -> Agent:
    """Build (untrained) the agent a build record describes (with the torch arithmetic it
    was trained with: ``pokerzoo.torch_arithmetic``)."""
    if build.get("portable_arithmetic"):
        use_portable_arithmetic(f"the {build.get('agent')} agent (trained so)")
    if build.get("env") is not None:
        from pokerzoo.evaluation.aec_matches import load_env_factory

        agent = make_env_agent(build["agent"], load_env_factory(build["env"]), build["seed"],
                               dict(build["agent_params"] or {}))
        agent.build = dict(build)
        return agent
    game = load_game(build["game"], **(build["game_params"] or {}))
    learner = game_view(game, build["game_view"])
    agent = make_agent(build["agent"], learner, seed=build["seed"],
                       **(build["agent_params"] or {}))
    agent.build = dict(build)
    return agent


def load_agent(path: str | os.PathLike) -> Agent:
    """The agent saved at ``path`` (a checkpoint, or a run folder holding one), rebuilt as it
    was built and restored to where it was saved.

    Raises:
        CheckpointError: the file is not a readable pokerzoo checkpoint, or records no way to
            rebuild its agent (saved before pokerzoo recorded it, outside a run folder, or by
            an agent built with its constructor), naming what is missing.
        FileNotFoundError: no such path, or a folder without a checkpoint.
    """
    path = Path(path)
    config: dict[str, Any] | None = None
    if path.is_dir():
        checkpoint = find_run_checkpoint(path)
        if checkpoint is None:
            raise FileNotFoundError(f"{path} holds no checkpoint ({CHECKPOINT_FILE})")
        config = read_run_config(path)
    elif path.exists():
        checkpoint = path
        if path.parent.joinpath("config.json").is_file() and path.name == CHECKPOINT_FILE:
            config = read_run_config(path.parent)
    else:
        raise FileNotFoundError(f"no checkpoint or run folder at {path}")
    header = read_header(checkpoint)
    build = _build_record(header, config, checkpoint)
    agent = build_agent(build)
    agent.load(checkpoint)
    return agent


def _build_record(header: dict[str, Any], config: dict[str, Any] | None,
                  path: Path) -> dict[str, Any]:
    """The checkpoint's build record, completed by its run folder's ``config.json`` (older
    checkpoints, and agents built on a view of a hidden model, need it for the game)."""
    recorded = header["meta"].get("build")
    build: dict[str, Any] = dict(recorded) if isinstance(recorded, dict) else {}
    if (is_env_spec(config["game"]) if config is not None else build.get("env") is not None):
        return _env_build_record(build, config, path)
    if config is not None:
        game = load_game(config["game"], **config.get("game_params", {}))
        params = config.get("agent_params", {})
        from_folder = {
            "agent": config["agent"], "agent_params": params, "seed": config.get("seed", 0),
            "game": config["game"], "game_params": config.get("game_params", {}),
            "game_view": game_view_name(config["agent"], params, game),
        }
        if build:
            # A checkpoint moved into another run's folder must not be rebuilt as that run.
            differ = [k for k in ("agent", "agent_params", "seed")
                      if _as_json(from_folder[k]) != _as_json(build.get(k))]
            if differ:
                raise CheckpointError(
                    f"{path} records {', '.join(f'{k}={build.get(k)!r}' for k in differ)} but "
                    f"its run folder's config.json says "
                    f"{', '.join(f'{k}={from_folder[k]!r}' for k in differ)}: the run folder "
                    "and checkpoint do not belong together"
                )
        # The folder names the game (a record made on a view of a hidden model cannot).
        build = {**build, **from_folder}
    missing = [k for k in _BUILD_FIELDS if build.get(k) is None and k != "agent_params"
               and not (k == "game_params" and build.get("game") is not None)]
    if missing:
        raise CheckpointError(
            f"{path} does not record how to rebuild its agent (missing: {', '.join(missing)}): "
            "it was saved by an older pokerzoo, outside a run folder, or by an agent built "
            "with its constructor; load its run folder (with config.json), or build the agent "
            "with make_agent(...) and call agent.load(path)"
        )
    if build["agent"] != header["agent"]:
        raise CheckpointError(
            f"{path} holds a {header['agent']!r} agent but its record names "
            f"{build['agent']!r}; the run folder and checkpoint do not belong together"
        )
    if not isinstance(build.get("agent_params") or {}, dict) or not isinstance(
        build.get("game_params") or {}, dict
    ):
        raise CheckpointError(f"{path}: its record's parameters are not key-value tables")
    return build


def _env_build_record(build: dict[str, Any], config: dict[str, Any] | None,
                      path: Path) -> dict[str, Any]:
    """The build record of a ``train.py --env`` run: its folder's agent, parameters, seed and
    env factory (a checkpoint's own record, where it has one, must agree), else the
    checkpoint's record alone."""
    if config is None:
        missing = [k for k in _ENV_BUILD_FIELDS if build.get(k) is None and k != "agent_params"]
        if missing:
            raise CheckpointError(f"{path} does not record how to rebuild its agent (missing: "
                                  f"{', '.join(missing)}); load its run folder")
        return build
    from_folder = {"agent": config["agent"], "agent_params": config.get("agent_params", {}),
                   "seed": config.get("seed", 0), "env": config["game"]}
    differ = [k for k in _ENV_BUILD_FIELDS
              if build and _as_json(from_folder[k]) != _as_json(build.get(k))]
    if differ:
        raise CheckpointError(
            f"{path} records {', '.join(f'{k}={build.get(k)!r}' for k in differ)} but its run "
            f"folder's config.json says {', '.join(f'{k}={from_folder[k]!r}' for k in differ)}: "
            "the run folder and checkpoint do not belong together"
        )
    if not isinstance(from_folder["agent_params"] or {}, dict):
        raise CheckpointError(f"{path}: its record's parameters are not key-value tables")
    return from_folder


def _as_json(value: Any) -> Any:
    """``value`` as JSON reads it back (tuples as lists), to compare a record with a file."""
    return json.loads(json.dumps(plain_data(value), sort_keys=True))
